// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a kernel that spins with upcalls masked while the suite stops
 * and freezes its launcher (park mode, two vCPUs).
 *
 * vCPU 0 masks upcalls and runs a loop that keeps a value in every
 * register and carries the processor's flags from one instruction to the
 * next, for PARK_SECONDS of its own clock, then runs the same count of
 * rounds again and compares: a park that lost or changed any register,
 * or a flag, anywhere in the loop makes the two differ.  vCPU 1 idles
 * meanwhile, in vcpu_idle, until vCPU 0 kicks it.  Only the endovisor's
 * parking (endovisor/park.c) gets either carrier off the processor while
 * the launcher is stopped or its cgroup frozen; the suite checks that it
 * does, and that the kernel then finishes as if nothing had happened.
 */
#include "hostile.h"

#define PARK_SECONDS	6
#define PARK_CHUNK	4096	/* rounds a chunk: one stretch of asm */

struct park_state {
	u64 r[14];
};

/* parkloop.S */
void park_loop(struct park_state *s, u64 n);

static u64 park_run(struct park_state *s, u64 chunks, u64 deadline)
{
	u64 done;

	for (done = 0; deadline ? vostd_cycles() < deadline : done < chunks; done++)
		park_loop(s, PARK_CHUNK);
	return done;
}

static void park_seed(struct park_state *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->r); i++)
		s->r[i] = 0x9e3779b97f4a7c15ULL * (i + 1);
}

void park_cases(void)
{
	struct park_state a, b;
	unsigned int i, differ = 0;
	u64 chunks;

	park_seed(&a);
	park_seed(&b);
	vostd_println("hostile: park spinning");
	vostd_upcall_disable();
	chunks = park_run(&a, 0, vostd_cycles() +
			  vostd_ns_to_cycles(PARK_SECONDS * 1000000000ULL));
	park_run(&b, chunks, 0);
	vostd_upcall_enable();
	vostd_println("hostile: park done rounds=%llu", chunks * PARK_CHUNK);
	for (i = 0; i < ARRAY_SIZE(a.r); i++)
		differ += a.r[i] != b.r[i];
	expect("park_registers_kept", 0, differ);
	WRITE_ONCE(H()->park_done, 1);
	call(EV_SVC_VCPU_KICK, 1, 0, 0, 0);
}

/* vCPU 1: asleep in vcpu_idle until vCPU 0 is done. */
void park_ap(void)
{
	while (!READ_ONCE(H()->park_done))
		vostd_idle();
}
