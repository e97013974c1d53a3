// SPDX-License-Identifier: GPL-2.0
/*
 * Timing the crossing.  At every sandbox's start, vCPU 0's carrier measures
 * what the stub adds to a service call: the do-nothing service called
 * directly through the service table from Linux's stack, against the same
 * call made from a sandbox stack through ev_stub_cross.  Interrupts are off
 * so neither Linux nor the endovisor can take the processor in a round; the
 * machine beneath the guest still can, so of seven rounds the cheapest is
 * kept.  Both figures go into the sandbox's log with stable keys.
 */
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/smp.h>
#include <asm/msr.h>

#include "endovisor.h"
#include "ev_stub.h"

#define EV_CROSSING_ROUNDS	7
#define EV_CROSSING_CALLS	2000

/* Called through a pointer the compiler cannot see through, as the stub does. */
static ev_service_fn volatile ev_nop_direct;

static u64 ev_crossing_round_direct(struct ev_vcpu *v)
{
	u64 t0, t1;
	int i;

	t0 = rdtsc_ordered();
	for (i = 0; i < EV_CROSSING_CALLS; i++)
		ev_nop_direct(v, 0, 0, 0, 0, 0);
	t1 = rdtsc_ordered();
	return t1 - t0;
}

/* Runs on the vCPU's boot stack, where sandbox code runs. */
static long ev_crossing_round_stub(void *arg)
{
	struct ev_vcpu_shared *shared = arg;
	ev_cross_fn volatile cross = shared->cross;
	u64 t0, t1;
	int i;

	t0 = rdtsc_ordered();
	for (i = 0; i < EV_CROSSING_CALLS; i++)
		cross(EV_SVC_NOP, 0, 0, 0, 0, 0);
	t1 = rdtsc_ordered();
	return t1 - t0;
}

/* Cycles per call, in tenths, for a total over EV_CROSSING_CALLS calls. */
static u64 ev_tenths_per_call(u64 total)
{
	return DIV_ROUND_CLOSEST_ULL(total * 10, EV_CROSSING_CALLS);
}

static void ev_crossing_report(struct ev_vcpu *v, const char *key, u64 best)
{
	u64 t = ev_tenths_per_call(best);

	ev_log_printf(&v->sb->log,
		      "[endovisor] EVFIG crossing.%s value=%llu.%llu stat=min unit=cycles rounds=%d calls=%d\n",
		      key, t / 10, t % 10, EV_CROSSING_ROUNDS, EV_CROSSING_CALLS);
	pr_info("endovisor: sandbox %llu crossing.%s %llu.%llu cycles per call\n",
		v->sb->id, key, t / 10, t % 10);
}

void ev_crossing_calibrate(struct ev_vcpu *v)
{
	unsigned long sp = (unsigned long)v->boot_stack + EV_STACK_SIZE;
	u64 direct = U64_MAX, stub = U64_MAX;
	unsigned long flags;
	int round;

	ev_nop_direct = ev_service_table[EV_SVC_NOP];
	local_irq_save(flags);
	for (round = 0; round < EV_CROSSING_ROUNDS; round++) {
		direct = min(direct, ev_crossing_round_direct(v));
		stub = min(stub, (u64)ev_stub_enter(v, ev_crossing_round_stub,
						     v->shared, sp));
	}
	local_irq_restore(flags);

	ev_crossing_report(v, "direct", direct);
	ev_crossing_report(v, "stub", stub);
}
