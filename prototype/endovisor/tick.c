// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox's tick: a timer that fires once a millisecond while any of
 * its vCPUs runs.  It has five jobs, each its subsystem's:
 *
 *  - teardown: a carrier with a fatal signal pending is sent out of
 *    sandbox code (ev_tick_dying, below);
 *  - parking: one with another signal pending (a stop, the freezer) is
 *    sent out to be stopped or frozen, and comes back (park.c);
 *  - kicks: a kick stranded since the last tick is sent again
 *    (ev_kick_stranded, kick.c);
 *  - the kernel's timer: a vCPU whose timer_at has passed is kicked
 *    (ev_kick_timer, kick.c), so a sandbox kernel can take back a vCPU
 *    that a tenant holds, to a millisecond;
 *  - the census: how many of the sandbox's threads Linux has runnable
 *    (ev_census_sample, census.c).
 *
 * A dying creator is found here because nothing else would find it: a
 * carrier with a fatal signal pending begins the sandbox's teardown
 * (sb->ending), gets its bail word set, so that the next crossing's return
 * leaves sandbox code instead of going back to it, and is interrupted so
 * that kick.c can send it out of sandbox code if that is where it is
 * (ev_abandon_divert): this processor's through the tick's own
 * interrupted registers, another's with the kick's interrupt.  A kill thus
 * ends a carrier within a tick of the end of the service it is in, and
 * services that can take long stop early for a fatal signal.
 */
#include <asm/irq_regs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "endovisor.h"
#include "ev_stub.h"
#include "kick.h"

#define EV_TICK_PERIOD_NS	NSEC_PER_MSEC

/*
 * v's carrier c must die: the sandbox is ending, and c must leave sandbox
 * code.  In a service, the crossing's return does it (the bail word, if no
 * suspend has claimed it); in sandbox code, the interrupt.
 */
static void ev_tick_dying(struct ev_sandbox *sb, struct ev_vcpu *v, struct task_struct *c)
{
	int cpu = READ_ONCE(v->cpu);

	WRITE_ONCE(sb->ending, true);
	cmpxchg(&v->bail, 0, EV_BAIL_ABANDON);
	if (c == current)
		ev_abandon_divert(v, get_irq_regs());
	else if (READ_ONCE(v->carrying) && cpu >= 0 && cpu != smp_processor_id())
		ev_kick_interrupt(v, cpu);
}

static enum hrtimer_restart ev_tick(struct hrtimer *t)
{
	struct ev_sandbox *sb = container_of(t, struct ev_sandbox, tick);
	unsigned int i;

	/* Task structs are freed after a grace period: safe to look at here. */
	rcu_read_lock();
	for (i = 0; i < sb->nr_vcpus; i++) {
		struct ev_vcpu *v = sb->vcpus[i];
		struct task_struct *c = READ_ONCE(v->carrier);

		if (!c)
			continue;
		if (fatal_signal_pending(c)) {
			ev_tick_dying(sb, v, c);
		} else if (signal_pending(c)) {
			ev_park_request(v, c);	/* a stop or the freezer: park.c */
		} else {
			ev_kick_stranded(v, get_irq_regs());
			ev_kick_timer(v, get_irq_regs());
		}
	}
	ev_census_sample(sb);
	rcu_read_unlock();
	hrtimer_forward_now(t, ns_to_ktime(EV_TICK_PERIOD_NS));
	return HRTIMER_RESTART;
}

void ev_tick_init(struct ev_sandbox *sb)
{
	hrtimer_init(&sb->tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	sb->tick.function = ev_tick;
}

/* The first carrier is in: start ticking. sb->lock held. */
void ev_tick_start(struct ev_sandbox *sb)
{
	hrtimer_start(&sb->tick, ns_to_ktime(EV_TICK_PERIOD_NS), HRTIMER_MODE_REL_HARD);
}

/* The last carrier is out. sb->lock held. */
void ev_tick_stop(struct ev_sandbox *sb)
{
	hrtimer_cancel(&sb->tick);
}
