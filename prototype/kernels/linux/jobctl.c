// SPDX-License-Identifier: GPL-2.0
/*
 * Job control, as Linux's prepare_signal and do_signal_stop have it.  A
 * stop signal whose action is the default stops the process when a
 * thread takes it (lx_stop_group); each of its threads then sleeps before
 * user mode (lx_stop_wait) until a SIGCONT, which continues it as it is
 * sent, blocked, caught or ignored alike (lx_prepare_locked).  Each sends
 * the parent SIGCHLD (unless SA_NOCLDSTOP) and leaves a report for its
 * wait (WUNTRACED, WCONTINUED).  One stops the whole process, as Linux's
 * group stop does; there is no ptrace stop.  An exit that orphans a
 * stopped group hangs it up and continues it (lx_hup_orphans).  All of it
 * under the table's lock, as the rest of the signal state.
 */
#include "syscalls.h"

#define SA_NOCLDSTOP	0x00000001
#define CLD_STOPPED	5
#define CLD_CONTINUED	6
#define LX_STOP_SIGS	(LX_SIGBIT(LX_SIGSTOP) | LX_SIGBIT(20) | LX_SIGBIT(21) | LX_SIGBIT(22))

/* bits leave p's pending sets, its own and each thread's. */
static void flush_pending_locked(struct lx_proc *lp, u64 bits)
{
	int i;

	lp->sigpending &= ~bits;
	for (i = 0; i < LX_THREADS_MAX; i++)
		if (lp->threads[i])
			lp->threads[i]->sig.pending &= ~bits;
}

/*
 * p stopped or continued (why, CLD_*, with status): a report for its
 * parent's wait, and SIGCHLD unless the parent's handler has SA_NOCLDSTOP
 * (Linux's do_notify_parent_cldstop).
 */
static void notify_parent_locked(struct proc *p, int why, int status, int *kick)
{
	struct proc *parent = p->parent;
	struct ksiginfo info = {
		.signo = LX_SIGCHLD, .code = why, .f0 = (u32)p->pid, .f1 = (u32)status,
	};

	if (!parent || !parent->os)
		return;
	proc_report_locked(p, why == CLD_STOPPED ? PROC_REPORT_STOPPED : PROC_REPORT_CONTINUED,
			   why == CLD_STOPPED ? (u32)status << 8 | 0x7f : 0xffff);
	if (!(lxp(parent)->act[LX_SIGCHLD - 1].flags & SA_NOCLDSTOP))
		lx_send_locked(parent, NULL, &info, kick);
}

/*
 * What sending sig does before it is queued, whatever its action or mask
 * (Linux's prepare_signal): a stop signal takes back a pending SIGCONT,
 * and a SIGCONT takes back pending stop signals and continues p if it is
 * stopped, waking each of its threads.
 */
void lx_prepare_locked(struct proc *p, int sig, int *kick)
{
	struct lx_proc *lp = lxp(p);

	if (LX_SIGBIT(sig) & LX_STOP_SIGS) {
		flush_pending_locked(lp, LX_SIGBIT(LX_SIGCONT));
		return;
	}
	if (sig != LX_SIGCONT)
		return;
	lp->conts++;
	flush_pending_locked(lp, LX_STOP_SIGS);
	if (!lp->stopped)
		return;
	lp->stopped = false;
	lx_wake_sleepers_locked(p);
	notify_parent_locked(p, CLD_CONTINUED, LX_SIGCONT, kick);
}

/* Whether q is a process of Linux's that has not exited and is not gone. */
static bool live(struct proc *q, struct proc *gone)
{
	return q && q != gone && q->os && !q->exited;
}

/* Whether q is a live member of group pgid other than gone. */
static bool in_group(struct proc *q, long pgid, struct proc *gone)
{
	return live(q, gone) && lxp(q)->pgid == pgid;
}

/*
 * Linux's will_become_orphaned_pgrp: no member of group pgid but gone
 * has a parent in its session but outside the group, gone being a
 * process that is exiting (NULL: none).  A terminal's stop signals
 * (SIGTSTP, SIGTTIN, SIGTTOU) stop no one there, since nobody would
 * continue it.
 */
