// SPDX-License-Identifier: GPL-2.0
/*
 * What Linux sees of a sandbox.  However many tasks the sandbox kernel
 * runs, Linux schedules only the threads of the process that created the
 * sandbox: its carriers, and whatever else that process runs (the launcher's
 * log reader).  While any vCPU runs, a timer counts once a millisecond how
 * many of those threads are on a Linux run queue (on_rq, queued or being
 * migrated between queues), and keeps the
 * largest count; with the stolen time the preempt notifier accounts
 * (kick.c), it is what the fairness chapter reports.
 *
 * The same tick watches for a creator that is dying: a carrier with a
 * fatal signal pending begins the sandbox's teardown (sb->ending), gets
 * its bail word set, so that the next crossing's return leaves sandbox code
 * instead of going back to it, and is interrupted so that kick.c can send
 * it out of sandbox code if that is where it is (ev_abandon_divert): this
 * processor's through the tick's own interrupted registers, another's with
 * the kick's interrupt.  A kill thus ends a carrier within a tick of the
 * end of the service it is in, and services that can take long stop early
 * for a fatal signal.
 */
#include <asm/irq_regs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include <linux/slab.h>

#include "endovisor.h"
#include "ev_stub.h"

#define EV_CENSUS_PERIOD_NS	NSEC_PER_MSEC

/*
 * v's carrier c must die: the sandbox is ending, and c must leave sandbox
 * code.  In a service, the crossing's return does it (the bail word, if no
 * suspend has claimed it); in sandbox code, the interrupt.
 */
static void ev_census_dying(struct ev_sandbox *sb, struct ev_vcpu *v, struct task_struct *c)
{
	int cpu = READ_ONCE(v->cpu);

	WRITE_ONCE(sb->ending, true);
	cmpxchg(&v->bail, 0, EV_BAIL_ABANDON);
	if (c == current)
		ev_abandon_divert(v, get_irq_regs());
	else if (READ_ONCE(v->carrying) && cpu >= 0 && cpu != smp_processor_id())
		ev_kick_interrupt(v, cpu);
}

/*
 * A kick still pending a tick later, with no kick since and nothing that
 * would take it by itself (a masked vCPU takes it when it unmasks, an idle
 * one when it wakes), was stranded: send it again.
 */
static void ev_census_kick(struct ev_vcpu *v)
{
	u64 kicks = atomic64_read(&v->kicks);
	bool stranded = READ_ONCE(v->carrying) && !READ_ONCE(v->idling) &&
			READ_ONCE(v->shared->kick_pending) &&
			(READ_ONCE(v->in_tenant) || !READ_ONCE(v->shared->upcall_mask)) &&
			kicks == v->census_kicks;

	v->census_kicks = kicks;
	if (stranded)
		ev_kick_retry(v, get_irq_regs());
}

static enum hrtimer_restart ev_census_tick(struct hrtimer *t)
{
	struct ev_sandbox *sb = container_of(t, struct ev_sandbox, census_timer);
	struct task_struct *p;
	u32 threads = 0, carriers = 0;
	unsigned int i;

	/* Task structs are freed after a grace period: safe to look at here. */
	rcu_read_lock();
	for_each_thread(sb->leader, p)
		if (READ_ONCE(p->on_rq))
			threads++;
	for (i = 0; i < sb->nr_vcpus; i++) {
		struct ev_vcpu *v = sb->vcpus[i];
		struct task_struct *c = READ_ONCE(v->carrier);

		if (!c)
			continue;
		if (READ_ONCE(c->on_rq))
			carriers++;
		if (fatal_signal_pending(c))
			ev_census_dying(sb, v, c);
		else
			ev_census_kick(v);
	}
	rcu_read_unlock();
	sb->census_samples++;
	sb->census_sum += carriers;
	sb->census_max = max(sb->census_max, carriers);
	sb->census_max_threads = max(sb->census_max_threads, threads);
	hrtimer_forward_now(t, ns_to_ktime(EV_CENSUS_PERIOD_NS));
	return HRTIMER_RESTART;
}

void ev_census_init(struct ev_sandbox *sb)
{
	hrtimer_init(&sb->census_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	sb->census_timer.function = ev_census_tick;
}

/* The first carrier is in: start counting. sb->lock held. */
void ev_census_start(struct ev_sandbox *sb)
{
	hrtimer_start(&sb->census_timer, ns_to_ktime(EV_CENSUS_PERIOD_NS),
		      HRTIMER_MODE_REL_HARD);
}

/* The last carrier is out. sb->lock held. */
void ev_census_stop(struct ev_sandbox *sb)
{
	hrtimer_cancel(&sb->census_timer);
}

void ev_stats_read(struct ev_sandbox *sb, struct ev_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	mutex_lock(&sb->lock);
	st->nr_vcpus = sb->nr_vcpus;
	st->census_max = sb->census_max;
	st->census_max_threads = sb->census_max_threads;
	st->census_samples = sb->census_samples;
	st->census_sum = sb->census_sum;
	for (i = 0; i < sb->nr_vcpus && i < ARRAY_SIZE(st->vcpu); i++) {
		struct ev_vcpu *v = sb->vcpus[i];

		st->vcpu[i] = v->stats;
		st->vcpu[i].kicks = atomic64_read(&v->kicks);
		st->vcpu[i].ipis = atomic64_read(&v->ipis);
		st->vcpu[i].wakeups = atomic64_read(&v->wakeups);
		st->mem_bytes += ksize(v) + PAGE_SIZE + EV_STACK_SIZE;
	}
	mutex_unlock(&sb->lock);
	st->mem_bytes += ksize(sb) + PAGE_SIZE + sb->log.size + ev_heap_table_bytes(&sb->heap) +
			 ev_grant_set_bytes(&sb->grant);
}
