// SPDX-License-Identifier: GPL-2.0
/*
 * Signals as Linux sends and delivers them on x86-64.
 *
 * Sending (Linux's send_signal and complete_signal): a signal goes to a
 * thread (tkill, a fault's) or to its process (kill), whose pending set
 * any thread that does not block it may take.  One that would be ignored
 * is dropped at once; one whose default action kills ends the process at
 * once, whichever thread it was for.  Otherwise the thread chosen is
 * marked (sig.wake), woken if it sleeps where a signal ends the sleep,
 * and kicked out of user mode if it runs there on another vCPU.
 *
 * Delivering (Linux's arch_do_signal_or_restart): before a thread returns
 * to user mode (proc's user_hook) it takes its pending signals, lowest
 * first.  A handler gets Linux's rt_sigframe on the user stack, or on the
 * alternate one: the return address (sa_restorer), the ucontext with the
 * registers and the mask to restore, the siginfo, and the x87 and SSE
 * registers as FXSAVE's image, which the endovisor reads and writes for
 * the kernel (fpu_read, fpu_write).  rt_sigreturn puts back what the frame
 * says; the endovisor forces the privilege, the selectors and the flags
 * whatever the frame holds.  A call a signal cut short (-ERESTART*) is
 * restarted, or ends with -EINTR, as Linux decides.
 *
 * Stopping and continuing are jobctl.c's.
 *
 * The signal state is under the table's lock (procs_lock): the pending
 * sets, the handlers, the threads' marks.  A thread's mask is written by
 * the thread alone, under the lock, and read by senders under it.
 */
#include "syscalls.h"

#define SA_NOCLDWAIT	0x00000002
#define SA_SIGINFO	0x00000004
#define SA_RESTORER	0x04000000
#define SA_ONSTACK	0x08000000
#define SA_RESTART	0x10000000
#define SA_NODEFER	0x40000000
#define SA_RESETHAND	0x80000000

#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4

#define LX_USER_CS	0x33
#define LX_USER_DS	0x2b

#define X86_TRAP_PF	14
#define LX_RED_ZONE	128

/* Linux's ERESTART* (linux/errno.h): a call a signal cut short. */
#define LX_ERESTARTSYS		512
#define LX_ERESTARTNOINTR	513
#define LX_ERESTARTNOHAND	514
#define LX_ERESTART_RESTARTBLOCK	516

/* The flags a frame may change (Linux's FIX_EFLAGS); the endovisor keeps fewer. */
#define LX_FIX_EFLAGS	(X86_EFLAGS_AC | X86_EFLAGS_OF | X86_EFLAGS_DF | X86_EFLAGS_TF | \
			 X86_EFLAGS_SF | X86_EFLAGS_ZF | X86_EFLAGS_AF | X86_EFLAGS_PF | \
			 X86_EFLAGS_CF | X86_EFLAGS_RF)

/* Linux's struct sigcontext, x86-64. */
struct lx_sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate;			/* the FXSAVE image's address */
	u64 reserved1[8];
};

struct lx_ucontext {
	u64 uc_flags;
	u64 uc_link;
	struct lx_stack uc_stack;
	struct lx_sigcontext uc_mcontext;
	u64 uc_sigmask;
};

struct lx_siginfo {
	struct ksiginfo k;
	u8 rest[128 - sizeof(struct ksiginfo)];
};

/* Linux's struct rt_sigframe, x86-64: the handler's return address first. */
struct lx_rt_sigframe {
	u64 pretcode;
	struct lx_ucontext uc;
	struct lx_siginfo info;
};

static_assert(sizeof(struct lx_sigcontext) == 256);
static_assert(sizeof(struct lx_ucontext) == 304);
static_assert(offsetof(struct lx_rt_sigframe, info) == 312);

/* ---- sending ---- */

enum lx_default { DFL_TERM, DFL_IGN, DFL_STOP };