static bool pgrp_orphaned_locked(long pgid, struct proc *gone)
{
	struct proc *q;

	for (q = procs()->list; q; q = q->next) {
		struct proc *parent = q->parent;

		if (!in_group(q, pgid, gone))
			continue;
		if (live(parent, gone) && lxp(parent)->pgid != pgid &&
		    lxp(parent)->sid == lxp(q)->sid)
			return false;
	}
	return true;
}

/*
 * Group pgid, if gone's exit orphans it and a member is stopped: SIGHUP
 * and SIGCONT to each member, as Linux's kill_orphaned_pgrp sends them,
 * so that none is left stopped with no one to continue it.
 */
static void hup_group_locked(long pgid, struct proc *gone, struct lx_sends *s)
{
	struct ksiginfo hup = { .signo = LX_SIGHUP, .code = SI_KERNEL };
	struct ksiginfo cont = { .signo = LX_SIGCONT, .code = SI_KERNEL };
	bool stopped = false;
	struct proc *q;
	int kick, ret;

	if (pgrp_orphaned_locked(pgid, NULL) || !pgrp_orphaned_locked(pgid, gone))
		return;
	for (q = procs()->list; q; q = q->next)
		if (in_group(q, pgid, gone))
			stopped |= lxp(q)->stopped;
	for (q = procs()->list; stopped && q; q = q->next) {
		if (!in_group(q, pgid, gone))
			continue;
		kick = -1;
		ret = lx_send_locked(q, NULL, &hup, &kick);
		lx_sends_keep(s, q, LX_SIGHUP, ret, kick);
		kick = -1;
		ret = lx_send_locked(q, NULL, &cont, &kick);
		lx_sends_keep(s, q, LX_SIGCONT, ret, kick);
	}
}

/*
 * p is exiting (proc's exit hook, before its children lose it): the
 * groups its exit may orphan, its own and its children's, each as
 * hup_group_locked has it.
 */
void lx_hup_orphans(struct proc *p)
{
	struct lx_sends sends = {};
	struct proc *c;

	procs_lock();
	hup_group_locked(lxp(p)->pgid, p, &sends);
	for (c = procs()->list; c; c = c->next)
		if (c->parent == p && c->os && lxp(c)->pgid != lxp(p)->pgid)
			hup_group_locked(lxp(c)->pgid, p, &sends);
	procs_unlock();
	lx_sends_done(&sends, 0);
}

/*
 * t took stop signal sig with the default action, when the process had
 * seen conts SIGCONTs (Linux's do_signal_stop, from lx_deliver): the
 * process stops, unless it already has or a SIGCONT came since (Linux's
 * JOBCTL_STOP_DEQUEUED, which SIGCONT clears), and its other threads are
 * marked so that each stops before user mode.
 */
void lx_stop_group(struct thread *t, int sig, u32 conts)
{
	struct lx_proc *lp = lxp(t->p);
	int i, kick = -1;

	procs_lock();
	if (!lp->stopped && lp->conts == conts && !READ_ONCE(t->p->killed) &&
	    (sig == LX_SIGSTOP || !pgrp_orphaned_locked(lxp(t->p)->pgid, NULL))) {
		lp->stopped = true;
		for (i = 0; i < LX_THREADS_MAX; i++)
			if (lp->threads[i] && lp->threads[i] != t)
				lx_signal_wake(lp->threads[i], &kick);
		notify_parent_locked(t->p, CLD_STOPPED, sig, &kick);
	}
	procs_unlock();
	if (kick >= 0)
		vostd_kick(kick);
}

/* While t's process is stopped, t sleeps; a SIGCONT or a kill wakes it. */
void lx_stop_wait(struct thread *t)
{
	struct lx_proc *lp = lxp(t->p);
	bool stopped;

	for (;;) {
		procs_lock();
		stopped = lp->stopped && !READ_ONCE(t->p->killed);
		t->sig.sleeper = stopped ? kl_self() : 0;
		procs_unlock();
		if (!stopped)
			return;
		kl_block();
	}
}
