// SPDX-License-Identifier: GPL-2.0
/*
 * A process's interval timers, which setitimer arms and getitimer reads:
 * ITIMER_REAL, which alarm arms too, sends SIGALRM when its time passes;
 * ITIMER_VIRTUAL and ITIMER_PROF send SIGVTALRM and SIGPROF when the
 * process's user or all CPU time (cputime.c) has grown by theirs.  An
 * interval arms each again.  The ticker fires the POSIX
 * timers too (timers.c): a task of the kernel's own that sleeps on the
 * kernelet's timer (kl_block_until) until the soonest armed timer of any
 * process, and without one until an arming wakes it.  It is made at the first
 * arming and ends with the sandbox (lx_ticker_stop).  It does not end
 * and come back at each arming: a dead task's stack goes only when its
 * vCPU is idle, which a busy sandbox never is.  Woken, it waits for its
 * vCPU like any task, up to two time slices behind a thread that computes,
 * so a thread's own return to user mode looks too (lx_itimer_check).
 * A process's timer is its own: a fork's child starts with none, an exec
 * keeps it, the exit disarms it.
 */
#include "syscalls.h"

#define ITIMER_REAL	0
#define ITIMER_VIRTUAL	1
#define ITIMER_PROF	2
#define LX_SIGALRM	14
#define LX_SIGVTALRM	26
#define LX_SIGPROF	27
#define NS_PER_USEC	1000ULL
/* Signals a process's timers may send in one round: SIGALRM, the CPU timers', the POSIX ones' */
#define ITIMER_SENDS	(3 + LX_TIMERS_MAX)

/* Linux's struct itimerval: the interval, then the time left. */
struct lx_itimerval {
	s64 interval_sec, interval_usec;
	s64 value_sec, value_usec;
};

/*
 * c's timer, if it has expired at now: SIGALRM, and armed again by its
 * interval.  The table's lock held; lx_send_locked's result, and *kick.
 */
static int itimer_fire_locked(struct proc *c, u64 now, int *kick)
{
	static const struct ksiginfo info = { .signo = LX_SIGALRM, .code = SI_KERNEL };
	struct lx_proc *lp = c->os;

	if (!lp || !lp->alarm_at || lp->alarm_at > now)
		return 0;
	lp->alarm_at = lp->alarm_every ? now + lp->alarm_every : 0;
	return lx_send_locked(c, NULL, &info, kick);
}

/* The sooner of two times, 0 being none. */
static u64 lx_soonest(u64 a, u64 b)
{
	return !a || (b && b < a) ? b : a;
}

/* c's CPU time that CPU timer i counts (0: VIRTUAL, user; 1: PROF, all), in ns. */
static u64 cpu_timer_used(const struct proc_cpu *cpu, int i)
{
	return vostd_cycles_to_ns(i ? cpu->run : cpu->user);
}

/*
 * c's CPU-time timers, ITIMER_VIRTUAL and ITIMER_PROF, if they have
 * expired: SIGVTALRM or SIGPROF, and each armed again by its interval
 * from when it was due, as Linux's check_cpu_itimer does.  The table's
 * lock held.  Returns when the ticker is to look again, on lx_now_ns's
 * clock (0: no timer is armed): the CPU time left can pass no faster than
 * on every vCPU at once, and a process that does not run must not wake
 * the ticker more often than once a tick.
 */
static u64 cpu_timers_fire_locked(struct proc *c, u64 now, struct lx_sends *s)
{
	static const struct ksiginfo info[2] = {
		{ .signo = LX_SIGVTALRM, .code = SI_KERNEL },
		{ .signo = LX_SIGPROF, .code = SI_KERNEL },
	};
	struct lx_proc *lp = c->os;
	struct proc_cpu cpu;
	u64 next = 0;
	int i;

	if (!lp || (!lp->cpu_timer_at[0] && !lp->cpu_timer_at[1]))
		return 0;
	lx_proc_cpu_locked(c, &cpu);
	for (i = 0; i < 2; i++) {
		u64 at = lp->cpu_timer_at[i], used = cpu_timer_used(&cpu, i);
		int kick = -1, ret;

		if (!at)
			continue;
		if (used >= at) {
			at = lp->cpu_timer_every[i] ? at + lp->cpu_timer_every[i] : 0;
			lp->cpu_timer_at[i] = at;
			ret = lx_send_locked(c, NULL, &info[i], &kick);
			lx_sends_keep(s, c, info[i].signo, ret, kick);
			if (!at)
				continue;
		}
		next = lx_soonest(next, now + max((at > used ? at - used : 0) / vostd_nr_cpus(),
						  LX_TICK_NS));
	}
	return next;
}

/* t's process has a timer due at now: it fires, off the common return path. */
static noinline void itimer_fire_due(struct thread *t, u64 now)
{
	struct lx_sends sends = {};
	int kick = -1, ret;

	procs_lock();
	ret = itimer_fire_locked(t->p, now, &kick);
	lx_sends_keep(&sends, t->p, LX_SIGALRM, ret, kick);
	timers_fire_locked(t->p, now, &sends);
	cpu_timers_fire_locked(t->p, now, &sends);
	procs_unlock();
	lx_sends_done(&sends, 0);
}

