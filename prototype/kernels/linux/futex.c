// SPDX-License-Identifier: GPL-2.0
/*
 * Where the linux kernel's threads sleep: futexes, which glibc's threads
 * wait on (a lock's word, a thread's id as it ends), and the mark through
 * which a kill finds every sleeping thread of a process, and a signal the
 * one it is for, on a futex, a pipe or in a wait, and wakes it.  A futex
 * is private to its process: its key is the process and the address,
 * since no memory here is shared between two.
 */
#include "syscalls.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256

/* A thread waiting on a futex: a node on its own stack, in lx()->futexes. */
struct lx_futex_waiter {
	struct proc *p;
	unsigned long uaddr;
	u32 bitset;
	kl_tid_t tid;
	bool woken;
	struct lx_futex_waiter *next;
};

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

/* Wake every thread of p that sleeps: p is ending, and each must see it. */
void lx_wake_sleepers(struct proc *p)
{
	struct thread *th;
	int i;

	procs_lock();
	for (i = 0; p->os && i < LX_THREADS_MAX; i++) {
		th = lxp(p)->threads[i];
		if (th && th->sig.sleeper)
			kl_wake(th->sig.sleeper);
	}
	procs_unlock();
}

/* Wake up to n waiters on p's futex at uaddr whose bitset meets bitset: how many. */
static long futex_wake(struct proc *p, unsigned long uaddr, long n, u32 bitset)
{
	struct lx_futex_waiter **pw, *w;
	long woken = 0;

	procs_lock();
	for (pw = &lx()->futexes; (w = *pw) && woken < n;) {
		kl_tid_t tid = w->tid;

		if (w->p != p || w->uaddr != uaddr || !(w->bitset & bitset)) {
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		/* The waiter may return once woken is set; it takes the lock first. */
		WRITE_ONCE(w->woken, true);
		kl_wake(tid);
		woken++;
	}
	procs_unlock();
	return woken;
}

static void futex_unqueue(struct lx_futex_waiter *me)
{
	struct lx_futex_waiter **pw;

	procs_lock();
	for (pw = &lx()->futexes; *pw; pw = &(*pw)->next)
		if (*pw == me) {
			*pw = me->next;
			break;
		}
	procs_unlock();
}

/*
 * Sleep while the word at uaddr holds val, until a wake, a kill, or the
 * time deadline (ns since the sandbox began; 0: none) has passed.  The
 * waiter is queued before the word is read, so a wake after the read
 * finds it: no wake is lost between the read and the sleep.
 */
static long futex_wait(struct thread *t, unsigned long uaddr, u32 val, u64 deadline, u32 bitset)
{
	struct proc *p = t->p;
	struct lx_futex_waiter me = { .p = p, .uaddr = uaddr, .bitset = bitset, .tid = kl_self() };
	u32 cur;

	procs_lock();
	me.next = lx()->futexes;
	lx()->futexes = &me;
	procs_unlock();
	if (mem_user_copy(p, uaddr, &cur, sizeof(cur), MEM_READ)) {
		futex_unqueue(&me);
		return -EFAULT;
	}
	if (cur != val) {
		futex_unqueue(&me);
		return -EAGAIN;
	}
	lx_sleeping(t);
	while (!READ_ONCE(me.woken) && !thread_interrupted(t)) {
		if (!deadline) {
			kl_block();
			continue;
		}
		/* The kernelet has no timers for tasks: a timed wait yields until its time. */
		if (lx_now_ns() >= deadline)
			break;
		kl_yield();
	}
	lx_awake(t);
	futex_unqueue(&me);	/* nothing, if a wake took it off */
	if (READ_ONCE(me.woken))
		return 0;
	if (!thread_interrupted(t))
		return -ETIMEDOUT;
	/* Linux restarts an untimed wait; a timed one it ends with -EINTR here. */
	return deadline ? -EINTR : -ERESTARTSYS;
}

LX_PARTIAL(futex, "only WAIT, WAKE and their BITSET forms; requeue, wake-op and PI ops -ENOSYS");
LX_SYSCALL_DEFINE6(futex, unsigned long, uaddr, int, op, u32, val, unsigned long, utime,
		   unsigned long, uaddr2, u32, val3)
{
	u64 ts[2], deadline = 0;
	long cmd = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);

	if (uaddr & 3)
		return -EINVAL;
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (cmd == FUTEX_WAIT_BITSET && !val3)
			return -EINVAL;
		if (utime) {
			if (mem_user_copy(t->p, utime, ts, sizeof(ts), MEM_READ))
				return -EFAULT;
			if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
				return -EINVAL;
			/* FUTEX_WAIT's time is relative; FUTEX_WAIT_BITSET's is a clock's. */
			deadline = min(ts[0], 1000000ULL) * 1000000000 + ts[1];
			if (cmd == FUTEX_WAIT)
				deadline += lx_now_ns();
			deadline = deadline ?: 1;
		}
		return futex_wait(t, uaddr, val, deadline, cmd == FUTEX_WAIT ? ~0U : val3);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (cmd == FUTEX_WAKE_BITSET && !val3)
			return -EINVAL;
		return futex_wake(t->p, uaddr, (int)val, cmd == FUTEX_WAKE ? ~0U : val3);
	}
	/* requeue, wake-op, priority inheritance: glibc's threads do without */
	return -ENOSYS;
}

/*
 * A thread is leaving (proc's thread_exit_hook): the word set_tid_address
 * or clone named is zeroed and its waiter woken, which is how
 * pthread_join learns that the thread has ended.  Not when the whole
 * process is ending: nobody is left to look.
 */
void lx_thread_exit(struct thread *t)
{
	u32 zero = 0;

	lx_thread_remove(t);	/* no signal finds it any more */
	if (!t->clear_tid || READ_ONCE(t->p->killed) || READ_ONCE(t->p->threads) <= 1)
		return;
	if (!mem_user_copy(t->p, t->clear_tid, &zero, sizeof(zero), MEM_WRITE))
		futex_wake(t->p, t->clear_tid, 1, ~0U);
}
