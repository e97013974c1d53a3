// SPDX-License-Identifier: GPL-2.0
/*
 * Signals, as far as this kernel has them: a handler can be set and a
 * mask kept, but no handler ever runs; a signal that is not ignored
 * kills its process.
 */
#include "syscalls.h"

#define LX_SIGKILL		9
#define LX_SIGSTOP		19
#define LX_SIG_IGN		1

/* The slot of lp's thread list that holds tid (0: a free one), or -1. */
static int tid_slot(struct lx_proc *lp, long tid)
{
	int i;

	for (i = 0; i < LX_THREADS_MAX; i++)
		if (lp->tids[i] == tid)
			return i;
	return -1;
}

/*
 * Who a kill of pid reaches (Linux's kill_something_info): pid > 0 that
 * process, or the process of the thread pid names, 0 the caller's process
 * group, -1 every process but the first (Linux's init) and the caller,
 * -pgid that group; tgid > 0 (tgkill) only that process.  A process that
 * has exited and is not yet reaped is still there, as a zombie is in
 * Linux: a signal to it is taken and does nothing.  Its threads have all
 * left its list, so only its pid finds it.
 */
static bool kill_reaches(struct proc *c, struct proc *self, long pid, long tgid)
{
	if (!c->os || (tgid > 0 && c->pid != tgid))
		return false;		/* the kernel's own, or not the named process */
	if (pid > 0)
		return c->pid == pid || tid_slot(lxp(c), pid) >= 0;
	if (pid == -1)
		return c->pid != 1 && c != self;
	return lxp(c)->pgid == (pid ? -pid : lxp(self)->pgid);
}

/* Whether sig kills: not 0, not ignored, nor ignored by default (SIGCHLD, SIGURG, SIGWINCH). */
static bool sig_kills(struct proc *p, long sig)
{
	return sig && READ_ONCE(lxp(p)->act[sig - 1].handler) != LX_SIG_IGN &&
	       sig != 17 && sig != 23 && sig != 28;
}

/*
 * No handler ever runs here: a signal that is not ignored kills.  The
 * targets are gathered under the table's lock, each with a reference,
 * and killed after it: proc_kill takes locks of its own.  A target may
 * exit meanwhile, which the reference makes harmless.  As in Linux, no
 * target is -ESRCH before a bad signal is -EINVAL: the signal is checked
 * against each target found.
 */
static long do_kill(struct thread *t, long pid, long tgid, long sig)
{
	struct proc *c, *hit[LX_PROCS_MAX];
	unsigned int n = 0, i;
	bool found = false;

	if (pid == INT_MIN)
		return -ESRCH;		/* Linux's: -INT_MIN names no group */
	procs_lock();
	for (c = procs()->list; c; c = c->next) {
		if (!kill_reaches(c, t->p, pid, tgid))
			continue;
		found = true;
		if (sig >= 0 && sig <= LX_NSIG && !c->exited && sig_kills(c, sig) &&
		    n < LX_PROCS_MAX) {
			proc_get(c);
			hit[n++] = c;
		}
	}
	procs_unlock();
	for (i = 0; i < n; i++) {
		lx_kill(hit[i], sig, "signal", t->p->pid);
		proc_put(hit[i]);
	}
	if (!found)
		return -ESRCH;
	return sig < 0 || sig > LX_NSIG ? -EINVAL : 0;
}

LX_PARTIAL(kill, "no handler runs and masks are ignored: a signal not ignored kills");
LX_SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	return do_kill(t, pid, 0, sig);
}

/* A process's threads but its first (whose id is its pid), for tgkill. */
void lx_tid_add(struct proc *p, long tid)
{
	struct lx_proc *lp = lxp(p);
	int i;

	procs_lock();
	i = tid_slot(lp, 0);
	if (i >= 0)
		lp->tids[i] = tid;
	procs_unlock();
}

void lx_tid_remove(struct proc *p, long tid)
{
	struct lx_proc *lp = lxp(p);
	int i;

	procs_lock();
	i = tid_slot(lp, tid);
	if (i >= 0)
		lp->tids[i] = 0;
	procs_unlock();
}

/* A signal to one thread: with no handler to run, it kills its process. */
static long do_tkill(struct thread *t, long tgid, long tid, long sig)
{
	return tid <= 0 ? -EINVAL : do_kill(t, tid, tgid, sig);
}

LX_PARTIAL(tkill, "no handler runs: a signal not ignored kills the thread's process");
LX_SYSCALL_DEFINE2(tkill, int, tid, int, sig)
{
	return do_tkill(t, -1, tid, sig);
}

