// SPDX-License-Identifier: GPL-2.0
/*
 * The calls that change the tree or a node's attributes: mkdir, rmdir,
 * unlink, rename, link, symlink, truncate, chmod, chown and utimensat,
 * each with Linux's checks in Linux's order (fs/namei.c, fs/open.c,
 * fs/utimes.c).  Each finds the directory it changes (fs_parent_at),
 * then looks, decides and changes under fs_lock, so no other call sees a
 * change half made; what it unlinked is put after the lock.  Every
 * caller is root: no permission is checked.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

/*
 * Link a new node of mode in dir under name; target is a symbolic link's
 * (mode S_IFLNK), kept by the node.  With made, the node comes back with
 * a reference too.  dir's reference is the caller's.
 */
static long link_new(struct lx_node *dir, const char *name, unsigned int len, u32 mode,
		     const char *target, struct lx_node **made)
{
	struct lx_node *fresh;
	long err;

	fresh = fs_last_norm(name, len) ? fs_node_new(mode) : NULL;
	if (fresh && target) {
		unsigned int n = fs_strlen(target);
		char *copy = vostd_alloc(n + 1, false);

		if (copy)
			vostd_memcpy(copy, target, n + 1);
		fresh->data = copy;
		fresh->data_owned = true;
		fresh->size = n;
	}
	fs_lock();
	if (!fs_last_norm(name, len) || fs_find_locked(dir, name, len))
		err = -EEXIST;
	else if (!dir->nlink)
		err = -ENOENT;		/* the directory was removed */
	else if (!fresh || (target && !fresh->data))
		err = -ENOSPC;
	else
		err = fs_link_locked(dir, name, len, fresh);
	if (!err)
		fs_touch_locked(dir, true);
	if (!err && made) {
		node_get(fresh);
		*made = fresh;
	}
	fs_unlock();
	node_put(fresh);	/* the entry holds it, or it goes */
	return err;
}

/* A new node of mode under the name upath gives from dfd. */
static long make_node(struct thread *t, long dfd, unsigned long upath, u32 mode,
		      const char *target)
{
	char name[LX_NAME_MAX + 1];
	struct lx_node *dir;
	unsigned int len;
	long err;

	dir = fs_parent_at(t->p, dfd, upath, name, &len, &err);
	if (!dir)
		return err;
	err = link_new(dir, name, len, mode, target, NULL);
	node_put(dir);
	return err;
}

/* A new node of mode at path (the kernel's copy), with a reference: a socket's name. */
long fs_mknod_in(struct proc *p, const char *path, u32 mode, struct lx_node **made)
{
	char name[LX_NAME_MAX + 1];
	struct lx_node *dir;
	unsigned int len;
	long err;

	dir = fs_parent_in(p, AT_FDCWD, path, name, &len, &err);
	if (!dir)
		return err;
	err = link_new(dir, name, len, mode, NULL, made);
	node_put(dir);
	return err;
}

static long do_mkdirat(struct thread *t, long dfd, unsigned long upath, u32 mode)
{
	return make_node(t, dfd, upath, S_IFDIR | (mode & 01777 & ~lxp(t->p)->umask), NULL);
}

LX_SYSCALL_DEFINE2(mkdir, unsigned long, upath, unsigned int, mode)
{
	return do_mkdirat(t, AT_FDCWD, upath, mode);
}

LX_SYSCALL_DEFINE3(mkdirat, int, dfd, unsigned long, upath, unsigned int, mode)
{
	return do_mkdirat(t, dfd, upath, mode);
}

static long do_symlinkat(struct thread *t, unsigned long utarget, long dfd, unsigned long upath)
{
	char target[LX_PATH_MAX];
	long err = fs_path_in(t->p, utarget, target);

	return err ?: make_node(t, dfd, upath, S_IFLNK | 0777, target);
}

LX_SYSCALL_DEFINE2(symlink, unsigned long, utarget, unsigned long, upath)
{
	return do_symlinkat(t, utarget, AT_FDCWD, upath);
}

LX_SYSCALL_DEFINE3(symlinkat, unsigned long, utarget, int, dfd, unsigned long, upath)
{
	return do_symlinkat(t, utarget, dfd, upath);
}