/* Linux's sig_kernel_ignore and sig_kernel_stop; every other signal ends the process. */
static enum lx_default sig_default(int sig)
{
	switch (sig) {
	case LX_SIGCHLD:
	case LX_SIGCONT:
	case 23:		/* SIGURG */
	case 28:		/* SIGWINCH */
		return DFL_IGN;
	case LX_SIGSTOP:
	case 20:		/* SIGTSTP */
	case 21:		/* SIGTTIN */
	case 22:		/* SIGTTOU */
		return DFL_STOP;
	}
	return DFL_TERM;
}

/*
 * Linux's sig_handler_ignored: handler ignores sig, by SIG_IGN or by a
 * default of ignoring it.  What setting it discards from the pending sets.
 */
bool lx_handler_ignores(u64 handler, int sig)
{
	return handler == LX_SIG_IGN || (handler == LX_SIG_DFL && sig_default(sig) == DFL_IGN);
}

/* Linux's sig_ignored, for a signal no thread blocks. */
static bool sig_ignored(struct proc *p, int sig)
{
	return lx_handler_ignores(lxp(p)->act[sig - 1].handler, sig);
}

/*
 * Whether th blocks bit, as a sender sees it: in its mask, or in the mask
 * it had before rt_sigtimedwait unblocked what it waits for (Linux's
 * real_blocked), so that the signal it waits for is neither dropped as
 * ignored nor taken as fatal.
 */
static bool blocks(struct thread *th, u64 bit)
{
	return (th->sig.mask | (th->sig.in_wait ? th->sig.real_mask : 0)) & bit;
}

/* Whether t is marked: a signal it does not block is pending for it. */
void lx_recalc_locked(struct thread *t)
{
	u64 pending = t->sig.pending | lxp(t->p)->sigpending;

	WRITE_ONCE(t->sig.wake, !!(pending & ~t->sig.mask));
}

/* Mark t, wake it if it sleeps, and name its vCPU to kick if it is not this one. */
void lx_signal_wake(struct thread *t, int *kick)
{
	WRITE_ONCE(t->sig.wake, true);
	if (t->sig.sleeper)
		kl_wake(t->sig.sleeper);
	if (t->vcpu != vostd_cpu_id())
		*kick = t->vcpu;
}

/*
 * The process's pending signals may have lost the thread that was to
 * take them (it exited or blocked them) or gained one (a new thread, a
 * mask that lets them through): every thread is marked again, and each
 * marked one woken, as Linux's retarget_shared_pending passes them on.
 * One that finds nothing left when it looks unmarks itself.
 */
static void retarget_locked(struct lx_proc *lp, int *kick)
{
	struct thread *th;
	int i;

	for (i = 0; lp->sigpending && i < LX_THREADS_MAX; i++) {
		th = lp->threads[i];
		if (!th)
			continue;
		lx_recalc_locked(th);
		if (th->sig.wake)
			lx_signal_wake(th, kick);
	}
}

/* ---- the threads of a process ---- */

/* t joins its process's list, which signals search: -EAGAIN if it is full. */
long lx_thread_add(struct thread *t)
{
	struct lx_proc *lp = lxp(t->p);
	long err = -EAGAIN;
	int i, kick = -1;

	procs_lock();
	for (i = 0; i < LX_THREADS_MAX; i++)
		if (!lp->threads[i]) {
			lp->threads[i] = t;
			err = 0;
			break;
		}
	/* A signal sent to the process before it had a thread is this one's to take. */
	retarget_locked(lp, &kick);
	procs_unlock();
	if (kick >= 0)
		vostd_kick(kick);
	return err;
}

/* t leaves it (nothing, if it is not there): no sender finds it after this. */
void lx_thread_remove(struct thread *t)
{
	struct lx_proc *lp = lxp(t->p);
	int i, kick = -1;

	procs_lock();
	for (i = 0; i < LX_THREADS_MAX; i++)
		if (lp->threads[i] == t)
			lp->threads[i] = NULL;
	lx_sigq_drop_locked(&t->sig.pending, &t->sig.queued, ~0ULL);	/* its own go with it */
	retarget_locked(lp, &kick);	/* what it was to take, another takes */
	procs_unlock();
	if (kick >= 0)
		vostd_kick(kick);
}

