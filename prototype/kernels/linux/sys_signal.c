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

/* The live process pid, with a reference for the caller to put; NULL if none. */
static struct proc *lx_find_proc(long pid)
{
	struct proc *c, *found = NULL;

	procs_lock();
	for (c = procs()->list; c && !found; c = c->next)
		if (c->pid == pid && !c->exited && c->os)
			found = c;
	if (found)
		proc_get(found);
	procs_unlock();
	return found;
}

static long do_kill(struct thread *t, long pid, long sig)
{
	struct proc *target;
	u64 handler;

	if (sig < 0 || sig > LX_NSIG)
		return -EINVAL;
	if (pid <= 0)
		pid = pid == 0 || pid == -1 ? t->p->pid : -pid;	/* a group is its leader here */
	/* The target may exit and be reaped meanwhile: the reference keeps it. */
	target = lx_find_proc(pid);
	if (!target)
		return -ESRCH;
	handler = sig ? READ_ONCE(lxp(target)->act[sig - 1].handler) : 0;
	/*
	 * Nothing for 0; ignored, or ignored by default: SIGCHLD, SIGURG,
	 * SIGWINCH.  No handler ever runs here: a signal that is not ignored
	 * kills.
	 */
	if (sig && handler != LX_SIG_IGN && sig != 17 && sig != 23 && sig != 28)
		lx_kill(target, sig, "signal", t->p->pid);
	proc_put(target);
	return 0;
}

LX_PARTIAL(kill, "no handler runs, masks ignored: a signal not ignored kills; pid 0 or -1 is self");
LX_SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	return do_kill(t, pid, sig);
}

LX_PARTIAL(tgkill, "tid not matched to tgid; no handler runs, so an unignored signal kills");
LX_SYSCALL_DEFINE3(tgkill, int, tgid, int, pid, int, sig)
{
	/* As Linux's: only a single thread, named by both ids, is a target. */
	return tgid > 0 && pid > 0 ? do_kill(t, tgid, sig) : -EINVAL;
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

/* No handler runs, so none needs a stack of its own. */
LX_PARTIAL(sigaltstack, "a no-op: no stack is kept, and the old one is not written to uoss");
LX_SYSCALL_DEFINE2(sigaltstack, unsigned long, uss, unsigned long, uoss)
{
	return 0;
}
