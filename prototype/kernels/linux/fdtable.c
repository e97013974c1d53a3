// SPDX-License-Identifier: GPL-2.0
/*
 * Open files and each process's table of file descriptors: a file is
 * counted by the descriptors and calls that hold it and goes with the last
 * (an end of a pipe tells its pipe, pipe.c); close, dup and fcntl.
 */
#include <linux/fcntl.h>

#include "linux.h"

struct lx_file *file_new(enum lx_file_kind kind)
{
	struct lx_file *f = vostd_alloc(sizeof(*f), true);

	if (f) {
		f->refs = 1;
		f->kind = kind;
	}
	return f;
}

void file_get(struct lx_file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void file_put(struct lx_file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (f->pipe)
		pipe_release(f);
	vostd_free(f);
}

/* The lowest free descriptor from from on gets f (the caller's reference). */
long fd_install(struct proc *p, struct lx_file *f, int from, bool cloexec)
{
	struct lx_proc *lp = lxp(p);
	int i;

	for (i = from; i < LX_FDS; i++)
		if (!lp->fd[i]) {
			lp->fd[i] = f;
			if (cloexec)
				lp->cloexec |= 1ULL << i;
			else
				lp->cloexec &= ~(1ULL << i);
			return i;
		}
	return -EMFILE;
}

struct lx_file *fd_get(struct proc *p, long fd)
{
	return fd >= 0 && fd < LX_FDS ? lxp(p)->fd[fd] : NULL;
}

void fd_close(struct lx_proc *lp, int fd)
{
	struct lx_file *f = lp->fd[fd];

	lp->fd[fd] = NULL;
	lp->cloexec &= ~(1ULL << fd);
	if (f)
		file_put(f);
}

/* A process's Linux state: its parent's copy, or the first's (the console on 0, 1, 2). */
long lx_proc_init(struct proc *p, struct proc *parent)
{
	struct lx_proc *lp = vostd_alloc(sizeof(*lp), true);
	int i;

	if (!lp)
		return -ENOMEM;
	if (parent) {
		*lp = *lxp(parent);
		lp->line_len = 0;
		/* Only the calling thread is copied, and it is not asleep. */
		for (i = 0; i < LX_THREADS_MAX; i++)
			lp->sleeping[i] = 0;
		for (i = 0; i < LX_FDS; i++)
			if (lp->fd[i])
				file_get(lp->fd[i]);
	} else {
		struct lx_file *con = file_new(LX_CONSOLE);

		if (!con) {
			vostd_free(lp);
			return -ENOMEM;
		}
		con->flags = 2;		/* O_RDWR */
		con->refs = 3;
		lp->fd[0] = lp->fd[1] = lp->fd[2] = con;
		lp->cwd[0] = '/';
		lp->umask = 022;
		lp->pgid = p->pid;
	}
	p->os = lp;
	return 0;
}

void lx_close_on_exec(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	int i;

	for (i = 0; i < LX_FDS; i++)
		if (lp->cloexec & (1ULL << i))
			fd_close(lp, i);
}

/*
 * proc's exit hook: the last thread has left; its files go.  The rest of
 * its Linux state stays until the process is freed (lx_proc_free), since
 * a kill may still read its handlers and a log line its name.
 */
void lx_proc_exit(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	int i;

	if (!lp)
		return;
	console_flush(p);
	for (i = 0; i < LX_FDS; i++)
		fd_close(lp, i);
}

/* proc's free hook: the last reference to p has gone, and its Linux state with it. */
void lx_proc_free(struct proc *p)
{
	vostd_free(p->os);
	p->os = NULL;
}

long sys_close(struct thread *t, long fd)
{
	if (!fd_get(t->p, fd))
		return -EBADF;
	fd_close(lxp(t->p), fd);
	return 0;
}

long sys_dup3(struct thread *t, long from, long to, long flags, bool dup2)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_file *f = fd_get(t->p, from);

	if (!f)
		return -EBADF;
	if (to < 0 || to >= LX_FDS)
		return -EBADF;
	if (from == to)
		return dup2 ? to : -EINVAL;
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	file_get(f);
	fd_close(lp, to);
	lp->fd[to] = f;
	if (flags & O_CLOEXEC)
		lp->cloexec |= 1ULL << to;
	return to;
}

long sys_fcntl(struct thread *t, long fd, long cmd, unsigned long arg)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case 0:		/* F_DUPFD */
	case 1030:	/* F_DUPFD_CLOEXEC */
		if (arg >= LX_FDS)
			return -EINVAL;
		file_get(f);
		r = fd_install(t->p, f, arg, cmd == 1030);
		if (r < 0)
			file_put(f);
		return r;
	case 1:		/* F_GETFD */
		return !!(lp->cloexec & (1ULL << fd));
	case 2:		/* F_SETFD */
		if (arg & 1)
			lp->cloexec |= 1ULL << fd;
		else
			lp->cloexec &= ~(1ULL << fd);
		return 0;
	case 3:		/* F_GETFL */
		return f->flags & ~O_CLOEXEC;
	case 4:		/* F_SETFL: only O_APPEND, O_NONBLOCK and the like, ignored */
		return 0;
	}
	return -EINVAL;
}