/* p's live thread with id tid, or NULL; the table's lock held, and t is good under it. */
struct thread *lx_thread_find(struct proc *p, long tid)
{
	int i;

	for (i = 0; p->os && i < LX_THREADS_MAX; i++)
		if (lxp(p)->threads[i] && lxp(p)->threads[i]->tid == tid)
			return lxp(p)->threads[i];
	return NULL;
}

/*
 * Queue info's signal for p, or for p's thread to, the table's lock held.
 * 0 if it was queued, dropped or coalesced with one pending;
 * LX_SEND_FATAL if it ends p, which the caller does once the lock is
 * dropped (lx_send_done); -EAGAIN if a real-time one found no room.
 * *kick is a vCPU to kick, or stays -1.
 */
int lx_send_locked(struct proc *p, struct thread *to, const struct ksiginfo *info, int *kick)
{
	struct lx_proc *lp = lxp(p);
	int sig = info->signo, i, ret;
	u64 bit = LX_SIGBIT(sig);
	struct thread *th, *any;

	/* sig 0 only checks the target; a zombie takes a signal and does nothing. */
	if (!sig || p->exited || READ_ONCE(p->killed))
		return 0;
	if (sig == LX_SIGKILL)
		return LX_SEND_FATAL;
	lx_prepare_locked(p, sig, kick);
	/* Blocked, it is never ignored (Linux's sig_ignored): by the thread, or the leader. */
	th = to ?: lx_thread_find(p, p->pid);
	if (sig_ignored(p, sig) && !(th && blocks(th, bit)))
		return 0;
	if (to)
		ret = lx_sigq_send_locked(&to->sig.pending, &to->sig.queued, to->sig.info, p, info);
	else
		ret = lx_sigq_send_locked(&lp->sigpending, &lp->sigqueued, lp->siginfo, p, info);
	if (ret)
		return ret < 0 ? ret : 0;	/* one was pending already: nothing more */
	/* Linux's complete_signal: the thread, or the first one that does not block it. */
	for (any = to, i = 0; i < LX_THREADS_MAX && !any; i++) {
		th = lp->threads[i];
		if (th && !(th->sig.mask & bit))
			any = th;
	}
	if (!any || (any->sig.mask & bit))
		return 0;	/* blocked: pending until a mask lets it through */
	if (lp->act[sig - 1].handler == LX_SIG_DFL && sig_default(sig) == DFL_TERM &&
	    !blocks(any, bit))
		return LX_SEND_FATAL;
	lx_signal_wake(any, kick);
	return 0;
}

/* After lx_send_locked, the table's lock dropped: kill, or kick. */
void lx_send_done(struct proc *p, int sig, int ret, int kick, long from)
{
	if (ret == LX_SEND_FATAL)
		lx_kill(p, sig, "signal", from);
	else if (kick >= 0)
		vostd_kick(kick);
}

/* Keep p's send, if it asks for more once the lock drops; the table's lock held. */
void lx_sends_keep(struct lx_sends *s, struct proc *p, int sig, int ret, int kick)
{
	static_assert(EV_MAX_VCPUS <= 64);	/* a bit of kicks each */

	if (ret == LX_SEND_FATAL && s->n < LX_PROCS_MAX) {
		proc_get(p);
		s->fatal[s->n] = p;
		s->sig[s->n++] = sig;
	} else if (kick >= 0) {
		s->kicks |= 1ULL << kick;
	}
}

/* Finish the sends kept, the table's lock dropped, and let their processes go. */
void lx_sends_done(struct lx_sends *s, long from)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		lx_send_done(s->fatal[i], s->sig[i], LX_SEND_FATAL, -1, from);
		proc_put(s->fatal[i]);
	}
	for (i = 0; s->kicks; i++, s->kicks >>= 1)
		if (s->kicks & 1)
			vostd_kick(i);
	s->n = 0;
}

/* What a kill, a tkill or the kernel's own signal says of its sender: its pid, uid 0. */
struct ksiginfo lx_sent_by(struct thread *t, int sig, int code)
{
	return (struct ksiginfo){ .signo = sig, .code = code, .f0 = (u32)t->p->pid };
}

