// SPDX-License-Identifier: GPL-2.0
/*
 * Futexes, which glibc's and musl's threads wait on (a lock's word, a
 * thread's id as it ends) and move between (requeue, a condition
 * variable's waiters).  A futex is its process's and its address's, or a
 * shared object's (futex_key); its waiters sleep as sleep.c's do.
 * Priority-inheritance locks, handed from owner to sleeper.  And the
 * robust list of each thread, walked as it ends, so that a mutex it died
 * holding is marked so and its next waiter woken.
 */
#include "syscalls.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
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
	long pi_owner;		/* the tid of the lock's owner it waits for */
	struct lx_futex_waiter *next;
};

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

/* Whether w waits on the futex at's key names. */
static bool futex_match(const struct lx_futex_waiter *w, const struct lx_futex_waiter *at)
{
	return w->key == at->key && w->off == at->off;
}

/* Take *pw, a waiter, off the list and wake it, under the table's lock. */
static void futex_wake_one(struct lx_futex_waiter **pw)
{
	struct lx_futex_waiter *w = *pw;
	kl_tid_t tid = w->tid;

	*pw = w->next;
	/* The waiter may return once woken is set; it takes the lock first. */
	WRITE_ONCE(w->woken, true);
	kl_wake(tid);
}

/*
 * Wake waiters on the futex at's key names whose bitset meets bitset, up
 * to nr_wake, and at least one, as Linux's futex_wake counts: how many,
 * or -EINVAL at a priority-inheritance lock's waiter, which only its
 * unlock may wake, as in Linux.  Under the table's lock.
 */
static long futex_wake_locked(const struct lx_futex_waiter *at, long nr_wake, u32 bitset)
{
	struct lx_futex_waiter **pw, *w;
	long woken = 0;

	for (pw = &lx()->futexes; (w = *pw);) {
		if (!futex_match(w, at) || !(w->bitset & bitset)) {
			pw = &w->next;
			continue;
		}
		if (w->pi_tid)
			return -EINVAL;
		futex_wake_one(pw);
		if (++woken >= nr_wake)
			break;
	}
	return woken;
}

/*
 * Wake nr_wake waiters on the futex at's key names and move up to
 * nr_requeue more to the futex to names, each keeping its place in the
 * list (Linux's futex_requeue without PI): how many it woke and moved,
 * or -EINVAL at a priority-inheritance lock's waiter.  Under the table's
 * lock.
 */
static long futex_requeue_locked(const struct lx_futex_waiter *at, long nr_wake,
				 const struct lx_futex_waiter *to, long nr_requeue)
{
	struct lx_futex_waiter **pw, *w;
	long count = 0;

	for (pw = &lx()->futexes; (w = *pw) && count - nr_wake < nr_requeue;) {
		if (!futex_match(w, at)) {
			pw = &w->next;
			continue;
		}
		if (w->pi_tid)
			return -EINVAL;
		if (++count <= nr_wake) {
			futex_wake_one(pw);
			continue;
		}
		w->key = to->key;
		w->off = to->off;
		w->uaddr = to->uaddr;
		pw = &w->next;
	}
	return count;
}

/* Wake up to n waiters on p's futex at uaddr whose bitset meets bitset: how many. */
static long futex_wake(struct proc *p, unsigned long uaddr, bool shared, long n, u32 bitset)
{
	struct lx_futex_waiter at;
	long woken;

	futex_key(p, uaddr, shared, &at);
	procs_lock();
	woken = futex_wake_locked(&at, n, bitset);
	procs_unlock();
	return woken;
}

/*
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (cmp: the word at uaddr must still
 * hold val3, else -EAGAIN): wake nr_wake waiters on uaddr and move up to
 * nr_requeue others (neither count negative: the caller has refused
 * that) to uaddr2, where a wake of uaddr2 finds them, as a
 * condition variable hands its waiters to its mutex.  The word is read
 * under the table's lock, and a waiter is queued under it before it reads
 * its word, so no wait slips between the comparison and the move.
 */
static long futex_requeue(struct proc *p, unsigned long uaddr, unsigned long uaddr2, bool shared,
			  int nr_wake, int nr_requeue, bool cmp, u32 val3)
{
	struct lx_futex_waiter at, to;
	long ret;
	u32 cur;

	futex_key(p, uaddr, shared, &at);
	futex_key(p, uaddr2, shared, &to);
	procs_lock();
	if (cmp && mem_user_copy(p, uaddr, &cur, sizeof(cur), MEM_READ))
		ret = -EFAULT;
	else if (cmp && cur != val3)
		ret = -EAGAIN;
	else
		ret = futex_requeue_locked(&at, nr_wake, &to, nr_requeue);
	procs_unlock();
	return ret;
}

/* FUTEX_WAKE_OP's encoding (include/uapi/linux/futex.h). */
enum { FUTEX_OP_SET, FUTEX_OP_ADD, FUTEX_OP_OR, FUTEX_OP_ANDN, FUTEX_OP_XOR };
enum {
	FUTEX_OP_CMP_EQ, FUTEX_OP_CMP_NE, FUTEX_OP_CMP_LT,
	FUTEX_OP_CMP_LE, FUTEX_OP_CMP_GT, FUTEX_OP_CMP_GE
};

#define FUTEX_OP_OPARG_SHIFT	8

static int sign_extend12(u32 v)
{
	return (int)(v << 20) >> 20;
}

/*
 * Apply FUTEX_WAKE_OP's operation, encoded in op, to the word at uaddr
 * (Linux's futex_atomic_op_inuser): whether its old value passes the
 * comparison, or an errno.  As in Linux, the word is written before a
 * bad comparison is refused.  The read and the write are one step under
 * the table's lock: the sandbox's other threads run on its one vCPU only
 * when this one yields.
 */
