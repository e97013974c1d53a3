// SPDX-License-Identifier: GPL-2.0
/*
 * open, openat and creat: a path walked to a node, made if O_CREAT asks
 * (or with none, for O_TMPFILE), or a file of /proc/self (procfs.c), and
 * an open file of what the node is (sys_fs.c's lx_node_fops, a device's
 * of dev.c) given the lowest free descriptor.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define LX_O_TMPFILE_MASK	(__O_TMPFILE | O_DIRECTORY | O_CREAT)

/* A new file's mode: open's, less the process's umask. */
static u32 new_file_mode(struct thread *t, u32 mode)
{
	return S_IFREG | (mode & 07777 & ~lxp(t->p)->umask);
}

/*
 * The node an O_CREAT open names, made if it is not there (created is
 * set then), with a reference.  The new node is made before the lock is
 * taken and given back if another call linked one first.
 */
static struct lx_node *open_create(struct thread *t, long dfd, const char *path, long flags,
				   u32 mode, bool *created, long *err)
{
	struct lx_node *dir, *nd = NULL, *fresh;
	char name[LX_NAME_MAX + 1];
	struct lx_dirent *e;
	unsigned int len;

	dir = fs_parent_in(t->p, dfd, path, name, &len, err);
	if (!dir)
		return NULL;
	if (!fs_last_norm(name, len)) {
		node_put(dir);
		*err = -EISDIR;
		return NULL;
	}
	fresh = fs_node_new(new_file_mode(t, mode));
	fs_lock();
	e = fs_find_locked(dir, name, len);
	if (e && (flags & O_EXCL)) {
		*err = -EEXIST;
	} else if (e && !S_ISLNK(e->node->mode)) {
		nd = e->node;
		node_get(nd);
	} else if (!e && !dir->nlink) {
		*err = -ENOENT;		/* the directory was removed */
	} else if (!e && !fresh) {
		*err = -ENOSPC;
	} else if (!e) {
		*err = fs_link_locked(dir, name, len, fresh);
		if (!*err) {
			fs_touch_locked(dir, true);
			nd = fresh;
			fresh = NULL;
			*created = true;
		}
	}
	fs_unlock();
	node_put(fresh);
	/* A link there: follow it, unless O_NOFOLLOW (-ELOOP); its target must be there. */
	if (e && !nd && !*err && S_ISLNK(e->node->mode))
		nd = (flags & O_NOFOLLOW) ? (*err = -ELOOP, NULL) :
		     fs_lookup_in(t->p, dfd, path, LX_WALK_FOLLOW, err);
	node_put(dir);
	return nd;
}

/* O_TMPFILE: a file in no directory, gone at its last close. */
static struct lx_node *open_tmpfile(struct thread *t, long dfd, const char *path, u32 mode,
				    long *err)
{
	struct lx_node *dir = fs_lookup_in(t->p, dfd, path, LX_WALK_FOLLOW, err), *nd;

	if (!dir)
		return NULL;
	if (!S_ISDIR(dir->mode)) {
		node_put(dir);
		*err = -ENOTDIR;
		return NULL;
	}
	nd = fs_node_new(new_file_mode(t, mode));
	if (!nd) {
		node_put(dir);
		*err = -ENOSPC;
		return NULL;
	}
	nd->parent = dir;	/* dir's reference, which nd keeps */
	return nd;
}

/*
 * open, openat and creat, with Linux's checks in this order: the flags
 * (build_open_flags), a descriptor (-EMFILE), the path, then what is
 * found there.  The path is copied in once, first, since a file of
 * /proc/self (procfs.c) gets its descriptor there; an error in the copy
 * is answered after -EMFILE.
 */
static long do_openat(struct thread *t, long dfd, unsigned long upath, long flags, u32 mode)
{
	const struct lx_file_ops *ops = &lx_node_fops;
	char path[LX_PATH_MAX];
	const char *rest;
	bool created = false;
	struct lx_node *nd;
	struct lx_file *f;
	long err, fd, path_err;

	/* As Linux's open: bits it does not know are dropped, O_SYNC implies O_DSYNC. */
	flags &= VALID_OPEN_FLAGS;
	if (flags & __O_SYNC)
		flags |= O_DSYNC;
	if ((flags & __O_TMPFILE) &&
	    ((flags & LX_O_TMPFILE_MASK) != O_TMPFILE || !(flags & O_ACCMODE)))
		return -EINVAL;
	if ((flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY))
		return -EINVAL;
	path_err = fs_path_in(t->p, upath, path);
	rest = path_err ? NULL : proc_file(t->p, path);
	if (rest)
		return proc_open(t, rest, flags);
	fd = fd_reserve(t->p, 0);
	if (fd < 0)
		return fd;
	err = path_err;
	if (err)
		goto out;
	if (flags & __O_TMPFILE) {
		nd = open_tmpfile(t, dfd, path, mode, &err);
		flags &= ~O_DIRECTORY;	/* it named the directory, not what opens */
	} else if (flags & O_CREAT) {
		nd = open_create(t, dfd, path, flags, mode, &created, &err);
	} else {
		nd = fs_lookup_in(t->p, dfd, path, flags & O_NOFOLLOW ? 0 : LX_WALK_FOLLOW, &err);
	}
	if (!nd)
		goto out;
	err = 0;
	if (S_ISLNK(nd->mode))
		err = -ELOOP;
	else if ((flags & O_DIRECTORY) && !S_ISDIR(nd->mode))
		err = -ENOTDIR;
	else if (S_ISDIR(nd->mode) && ((flags & (O_ACCMODE | O_TRUNC)) || (flags & O_CREAT)))
		err = -EISDIR;
	else if (S_ISCHR(nd->mode))
		ops = dev_fops(nd->rdev);
	else if (!S_ISREG(nd->mode) && !S_ISDIR(nd->mode))
		ops = NULL;
	if (!err && !ops)
		err = -ENXIO;	/* a device, or a kind of node, nothing here opens */
	/* Nothing here can do O_DIRECT, as Linux's do_dentry_open finds. */
	if (!err && (flags & O_DIRECT))
		err = -EINVAL;
	/* O_TRUNC empties a file that was there, whatever the access asked. */
	if (!err && (flags & O_TRUNC) && S_ISREG(nd->mode) && !created)
		err = fs_truncate(nd, 0);
	f = err ? NULL : file_new(ops);
	if (!err && !f)
		err = -ENOMEM;
	if (err) {
		node_put(nd);
		goto out;
	}
	f->node = nd;		/* the lookup's reference, which the file keeps */
	/* As Linux's do_dentry_open keeps them; a 64-bit open is O_LARGEFILE. */
	f->flags = (flags | O_LARGEFILE) & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
	fd_commit(t->p, fd, f, flags & O_CLOEXEC);
	return fd;
out:
	fd_unreserve(t->p, fd);
	return err;
}

LX_PARTIAL(open, "O_PATH opens for reading; no permission is checked: every caller is root");
LX_SYSCALL_DEFINE3(open, unsigned long, upath, int, flags, unsigned int, mode)
{
	return do_openat(t, AT_FDCWD, upath, flags, mode);
}

LX_PARTIAL(openat, "O_PATH opens for reading; no permission is checked: every caller is root");
LX_SYSCALL_DEFINE4(openat, int, dfd, unsigned long, upath, int, flags, unsigned int, mode)
{
	return do_openat(t, dfd, upath, flags, mode);
}

LX_SYSCALL_DEFINE2(creat, unsigned long, upath, unsigned int, mode)
{
	return do_openat(t, AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