#define CLD_EXITED	1
#define CLD_KILLED	2

/*
 * p has exited, the table's lock held (proc's exited_hook): SIGCHLD to
 * its parent, with the status a wait will find.  Sent once a wait can
 * find p, so that a handler's waitpid does; SIGCHLD's default is to
 * ignore it, so it ends no one.  A parent that set SIGCHLD to SIG_IGN,
 * or SA_NOCLDWAIT, waits for none of its children: p goes at once, and
 * a wait finds the next child or none (Linux's do_notify_parent).  With
 * SIG_IGN no signal is sent; SA_NOCLDWAIT's handler still runs.  A vCPU
 * to kick, or -1.
 */
int lx_child_exited(struct proc *p, bool *autoreap)
{
	bool killed = p->killed && !p->group_exit;
	struct ksiginfo info = {
		.signo = LX_SIGCHLD, .code = killed ? CLD_KILLED : CLD_EXITED,
		.f0 = (u32)p->pid, .f1 = killed ? (p->code - 128) & 0x7f : p->code & 0xff,
	};
	const struct lx_sigaction *act;
	int kick = -1;

	if (!p->parent->os)
		return kick;
	act = &lxp(p->parent)->act[LX_SIGCHLD - 1];
	*autoreap = act->handler == LX_SIG_IGN || (act->flags & SA_NOCLDWAIT);
	if (act->handler != LX_SIG_IGN)
		lx_send_locked(p->parent, NULL, &info, &kick);
	return kick;
}

/* The kernel's signal to thread t of its own process (SIGPIPE): t is the caller. */
void lx_signal_thread(struct thread *t, int sig, int code)
{
	struct ksiginfo info = lx_sent_by(t, sig, code);
	int kick = -1, ret;

	procs_lock();
	ret = lx_send_locked(t->p, t, &info, &kick);
	procs_unlock();
	lx_send_done(t->p, sig, ret, kick, t->p->pid);
}

/*
 * A fault's or an exception's signal for t (proc's trap_hook): Linux's
 * force_sig_fault.  If t blocks it or has no handler for it, the process
 * dies of it, as Linux's does once it has unblocked it and reset it to
 * the default: false, and proc kills.
 */
bool lx_trap_signal(struct thread *t, u32 sig, int code, unsigned long addr)
{
	struct ksiginfo info = { .signo = sig, .code = code, .f0 = addr };
	u64 h;

	if (!sig || sig >= LX_SIGRTMIN)
		return false;	/* an exception's are standard ones, which are not counted */
	procs_lock();
	h = lxp(t->p)->act[sig - 1].handler;
	if (h == LX_SIG_DFL || h == LX_SIG_IGN || (t->sig.mask & LX_SIGBIT(sig))) {
		procs_unlock();
		return false;
	}
	t->sig.pending |= LX_SIGBIT(sig);
	t->sig.info[sig - 1] = info;
	WRITE_ONCE(t->sig.wake, true);
	procs_unlock();
	return true;
}

/* ---- the mask ---- */

/* t's mask becomes mask (never SIGKILL or SIGSTOP); t is the caller. */
void lx_set_mask(struct thread *t, u64 mask)
{
	struct lx_proc *lp = lxp(t->p);
	int kick = -1;

	procs_lock();
	t->sig.mask = mask & ~LX_UNBLOCKABLE;
	lx_recalc_locked(t);
	/* The process's signals it blocks now may be another thread's to take. */
	if (lp->sigpending & t->sig.mask)
		retarget_locked(lp, &kick);
	procs_unlock();
	if (kick >= 0)
		vostd_kick(kick);
}

/* ---- delivering ---- */

/* Linux's on_sig_stack, for a stack that grows down. */
bool lx_on_altstack(struct thread *t, unsigned long sp)
{
	return !(t->altstack.flags & LX_SS_AUTODISARM) && sp > t->altstack.sp &&
	       sp - t->altstack.sp <= t->altstack.size;
}

