// SPDX-License-Identifier: GPL-2.0
/*
 * The calls of Linux's kernel/sys.c, and getrandom: who the process is
 * (ids, group, name, umask), what the system is (uname), and its limits.
 * There is one user, root, and every process is in the group of its
 * first ancestor in the sandbox.
 */
#include "syscalls.h"

LX_SYSCALL_DEFINE0(getpid)
{
	return t->p->pid;
}

LX_PARTIAL(getppid, "an orphan is never reparented: it gets 0, not its reaper's pid");
LX_SYSCALL_DEFINE0(getppid)
{
	return proc_ppid(t->p);
}

LX_SYSCALL_DEFINE0(getuid)
{
	return 0;
}

LX_SYSCALL_DEFINE0(getgid)
{
	return 0;
}

LX_SYSCALL_DEFINE0(geteuid)
{
	return 0;
}

LX_SYSCALL_DEFINE0(getegid)
{
	return 0;
}

/*
 * Process groups and the one session, as Linux keeps them.  A process is
 * found by its pid while it is in the table: alive, or exited and not yet
 * reaped, as a zombie is found in Linux.  The caller holds the table's
 * lock.
 */
struct proc *lx_pid_find(long pid)
{
	struct proc *c;

	for (c = procs()->list; c; c = c->next)
		if (c->pid == pid && c->os)
			return c;
	return NULL;
}

/* Linux's setpgid, check for check: only the caller or a child not yet exec'd moves. */
LX_SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct lx_proc *self = lxp(t->p);
	struct proc *p, *c;
	long err = 0;

	if (!pid)
		pid = t->p->pid;
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	procs_lock();
	p = lx_pid_find(pid);
	if (!p || (p != t->p && p->parent != t->p))
		err = -ESRCH;
	else if (p != t->p && lxp(p)->sid != self->sid)
		err = -EPERM;
	else if (p != t->p && READ_ONCE(lxp(p)->execed))
		err = -EACCES;
	else if (lxp(p)->sid == p->pid)
		err = -EPERM;		/* a session's leader stays in its group */
	if (!err && pgid != pid) {
		for (c = procs()->list; c; c = c->next)
			if (c->os && lxp(c)->pgid == pgid && lxp(c)->sid == self->sid)
				break;
		if (!c)
			err = -EPERM;	/* no such group in the session */
	}
	if (!err)
		WRITE_ONCE(lxp(p)->pgid, pgid);	/* getpgrp reads it without the lock */
	procs_unlock();
	return err;
}

LX_SYSCALL_DEFINE0(getpgrp)
{
	return READ_ONCE(lxp(t->p)->pgid);
}

/* pid's group (sid false) or session (true), or -ESRCH. */
static long pid_group(struct thread *t, long pid, bool sid)
{
	struct proc *p;
	long r;

	if (!pid)
		pid = t->p->pid;
	procs_lock();
	p = lx_pid_find(pid);
	r = !p ? -ESRCH : sid ? lxp(p)->sid : lxp(p)->pgid;
	procs_unlock();
	return r;
}

LX_SYSCALL_DEFINE1(getpgid, int, pid)
{
	return pid_group(t, pid, false);
}

LX_SYSCALL_DEFINE1(getsid, int, pid)
{
	return pid_group(t, pid, true);
}

/*
 * setsid: a session and a group of the caller's own, both named by its
 * pid, unless some group already is, the caller leading one or a zombie
 * still in one (Linux's ksys_setsid).  The new session has no terminal.
 */
LX_SYSCALL_DEFINE0(setsid)
{
	long pid = t->p->pid, r = pid;
	struct proc *c;

	procs_lock();
	for (c = procs()->list; c; c = c->next)
		if (c->os && lxp(c)->pgid == pid)
			r = -EPERM;
	if (r > 0) {
		WRITE_ONCE(lxp(t->p)->sid, pid);
		WRITE_ONCE(lxp(t->p)->pgid, pid);
	}
	procs_unlock();
	return r;
}

LX_SYSCALL_DEFINE1(umask, unsigned long, mask)
{
	long old = lxp(t->p)->umask;

	lxp(t->p)->umask = mask & 0777;
	return old;
}

LX_SYSCALL_DEFINE1(newuname, unsigned long, ubuf)
{
	static const char *const fields[6] = {
		LX_UTS_SYSNAME, LX_UTS_NODENAME, LX_UTS_RELEASE, "#1 the linux kernel proper",
		"x86_64", "(none)",
	};
	char u[6][65] = {};
	unsigned int i, j;

	for (i = 0; i < 6; i++)
		for (j = 0; fields[i][j] && j < 64; j++)
			u[i][j] = fields[i][j];
	return mem_user_copy(t->p, ubuf, u, sizeof(u), MEM_WRITE);
}

static void rlim_set(struct lx_proc *lp, unsigned int res, u64 soft, u64 hard)
{
	lp->rlim[res][0] = soft;
	lp->rlim[res][1] = hard;
}

/*
 * The first process's limits, as Linux's INIT_RLIMITS gives init's, but
 * where the sandbox's own bounds are lower: the stack, the processes and
 * the descriptors it can have.  A child inherits its parent's.
 */