/*
 * unlink and rmdir: the entry goes, and its node when the last reference
 * does (an open file lives until its last close).  Linux's answers for a
 * last part that is not a name: unlink's -EISDIR, rmdir's -EINVAL for
 * ".", -ENOTEMPTY for ".." and -EBUSY for the root.
 */
static long do_remove(struct thread *t, long dfd, unsigned long upath, bool rmdir)
{
	char name[LX_NAME_MAX + 1];
	struct lx_dirent *e = NULL;
	struct lx_node *dir;
	unsigned int len;
	long err = 0;

	dir = fs_parent_at(t->p, dfd, upath, name, &len, &err);
	if (!dir)
		return err;
	if (!fs_last_norm(name, len)) {
		node_put(dir);
		if (!rmdir)
			return -EISDIR;
		return !len ? -EBUSY : len == 1 ? -EINVAL : -ENOTEMPTY;
	}
	fs_lock();
	e = fs_find_locked(dir, name, len);
	if (!e)
		err = -ENOENT;
	else if (rmdir && !S_ISDIR(e->node->mode))
		err = -ENOTDIR;
	else if (!rmdir && S_ISDIR(e->node->mode))
		err = -EISDIR;
	else if (rmdir && e->node->ents)
		err = -ENOTEMPTY;
	else
		fs_unlink_locked(dir, e);
	fs_unlock();
	if (!err) {
		node_put(e->node);
		vostd_free(e);
	}
	node_put(dir);
	return err;
}

LX_SYSCALL_DEFINE1(unlink, unsigned long, upath)
{
	return do_remove(t, AT_FDCWD, upath, false);
}

LX_SYSCALL_DEFINE1(rmdir, unsigned long, upath)
{
	return do_remove(t, AT_FDCWD, upath, true);
}

LX_SYSCALL_DEFINE3(unlinkat, int, dfd, unsigned long, upath, int, flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return do_remove(t, dfd, upath, flags & AT_REMOVEDIR);
}

/* Is dir nd itself, or below it?  Under fs_lock. */
static bool below_locked(struct lx_node *dir, struct lx_node *nd)
{
	for (;;) {
		if (dir == nd)
			return true;
		if (dir->parent == dir)
			return false;
		dir = dir->parent;
	}
}

/*
 * What a rename may not do, in Linux's order (do_renameat2,
 * vfs_rename): 0 if from, named by fe in fdir, may become the entry to
 * in tdir (NULL: none there yet).
 */
static long rename_check_locked(struct lx_node *fdir, struct lx_dirent *fe,
				struct lx_node *tdir, struct lx_dirent *te, unsigned int flags)
{
	struct lx_node *from;

	if (!fe)
		return -ENOENT;
	from = fe->node;
	if (te && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (S_ISDIR(from->mode) && below_locked(tdir, from))
		return -EINVAL;		/* a directory into itself */
	if (te && te->node == from)
		return 0;
	if (te && S_ISDIR(from->mode) && !S_ISDIR(te->node->mode))
		return -ENOTDIR;
	if (te && !S_ISDIR(from->mode) && S_ISDIR(te->node->mode))
		return -EISDIR;
	if (te && te->node->ents)
		return -ENOTEMPTY;
	if (!tdir->nlink)
		return -ENOENT;
	return 0;
}

/*
 * A path in /proc, a file system of its own (procfs.c), is refused with
 * err: -EPERM for a change of mode or owner, as Linux's proc_setattr
 * refuses one, -EXDEV for a link or a rename to or from it, as across
 * two mounts.  A path there that names nothing is -ENOENT if must_exist;
 * 0 for a path elsewhere, which the caller walks.
 */
static long proc_refuse(struct thread *t, unsigned long upath, long err, bool must_exist)
{
	char path[LX_PATH_MAX];
	const char *rest;

	if (fs_path_in(t->p, upath, path))
		return 0;		/* the walk says what is wrong with it */
	rest = proc_file(t->p, path);
	if (!rest)
		return 0;
	return (must_exist ? proc_exists(t, rest) : 0) ?: err;
}

/*
 * The entry fe in fdir becomes the name tname in tdir.  If te names a
 * node there already, te names from instead (fs_replace_locked), which
 * needs no memory, so a rename that checked out cannot fail half done.
 * The displaced node and the old parent are the caller's to put, fe to
 * free.
 */
static long rename_locked(struct lx_node *fdir, struct lx_dirent *fe, struct lx_node *tdir,
			  struct lx_dirent *te, const char *tname, unsigned int tlen,
			  struct lx_node **gone, struct lx_node **old_parent)
{
	struct lx_node *from = fe->node;
	long err = 0;