/* Linux's sas_ss_flags: what uc_stack and sigaltstack report. */
s32 lx_altstack_flags(struct thread *t, unsigned long sp)
{
	if (!t->altstack.size)
		return LX_SS_DISABLE;
	return (lx_on_altstack(t, sp) ? LX_SS_ONSTACK : 0) | (t->altstack.flags & LX_SS_AUTODISARM);
}

/* The x87 and SSE registers a handler starts with: Linux's initial ones. */
static const struct {
	u16 cwd, swd, twd, fop;
	u64 rip, rdp;
	u32 mxcsr, mxcsr_mask;
	u8 rest[VOSTD_FXSAVE_SIZE - 32];
} __aligned(16) fx_initial = { .cwd = 0x37f, .mxcsr = 0x1f80 };

/*
 * The lowest signal pending for t among allowed (those it does not
 * block, or those rt_sigtimedwait waits for), taken off with its info;
 * 0: none.  The table's lock held.
 */
int lx_dequeue_locked(struct thread *t, u64 allowed, struct ksiginfo *info)
{
	struct lx_proc *lp = lxp(t->p);
	u64 mine = t->sig.pending & allowed, shared = lp->sigpending & allowed;
	int sig;

	if (mine) {
		sig = __builtin_ctzll(mine) + 1;
		lx_sigq_take_locked(&t->sig.pending, &t->sig.queued, t->sig.info, sig, info);
	} else if (shared) {
		sig = __builtin_ctzll(shared) + 1;
		lx_sigq_take_locked(&lp->sigpending, &lp->sigqueued, lp->siginfo, sig, info);
	} else {
		sig = 0;
	}
	lx_recalc_locked(t);
	return sig;
}

/*
 * Build the handler's frame for sig on t's stack and point t at the
 * handler; the mask it had goes in the frame.  -EFAULT if the frame
 * cannot be written, as Linux's setup_rt_frame, which the caller answers
 * with SIGSEGV.
 */
static long setup_frame(struct thread *t, const struct lx_sigaction *act,
			const struct ksiginfo *info, u64 oldmask)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct lx_rt_sigframe f = {};
	u8 fx[VOSTD_FXSAVE_SIZE] __aligned(16);
	unsigned long sp = c->rsp - LX_RED_ZONE, fxa, fa;
	bool on = lx_on_altstack(t, sp);

	if (!(act->flags & SA_RESTORER))
		return -EFAULT;		/* x86-64 Linux has no other way back */
	/* Linux's get_sigframe: the alternate stack if asked for and not on it already. */
	if ((act->flags & SA_ONSTACK) && t->altstack.size && !on) {
		sp = t->altstack.sp + t->altstack.size;
		on = true;
	}
	fxa = (sp - VOSTD_FXSAVE_SIZE) & ~63UL;
	fa = ((fxa - sizeof(f)) & ~15UL) - 8;
	if (on && !(fa > t->altstack.sp && fa - t->altstack.sp <= t->altstack.size))
		return -EFAULT;		/* the alternate stack overflows */
	if (vostd_fpu_read(t->fpu, fx))
		return -EFAULT;
	f.pretcode = act->restorer;
	f.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.sp = t->altstack.sp;
	f.uc.uc_stack.size = t->altstack.size;
	/* Linux's __save_altstack: the flags as sigaltstack was given them. */
	f.uc.uc_stack.flags = t->altstack.size ? t->altstack.flags : LX_SS_DISABLE;
	f.uc.uc_mcontext = (struct lx_sigcontext){
		.r8 = c->r8, .r9 = c->r9, .r10 = c->r10, .r11 = c->r11,
		.r12 = c->r12, .r13 = c->r13, .r14 = c->r14, .r15 = c->r15,
		.rdi = c->rdi, .rsi = c->rsi, .rbp = c->rbp, .rbx = c->rbx,
		.rdx = c->rdx, .rax = c->rax, .rcx = c->rcx, .rsp = c->rsp,
		.rip = c->rip, .eflags = c->rflags,
		.cs = LX_USER_CS, .ss = LX_USER_DS,
		.oldmask = oldmask, .fpstate = fxa,
	};
	if (info->signo == LX_SIGSEGV && info->code > 0 && info->code < SI_KERNEL) {
		/* A page fault's, as Linux's: user mode, and a write if it was one. */
		f.uc.uc_mcontext.trapno = X86_TRAP_PF;
		f.uc.uc_mcontext.err = 4 | (c->fault_write ? 2 : 0) | (info->code == 2 ? 1 : 0);
		f.uc.uc_mcontext.cr2 = info->f0;
	}
	f.uc.uc_sigmask = oldmask;
	f.info.k = *info;
	if (mem_user_copy(t->p, fxa, fx, sizeof(fx), MEM_WRITE) ||
	    mem_user_copy(t->p, fa, &f, sizeof(f), MEM_WRITE))
		return -EFAULT;
	/* The handler's registers: Linux's fpu__clear_user_states, then the call. */
	if (vostd_fpu_write(t->fpu, &fx_initial))
		return -EFAULT;
	/* Linux's signal_delivered: an auto-disarming stack goes with any delivery. */
	if (t->altstack.flags & LX_SS_AUTODISARM)
		t->altstack = (typeof(t->altstack)){};
	c->rdi = info->signo;
	c->rsi = fa + offsetof(struct lx_rt_sigframe, info);
	c->rdx = fa + offsetof(struct lx_rt_sigframe, uc);
	c->rax = 0;
	c->rsp = fa;
	c->rip = act->handler;
	c->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_TF | X86_EFLAGS_RF);
	return 0;
}