/*
 * From lx_deliver, on every return of t to user mode while its process's
 * timer is armed: the timer fires if it has expired.  The ticker does it
 * too, but once woken it waits for its vCPU behind a thread that
 * computes for up to two time slices; the thread's own return, which the
 * kernelet's timer forces on a computing tenant as well, does not wait.
 */
void lx_itimer_check(struct thread *t)
{
	struct lx_proc *lp = lxp(t->p);
	u64 alarm = READ_ONCE(lp->alarm_at), next = READ_ONCE(lp->timer_next), now;
	/* A CPU timer's time is a sum over threads: armed, it is looked at every time. */
	bool cpu = READ_ONCE(lp->cpu_timer_at[0]) || READ_ONCE(lp->cpu_timer_at[1]);

	if (!alarm && !next && !cpu)
		return;
	now = lx_now_ns();
	if (!cpu && (!alarm || now < alarm) && (!next || now < next))
		return;
	itimer_fire_due(t, now);
}

/*
 * The ticker: SIGALRM to every process whose timer has expired, and each
 * expired POSIX timer's signal, each armed again by its interval; then it
 * sleeps until the soonest timer still armed, or, with none, until an
 * arming.  The processes it signals are held by a reference across the
 * drop of the lock, as a kill holds its targets; a round whose sends fill
 * up leaves the rest to the next, at once.
 */
static void ticker(void *arg)
{
	struct lx_sends sends = {};
	u64 next;

	for (;;) {
		u64 now = lx_now_ns();
		struct proc *c;

		next = 0;
		procs_lock();
		for (c = procs()->list; c; c = c->next) {
			int kick = -1, ret;

			if (sends.n + ITIMER_SENDS > LX_PROCS_MAX) {
				next = now;	/* no room for c's sends: at once */
				break;
			}
			ret = itimer_fire_locked(c, now, &kick);
			lx_sends_keep(&sends, c, LX_SIGALRM, ret, kick);
			timers_fire_locked(c, now, &sends);
			next = lx_soonest(next, cpu_timers_fire_locked(c, now, &sends));
			if (c->os)
				next = lx_soonest(lx_soonest(next, lxp(c)->alarm_at),
						  lxp(c)->timer_next);
		}
		procs_unlock();
		lx_sends_done(&sends, 0);
		if (next) {
			/* An arming for sooner wakes it: lx_ticker_start. */
			kl_block_until(lx_cycles_at(next));
			continue;
		}
		if (READ_ONCE(lx()->ticker_stop))
			break;
		kl_block();	/* an arming's wake, or the stop's; one that came first holds */
	}
	WRITE_ONCE(lx()->ticker, 0);
}

/* The sandbox ends, every timer gone with its process: the ticker ends too. */
void lx_ticker_stop(void)
{
	kl_tid_t tid;

	procs_lock();
	lx()->ticker_stop = true;
	tid = lx()->ticker;
	procs_unlock();
	if (tid)
		kl_wake(tid);
	while (READ_ONCE(lx()->ticker))
		kl_yield();
}

static void to_timeval(u64 ns, s64 *sec, s64 *usec)
{
	*sec = ns / NS_PER_SEC;
	*usec = ns % NS_PER_SEC / NS_PER_USEC;
}

/*
 * lp's timer as getitimer gives it, at now: the time left (at least a
 * microsecond's worth while armed, so that an expired one not yet fired
 * reads as armed) and the interval.  The table's lock held.
 */
static void itimer_read_locked(struct lx_proc *lp, u64 now, struct lx_itimerval *v)
{
	to_timeval(lp->alarm_at > now ? lp->alarm_at - now : lp->alarm_at ? 1 : 0,
		   &v->value_sec, &v->value_usec);
	to_timeval(lp->alarm_every, &v->interval_sec, &v->interval_usec);
}

/*
 * A timer of t's process has been armed: the ticker is made, on t's
 * vCPU, if there is none, and woken to look at the soonest timer again.
 * -ENOMEM if it cannot be made, and the caller disarms what it armed.
 */
long lx_ticker_start(struct thread *t)
{
	kl_tid_t tid;

	procs_lock();
	tid = lx()->ticker;
	if (!tid)
		lx()->ticker = LX_TICKER_MAKING;	/* one arming makes it */
	procs_unlock();
	if (tid) {
		/*
		 * Asleep for a later timer or for none: it looks again.  A
		 * ticker being made runs its round anyway.
		 */
		if (tid != LX_TICKER_MAKING)
			kl_wake(tid);
		return 0;
	}
	tid = kl_spawn("ticker", ticker, NULL, KL_PRIO_NORMAL, t->vcpu);
	procs_lock();
	lx()->ticker = tid;
	procs_unlock();
	return tid ? 0 : -ENOMEM;
}

