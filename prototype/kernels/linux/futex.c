// SPDX-License-Identifier: GPL-2.0
/*
 * Where the linux kernel's threads sleep: futexes, which glibc's threads
 * wait on (a lock's word, a thread's id as it ends), and the mark through
 * which a kill finds every sleeping thread of a process, and a signal the
 * one it is for, on a futex, a pipe or in a wait, and wakes it.  A futex
 * is its process's and its address's, or a shared object's (futex_key).
 * Priority-inheritance locks, handed from owner to sleeper.  And the
 * robust list of each thread, walked as it ends, so that a mutex it died
 * holding is marked so and its next waiter woken.
 */
#include "syscalls.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAITERS		0x80000000
#define FUTEX_OWNER_DIED	0x40000000
#define FUTEX_TID_MASK		0x3fffffff

/*
 * A thread waiting on a futex: a node on its own stack, in lx()->futexes.
 * Its key is what a wake must name: its process and its address, or, for
 * a futex not FUTEX_PRIVATE_FLAG's in a shared area, the shared object
 * and the offset in it, so that two processes mapping the object meet
 * there (Linux's get_futex_key).  The object is compared, never read: a
 * wake after it went, meeting another at its address, is a spurious wake,
 * which every futex caller looks again after.
 */
struct lx_futex_waiter {
	struct proc *p;
	unsigned long uaddr;
	const void *key;
	unsigned long off;
	u32 bitset;
	kl_tid_t tid;
	bool woken;
	long pi_tid;		/* a FUTEX_LOCK_PI waiter's Linux tid; 0: not one */
	struct lx_futex_waiter *next;
};

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

/* The key of p's futex at uaddr: in a shared area's object if shared asks and it is in one. */
static void futex_key(struct proc *p, unsigned long uaddr, bool shared,
		      struct lx_futex_waiter *w)
{
	w->p = p;
	w->uaddr = uaddr;
	if (!shared || !mem_shared_key(p, uaddr, &w->key, &w->off)) {
		w->key = p;
		w->off = uaddr;
	}
}