void lx_rlimit_init(struct lx_proc *lp)
{
	unsigned int i;

	for (i = 0; i < RLIM_NLIMITS; i++)
		rlim_set(lp, i, RLIM_INFINITY, RLIM_INFINITY);
	rlim_set(lp, RLIMIT_STACK, LX_STACK_MAX, RLIM_INFINITY);
	rlim_set(lp, RLIMIT_CORE, 0, RLIM_INFINITY);
	rlim_set(lp, RLIMIT_NPROC, LX_PROCS_MAX, LX_PROCS_MAX);
	rlim_set(lp, RLIMIT_NOFILE, LX_FDS, LX_FDS);
	rlim_set(lp, RLIMIT_MEMLOCK, 8 << 20, 8 << 20);
	rlim_set(lp, RLIMIT_MSGQUEUE, 819200, 819200);
	rlim_set(lp, RLIMIT_NICE, 0, 0);
	rlim_set(lp, RLIMIT_RTPRIO, 0, 0);
	rlim_set(lp, RLIMIT_SIGPENDING, LX_SIGQUEUE_MAX, LX_SIGQUEUE_MAX);
}

/*
 * prlimit64, in Linux's order: the new limit copied in, the process
 * found, the resource and the new limit checked, the old one given back.
 * Every limit is kept and inherited.  RLIMIT_NOFILE's is acted on
 * (fdtable.c's fd_limit), and a hard one past LX_FDS is -EPERM, as one
 * past Linux's nr_open is; so are RLIMIT_AS's and RLIMIT_DATA's
 * (sys_mm.c's may_expand) and RLIMIT_SIGPENDING's (sigqueue.c).  The
 * caller is root: it may raise a hard limit.
 */
static long do_prlimit(struct thread *t, long pid, long res, unsigned long unew,
		       unsigned long uold)
{
	struct lx_proc *lp = lxp(t->p);
	u64 lim[2], new[2];

	if (unew && mem_user_copy(t->p, unew, new, sizeof(new), MEM_READ))
		return -EFAULT;
	if (pid && pid != t->p->pid)
		return -ESRCH;
	if (res < 0 || res >= RLIM_NLIMITS)
		return -EINVAL;
	if (unew && new[0] > new[1])
		return -EINVAL;
	if (unew && res == RLIMIT_NOFILE && new[1] > LX_FDS)
		return -EPERM;
	/* Only the process's own threads change them: the last wins, as in Linux. */
	procs_lock();
	lim[0] = lp->rlim[res][0];
	lim[1] = lp->rlim[res][1];
	if (unew)
		rlim_set(lp, res, new[0], new[1]);
	procs_unlock();
	return put_user_bytes(t, uold, lim, sizeof(lim));
}

LX_SYSCALL_DEFINE2(getrlimit, int, res, unsigned long, uold)
{
	return do_prlimit(t, 0, res, 0, uold);
}

LX_SYSCALL_DEFINE2(setrlimit, int, res, unsigned long, unew)
{
	return do_prlimit(t, 0, res, unew, 0);
}

LX_PARTIAL(prlimit64, "only NOFILE, AS, DATA and SIGPENDING bind; another's pid is -ESRCH");
LX_SYSCALL_DEFINE4(prlimit64, int, pid, int, res, unsigned long, unew, unsigned long, uold)
{
	return do_prlimit(t, pid, res, unew, uold);
}

static long prctl_get_name(struct thread *t, unsigned long ubuf)
{
	char name[16] = {};

	vostd_memcpy(name, lxp(t->p)->comm, sizeof(name) - 1);
	return mem_user_copy(t->p, ubuf, name, sizeof(name), MEM_WRITE);
}

/* PR_SET_NAME: at most 15 bytes of the string at ubuf, as Linux's strncpy_from_user takes. */
static long prctl_set_name(struct thread *t, unsigned long ubuf)
{
	struct lx_proc *lp = lxp(t->p);
	char name[16] = {};
	unsigned int i;

	for (i = 0; i < sizeof(name) - 1; i++) {
		if (mem_user_copy(t->p, ubuf + i, name + i, 1, MEM_READ))
			return -EFAULT;
		if (!name[i])
			break;
	}
	for (i = 0; i < sizeof(name) - 1; i++)
		WRITE_ONCE(lp->comm[i], name[i]);
	return 0;
}

LX_PARTIAL(prctl, "PR_SET_NAME and PR_GET_NAME only, of the process, not the thread; else -EINVAL");
LX_SYSCALL_DEFINE2(prctl, unsigned long, option, unsigned long, arg2)
{
	switch (option) {
	case 15:	/* PR_SET_NAME */
		return prctl_set_name(t, arg2);
	case 16:	/* PR_GET_NAME */
		return prctl_get_name(t, arg2);
	}
	return -EINVAL;
}

LX_PARTIAL(getrandom, "xorshift of the cycle counter, no CSPRNG; flags unchecked; 64 KiB a call");
LX_SYSCALL_DEFINE2(getrandom, unsigned long, ubuf, unsigned long, len)
{
	unsigned long done = 0;

	len = min(len, 1UL << 16);
	while (done < len) {
		u64 r = lx_random();
		unsigned long n = min(len - done, 8UL);

		if (mem_user_copy(t->p, ubuf + done, &r, n, MEM_WRITE))
			return lx_done_or(done, -EFAULT);
		done += n;
	}
	return done;
}

/*
 * sched_getaffinity, in Linux's order: the size checked, the thread
 * found (any process's by its pid, or one of the caller's threads by its
 * id), the mask copied out.  Every thread of this kernel runs on the
 * sandbox's first vCPU, so the mask is that CPU alone.
 */
LX_SYSCALL_DEFINE3(sched_getaffinity, int, pid, unsigned int, len, unsigned long, umask)
{
	u64 mask = 1;
	bool found;

	if (!len || (len & (sizeof(mask) - 1)))
		return -EINVAL;
	procs_lock();
	found = !pid || lx_pid_find(pid) || lx_thread_find(t->p, pid);
	procs_unlock();
	if (!found)
		return -ESRCH;
	return mem_user_copy(t->p, umask, &mask, sizeof(mask), MEM_WRITE) ?: (long)sizeof(mask);
}
