// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX record locks, fcntl's F_GETLK, F_SETLK and F_SETLKW, as Linux's
 * fs/locks.c keeps them: advisory locks on byte ranges of a node, owned
 * by a process, read locks shared and write locks not.  A process's
 * locks on a node go when it closes any descriptor of that node (POSIX's
 * rule, which Linux keeps), and so at its exit.  Each node's locks are a
 * list under fs_lock; a lock that must wait sleeps on one queue for the
 * whole sandbox, woken by every unlock, and looks again.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define LOCK_END	(~0ULL >> 1)	/* a range with no end: to OFFSET_MAX */

/* One lock: [start, end] of a node, held by a process. */
struct lx_lock {
	struct lx_lock *next;
	long pid;
	short type;			/* F_RDLCK or F_WRLCK */
	u64 start, end;			/* both in the range */
};

/* Linux's struct flock on x86-64. */
struct lx_flock {
	s16 type, whence;
	s64 start, len;
	s32 pid;
};

static bool conflicts(const struct lx_lock *l, long pid, short type, u64 start, u64 end)
{
	return l->pid != pid && l->start <= end && start <= l->end &&
	       (type == F_WRLCK || l->type == F_WRLCK);
}

static struct lx_lock *conflict_locked(struct lx_node *nd, long pid, short type, u64 start,
				       u64 end)
{
	struct lx_lock *l;

	for (l = nd->locks; l; l = l->next)
		if (conflicts(l, pid, type, start, end))
			return l;
	return NULL;
}

/*
 * pid's locks over [start, end] become type (F_UNLCK: none), as Linux's
 * posix_lock_inode does: what it held there is cut out, the pieces of a
 * lock that stick out on either side kept.  A lock split in two needs
 * one more record: spare, which the caller made before the lock, and
 * which is used or given back in *spare.  -ENOLCK without one.
 */
static long set_locked(struct lx_node *nd, long pid, short type, u64 start, u64 end,
		       struct lx_lock **spare, struct lx_lock **fresh)
{
	struct lx_lock **pl = &nd->locks, *l;

	while ((l = *pl)) {
		if (l->pid != pid || l->end < start || l->start > end) {
			pl = &l->next;
			continue;
		}
		if (l->start < start && l->end > end) {		/* a hole in its middle */
			if (!*spare)
				return -ENOLCK;
			**spare = *l;
			(*spare)->start = end + 1;
			l->end = start - 1;
			(*spare)->next = l->next;
			l->next = *spare;
			*spare = NULL;
			break;
		}
		if (l->start < start) {
			l->end = start - 1;
		} else if (l->end > end) {
			l->start = end + 1;
		} else {
			*pl = l->next;			/* wholly inside: it goes */
			l->next = NULL;
			if (!*fresh) {
				*fresh = l;		/* reused for the new lock */
			} else {
				l->next = *spare;	/* freed by the caller */
				*spare = l;
			}
			continue;
		}
		pl = &l->next;
	}
	if (type == F_UNLCK)
		return 0;
	if (!*fresh) {
		*fresh = *spare;
		*spare = (*spare)->next;
	}
	**fresh = (struct lx_lock){ .next = nd->locks, .pid = pid, .type = type,
				    .start = start, .end = end };
	nd->locks = *fresh;
	*fresh = NULL;
	return 0;
}

/* The range a struct flock names, from f's position or its node's end as whence says. */
static long flock_range(struct lx_file *f, const struct lx_flock *fl, u64 *start, u64 *end)
{
	s64 base = lx_seek_base(f, fl->whence), s = base + fl->start;

	if (base < 0 || s < 0)
		return -EINVAL;
	if (fl->len > 0) {
		*start = s;
		*end = s + fl->len - 1;
	} else if (fl->len < 0) {		/* the len bytes before start */
		if (s + fl->len < 0)
			return -EINVAL;
		*start = s + fl->len;
		*end = s - 1;
	} else {
		*start = s;
		*end = LOCK_END;
	}
	return 0;
}