/* Wake up to n waiters on p's futex at uaddr whose bitset meets bitset: how many. */
static long futex_wake(struct proc *p, unsigned long uaddr, bool shared, long n, u32 bitset)
{
	struct lx_futex_waiter **pw, *w, at;
	long woken = 0;

	futex_key(p, uaddr, shared, &at);
	procs_lock();
	for (pw = &lx()->futexes; (w = *pw) && woken < n;) {
		kl_tid_t tid = w->tid;

		if (w->key != at.key || w->off != at.off || !(w->bitset & bitset)) {
			pw = &w->next;
			continue;
		}
		if (w->pi_tid) {	/* a lock's: only its unlock wakes it, as in Linux */
			woken = -EINVAL;
			break;
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
static long futex_wait(struct thread *t, unsigned long uaddr, bool shared, u32 val, u64 deadline,
		       u32 bitset)
{
	struct proc *p = t->p;
	struct lx_futex_waiter me = { .bitset = bitset, .tid = kl_self() };
	u32 cur;

	futex_key(p, uaddr, shared, &me);
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
	lx_sleep_until(t, &me.woken, true, deadline);
	futex_unqueue(&me);	/* nothing, if a wake took it off */
	if (READ_ONCE(me.woken))
		return 0;
	if (!thread_interrupted(t))
		return -ETIMEDOUT;
	/* Linux restarts an untimed wait; a timed one it ends with -EINTR here. */
	return deadline ? -EINTR : -ERESTARTSYS;
}

/*
 * Priority-inheritance locks (Linux's futex_lock_pi and futex_unlock_pi):
 * the word holds its owner's tid, and FUTEX_WAITERS while anyone sleeps
 * on it; an unlock hands the lock to the first sleeper, which wakes
 * owning it.  The kernelet's tasks have no priorities to lend (a
 * sandbox's threads are equals), so nothing is inherited: the ownership
 * and the handoff are Linux's.  Each read and write of the word is made
 * under the table's lock, in a guard: no other thread of the sandbox, on
 * its one vCPU, runs between the two to change it with its own cmpxchg.
 */
/* The lock's longest sleeper (the list is newest first), as Linux serves equals. */
static struct lx_futex_waiter **pi_first_locked(struct proc *p, unsigned long uaddr)
{
	struct lx_futex_waiter **pw, **first = NULL;

	for (pw = &lx()->futexes; *pw; pw = &(*pw)->next)
		if ((*pw)->pi_tid && (*pw)->p == p && (*pw)->uaddr == uaddr)
			first = pw;
	return first;
}

/* The lock goes to its first sleeper, if any, with bits: whether it did. */
static bool pi_handoff_locked(struct proc *p, unsigned long uaddr, u32 bits, long *err)
{
	struct lx_futex_waiter **pw = pi_first_locked(p, uaddr), *w;
	u32 val;

	*err = 0;
	if (!pw)
		return false;
	w = *pw;
	val = (u32)w->pi_tid | FUTEX_WAITERS | bits;
	if (mem_user_copy(p, uaddr, &val, sizeof(val), MEM_WRITE)) {
		*err = -EFAULT;
		return false;
	}
	*pw = w->next;
	WRITE_ONCE(w->woken, true);
	kl_wake(w->tid);
	return true;
}

/* FUTEX_LOCK_PI, FUTEX_LOCK_PI2 (deadline, 0: none) and FUTEX_TRYLOCK_PI (try). */
static long futex_lock_pi(struct thread *t, unsigned long uaddr, u64 deadline, bool try)
{
	struct proc *p = t->p;
	struct lx_futex_waiter me = { .p = p, .uaddr = uaddr, .key = p, .off = uaddr,
				      .bitset = ~0U, .tid = kl_self(), .pi_tid = t->tid };
	long err = 0;
	u32 val, want;

	procs_lock();
	if (mem_user_copy(p, uaddr, &val, sizeof(val), MEM_READ)) {
		err = -EFAULT;
	} else if (!(val & FUTEX_TID_MASK)) {
		/* Free, or its owner died: taken, the dead owner's mark kept. */
		want = (val & FUTEX_OWNER_DIED) | (u32)t->tid |
		       (pi_first_locked(p, uaddr) ? FUTEX_WAITERS : 0);
		err = mem_user_copy(p, uaddr, &want, sizeof(want), MEM_WRITE) ? -EFAULT : 1;
	} else if ((val & FUTEX_TID_MASK) == (u32)t->tid) {
		err = -EDEADLK;
	} else if (!lx_thread_find(p, val & FUTEX_TID_MASK)) {
		err = -ESRCH;
	} else if (try) {
		err = -EAGAIN;
	} else {
		want = val | FUTEX_WAITERS;
		if (want != val && mem_user_copy(p, uaddr, &want, sizeof(want), MEM_WRITE)) {
			err = -EFAULT;
		} else {
			me.next = lx()->futexes;
			lx()->futexes = &me;
		}
	}
	procs_unlock();
	if (err)
		return err > 0 ? 0 : err;
	lx_sleep_until(t, &me.woken, true, deadline);
	futex_unqueue(&me);	/* nothing, if the handoff took it off */
	if (READ_ONCE(me.woken))
		return 0;
	/* Linux restarts a lock a handler cut short, whatever its flags. */
	return thread_interrupted(t) ? -ERESTARTNOINTR : -ETIMEDOUT;
}

static long futex_unlock_pi(struct thread *t, unsigned long uaddr)
{
	struct proc *p = t->p;
	u32 val, free = 0;
	long err;

	procs_lock();
	if (mem_user_copy(p, uaddr, &val, sizeof(val), MEM_READ))
		err = -EFAULT;
	else if ((val & FUTEX_TID_MASK) != (u32)t->tid)
		err = -EPERM;
	else if (!pi_handoff_locked(p, uaddr, 0, &err) && !err)
		err = mem_user_copy(p, uaddr, &free, sizeof(free), MEM_WRITE) ? -EFAULT : 0;
	procs_unlock();
	return err;
}

LX_PARTIAL(futex, "requeue, wake-op and the requeue-PI ops -ENOSYS; no priority is lent");
LX_SYSCALL_DEFINE6(futex, unsigned long, uaddr, int, op, u32, val, unsigned long, utime,
		   unsigned long, uaddr2, u32, val3)
{
	u64 ts[2], deadline = 0;
	long cmd = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	bool shared = !(op & FUTEX_PRIVATE_FLAG);

	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;		/* Linux's: no other operation takes a clock */
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
		return futex_wait(t, uaddr, shared, val, deadline, cmd == FUTEX_WAIT ? ~0U : val3);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (cmd == FUTEX_WAKE_BITSET && !val3)
			return -EINVAL;
		return futex_wake(t->p, uaddr, shared, (int)val, cmd == FUTEX_WAKE ? ~0U : val3);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		if (utime) {
			/* An absolute time, on the clock every clock here is. */
			if (mem_user_copy(t->p, utime, ts, sizeof(ts), MEM_READ))
				return -EFAULT;
			if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
				return -EINVAL;
			deadline = (min(ts[0], 1000000ULL) * 1000000000 + ts[1]) ?: 1;
		}
		return futex_lock_pi(t, uaddr, deadline, false);
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(t, uaddr, 0, true);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(t, uaddr);
	}
	/* requeue, wake-op and requeue-PI: glibc's threads do without */
	return -ENOSYS;
}

/*
 * A thread is leaving (proc's thread_exit_hook): the word set_tid_address
 * or clone named is zeroed and its waiter woken, which is how
 * pthread_join learns that the thread has ended.  Not when the whole
 * process is ending: nobody is left to look.
 */
/* Linux's struct robust_list_head (include/uapi/linux/futex.h). */
struct lx_robust_head {
	u64 next;		/* the first entry's list pointer; the head's own address ends it */
	s64 futex_offset;	/* from an entry to its mutex's futex word */
	u64 op_pending;		/* an entry being taken or given, not yet listed */
};

#define ROBUST_LIST_LIMIT	2048	/* Linux's: a list that loops ends here */

/*
 * A mutex t held as it ended (Linux's handle_futex_death): its word says
 * its owner died, keeps the waiters bit, and one waiter is woken to find
 * it (EOWNERDEAD).  The read and the write are not one atomic step, as
 * Linux's cmpxchg is: the process's other threads run on this vCPU only
 * when this thread yields, which it does not between them.
 */
static void futex_death(struct thread *t, unsigned long uaddr)
{
	u32 val, owner_died;
	bool handed;
	long err;

	if ((uaddr & 3) || mem_user_copy(t->p, uaddr, &val, sizeof(val), MEM_READ) ||
	    (val & FUTEX_TID_MASK) != (u32)t->tid)
		return;
	/* A priority-inheritance lock goes to its first sleeper, marked. */
	procs_lock();
	handed = pi_handoff_locked(t->p, uaddr, FUTEX_OWNER_DIED, &err);
	procs_unlock();
	if (handed || err)
		return;
	owner_died = (val & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	if (mem_user_copy(t->p, uaddr, &owner_died, sizeof(owner_died), MEM_WRITE))
		return;
	if (val & FUTEX_WAITERS)
		futex_wake(t->p, uaddr, true, 1, ~0U);
}

/*
 * Walk t's robust list as it ends (Linux's exit_robust_list): each mutex
 * on it, and the one in op_pending, that t still owns.  Every word is
 * read from the tenant's memory, where anything may be: a bad pointer
 * ends the walk, and so does ROBUST_LIST_LIMIT, as in Linux.  An entry's
 * low bit marks a priority-inheritance mutex, which futex_death tells by
 * its sleepers instead.
 */
static void robust_list_exit(struct thread *t)
{
	struct lx_robust_head h;
	unsigned long head = t->robust_list, entry, next, pending;
	unsigned int n = 0;

	if (!head || mem_user_copy(t->p, head, &h, sizeof(h), MEM_READ))
		return;
	entry = h.next & ~1UL;
	pending = h.op_pending & ~1UL;
	while (entry != head && n++ < ROBUST_LIST_LIMIT) {
		if (mem_user_copy(t->p, entry, &next, sizeof(next), MEM_READ))
			break;
		if (entry != pending)
			futex_death(t, entry + h.futex_offset);
		entry = next & ~1UL;
	}
	if (pending)
		futex_death(t, pending + h.futex_offset);
}

LX_SYSCALL_DEFINE2(set_robust_list, unsigned long, head, unsigned long, len)
{
	if (len != sizeof(struct lx_robust_head))
		return -EINVAL;
	t->robust_list = head;
	return 0;
}

/* Of the caller, or of another thread of its process; -ESRCH for any other. */
LX_PARTIAL(get_robust_list, "only the caller's process: another's thread is -ESRCH");
LX_SYSCALL_DEFINE3(get_robust_list, int, pid, unsigned long, uhead, unsigned long, ulen)
{
	u64 len = sizeof(struct lx_robust_head), head;
	struct thread *to = t;

	if (pid) {
		procs_lock();		/* a thread leaves the list under it (signal.c) */
		to = lx_thread_find(t->p, pid);
		head = to ? to->robust_list : 0;
		procs_unlock();
		if (!to)
			return -ESRCH;
	} else {
		head = t->robust_list;
	}
	/* Both are required, as Linux's put_user of each. */
	return mem_user_copy(t->p, ulen, &len, sizeof(len), MEM_WRITE) ?:
	       mem_user_copy(t->p, uhead, &head, sizeof(head), MEM_WRITE);
}

/*
 * t ends holding priority-inheritance locks: each one someone sleeps on
 * goes to its first sleeper, as Linux's exit_pi_state_list hands them
 * on; one nobody sleeps on keeps the dead tid, and a lock of it is
 * -ESRCH, as in Linux.
 */
static void pi_owner_exit(struct thread *t)
{
	struct lx_futex_waiter *w;
	long err;
	u32 val;

	procs_lock();
	for (w = lx()->futexes; w;) {
		if (w->pi_tid && w->p == t->p &&
		    !mem_user_copy(t->p, w->uaddr, &val, sizeof(val), MEM_READ) &&
		    (val & FUTEX_TID_MASK) == (u32)t->tid &&
		    pi_handoff_locked(t->p, w->uaddr, 0, &err)) {
			w = lx()->futexes;	/* the list changed: again from its start */
			continue;
		}
		w = w->next;
	}
	procs_unlock();
}

void lx_thread_exit(struct thread *t)
{
	u32 zero = 0;

	lx_thread_remove(t);	/* no signal finds it any more */
	if (READ_ONCE(t->p->killed) || READ_ONCE(t->p->threads) <= 1)
		return;		/* no thread is left to find a mutex or a word */
	robust_list_exit(t);
	pi_owner_exit(t);
	if (!t->clear_tid)
		return;
	if (!mem_user_copy(t->p, t->clear_tid, &zero, sizeof(zero), MEM_WRITE))
		futex_wake(t->p, t->clear_tid, true, 1, ~0U);
}