static int futex_op_locked(struct proc *p, unsigned long uaddr, u32 op)
{
	int oparg = sign_extend12(op >> 12), cmparg = sign_extend12(op), old, new;

	if (op & (FUTEX_OP_OPARG_SHIFT << 28))
		oparg = 1 << (oparg & 31);	/* Linux masks a bad shift too */
	if (mem_user_copy(p, uaddr, &old, sizeof(old), MEM_READ))
		return -EFAULT;
	switch ((op >> 28) & 7) {
	case FUTEX_OP_SET:
		new = oparg;
		break;
	case FUTEX_OP_ADD:
		new = (int)((u32)old + (u32)oparg);
		break;
	case FUTEX_OP_OR:
		new = old | oparg;
		break;
	case FUTEX_OP_ANDN:
		new = old & ~oparg;
		break;
	case FUTEX_OP_XOR:
		new = old ^ oparg;
		break;
	default:
		return -ENOSYS;
	}
	if (mem_user_copy(p, uaddr, &new, sizeof(new), MEM_WRITE))
		return -EFAULT;
	switch ((op >> 24) & 15) {
	case FUTEX_OP_CMP_EQ:
		return old == cmparg;
	case FUTEX_OP_CMP_NE:
		return old != cmparg;
	case FUTEX_OP_CMP_LT:
		return old < cmparg;
	case FUTEX_OP_CMP_LE:
		return old <= cmparg;
	case FUTEX_OP_CMP_GT:
		return old > cmparg;
	case FUTEX_OP_CMP_GE:
		return old >= cmparg;
	}
	return -ENOSYS;
}

/*
 * FUTEX_WAKE_OP: change the word at uaddr2 by op, wake nr_wake waiters
 * on uaddr, and, if the word's old value passed op's comparison,
 * nr_wake2 on uaddr2 (Linux's futex_wake_op): how many it woke.
 */
static long futex_wake_op(struct proc *p, unsigned long uaddr, unsigned long uaddr2, bool shared,
			  int nr_wake, int nr_wake2, u32 op)
{
	struct lx_futex_waiter at, at2;
	long woken, woken2 = 0;
	int pass;

	futex_key(p, uaddr, shared, &at);
	futex_key(p, uaddr2, shared, &at2);
	procs_lock();
	pass = futex_op_locked(p, uaddr2, op);
	woken = pass < 0 ? pass : futex_wake_locked(&at, nr_wake, ~0U);
	if (woken >= 0 && pass > 0)
		woken2 = futex_wake_locked(&at2, nr_wake2, ~0U);
	procs_unlock();
	return woken2 < 0 ? woken2 : woken + woken2;
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

/* The sleepers on p's lock at uaddr wait for owner from now on. */
static void pi_reown_locked(struct proc *p, unsigned long uaddr, long owner)
{
	struct lx_futex_waiter *w;

	for (w = lx()->futexes; w; w = w->next)
		if (w->pi_tid && w->p == p && w->uaddr == uaddr)
			w->pi_owner = owner;
}

/*
 * The lock goes to its first sleeper, if any, with bits: whether it did.
 * Its other sleepers wait for the new owner from now on, as Linux's
 * pi_state changes owner.
 */
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
	pi_reown_locked(p, uaddr, w->pi_tid);
	futex_wake_one(pw);
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
			me.pi_owner = val & FUTEX_TID_MASK;
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

LX_PARTIAL(futex, "the requeue-PI ops -ENOSYS; no priority is lent");
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
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
		/* Their utime is a count (Linux's val2), and uaddr2 a futex's. */
		if (cmd != FUTEX_WAKE_OP && ((int)val < 0 || (int)utime < 0))
			return -EINVAL;		/* before uaddr2, as Linux's futex_requeue */
		if (uaddr2 & 3)
			return -EINVAL;
		if (uaddr2 >= LX_USER_END)
			return -EFAULT;
		if (cmd == FUTEX_WAKE_OP)
			return futex_wake_op(t->p, uaddr, uaddr2, shared, (int)val, (int)utime,
					     val3);
		return futex_requeue(t->p, uaddr, uaddr2, shared, (int)val, (int)utime,
				     cmd == FUTEX_CMP_REQUEUE, val3);
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
	/* the requeue-PI ops: neither glibc's threads nor musl's use them */
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
 * t ends owning priority-inheritance locks: each one someone sleeps on
 * goes to its first sleeper, marked as its owner died, as Linux's
 * exit_pi_state_list hands them on.  The sleeper waits for the owner it
 * found when it went to sleep, not for the tid now in the word: musl's
 * pthread_exit marks its robust mutexes' words before the thread ends.
 * A lock nobody sleeps on keeps the dead tid, and a lock of it is
 * -ESRCH, as in Linux.
 */
static void pi_owner_exit(struct thread *t)
{
	struct lx_futex_waiter *w;
	long err;
	u32 val;

	procs_lock();
	for (w = lx()->futexes; w;) {
		if (!w->pi_tid || w->p != t->p || w->pi_owner != t->tid ||
		    mem_user_copy(t->p, w->uaddr, &val, sizeof(val), MEM_READ)) {
			w = w->next;
			continue;
		}
		if ((val & FUTEX_TID_MASK) && (val & FUTEX_TID_MASK) != (u32)t->tid)
			/* Another took the word as t let it go: its unlock hands it on. */
			pi_reown_locked(t->p, w->uaddr, val & FUTEX_TID_MASK);
		else if (!pi_handoff_locked(t->p, w->uaddr, FUTEX_OWNER_DIED, &err))
			pi_reown_locked(t->p, w->uaddr, 0);	/* a word it cannot write */
		w = lx()->futexes;	/* the list may have changed: again from its start */
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