/*
 * A call a signal cut short, now that the signal is known: with a handler
 * (act), -EINTR unless it asked for SA_RESTART; without, or for
 * -ERESTARTNOINTR, the call runs again from its syscall instruction.
 */
static void settle_restart(struct thread *t, long restart, const struct lx_sigaction *act)
{
	struct ev_tenant_ctx *c = &t->ctx;

	if (act && (restart == -LX_ERESTARTNOHAND || restart == -LX_ERESTART_RESTARTBLOCK ||
		    (restart == -LX_ERESTARTSYS && !(act->flags & SA_RESTART)))) {
		c->rax = -EINTR;
		return;
	}
	if (restart == -LX_ERESTART_RESTARTBLOCK) {
		c->rax = -EINTR;	/* no restart_syscall here */
		return;
	}
	c->rax = c->syscall_nr;
	c->rip -= 2;			/* the syscall instruction's length */
}

/*
 * Before t returns to user mode (proc's user_hook): a sleep while its
 * process is stopped, then every signal pending
 * for it that it does not block, each as its action says, a frame for
 * each handler, nested as Linux nests them; then a cut-short call settled
 * and rt_sigsuspend's mask put back if no frame took it.
 */
void lx_deliver(struct thread *t)
{
	struct lx_proc *lp = lxp(t->p);
	long restart = t->sig.restart;
	struct lx_sigaction act;
	struct ksiginfo info;
	u64 oldmask;
	u32 conts;
	int sig;

	lx_itimer_check(t);
	if (!READ_ONCE(t->sig.wake) && !restart && !t->sig.restore_mask &&
	    !READ_ONCE(lp->stopped))
		return;
	t->sig.restart = 0;
	for (;;) {
		lx_stop_wait(t);
		if (READ_ONCE(t->p->killed))
			return;
		procs_lock();
		sig = lx_dequeue_locked(t, ~t->sig.mask, &info);
		conts = lp->conts;
		if (sig) {
			act = lp->act[sig - 1];
			if (act.handler > LX_SIG_IGN && (act.flags & SA_RESETHAND))
				lp->act[sig - 1].handler = LX_SIG_DFL;
		}
		procs_unlock();
		if (!sig)
			break;
		if (act.handler == LX_SIG_IGN)
			continue;
		if (act.handler == LX_SIG_DFL) {
			if (sig_default(sig) == DFL_STOP)
				lx_stop_group(t, sig, conts);
			if (sig_default(sig) != DFL_TERM)
				continue;
			lx_kill(t->p, sig, "signal", info.code <= 0 ? (long)(u32)info.f0 : 0);
			return;	/* proc sees the kill before user mode */
		}
		if (restart) {
			settle_restart(t, restart, &act);
			restart = 0;
		}
		oldmask = t->sig.restore_mask ? t->sig.saved_mask : t->sig.mask;
		t->sig.restore_mask = false;
		if (setup_frame(t, &act, &info, oldmask)) {
			proc_kill(t->p, 128 + LX_SIGSEGV, "no room for signal %d's frame", sig);
			return;
		}
		lx_set_mask(t, t->sig.mask | act.mask |
			       (act.flags & SA_NODEFER ? 0 : LX_SIGBIT(sig)));
	}
	if (restart)
		settle_restart(t, restart, NULL);
	if (t->sig.restore_mask) {
		t->sig.restore_mask = false;
		lx_set_mask(t, t->sig.saved_mask);
	}
}