	if (te)
		*gone = fs_replace_locked(tdir, te, from);
	else
		err = fs_link_locked(tdir, tname, tlen, from);
	if (err)
		return err;
	fs_unlink_locked(fdir, fe);
	*old_parent = fs_reparent_locked(from, tdir);
	return 0;
}

static long do_renameat2(struct thread *t, long fdfd, unsigned long ufrom, long tdfd,
			 unsigned long uto, unsigned int flags)
{
	char fname[LX_NAME_MAX + 1], tname[LX_NAME_MAX + 1];
	struct lx_node *fdir, *tdir, *gone = NULL, *old_parent = NULL;
	struct lx_dirent *fe = NULL, *te;
	unsigned int flen, tlen;
	long err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;		/* not had here: the book's table says so */
	err = proc_refuse(t, ufrom, -EXDEV, true) ?: proc_refuse(t, uto, -EXDEV, false);
	if (err)
		return err;
	fdir = fs_parent_at(t->p, fdfd, ufrom, fname, &flen, &err);
	if (!fdir)
		return err;
	tdir = fs_parent_at(t->p, tdfd, uto, tname, &tlen, &err);
	if (!tdir) {
		node_put(fdir);
		return err;
	}
	if (!fs_last_norm(fname, flen) || !fs_last_norm(tname, tlen)) {
		err = -EBUSY;
		goto out;
	}
	fs_lock();
	fe = fs_find_locked(fdir, fname, flen);
	te = fs_find_locked(tdir, tname, tlen);
	err = rename_check_locked(fdir, fe, tdir, te, flags);
	if (!err && te && te->node == fe->node)
		fe = NULL;		/* two names of one node: nothing to do */
	else if (!err)
		err = rename_locked(fdir, fe, tdir, te, tname, tlen, &gone, &old_parent);
	fs_unlock();
	if (!err && fe) {
		node_put(fe->node);	/* fe's reference: the new entry holds its own */
		vostd_free(fe);
	}
	node_put(gone);
	node_put(old_parent);
out:
	node_put(fdir);
	node_put(tdir);
	return err;
}

LX_PARTIAL(renameat2, "RENAME_EXCHANGE and RENAME_WHITEOUT -EINVAL");
LX_SYSCALL_DEFINE5(renameat2, int, fdfd, unsigned long, ufrom, int, tdfd, unsigned long, uto,
		   unsigned int, flags)
{
	return do_renameat2(t, fdfd, ufrom, tdfd, uto, flags);
}

LX_SYSCALL_DEFINE4(renameat, int, fdfd, unsigned long, ufrom, int, tdfd, unsigned long, uto)
{
	return do_renameat2(t, fdfd, ufrom, tdfd, uto, 0);
}

LX_SYSCALL_DEFINE2(rename, unsigned long, ufrom, unsigned long, uto)
{
	return do_renameat2(t, AT_FDCWD, ufrom, AT_FDCWD, uto, 0);
}

/*
 * A new name for a node that is not a directory (-EPERM, as Linux's); a
 * node no directory names any more (unlinked, or O_TMPFILE's) gets none
 * (-ENOENT).
 */
static long do_linkat(struct thread *t, long fdfd, unsigned long ufrom, long tdfd,
		      unsigned long uto, long flags)
{
	char name[LX_NAME_MAX + 1];
	struct lx_node *from, *dir;
	unsigned int len;
	long err;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = proc_refuse(t, ufrom, -EXDEV, true);
	if (err)
		return err;
	/* linkat follows a link only if asked, unlike the calls fs_at_walk serves. */
	from = fs_lookup_at(t->p, fdfd, ufrom,
			    (flags & AT_SYMLINK_FOLLOW ? LX_WALK_FOLLOW : 0) |
			    (flags & AT_EMPTY_PATH ? LX_WALK_EMPTY : 0), &err);
	if (!from)
		return err == -ENOTDIR && (flags & AT_EMPTY_PATH) ? -ENOENT : err;
	err = proc_refuse(t, uto, -EXDEV, false);
	dir = err ? NULL : fs_parent_at(t->p, tdfd, uto, name, &len, &err);
	if (!dir) {
		node_put(from);
		return err;
	}
	fs_lock();
	if (!fs_last_norm(name, len) || fs_find_locked(dir, name, len))
		err = -EEXIST;
	else if (!dir->nlink)
		err = -ENOENT;
	else if (S_ISDIR(from->mode))
		err = -EPERM;
	else if (!from->nlink)
		err = -ENOENT;
	else
		err = fs_link_locked(dir, name, len, from);
	if (!err)
		fs_touch_locked(dir, true);
	fs_unlock();
	node_put(dir);
	node_put(from);
	return err;
}

LX_SYSCALL_DEFINE2(link, unsigned long, ufrom, unsigned long, uto)
{
	return do_linkat(t, AT_FDCWD, ufrom, AT_FDCWD, uto, 0);
}

LX_SYSCALL_DEFINE5(linkat, int, fdfd, unsigned long, ufrom, int, tdfd, unsigned long, uto,
		   int, flags)
{
	return do_linkat(t, fdfd, ufrom, tdfd, uto, flags);
}

static long node_truncate(struct lx_node *nd, long len)
{
	if (S_ISDIR(nd->mode))
		return -EISDIR;
	if (!S_ISREG(nd->mode))
		return -EINVAL;
	return fs_truncate(nd, len);
}

LX_SYSCALL_DEFINE2(truncate, unsigned long, upath, long, len)
{
	struct lx_node *nd;
	long err;

	if (len < 0)
		return -EINVAL;
	nd = fs_lookup_at(t->p, AT_FDCWD, upath, LX_WALK_FOLLOW, &err);
	if (!nd)
		return err;
	err = node_truncate(nd, len);
	node_put(nd);
	return err;
}

/*
 * What an attribute call works on: a path's node from dfd, or with
 * AT_EMPTY_PATH dfd's own; a file with no node (a pipe, the console)
 * answers as if changed, for lack of an inode to change.  Flags past
 * AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH are -EINVAL.
 */
static struct lx_node *attr_node(struct thread *t, long dfd, unsigned long upath, long flags,
				 long *err)
{
	struct lx_node *nd;

	*err = -EINVAL;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return NULL;
	nd = fs_lookup_at(t->p, dfd, upath, fs_at_walk(flags), err);
	if (!nd && *err == -ENOTDIR && (flags & AT_EMPTY_PATH))
		*err = 0;
	return nd;
}

static void set_mode(struct lx_node *nd, u32 mode)
{
	fs_lock();
	nd->mode = (nd->mode & S_IFMT) | (mode & 07777);
	fs_touch_locked(nd, false);
	fs_unlock();
	node_put(nd);
}

static long do_fchmodat(struct thread *t, long dfd, unsigned long upath, u32 mode, long flags)
{
	struct lx_node *nd;
	long err;

	err = proc_refuse(t, upath, -EPERM, true);
	if (err)
		return err;
	nd = attr_node(t, dfd, upath, flags, &err);
	if (!nd)
		return err;
	/* As Linux's: a link's own mode cannot change. */
	if (S_ISLNK(nd->mode)) {
		node_put(nd);
		return -EOPNOTSUPP;
	}
	set_mode(nd, mode);
	return 0;
}

LX_SYSCALL_DEFINE2(chmod, unsigned long, upath, unsigned int, mode)
{
	return do_fchmodat(t, AT_FDCWD, upath, mode, 0);
}

LX_SYSCALL_DEFINE3(fchmodat, int, dfd, unsigned long, upath, unsigned int, mode)
{
	return do_fchmodat(t, dfd, upath, mode, 0);
}

LX_SYSCALL_DEFINE4(fchmodat2, int, dfd, unsigned long, upath, unsigned int, mode, int, flags)
{
	return do_fchmodat(t, dfd, upath, mode, flags);
}

LX_SYSCALL_DEFINE2(fchmod, int, fd, unsigned int, mode)
{
	long err;
	struct lx_node *nd = fd_node(t->p, fd, &err);

	if (nd)
		set_mode(nd, mode);
	return err;
}

/*
 * chown: -1 leaves an id as it is.  As Linux's notify_change, a change of
 * owner of anything but a directory drops set-user-ID, and set-group-ID
 * where the group may execute.
 */
static void set_owner(struct lx_node *nd, u32 uid, u32 gid)
{
	fs_lock();
	if (uid != (u32)-1)
		nd->uid = uid;
	if (gid != (u32)-1)
		nd->gid = gid;
	if (!S_ISDIR(nd->mode)) {
		nd->mode &= ~S_ISUID;
		if (nd->mode & 0010)	/* the group may execute */
			nd->mode &= ~S_ISGID;
	}
	fs_touch_locked(nd, false);
	fs_unlock();
	node_put(nd);
}

static long do_fchownat(struct thread *t, long dfd, unsigned long upath, u32 uid, u32 gid,
			long flags)
{
	struct lx_node *nd;
	long err;

	err = proc_refuse(t, upath, -EPERM, true);
	if (err)
		return err;
	nd = attr_node(t, dfd, upath, flags, &err);
	if (nd)
		set_owner(nd, uid, gid);
	return err;
}

LX_SYSCALL_DEFINE3(chown, unsigned long, upath, unsigned int, uid, unsigned int, gid)
{
	return do_fchownat(t, AT_FDCWD, upath, uid, gid, 0);
}

LX_SYSCALL_DEFINE3(lchown, unsigned long, upath, unsigned int, uid, unsigned int, gid)
{
	return do_fchownat(t, AT_FDCWD, upath, uid, gid, AT_SYMLINK_NOFOLLOW);
}

LX_SYSCALL_DEFINE5(fchownat, int, dfd, unsigned long, upath, unsigned int, uid,
		   unsigned int, gid, int, flags)
{
	return do_fchownat(t, dfd, upath, uid, gid, flags);
}

LX_SYSCALL_DEFINE3(fchown, int, fd, unsigned int, uid, unsigned int, gid)
{
	long err;
	struct lx_node *nd = fd_node(t->p, fd, &err);

	if (nd)
		set_owner(nd, uid, gid);
	return err;
}

static bool nsec_valid(s64 ns)
{
	return ns == UTIME_OMIT || ns == UTIME_NOW || (ns >= 0 && ns < 1000000000);
}

/* One time of utimensat's pair into *at: now, left as it is, or as given. */
static void set_time(u64 *at, const s64 *ts, u64 now)
{
	if (!ts || ts[1] == UTIME_NOW)
		*at = now;
	else if (ts[1] != UTIME_OMIT)
		*at = ts[0] * 1000000000ULL + ts[1];
}

/*
 * utimensat, in fs/utimes.c's order: the times copied in, nothing at all
 * (not even the path) if both are UTIME_OMIT; a NULL path names dfd
 * itself (futimens), with no flags; the path's flags; the nanoseconds.
 */
LX_PARTIAL(utimensat, "a time before 1970 or past 2554 is not kept as given");
LX_SYSCALL_DEFINE4(utimensat, int, dfd, unsigned long, upath, unsigned long, utimes,
		   int, flags)
{
	s64 ts[4];
	struct lx_node *nd;
	u64 now;
	long err;

	if (utimes && mem_user_copy(t->p, utimes, ts, sizeof(ts), MEM_READ))
		return -EFAULT;
	if (utimes && ts[1] == UTIME_OMIT && ts[3] == UTIME_OMIT)
		return 0;
	if (!upath && dfd != AT_FDCWD) {
		if (flags)
			return -EINVAL;
		nd = fd_node(t->p, dfd, &err);
	} else {
		if (!upath && !(flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
			return -EFAULT;
		nd = attr_node(t, dfd, upath, flags, &err);
	}
	if (!nd)
		return err;
	if (utimes && (!nsec_valid(ts[1]) || !nsec_valid(ts[3]))) {
		node_put(nd);
		return -EINVAL;
	}
	now = lx_now_ns();
	fs_lock();
	set_time(&nd->atime, utimes ? ts : NULL, now);
	set_time(&nd->mtime, utimes ? ts + 2 : NULL, now);
	nd->ctime = now;
	fs_unlock();
	node_put(nd);
	return 0;
}
