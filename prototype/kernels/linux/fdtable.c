// SPDX-License-Identifier: GPL-2.0
/*
 * Open files and each process's table of file descriptors, as Linux keeps
 * them.  A file is counted: each descriptor that names it holds a
 * reference, and so does each call that uses it, from fd_get at its start
 * to fd_put at its end (Linux's fdget and fdput).  So a close or a dup2 of
 * a descriptor while another thread's call on it sleeps takes the
 * descriptor's reference only: the call's file, and the pipe its file
 * holds open (pipe.c), live until the call returns.  The table is changed
 * and read under its own lock, which is never held across a sleep.
 */
#include <linux/fcntl.h>

#include "syscalls.h"

/* A descriptor taken by fd_reserve and not yet installed: open to nobody. */
#define FD_RESERVED	((struct lx_file *)1)

struct lx_file *file_new(const struct lx_file_ops *ops)
{
	struct lx_file *f = vostd_alloc(sizeof(*f), true);

	if (f) {
		f->refs = 1;
		f->ops = ops;
		f->id = __atomic_add_fetch(&lx()->next_file_id, 1, __ATOMIC_RELAXED);
	}
	return f;
}

/* Another reference to f: the caller holds one, or the table's lock with f in it. */
void file_get(struct lx_file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void file_put(struct lx_file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (f->ops->release)
		f->ops->release(f);
	node_put(f->node);
	vostd_free(f);
}

/* The release of a file whose priv is all it owns (an eventfd, a /proc snapshot). */
void file_free_priv(struct lx_file *f)
{
	vostd_free(f->priv);
}

static void fdt_lock(struct lx_fdtable *ft)
{
	kl_spin_lock(&ft->lock);
}

static void fdt_unlock(struct lx_fdtable *ft)
{
	kl_spin_unlock(&ft->lock);
}

/* Under the table's lock: fd's close-on-exec bit, and the top's bound for it. */
static void fdt_set_cloexec(struct lx_fdtable *ft, int fd, bool on)
{
	if (on)
		ft->cloexec[fd / 64] |= 1ULL << (fd % 64);
	else
		ft->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
	ft->top = max_t(unsigned int, ft->top, fd + 1);
}

static bool fdt_cloexec(struct lx_fdtable *ft, int fd)
{
	return (READ_ONCE(ft->cloexec[fd / 64]) >> (fd % 64)) & 1;
}

/* One past the highest descriptor the table has given out. */
static unsigned int fdt_top(struct lx_fdtable *ft)
{
	return min_t(unsigned int, READ_ONCE(ft->top), LX_FDS);
}

/* RLIMIT_NOFILE: no descriptor at or past it is given out. */
static unsigned int fd_limit(struct proc *p)
{
	return min_t(u64, READ_ONCE(lxp(p)->rlim[RLIMIT_NOFILE][0]), LX_FDS);
}

/*
 * The lowest free descriptor at or above from, below RLIMIT_NOFILE, taken
 * but open to nobody until fd_commit or fd_unreserve (Linux's
 * get_unused_fd_flags): a call that can still fail after choosing its
 * numbers shows them to no other thread.
 */
long fd_reserve(struct proc *p, int from)
{
	struct lx_fdtable *ft = &lxp(p)->files;
	unsigned int limit = fd_limit(p);
	long fd = -EMFILE;
	unsigned int i;

	fdt_lock(ft);
	for (i = from; i < limit; i++)	/* a from below 0 finds none */
		if (!ft->fd[i]) {
			ft->fd[i] = FD_RESERVED;
			ft->top = max_t(unsigned int, ft->top, i + 1);
			fd = i;
			break;
		}
	fdt_unlock(ft);
	return fd;
}

/* The reserved fd gets f, and the caller's reference (Linux's fd_install). */
void fd_commit(struct proc *p, int fd, struct lx_file *f, bool cloexec)
{
	struct lx_fdtable *ft = &lxp(p)->files;

	fdt_lock(ft);
	ft->fd[fd] = f;
	fdt_set_cloexec(ft, fd, cloexec);
	fdt_unlock(ft);
}

/* FD_CLOEXEC of an open fd: F_SETFD, FIOCLEX and FIONCLEX. */
void fd_set_cloexec(struct proc *p, int fd, bool on)
{
	struct lx_fdtable *ft = &lxp(p)->files;

	fdt_lock(ft);
	fdt_set_cloexec(ft, fd, on);
	fdt_unlock(ft);
}

void fd_unreserve(struct proc *p, int fd)
{
	struct lx_fdtable *ft = &lxp(p)->files;

	fdt_lock(ft);
	ft->fd[fd] = NULL;
	fdt_unlock(ft);
}

/* The lowest free descriptor at or above from gets f, with the caller's reference. */
long fd_install(struct proc *p, struct lx_file *f, int from, bool cloexec)
{
	long fd = fd_reserve(p, from);

	if (fd >= 0)
		fd_commit(p, fd, f, cloexec);
	return fd;
}

/*
 * fd's file, with a reference for the call, which drops it with fd_put
 * when it is done, however long it sleeps meanwhile; NULL if fd is not
 * open.
 */
struct lx_file *fd_get(struct proc *p, long fd)
{
	struct lx_fdtable *ft = &lxp(p)->files;
	struct lx_file *f;

	if (fd < 0 || fd >= LX_FDS)
		return NULL;
	fdt_lock(ft);
	f = ft->fd[fd];
	if (f == FD_RESERVED)
		f = NULL;
	if (f)
		file_get(f);
	fdt_unlock(ft);
	return f;
}

void fd_put(struct lx_file *f)
{
	file_put(f);
}

/*
 * Close fd: the table's reference goes, after the lock, since the last
 * put of a pipe's end wakes the other end.  -EBADF if fd was not open.
 */
long fd_close(struct proc *p, long fd)
{
	struct lx_fdtable *ft = &lxp(p)->files;
	struct lx_file *f;

	if (fd < 0 || fd >= LX_FDS)
		return -EBADF;
	fdt_lock(ft);
	f = ft->fd[fd];
	if (f == FD_RESERVED) {
		f = NULL;
	} else {
		ft->fd[fd] = NULL;
		fdt_set_cloexec(ft, fd, false);
	}
	fdt_unlock(ft);
	if (!f)
		return -EBADF;
	if (f->node)		/* POSIX: a close of any of its descriptors drops its locks */
		lx_locks_release(p, f->node);
	file_put(f);
	return 0;
}

/*
 * A child's table: a copy of the parent's, each file one reference more,
 * taken under the parent's lock, since its other threads may close or
 * open meanwhile.  A descriptor the parent has only reserved is free in
 * the child, as in Linux's dup_fd.
 */
static void fdt_copy(struct lx_fdtable *to, struct lx_fdtable *from)
{
	int i;

	to->lock = (vostd_spinlock_t){};
	fdt_lock(from);
	to->top = from->top;
	for (i = 0; i < LX_FDS; i++) {
		struct lx_file *f = from->fd[i];

		if (f == FD_RESERVED)
			f = NULL;
		if (f)
			file_get(f);
		to->fd[i] = f;
	}
	vostd_memcpy(to->cloexec, from->cloexec, sizeof(to->cloexec));
	fdt_unlock(from);
}

/*
 * A process's Linux state: its parent's copy, or the first's (the console
 * on 0, 1, 2).  The parent's other threads may run meanwhile, so the
 * table is copied again under its lock, and the console's line not at all.
 */
long lx_proc_init(struct proc *p, struct proc *parent)
{
	struct lx_proc *lp = vostd_alloc(sizeof(*lp), true);
	int i;

	if (!lp)
		return -ENOMEM;
	if (parent) {
		*lp = *lxp(parent);
		fdt_copy(&lp->files, &lxp(parent)->files);
		/* cwd and root, as another thread's chdir or chroot leaves them */
		fs_lock();
		lp->cwd = lxp(parent)->cwd;
		node_get(lp->cwd);
		lp->root = lxp(parent)->root;
		node_get(lp->root);
		fs_unlock();
		/* the handlers and limits, as another thread's sigaction or prlimit leaves them */
		procs_lock();
		vostd_memcpy(lp->act, lxp(parent)->act, sizeof(lp->act));
		vostd_memcpy(lp->rlim, lxp(parent)->rlim, sizeof(lp->rlim));
		procs_unlock();
		lp->con_lock = (vostd_spinlock_t){};
		lp->line_len = 0;
		lp->execed = false;	/* a child runs its parent's program until its own exec */
		/* Only the calling thread is copied, as a new thread; nothing is pending. */
		for (i = 0; i < LX_THREADS_MAX; i++)
			lp->threads[i] = NULL;
		lp->sigpending = 0;
		lp->sigqueued = NULL;
		lp->stopped = false;	/* a stop is the parent's, not its child's */
		lp->alarm_at = 0;	/* a timer is not inherited */
		lp->alarm_every = 0;
		vostd_memset(lp->cpu_timer_at, 0, sizeof(lp->cpu_timer_at));
		vostd_memset(lp->cpu_timer_every, 0, sizeof(lp->cpu_timer_every));
		timers_clear_locked(lp);	/* the child is in no table yet */
	} else {
		struct lx_file *con = file_new(&lx_console_fops);

		if (!con) {
			vostd_free(lp);
			return -ENOMEM;
		}
		con->flags = O_RDWR | O_LARGEFILE;	/* as a tty opened on 64-bit Linux */
		con->refs = 3;
		lp->files.fd[0] = con;
		lp->files.fd[1] = con;
		lp->files.fd[2] = con;
		lp->files.top = 3;
		lp->cwd = lx()->root;
		node_get(lp->cwd);
		lp->root = lx()->root;
		node_get(lp->root);
		lp->umask = 022;
		lx_rlimit_init(lp);
		lp->pgid = p->pid;
		lp->sid = p->pid;
	}
	p->os = lp;
	return 0;
}

void lx_close_on_exec(struct proc *p)
{
	struct lx_fdtable *ft = &lxp(p)->files;
	int i;

	for (i = 0; i < (int)fdt_top(ft); i++)
		if (fdt_cloexec(ft, i))
			fd_close(p, i);
}

/*
 * proc's exit hook: the last thread has left; its files and its working
 * directory go.  The rest of
 * its Linux state stays until the process is freed (lx_proc_free), since
 * a kill may still read its handlers and a log line its name.
 */
void lx_proc_exit(struct proc *p)
{
	struct lx_node *cwd, *root;
	int i;

	if (!lxp(p))
		return;
	lx_vfork_done(p);	/* a vfork's parent goes on, whatever ended the child */
	lx_hup_orphans(p);	/* a stopped group it orphans is woken */
	procs_lock();		/* its timers fire no more (itimer.c, timers.c) */
	lxp(p)->alarm_at = 0;
	vostd_memset(lxp(p)->cpu_timer_at, 0, sizeof(lxp(p)->cpu_timer_at));
	timers_clear_locked(lxp(p));
	procs_unlock();
	console_flush(p);
	sem_proc_exit(p);	/* its SEM_UNDO adjustments */
	for (i = 0; i < (int)fdt_top(&lxp(p)->files); i++)
		fd_close(p, i);
	fs_lock();
	cwd = lxp(p)->cwd;
	lxp(p)->cwd = NULL;
	root = lxp(p)->root;
	lxp(p)->root = NULL;
	fs_unlock();
	node_put(cwd);
	node_put(root);
}

/* proc's free hook: the last reference to p has gone, and its Linux state with it. */
void lx_proc_free(struct proc *p)
{
	if (p->os) {		/* a process that never ran has its directories still */
		node_put(lxp(p)->cwd);
		node_put(lxp(p)->root);
		procs_lock();	/* the sandbox's count of them */
		lx_sigq_drop_locked(&lxp(p)->sigpending, &lxp(p)->sigqueued, ~0ULL);
		procs_unlock();
	}
	vostd_free(p->os);
	p->os = NULL;
}

LX_SYSCALL_DEFINE1(close, int, fd)
{
	return fd_close(t->p, fd);
}

/*
 * dup2 and dup3, with Linux's checks in Linux's order.  The file to
 * named before goes after the lock, as close's does; a descriptor
 * reserved by another thread's call is -EBUSY, as in Linux.
 */
static long do_dup3(struct thread *t, long from, long to, long flags, bool dup2)
{
	struct lx_fdtable *ft = &lxp(t->p)->files;
	struct lx_file *f, *old;

	if (dup2 && from == to) {
		f = fd_get(t->p, from);
		if (!f)
			return -EBADF;
		fd_put(f);
		return to;
	}
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (from == to)
		return -EINVAL;
	if (to < 0 || to >= fd_limit(t->p) || from < 0 || from >= LX_FDS)
		return -EBADF;
	fdt_lock(ft);
	f = ft->fd[from];
	old = ft->fd[to];
	if (!f || f == FD_RESERVED || old == FD_RESERVED) {
		fdt_unlock(ft);
		return old == FD_RESERVED && f && f != FD_RESERVED ? -EBUSY : -EBADF;
	}
	file_get(f);
	ft->fd[to] = f;
	fdt_set_cloexec(ft, to, flags & O_CLOEXEC);
	fdt_unlock(ft);
	if (old && old->node)
		lx_locks_release(t->p, old->node);
	if (old)
		file_put(old);
	return to;
}

LX_SYSCALL_DEFINE2(dup2, int, from, int, to)
{
	return do_dup3(t, from, to, 0, true);
}

LX_SYSCALL_DEFINE3(dup3, int, from, int, to, int, flags)
{
	return do_dup3(t, from, to, flags, false);
}

/*
 * Linux's setfl: only these flags change; no file here can do O_DIRECT.
 * O_APPEND is acted on (fs_write), and O_NONBLOCK by pipes and eventfds;
 * a file of the file system never waits anyway.
 */
#define LX_SETFL_MASK	(O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME)

static long file_setfl(struct lx_file *f, unsigned long arg)
{
	if (arg & O_DIRECT)
		return -EINVAL;
	/* Two threads may set at once: the last one wins, as in Linux. */
	WRITE_ONCE(f->flags, (arg & LX_SETFL_MASK) | (READ_ONCE(f->flags) & ~LX_SETFL_MASK));
	return 0;
}

static long do_fcntl(struct thread *t, long fd, long cmd, unsigned long arg)
{
	struct lx_fdtable *ft = &lxp(t->p)->files;
	struct lx_file *f = fd_get(t->p, fd);
	long r = -EINVAL;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case 0:		/* F_DUPFD */
	case 1030:	/* F_DUPFD_CLOEXEC */
		if (arg >= fd_limit(t->p))
			break;
		file_get(f);
		r = fd_install(t->p, f, arg, cmd == 1030);
		if (r < 0)
			file_put(f);
		break;
	case 1:		/* F_GETFD */
		r = fdt_cloexec(ft, fd);
		break;
	case 2:		/* F_SETFD */
		fd_set_cloexec(t->p, fd, arg & 1);
		r = 0;
		break;
	case 3:		/* F_GETFL */
		r = READ_ONCE(f->flags);
		break;
	case 4:		/* F_SETFL */
		r = file_setfl(f, arg);
		break;
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
		r = lx_fcntl_lock(t, f, cmd, arg);
		break;
	}
	fd_put(f);
	return r;
}

LX_PARTIAL(fcntl, "OFD locks, F_SETOWN, pipe sizes and seals -EINVAL; locks only of files");
LX_SYSCALL_DEFINE3(fcntl, int, fd, int, cmd, unsigned long, arg)
{
	return do_fcntl(t, fd, cmd, arg);
}

/* dup is fcntl's F_DUPFD from 0. */
LX_SYSCALL_DEFINE1(dup, int, fd)
{
	return do_fcntl(t, fd, 0, 0);
}