/*
 * Arm t's process's timer to expire in value ns and then every interval
 * ns (0: once; a value of 0 disarms), and say what it was in *old.
 */
static long itimer_set(struct thread *t, u64 value, u64 interval, struct lx_itimerval *old)
{
	struct lx_proc *lp = lxp(t->p);
	u64 now = lx_now_ns();
	long err = 0;

	procs_lock();
	itimer_read_locked(lp, now, old);
	lp->alarm_at = value ? now + value : 0;
	lp->alarm_every = value ? interval : 0;
	procs_unlock();
	if (value)
		err = lx_ticker_start(t);
	if (err) {
		procs_lock();
		lp->alarm_at = 0;
		procs_unlock();
	}
	return err;
}

/* A timeval in ns, or -EINVAL as Linux refuses it. */
static long from_timeval(s64 sec, s64 usec, u64 *ns)
{
	if (sec < 0 || usec < 0 || usec >= 1000000)
		return -EINVAL;
	*ns = min_t(u64, sec, 1000000000ULL) * NS_PER_SEC + usec * NS_PER_USEC;
	return 0;
}

/*
 * CPU timer i of lp as getitimer gives it, when the time it counts is
 * used ns: the CPU time left, a tick if it is due and not yet fired, and
 * the interval, as Linux's get_cpu_itimer does.  The table's lock held.
 */
static void cpu_itimer_read_locked(struct lx_proc *lp, int i, u64 used, struct lx_itimerval *v)
{
	u64 at = lp->cpu_timer_at[i];

	to_timeval(!at ? 0 : at >= used ? at - used : LX_TICK_NS, &v->value_sec, &v->value_usec);
	to_timeval(lp->cpu_timer_every[i], &v->interval_sec, &v->interval_usec);
}

/*
 * Arm t's process's CPU timer i to expire when the CPU time it counts has
 * grown by value ns, and a tick more, as Linux's set_cpu_itimer adds, then
 * every interval ns (a value of 0 disarms; the interval is kept either
 * way, as Linux keeps it), and say what it was in *old.
 */
static long cpu_itimer_set(struct thread *t, int i, u64 value, u64 interval,
			   struct lx_itimerval *old)
{
	struct lx_proc *lp = lxp(t->p);
	struct proc_cpu cpu;
	u64 used;

	procs_lock();
	lx_proc_cpu_locked(t->p, &cpu);
	used = cpu_timer_used(&cpu, i);
	cpu_itimer_read_locked(lp, i, used, old);
	lp->cpu_timer_at[i] = value ? used + value + LX_TICK_NS : 0;
	lp->cpu_timer_every[i] = interval;
	procs_unlock();
	/* The ticker looks at it: a thread that computes may never return to look itself. */
	if (value && lx_ticker_start(t)) {
		procs_lock();
		lp->cpu_timer_at[i] = 0;
		procs_unlock();
		return -ENOMEM;
	}
	return 0;
}

LX_SYSCALL_DEFINE3(setitimer, int, which, unsigned long, unew, unsigned long, uold)
{
	struct lx_itimerval nv = {}, ov;
	u64 value, interval;
	long err;

	/* In Linux's order: the copy, the times, the timer.  A NULL new value disarms. */
	if (unew && mem_user_copy(t->p, unew, &nv, sizeof(nv), MEM_READ))
		return -EFAULT;
	err = from_timeval(nv.value_sec, nv.value_usec, &value) ?:
	      from_timeval(nv.interval_sec, nv.interval_usec, &interval);
	if (!err && (which < ITIMER_REAL || which > ITIMER_PROF))
		err = -EINVAL;
	if (!err)
		err = which == ITIMER_REAL ? itimer_set(t, value, interval, &ov) :
		      cpu_itimer_set(t, which - 1, value, interval, &ov);
	if (err)
		return err;
	return put_user_bytes(t, uold, &ov, sizeof(ov));
}

LX_SYSCALL_DEFINE2(getitimer, int, which, unsigned long, uval)
{
	struct lx_itimerval v;
	struct proc_cpu cpu;
	u64 now = lx_now_ns();

	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	procs_lock();
	if (which == ITIMER_REAL) {
		itimer_read_locked(lxp(t->p), now, &v);
	} else {
		lx_proc_cpu_locked(t->p, &cpu);
		cpu_itimer_read_locked(lxp(t->p), which - 1, cpu_timer_used(&cpu, which - 1), &v);
	}
	procs_unlock();
	return mem_user_copy(t->p, uval, &v, sizeof(v), MEM_WRITE) ? -EFAULT : 0;
}

/*
 * alarm: the timer once, in seconds; the seconds the old one had left,
 * rounded as Linux rounds them, never 0 for one still armed.
 */
LX_SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	struct lx_itimerval ov;
	long err = itimer_set(t, (u64)seconds * NS_PER_SEC, 0, &ov);

	if (err)
		return err;
	if ((!ov.value_sec && ov.value_usec) || ov.value_usec >= 500000)
		ov.value_sec++;
	return ov.value_sec;
}