LX_PARTIAL(tgkill, "no handler runs: a signal not ignored kills the thread's process");
LX_SYSCALL_DEFINE3(tgkill, int, tgid, int, tid, int, sig)
{
	return tgid <= 0 ? -EINVAL : do_tkill(t, tgid, tid, sig);
}

/* Kill p with sig; proc's end_hook wakes each of its threads asleep. */
void lx_kill(struct proc *p, long sig, const char *why, long from)
{
	proc_kill(p, 128 + sig, "%s %ld from pid %ld", why, sig, from);
}

LX_PARTIAL(rt_sigaction, "handlers are kept but never run: only SIG_IGN has an effect, on kill");
LX_SYSCALL_DEFINE4(rt_sigaction, int, sig, unsigned long, uact, unsigned long, uold,
		   unsigned long, size)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_sigaction act;

	if (sig < 1 || sig > LX_NSIG || size != 8)
		return -EINVAL;
	if (uact && (sig == LX_SIGKILL || sig == LX_SIGSTOP))
		return -EINVAL;
	if (uact && mem_user_copy(t->p, uact, &act, sizeof(act), MEM_READ))
		return -EFAULT;
	if (put_user_bytes(t, uold, &lp->act[sig - 1], sizeof(act)))
		return -EFAULT;
	if (uact)
		lp->act[sig - 1] = act;
	return 0;
}

LX_PARTIAL(rt_sigprocmask, "one mask per process, not per thread; it never holds a signal back");
LX_SYSCALL_DEFINE4(rt_sigprocmask, int, how, unsigned long, uset, unsigned long, uold,
		   unsigned long, size)
{
	struct lx_proc *lp = lxp(t->p);
	u64 set, old = lp->sigmask;

	/*
	 * In Linux's order: the new mask is taken and set before the old one
	 * is written out, so a bad how leaves *uold as it was.
	 */
	if (size != 8)
		return -EINVAL;
	if (!uset)
		return put_user_bytes(t, uold, &old, 8);
	if (mem_user_copy(t->p, uset, &set, 8, MEM_READ))
		return -EFAULT;
	set &= ~(1ULL << (LX_SIGKILL - 1) | 1ULL << (LX_SIGSTOP - 1));
	switch (how) {
	case 0:
		lp->sigmask |= set;
		break;
	case 1:
		lp->sigmask &= ~set;
		break;
	case 2:
		lp->sigmask = set;
		break;
	default:
		return -EINVAL;
	}
	return put_user_bytes(t, uold, &old, 8);
}

#define LX_SS_ONSTACK		1
#define LX_SS_DISABLE		2
#define LX_SS_AUTODISARM	BIT(31)
#define LX_MINSIGSTKSZ		2048

/* Linux's stack_t. */
struct lx_stack {
	u64 sp;
	s32 flags;
	u32 pad;
	u64 size;
};

static bool on_altstack(struct thread *t)
{
	/* Linux's on_sig_stack, for a stack that grows down. */
	return !(t->altstack.flags & LX_SS_AUTODISARM) && t->ctx.rsp > t->altstack.sp &&
	       t->ctx.rsp - t->altstack.sp <= t->altstack.size;
}

/*
 * Linux's do_sigaltstack: the stack is kept, and given back, though no
 * handler ever runs on it here.  The new one is read before anything
 * changes; the old one written after, so a bad uoss fails a call whose
 * change is made, as in Linux.
 */
LX_PARTIAL(sigaltstack, "kept per thread, but no handler runs on it; a forked child has none");
LX_SYSCALL_DEFINE2(sigaltstack, unsigned long, uss, unsigned long, uoss)
{
	struct lx_stack ss, old = {
		.sp = t->altstack.sp,
		.size = t->altstack.size,
		.flags = (!t->altstack.size ? LX_SS_DISABLE : on_altstack(t) ? LX_SS_ONSTACK : 0) |
			 (t->altstack.flags & LX_SS_AUTODISARM),
	};

	if (uss && mem_user_copy(t->p, uss, &ss, sizeof(ss), MEM_READ))
		return -EFAULT;
	if (uss) {
		u32 mode = ss.flags & ~LX_SS_AUTODISARM;

		if (on_altstack(t))
			return -EPERM;
		if (mode != LX_SS_DISABLE && mode != LX_SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode == LX_SS_DISABLE) {
			ss.sp = 0;
			ss.size = 0;
		} else if (ss.size < LX_MINSIGSTKSZ) {
			return -ENOMEM;
		}
		t->altstack.sp = ss.sp;
		t->altstack.size = ss.size;
		t->altstack.flags = ss.flags & LX_SS_AUTODISARM;
	}
	if (uoss && put_user_bytes(t, uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
