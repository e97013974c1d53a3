// SPDX-License-Identifier: GPL-2.0
/*
 * The kernelet's timers and time slices, on one timer per vCPU: the
 * shared page's timer_at, a reading of the cycle counter after which the
 * endovisor kicks the vCPU (at the sandbox's next millisecond tick if the
 * vCPU runs, at that time if it sleeps in vcpu_idle).  The kick comes
 * back as an upcall, or ends a tenant's run, as any kick does.
 *
 * A task that calls kl_block_until sleeps on its vCPU's timer list,
 * soonest first, until a wake or its time, whichever comes first; the
 * list's head sets the timer.
 *
 * Time slices.  The kernelet runs a task until it yields, blocks, or a
 * task of higher priority is woken.  Tasks of one priority on one vCPU
 * would then share it only as the running one chose, and a tenant that
 * computes in user mode never chooses: a thread spinning on a flag that
 * another thread of its vCPU must set would spin for ever.  So while a
 * task of the running one's priority or higher is ready, a slice check
 * is armed KL_SLICE_MS ahead; when it falls due, a running task that has
 * held the vCPU since it was armed (no switch since) goes to the back of
 * its queue, and otherwise the check is armed again.  A task thus keeps
 * the vCPU for one to two slices.  A plain switch neither reads the clock
 * nor sets the timer but once in KL_SLICE_REARM switches, when it arms
 * the check again from then: tasks that yield to each other all the time
 * pay next to nothing for slices, and take no kick for them.
 * A vCPU with one task to run arms no check and takes no kick for one.
 */
#include "sched.h"

/* A few of the endovisor's millisecond ticks, as Linux's slices are a few ms. */
#define KL_SLICE_MS	3
/*
 * Switches after which a switch arms the check again, from the clock:
 * tasks that switch often enough never see it fall due, and so take no
 * kick for it, and a switch reads the clock once in this many.
 */
#define KL_SLICE_REARM	16

/* t, blocked until t->wake_at, joins the list in time order. */
void kl_timer_add_locked(struct kl_cpu *c, struct kl_task *t)
{
	struct kl_task **pp = &c->timers;

	while (*pp && (*pp)->wake_at <= t->wake_at)
		pp = &(*pp)->timer_next;
	t->timer_next = *pp;
	*pp = t;
	if (c->timers == t)
		kl_timer_arm_locked(c);
}

/* t was woken before its time: off the list. */
void kl_timer_del_locked(struct kl_cpu *c, struct kl_task *t)
{
	struct kl_task **pp = &c->timers;
	bool first = c->timers == t;

	while (*pp && *pp != t)
		pp = &(*pp)->timer_next;
	if (*pp)
		*pp = t->timer_next;
	t->timer_next = NULL;
	t->wake_at = 0;
	if (first)
		kl_timer_arm_locked(c);
}

/*
 * Every task whose time has come is made ready, which sets the timer
 * again (kl_ready_locked); only c's own vCPU calls this.
 */
void kl_timers_expire_locked(struct kl_cpu *c, u64 now)
{
	while (c->timers && c->timers->wake_at <= now) {
		struct kl_task *t = c->timers;

		c->timers = t->timer_next;
		t->timer_next = NULL;
		t->wake_at = 0;
		c->stats.timer_wakes++;
		kl_ready_locked(c, c, t);
	}
}

/* From kl_run, on c's own vCPU, before it runs a task. */
void kl_slice_init(struct kl_cpu *c)
{
	c->slice_cycles = vostd_ns_to_cycles(KL_SLICE_MS * 1000000ULL);
}

/* Is a task ready that the running one must share the vCPU with? */
static bool kl_contended(struct kl_cpu *c)
{
	unsigned int p;

	if (!c->curr || !kl_slices_on())
		return false;
	for (p = c->curr->prio; p < KL_NR_PRIOS; p++)
		if (c->rq[p].head)
			return true;
	return false;
}

/*
 * A switch on c.  With no check armed, one is if the vCPU is contended
 * now: tasks may have become ready while it idled, or stayed ready behind
 * a task that has just blocked, with no arming since.  With one armed,
 * now and then it starts again from now.
 */
void kl_slice_switch_locked(struct kl_cpu *c)
{
	if (!c->slice_at) {
		kl_timer_arm_locked(c);
	} else if (c->stats.switches - c->slice_switches >= KL_SLICE_REARM) {
		c->slice_at = 0;
		kl_timer_arm_locked(c);
	}
}

/*
 * A kick: if the slice check has fallen due and the running task has
 * held the vCPU since it was armed, while another waited, it yields.  The
 * check is spent either way; kl_timer_arm_locked arms the next.
 */
void kl_slice_check_locked(struct kl_cpu *c, u64 now)
{
	if (!c->slice_at || now < c->slice_at)
		return;
	if (c->stats.switches == c->slice_switches && kl_contended(c)) {
		WRITE_ONCE(c->need_resched, 1);
		c->stats.slices_ended++;
	}
	c->slice_at = 0;
}

/*
 * Set c's timer: the soonest sleeper's time, or the slice check's if
 * that is sooner, armed while another task waits for the vCPU.  Set when
 * the list's head changes, when a task becomes ready (on another vCPU's
 * wake too), after a kick and before the vCPU idles; not at a plain
 * switch, which leaves contention as it was.  A check left armed when
 * contention ends costs one kick, which finds it so and disarms it.
 */
void kl_timer_arm_locked(struct kl_cpu *c)
{
	u64 at = c->timers ? c->timers->wake_at : 0;

	if (!kl_contended(c)) {
		c->slice_at = 0;
	} else {
		if (!c->slice_at) {
			c->slice_at = vostd_cycles() + c->slice_cycles;
			c->slice_switches = c->stats.switches;
		}
		if (!at || c->slice_at < at)
			at = c->slice_at;
	}
	if (c->shared && READ_ONCE(c->shared->timer_at) != at)
		WRITE_ONCE(c->shared->timer_at, at);
}
