// SPDX-License-Identifier: GPL-2.0
/*
 * A process's POSIX timers (Linux's kernel/time/posix-timers.c):
 * timer_create, timer_settime, timer_gettime, timer_getoverrun and
 * timer_delete.  A timer sends its signal with SI_TIMER's siginfo to the
 * process, or to one of its threads (SIGEV_THREAD_ID, which glibc's
 * SIGEV_THREAD timers use), or nothing (SIGEV_NONE).  An expiry while
 * the timer's last signal is still pending is counted as an overrun in
 * that signal's siginfo, as Linux counts it, and so is every interval
 * the ticker came too late for.  They fire from itimer.c's ticker and from each return to user
 * mode, as ITIMER_REAL does, on the one clock every clock is here.  A
 * fork's child has none; an exec and the exit delete them.
 */
#include "syscalls.h"

#define SIGEV_SIGNAL		0
#define SIGEV_NONE		1
#define SIGEV_THREAD		2
#define SIGEV_THREAD_ID		4
#define LX_SIGALRM		14

/* Linux's struct sigevent on x86-64. */
struct lx_sigevent {
	u64 value;
	s32 signo, notify;
	s32 tid;			/* SIGEV_THREAD_ID's */
	s32 pad[11];
};

/* Linux's struct __kernel_itimerspec: the interval, then the value. */
struct lx_itimerspec {
	s64 interval_sec, interval_nsec;
	s64 value_sec, value_nsec;
};

/* The earliest armed timer, for the ticker and the returns to user mode. */
static void timer_next_locked(struct lx_proc *lp)
{
	u64 next = 0;
	unsigned int i;

	for (i = 0; i < LX_TIMERS_MAX; i++)
		if (lp->timers[i].used && lp->timers[i].at &&
		    (!next || lp->timers[i].at < next))
			next = lp->timers[i].at;
	lp->timer_next = next;
}

static u32 overruns_add(u32 a, u64 b)
{
	return min_t(u64, (u64)a + b, INT_MAX);
}

/* The siginfo of sig still pending in c, for the process or one of its threads: NULL if none. */
static struct ksiginfo *timer_queued_locked(struct proc *c, int sig)
{
	struct lx_proc *lp = c->os;
	u64 bit = LX_SIGBIT(sig);
	unsigned int i;

	if (lp->sigpending & bit)
		return &lp->siginfo[sig - 1];
	for (i = 0; i < LX_THREADS_MAX; i++)
		if (lp->threads[i] && (lp->threads[i]->sig.pending & bit))
			return &lp->threads[i]->sig.info[sig - 1];
	return NULL;
}

/*
 * c's timers that have expired at now send their signals, kept in s for
 * the caller to finish once the table's lock drops; each armed again by
 * its interval.  Those s has no room for fire at the next look.
 */
void timers_fire_locked(struct proc *c, u64 now, struct lx_sends *s)
{
	struct lx_proc *lp = c->os;
	unsigned int i;

	if (!lp || !lp->timer_next || lp->timer_next > now)
		return;
	for (i = 0; i < LX_TIMERS_MAX && s->n < LX_PROCS_MAX; i++) {
		struct lx_timer *tm = &lp->timers[i];
		struct ksiginfo info, *q;
		struct thread *to = NULL;
		int kick = -1, ret;
		u64 missed = 0;

		if (!tm->used || !tm->at || tm->at > now)
			continue;
		if (tm->every) {
			missed = (now - tm->at) / tm->every;
			tm->at += (missed + 1) * tm->every;
		} else {
			tm->at = 0;
		}
		if (tm->notify == SIGEV_NONE)
			continue;
		q = timer_queued_locked(c, tm->signo);
		if (q && q->code == SI_TIMER && (u32)q->f0 == i) {
			/* Its last signal waits still: the overruns go into it (Linux's rearm). */
			tm->overrun_last = overruns_add(q->f0 >> 32, missed + 1);
			q->f0 = i | (u64)tm->overrun_last << 32;
			continue;
		}
		if (q) {	/* another's signal holds the slot: counted for the next */
			tm->overrun = overruns_add(tm->overrun, missed + 1);
			continue;
		}
		if (tm->notify == SIGEV_THREAD_ID)
			to = lx_thread_find(c, tm->tid);	/* gone: to the process */
		tm->overrun_last = overruns_add(tm->overrun, missed);
		tm->overrun = 0;
		info = (struct ksiginfo){ .signo = tm->signo, .code = SI_TIMER,
					  .f0 = i | (u64)tm->overrun_last << 32, .f1 = tm->value };
		ret = lx_send_locked(c, to, &info, &kick);
		lx_sends_keep(s, c, tm->signo, ret, kick);
	}
	timer_next_locked(lp);
}

/* An exec, an exit, a fork's child: no timers.  The table's lock held. */
void timers_clear_locked(struct lx_proc *lp)
{
	vostd_memset(lp->timers, 0, sizeof(lp->timers));
	lp->timer_next = 0;
}

static struct lx_timer *timer_find_locked(struct thread *t, int id)
{
	struct lx_proc *lp = lxp(t->p);

	if (id < 0 || id >= LX_TIMERS_MAX || !lp->timers[id].used)
		return NULL;
	return &lp->timers[id];
}

/*
 * The event, as Linux's good_sigevent takes it: a signal in range for
 * all but SIGEV_NONE, and SIGEV_THREAD_ID's thread one of the caller's
 * process.  -EINVAL otherwise.  The table's lock held.
 */
