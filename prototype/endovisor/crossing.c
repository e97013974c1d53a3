// SPDX-License-Identifier: GPL-2.0
/*
 * Timing the crossing.  At every sandbox's start, vCPU 0's carrier measures
 * what the stub adds to a service call: the do-nothing service called
 * directly through the service table from Linux's stack (crossing.direct),
 * against the same call made from a sandbox stack through the crossing, as
 * a sandbox kernel makes it: a direct call of the service's own crossing,
 * ev_stub_cross_nop (crossing.stub).  Two variants show what that saved:
 * a direct call of the generic crossing, ev_stub_cross, which picks the
 * service with a switch (crossing.stub_switch), and the crossing as it
 * was, called through a pointer as sandbox kernels once called it through
 * shared->cross, which called the service through the table
 * (crossing.stub_table).  Preemption is off so Linux cannot switch the
 * carrier in a round.  Interrupts stay on, as every crossing makes them
 * (stub/cross.S); they and the machine beneath the guest can still take
 * the processor, so of EV_CROSSING_ROUNDS rounds the cheapest is kept.
 * Each figure goes into the sandbox's log with a stable key.
 */
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <asm/msr.h>

#include "endovisor.h"
#include "ev_report.h"
#include "ev_stub.h"

#define EV_CROSSING_ROUNDS	8
#define EV_CROSSING_CALLS	2000
/*
 * The timed loops start a page of their own (the one the compiler places
 * first is aligned, the others follow it), wherever the linker puts this
 * file.  Under emulation
 * their figures depend on where the code lies: QEMU chains its translated
 * blocks only within a page, and when unrelated code moved a loop across a
 * page boundary, or to another place on it, a figure moved by 30% to 85%.
 */
#define EV_CROSSING_ALIGN	PAGE_SIZE

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

/* Each runs on the vCPU's boot stack, where sandbox code runs. */
static long ev_crossing_round_stub(void *arg)
{
	u64 t0, t1;
	int i;

	t0 = rdtsc_ordered();
	for (i = 0; i < EV_CROSSING_CALLS; i++)
		ev_stub_cross_nop(EV_SVC_NOP, 0, 0, 0, 0, 0);
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static long ev_crossing_round_switch(void *arg)
{
	u64 t0, t1;
	int i;

	t0 = rdtsc_ordered();
	for (i = 0; i < EV_CROSSING_CALLS; i++)
		ev_stub_cross(EV_SVC_NOP, 0, 0, 0, 0, 0);
	t1 = rdtsc_ordered();
	return t1 - t0;
}

/* Through a pointer the compiler cannot see through: arg is the crossing. */
static __aligned(EV_CROSSING_ALIGN) long ev_crossing_round_pointer(void *arg)
{
	ev_cross_fn volatile cross = arg;
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
		      "[endovisor] " EV_FIG_BEST("crossing.%s", "%llu.%llu", "%d", "%d") "\n",
		      key, t / 10, t % 10, EV_CROSSING_ROUNDS, EV_CROSSING_CALLS);
	pr_info("endovisor: sandbox %llu crossing.%s %llu.%llu cycles per call\n",
		v->sb->id, key, t / 10, t % 10);
}

/* One round of a variant: cycles of EV_CROSSING_CALLS calls. */
static u64 ev_crossing_round(struct ev_vcpu *v, unsigned int variant)
{
	unsigned long sp = (unsigned long)v->boot_stack + EV_STACK_SIZE;

	switch (variant) {
	case 0:
		return ev_crossing_round_direct(v);
	case 1:
		return ev_stub_enter(v, ev_crossing_round_stub, NULL, sp);
	case 2:
		return ev_stub_enter(v, ev_crossing_round_switch, NULL, sp);
	default:
		return ev_stub_enter(v, ev_crossing_round_pointer, ev_stub_cross_table, sp);
	}
}

/*
 * Each round times every variant, in an order that turns with the round,
 * so that the cheapest of the rounds does not depend on which variant
 * ran before which.
 */
void ev_crossing_calibrate(struct ev_vcpu *v)
{
	static const char *const keys[] = { "direct", "stub", "stub_switch", "stub_table" };
	u64 best[ARRAY_SIZE(keys)];
	unsigned int round, k;

	for (k = 0; k < ARRAY_SIZE(keys); k++)
		best[k] = U64_MAX;
	ev_nop_direct = ev_service_table[EV_SVC_NOP];
	preempt_disable();
	for (round = 0; round < EV_CROSSING_ROUNDS; round++) {
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			unsigned int variant = (round + k) % ARRAY_SIZE(keys);

			u64 t = ev_crossing_round(v, variant);

			best[variant] = min(best[variant], t);
		}
	}
	preempt_enable();
	for (k = 0; k < ARRAY_SIZE(keys); k++)
		ev_crossing_report(v, keys[k], best[k]);
}
