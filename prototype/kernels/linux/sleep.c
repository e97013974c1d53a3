// SPDX-License-Identifier: GPL-2.0
/*
 * Where the linux kernel's threads sleep: the wait queues of pipes,
 * sockets, eventfds and polls, a sleep until a flag or a time, and the
 * mark through which a kill finds every sleeping thread of a process,
 * and a signal the one it is for, on a futex, a pipe or in a wait, and
 * wakes it.  Futexes keep their own list (futex.c).
 */
#include "syscalls.h"

/* Queue w, on its task's stack, on *q for the task: under the lock that covers *q. */
void lx_queue(struct lx_waiter **q, struct lx_waiter *w)
{
	w->tid = kl_self();
	w->next = *q;
	w->queued = true;
	*q = w;
}

/* Take w off *q if no wake took it first: under the lock that covers *q. */
void lx_unqueue(struct lx_waiter **q, struct lx_waiter *w)
{
	struct lx_waiter **pw;

	for (pw = q; w->queued && *pw; pw = &(*pw)->next) {
		if (*pw == w) {
			*pw = w->next;
			w->queued = false;
			break;
		}
	}
}

/*
 * Wake every task queued on *q, under the lock that covers it: each looks
 * again at what it waits for when it runs.  A guard, which that lock is
 * held in, holds their switches until the unlock.
 */
void lx_wake_all(struct lx_waiter **q)
{
	struct lx_waiter *w;

	for (w = *q; w; w = w->next) {
		w->queued = false;
		kl_wake(w->tid);
	}
	*q = NULL;
}

/*
 * Sleep on *q, covered by lock, which the caller holds in a guard, until
 * a wake, a kill or a signal; back with the lock held and off the queue.
 * w is on this stack: a waker touches it only under lock, which is taken
 * again before w goes.  What *q belongs to must outlive the sleep: the
 * caller's file holds it.
 */
void lx_block_on(struct thread *t, vostd_spinlock_t *lock, struct lx_waiter **q)
{
	struct lx_waiter w;

	lx_queue(q, &w);
	kl_spin_unlock(lock);
	lx_sleeping(t);
	if (!thread_interrupted(t))
		kl_block();
	lx_awake(t);
	kl_spin_lock(lock);
	lx_unqueue(q, &w);
}

/*
 * t sleeps until *flag is until (no flag: never), a kill or a signal for
 * it, or deadline (lx_now_ns's ns; 0: none) passes; a waker sets the flag
 * before its wake.  A timed sleep blocks on the kernelet's timer
 * (kl_block_until).
 */
void lx_sleep_until(struct thread *t, const bool *flag, bool until, u64 deadline)
{
	u64 at = deadline ? lx_cycles_at(deadline) : 0;

	lx_sleeping(t);
	while ((!flag || READ_ONCE(*flag) != until) && !thread_interrupted(t)) {
		if (deadline && lx_now_ns() >= deadline)
			break;
		kl_block_until(at);
	}
	lx_awake(t);
}

/*
 * The calling thread t is about to sleep: a kill (lx_wake_sleepers) or a
 * signal for it (signal.c) wakes it from now on.  It checks
 * thread_interrupted after this and before it sleeps; the waker sets its
 * mark before it looks, under the same lock, so one of the two sees the
 * other.
 */
void lx_sleeping(struct thread *t)
{
	procs_lock();
	t->sig.sleeper = kl_self();
	procs_unlock();
}

void lx_awake(struct thread *t)
{
	procs_lock();
	t->sig.sleeper = 0;
	procs_unlock();
}

/* Wake every thread of p that sleeps, the table's lock held. */
void lx_wake_sleepers_locked(struct proc *p)
{
	struct thread *th;
	int i;

	for (i = 0; p->os && i < LX_THREADS_MAX; i++) {
		th = lxp(p)->threads[i];
		if (th && th->sig.sleeper)
			kl_wake(th->sig.sleeper);
	}
}

/* Wake every thread of p that sleeps: p is ending, and each must see it. */
void lx_wake_sleepers(struct proc *p)
{
	procs_lock();
	lx_wake_sleepers_locked(p);
	procs_unlock();
}
