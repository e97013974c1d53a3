// SPDX-License-Identifier: GPL-2.0
/*
 * The calls of signals: kill, tkill, tgkill and rt_sigqueueinfo send
 * (signal.c's lx_send_locked), rt_sigaction and rt_sigprocmask set what a
 * signal does and which wait, rt_sigpending, rt_sigsuspend and pause wait
 * for them, sigaltstack names the stack handlers may run on.
 */
#include "syscalls.h"

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
		return c->pid == pid || lx_thread_find(c, pid);
	if (pid == -1)
		return c->pid != 1 && c != self;
	return lxp(c)->pgid == (pid ? -pid : lxp(self)->pgid);
}

/*
 * Send info's signal to every process pid reaches (to the thread pid
 * names, if thread), as lx_send_locked decides under the table's lock;
 * the kills and kicks it asks for come after the lock, each target held
 * by a reference meanwhile.  As in Linux, no target is -ESRCH before a
 * bad signal is -EINVAL: the signal is checked against each target found.
 */
static long do_kill(struct thread *t, long pid, long tgid, bool thread,
		    const struct ksiginfo *info)
{
	struct lx_sends sends = {};
	long sig = info->signo, err = 0;
	bool found = false;
	struct proc *c;

	if (pid == INT_MIN)
		return -ESRCH;		/* Linux's: -INT_MIN names no group */
	procs_lock();
	for (c = procs()->list; c; c = c->next) {
		struct thread *to = NULL;
		int kick = -1, ret;

		if (!kill_reaches(c, t->p, pid, tgid))
			continue;
		found = true;
		if (sig < 0 || sig > LX_NSIG)
			continue;
		if (thread) {
			to = lx_thread_find(c, pid);
			if (!to)
				continue;	/* a zombie's id: taken, and nothing done */
		}
		ret = lx_send_locked(c, to, info, &kick);
		if (ret == -EAGAIN)
			err = ret;	/* a real-time signal found no room */
		lx_sends_keep(&sends, c, sig, ret, kick);
	}
	procs_unlock();
	lx_sends_done(&sends, t->p->pid);
	if (!found)
		return -ESRCH;
	return sig < 0 || sig > LX_NSIG ? -EINVAL : err;
}

LX_SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	struct ksiginfo info = lx_sent_by(t, sig, SI_USER);

	return do_kill(t, pid, 0, false, &info);
}

/* A signal to one thread, of process tgid (-1: any). */
static long do_tkill(struct thread *t, long tgid, long tid, long sig)
{
	struct ksiginfo info = lx_sent_by(t, sig, SI_TKILL);

	return tid <= 0 ? -EINVAL : do_kill(t, tid, tgid, true, &info);
}

LX_SYSCALL_DEFINE2(tkill, int, tid, int, sig)
{
	return do_tkill(t, -1, tid, sig);
}

LX_SYSCALL_DEFINE3(tgkill, int, tgid, int, tid, int, sig)
{
	return tgid <= 0 ? -EINVAL : do_tkill(t, tgid, tid, sig);
}

/*
 * rt_sigqueueinfo and rt_tgsigqueueinfo: a signal with the caller's own
 * siginfo, of which the first 32 bytes are kept.  As in Linux, a thread
 * may not pose as the kernel or as kill (si_code >= 0, or SI_TKILL) but
 * to itself: -EPERM.
 */
static long do_sigqueue(struct thread *t, long tgid, long pid, long sig, unsigned long uinfo,
			bool thread)
{
	u8 whole[128];		/* Linux's siginfo_t, which the call copies whole */
	struct ksiginfo info;

	if (mem_user_copy(t->p, uinfo, whole, sizeof(whole), MEM_READ))
		return -EFAULT;
	vostd_memcpy(&info, whole, sizeof(info));
	if ((info.code >= 0 || info.code == SI_TKILL) && pid != t->tid)
		return -EPERM;
	info.signo = sig;
	return do_kill(t, pid, tgid, thread, &info);
}