/* A call's end (syscall_dispatch): a -ERESTART* is kept for lx_deliver to settle. */
void lx_syscall_done(struct thread *t, unsigned long nr, long ret)
{
	if (ret <= -LX_ERESTARTSYS && ret >= -LX_ERESTART_RESTARTBLOCK && nr != __NR_rt_sigreturn)
		t->sig.restart = ret;
}

/*
 * rt_sigreturn: the registers, mask, alternate stack and FPU registers the
 * frame below the stack pointer holds (the handler's ret popped its return
 * address).  A frame that cannot be read, or an FXSAVE image the endovisor
 * refuses, is Linux's badframe: SIGSEGV.  The flags the program may set
 * are Linux's FIX_EFLAGS; the endovisor keeps fewer still, and forces the
 * selectors, so a forged frame gains no privilege.  Returns the restored
 * rax, which is no call's result to restart.
 */
LX_PARTIAL(rt_sigreturn, "the x87 and SSE registers alone: AVX and on come back initial");
LX_SYSCALL_DEFINE0(rt_sigreturn)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct lx_rt_sigframe f;
	const struct lx_sigcontext *sc = &f.uc.uc_mcontext;
	u8 fx[VOSTD_FXSAVE_SIZE] __aligned(16);

	if (mem_user_copy(t->p, c->rsp - 8, &f, sizeof(f), MEM_READ))
		goto bad;
	c->r8 = sc->r8;
	c->r9 = sc->r9;
	c->r10 = sc->r10;
	c->r11 = sc->r11;
	c->r12 = sc->r12;
	c->r13 = sc->r13;
	c->r14 = sc->r14;
	c->r15 = sc->r15;
	c->rdi = sc->rdi;
	c->rsi = sc->rsi;
	c->rbp = sc->rbp;
	c->rbx = sc->rbx;
	c->rdx = sc->rdx;
	c->rax = sc->rax;
	c->rcx = sc->rcx;
	c->rsp = sc->rsp;
	c->rip = sc->rip;
	c->rflags = (c->rflags & ~LX_FIX_EFLAGS) | (sc->eflags & LX_FIX_EFLAGS);
	lx_set_mask(t, f.uc.uc_sigmask);
	/* Linux's restore_altstack: a stack do_sigaltstack refuses is no bad frame. */
	lx_set_altstack(t, &f.uc.uc_stack);
	if (!sc->fpstate) {
		if (vostd_fpu_write(t->fpu, &fx_initial))
			goto bad;
	} else if (mem_user_copy(t->p, sc->fpstate, fx, sizeof(fx), MEM_READ) ||
		   vostd_fpu_write(t->fpu, fx)) {
		goto bad;
	}
	/* What tenant_run would refuse, Linux's return to user mode would fault on. */
	if (c->rip >= LX_USER_END || c->rsp >= LX_USER_END)
		goto bad;
	return c->rax;
bad:
	if (!lx_trap_signal(t, LX_SIGSEGV, SI_KERNEL, 0))
		proc_kill(t->p, 128 + LX_SIGSEGV, "a bad signal frame at %llx", c->rsp - 8);
	return c->rax;
}