/* Every record on a list made by set_locked, given back. */
static void locks_free(struct lx_lock *l)
{
	while (l) {
		struct lx_lock *next = l->next;

		vostd_free(l);
		l = next;
	}
}

/*
 * fcntl's F_GETLK, F_SETLK and F_SETLKW on f, with Linux's checks: a
 * file with no node -EINVAL here (Linux locks a pipe's inode too), a
 * read lock on a file not open to read or a write lock on one not open
 * to write -EBADF, a type or whence it does not know -EINVAL.
 */
long lx_fcntl_lock(struct thread *t, struct lx_file *f, long cmd, unsigned long uarg)
{
	struct lx_globals *g = lx();
	struct lx_lock *spare = NULL, *fresh = NULL, *l;
	long pid = t->p->pid, err;
	struct lx_flock fl;
	u64 start, end;

	if (mem_user_copy(t->p, uarg, &fl, sizeof(fl), MEM_READ))
		return -EFAULT;
	if (fl.type != F_RDLCK && fl.type != F_WRLCK && fl.type != F_UNLCK)
		return -EINVAL;
	if (!f->node || !S_ISREG(f->node->mode))
		return -EINVAL;
	err = flock_range(f, &fl, &start, &end);
	if (err)
		return err;
	if (cmd == F_GETLK) {
		fs_lock();
		l = conflict_locked(f->node, pid, fl.type, start, end);
		if (l)
			fl = (struct lx_flock){
				.type = l->type, .whence = SEEK_SET, .start = l->start,
				.len = l->end == LOCK_END ? 0 : l->end - l->start + 1,
				.pid = l->pid,
			};
		else
			fl.type = F_UNLCK;
		fs_unlock();
		return mem_user_copy(t->p, uarg, &fl, sizeof(fl), MEM_WRITE);
	}
	if ((fl.type == F_RDLCK && (f->flags & O_ACCMODE) == O_WRONLY) ||
	    (fl.type == F_WRLCK && (f->flags & O_ACCMODE) == O_RDONLY))
		return -EBADF;
	/* Two records at most: the new lock, and a piece of a lock it splits. */
	spare = vostd_alloc(sizeof(*spare), false);
	if (spare) {
		spare->next = vostd_alloc(sizeof(*spare), false);
		if (!spare->next)
			err = -ENOLCK;
		else
			spare->next->next = NULL;
	} else {
		err = -ENOLCK;
	}
	fs_lock();
	while (!err && fl.type != F_UNLCK &&
	       conflict_locked(f->node, pid, fl.type, start, end)) {
		if (cmd != F_SETLKW)
			err = -EAGAIN;
		else if (thread_interrupted(t))
			err = -ERESTARTSYS;
		else
			lx_block_on(t, &g->fs_spin, &g->lock_waiters);
	}
	if (!err)
		err = set_locked(f->node, pid, fl.type, start, end, &spare, &fresh);
	if (!err)
		lx_wake_all(&g->lock_waiters);	/* a lock that shrank may let one in */
	fs_unlock();
	locks_free(spare);
	locks_free(fresh);
	return err;
}

/*
 * p closed a descriptor of nd, or ended: its locks on nd go (Linux's
 * locks_remove_posix), and whoever waits for one looks again.
 */
void lx_locks_release(struct proc *p, struct lx_node *nd)
{
	struct lx_globals *g = lx();
	struct lx_lock **pl, *l, *gone = NULL;

	if (!READ_ONCE(nd->locks))
		return;
	fs_lock();
	for (pl = &nd->locks; (l = *pl);) {
		if (l->pid != p->pid) {
			pl = &l->next;
			continue;
		}
		*pl = l->next;
		l->next = gone;
		gone = l;
	}
	if (gone)
		lx_wake_all(&g->lock_waiters);
	fs_unlock();
	locks_free(gone);
}