LX_SYSCALL_DEFINE3(rt_sigqueueinfo, int, pid, int, sig, unsigned long, uinfo)
{
	return pid <= 0 ? -ESRCH : do_sigqueue(t, 0, pid, sig, uinfo, false);
}

LX_SYSCALL_DEFINE4(rt_tgsigqueueinfo, int, tgid, int, tid, int, sig, unsigned long, uinfo)
{
	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	return do_sigqueue(t, tgid, tid, sig, uinfo, true);
}

/* Kill p with sig, for the reason logged; proc's end_hook wakes each of its threads asleep. */
void lx_kill(struct proc *p, long sig, const char *why, long from)
{
	proc_kill(p, 128 + sig, "%s %ld from pid %ld", why, sig, from);
}

/*
 * A handler, SIG_DFL or SIG_IGN, with its flags and mask.  One that makes
 * a pending signal ignored discards it, from the process and from each of
 * its threads, as POSIX and Linux's do_sigaction have it.
 */
LX_SYSCALL_DEFINE4(rt_sigaction, int, sig, unsigned long, uact, unsigned long, uold,
		   unsigned long, size)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_sigaction act, old;
	int i;

	if (sig < 1 || sig > LX_NSIG || size != 8)
		return -EINVAL;
	if (uact && (sig == LX_SIGKILL || sig == LX_SIGSTOP))
		return -EINVAL;
	if (uact && mem_user_copy(t->p, uact, &act, sizeof(act), MEM_READ))
		return -EFAULT;
	procs_lock();
	old = lp->act[sig - 1];
	if (uact) {
		act.mask &= ~LX_UNBLOCKABLE;
		lp->act[sig - 1] = act;
		if (lx_handler_ignores(act.handler, sig)) {
			lx_sigq_drop_locked(&lp->sigpending, &lp->sigqueued, LX_SIGBIT(sig));
			for (i = 0; i < LX_THREADS_MAX; i++)
				if (lp->threads[i]) {
					lx_sigq_drop_locked(&lp->threads[i]->sig.pending,
							    &lp->threads[i]->sig.queued,
							    LX_SIGBIT(sig));
					lx_recalc_locked(lp->threads[i]);
				}
		}
	}
	procs_unlock();
	return put_user_bytes(t, uold, &old, sizeof(old));
}

LX_SYSCALL_DEFINE4(rt_sigprocmask, int, how, unsigned long, uset, unsigned long, uold,
		   unsigned long, size)
{
	u64 set, old = t->sig.mask;

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
	switch (how) {
	case 0:
		lx_set_mask(t, old | set);
		break;
	case 1:
		lx_set_mask(t, old & ~set);
		break;
	case 2:
		lx_set_mask(t, set);
		break;
	default:
		return -EINVAL;
	}
	return put_user_bytes(t, uold, &old, 8);
}

/* The signals pending for the caller, its own and its process's, that it blocks. */
LX_SYSCALL_DEFINE2(rt_sigpending, unsigned long, uset, unsigned long, size)
{
	u64 set;

	if (size > 8)
		return -EINVAL;
	procs_lock();
	set = (t->sig.pending | lxp(t->p)->sigpending) & t->sig.mask;
	procs_unlock();
	return mem_user_copy(t->p, uset, &set, size, MEM_WRITE);
}

/* Sleep until a signal the caller does not block, or a kill, comes. */
static long wait_for_signal(struct thread *t)
{
	lx_sleeping(t);
	while (!thread_interrupted(t))
		kl_block();
	lx_awake(t);
	return -ERESTARTNOHAND;		/* -EINTR, once a handler has run */
}

LX_SYSCALL_DEFINE0(pause)
{
	return wait_for_signal(t);
}

/*
 * The mask becomes uset's until a signal comes; the handler's frame keeps
 * the old one for its sigreturn (lx_deliver), as Linux's
 * set_restore_sigmask does.
 */
LX_SYSCALL_DEFINE2(rt_sigsuspend, unsigned long, uset, unsigned long, size)
{
	u64 set;

	if (size != 8)
		return -EINVAL;
	if (mem_user_copy(t->p, uset, &set, 8, MEM_READ))
		return -EFAULT;
	t->sig.saved_mask = t->sig.mask;
	t->sig.restore_mask = true;
	lx_set_mask(t, set);
	return wait_for_signal(t);
}