static long timer_event_check_locked(struct thread *t, const struct lx_sigevent *ev)
{
	switch (ev->notify) {
	case SIGEV_THREAD_ID:
		if (!lx_thread_find(t->p, ev->tid))
			return -EINVAL;
		fallthrough;
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (ev->signo <= 0 || ev->signo > LX_NSIG)
			return -EINVAL;
		fallthrough;
	case SIGEV_NONE:
		return 0;
	}
	return -EINVAL;
}

LX_PARTIAL(timer_create, "every clock is one clock: a CPU-time clock counts time passed");
LX_SYSCALL_DEFINE3(timer_create, int, clk, unsigned long, uevent, unsigned long, uid)
{
	struct lx_sigevent ev = { .notify = SIGEV_SIGNAL, .signo = LX_SIGALRM };
	struct lx_proc *lp = lxp(t->p);
	int id;
	long err;

	if (uevent && mem_user_copy(t->p, uevent, &ev, sizeof(ev), MEM_READ))
		return -EFAULT;
	/* Linux's clocks: 10 retired; the raw and coarse ones have no timers. */
	if (clk < 0 || clk > 11 || clk == 10)
		return -EINVAL;
	if (clk == 4 || clk == 5 || clk == 6)
		return -EOPNOTSUPP;
	procs_lock();
	for (id = 0; id < LX_TIMERS_MAX && lp->timers[id].used; id++)
		;
	err = id < LX_TIMERS_MAX ? timer_event_check_locked(t, &ev) : -EAGAIN;
	if (!err) {
		lp->timers[id] = (struct lx_timer){
			.used = true, .signo = ev.signo, .notify = ev.notify, .tid = ev.tid,
			.value = uevent ? ev.value : (u64)id,
		};
	}
	procs_unlock();
	if (err)
		return err;
	if (mem_user_copy(t->p, uid, &id, sizeof(id), MEM_WRITE)) {
		procs_lock();
		lp->timers[id].used = false;
		procs_unlock();
		return -EFAULT;
	}
	return 0;
}

/* The time left (at least 1 ns while armed, expired or not) and the interval. */
static void timer_read_locked(const struct lx_timer *tm, u64 now, struct lx_itimerspec *v)
{
	u64 left = tm->at > now ? tm->at - now : tm->at ? 1 : 0;

	v->value_sec = left / NS_PER_SEC;
	v->value_nsec = left % NS_PER_SEC;
	v->interval_sec = tm->every / NS_PER_SEC;
	v->interval_nsec = tm->every % NS_PER_SEC;
}

/* A timespec in ns, or -EINVAL as Linux's timespec64_valid refuses it. */
static long timespec_ns(s64 sec, s64 nsec, u64 *ns)
{
	if (sec < 0 || nsec < 0 || nsec >= (s64)NS_PER_SEC)
		return -EINVAL;
	*ns = min_t(u64, sec, 1000000000ULL) * NS_PER_SEC + nsec;
	return 0;
}

LX_SYSCALL_DEFINE4(timer_settime, int, id, int, flags, unsigned long, unew, unsigned long, uold)
{
	struct lx_itimerspec nv, ov = {};
	struct lx_timer *tm;
	u64 value, every, now = lx_now_ns();
	long err;

	if (!unew)
		return -EINVAL;
	if (mem_user_copy(t->p, unew, &nv, sizeof(nv), MEM_READ))
		return -EFAULT;
	err = timespec_ns(nv.interval_sec, nv.interval_nsec, &every) ?:
	      timespec_ns(nv.value_sec, nv.value_nsec, &value);
	if (err)
		return err;
	procs_lock();
	tm = timer_find_locked(t, id);
	if (tm) {
		timer_read_locked(tm, now, &ov);
		if (!value)
			tm->at = 0;
		else
			tm->at = flags & TIMER_ABSTIME ? max(value, 1ULL) : now + value;
		tm->every = value ? every : 0;
		tm->overrun = 0;	/* Linux's posix_timer_set_common */
		tm->overrun_last = 0;
		timer_next_locked(lxp(t->p));
	}
	procs_unlock();
	if (!tm)
		return -EINVAL;
	if (value && lx_ticker_start(t)) {
		procs_lock();
		tm->at = 0;
		timer_next_locked(lxp(t->p));
		procs_unlock();
		return -ENOMEM;
	}
	return put_user_bytes(t, uold, &ov, sizeof(ov));
}

LX_SYSCALL_DEFINE2(timer_gettime, int, id, unsigned long, ucur)
{
	struct lx_itimerspec cur;
	struct lx_timer *tm;

	procs_lock();
	tm = timer_find_locked(t, id);
	if (tm)
		timer_read_locked(tm, lx_now_ns(), &cur);
	procs_unlock();
	if (!tm)
		return -EINVAL;
	return mem_user_copy(t->p, ucur, &cur, sizeof(cur), MEM_WRITE) ? -EFAULT : 0;
}

LX_SYSCALL_DEFINE1(timer_getoverrun, int, id)
{
	struct lx_timer *tm;
	long ret = -EINVAL;

	procs_lock();
	tm = timer_find_locked(t, id);
	if (tm)
		ret = tm->overrun_last;
	procs_unlock();
	return ret;
}

LX_SYSCALL_DEFINE1(timer_delete, int, id)
{
	struct lx_timer *tm;

	procs_lock();
	tm = timer_find_locked(t, id);
	if (tm) {
		tm->used = false;
		timer_next_locked(lxp(t->p));
	}
	procs_unlock();
	return tm ? 0 : -EINVAL;
}