/*
 * rt_sigtimedwait, and through it sigwait, sigwaitinfo and sigtimedwait:
 * take a signal of uthese's, pending or to come, without a handler.
 * While it waits, what it waits for is unblocked (so that it wakes the
 * thread) but still counted as blocked by a sender (Linux's
 * real_blocked), so that it is neither dropped as ignored nor fatal.
 * The signal's number, or -EAGAIN when the time is up, or -EINTR when
 * another signal or a kill came first.
 */
LX_SYSCALL_DEFINE4(rt_sigtimedwait, unsigned long, uthese, unsigned long, uinfo,
		   unsigned long, uts, unsigned long, size)
{
	u8 whole[128] = {};	/* Linux's siginfo_t, written whole */
	struct ksiginfo info;
	u64 these, ts[2], deadline = 0;
	int sig;

	if (size != 8)
		return -EINVAL;
	if (mem_user_copy(t->p, uthese, &these, 8, MEM_READ))
		return -EFAULT;
	these &= ~LX_UNBLOCKABLE;
	if (uts) {
		if (mem_user_copy(t->p, uts, ts, sizeof(ts), MEM_READ))
			return -EFAULT;
		if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
			return -EINVAL;
		deadline = lx_now_ns() + min(ts[0], 1000000ULL) * 1000000000 + ts[1];
	}
	procs_lock();
	sig = lx_dequeue_locked(t, these, &info);
	if (!sig && (!uts || ts[0] || ts[1])) {
		t->sig.real_mask = t->sig.mask;
		t->sig.in_wait = true;
		t->sig.mask &= ~these;
		lx_recalc_locked(t);
		procs_unlock();
		lx_sleep_until(t, NULL, true, deadline);
		procs_lock();
		t->sig.mask = t->sig.real_mask;
		t->sig.in_wait = false;
		sig = lx_dequeue_locked(t, these, &info);
	}
	procs_unlock();
	if (!sig)
		return deadline && lx_now_ns() >= deadline ? -EAGAIN : -EINTR;
	vostd_memcpy(whole, &info, sizeof(info));
	return put_user_bytes(t, uinfo, whole, sizeof(whole)) ?: sig;
}

/*
 * Linux's do_sigaltstack, the change alone: the stack handlers with
 * SA_ONSTACK run on becomes ss's.  Not while a handler runs on the old one
 * (-EPERM); rt_sigreturn puts a frame's back the same way.
 */
long lx_set_altstack(struct thread *t, struct lx_stack *ss)
{
	u32 mode = ss->flags & ~LX_SS_AUTODISARM;

	if (lx_on_altstack(t, t->ctx.rsp))
		return -EPERM;
	if (mode != LX_SS_DISABLE && mode != LX_SS_ONSTACK && mode != 0)
		return -EINVAL;
	if (mode == LX_SS_DISABLE) {
		ss->sp = 0;
		ss->size = 0;
	} else if (ss->size < LX_MINSIGSTKSZ) {
		return -ENOMEM;
	}
	t->altstack.sp = ss->sp;
	t->altstack.size = ss->size;
	t->altstack.flags = ss->flags;	/* a frame saves them as they are */
	return 0;
}

/*
 * The new stack is read before anything changes; the old one written
 * after, so a bad uoss fails a call whose change is made, as in Linux.
 */
LX_SYSCALL_DEFINE2(sigaltstack, unsigned long, uss, unsigned long, uoss)
{
	struct lx_stack ss, old = {
		.sp = t->altstack.sp,
		.size = t->altstack.size,
		.flags = lx_altstack_flags(t, t->ctx.rsp),
	};
	long err;

	if (uss && mem_user_copy(t->p, uss, &ss, sizeof(ss), MEM_READ))
		return -EFAULT;
	if (uss) {
		err = lx_set_altstack(t, &ss);
		if (err)
			return err;
	}
	if (uoss && put_user_bytes(t, uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
