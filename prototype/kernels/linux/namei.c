// SPDX-License-Identifier: GPL-2.0
/*
 * Paths, walked as Linux's namei walks them: a part at a time from the
 * root, the working directory or a directory descriptor, "." and ".."
 * taken as they come, and a symbolic link anywhere but at the end
 * followed (at the end only if asked, or if a slash follows it), at most
 * LX_MAXSYMLINKS in one walk.  A walk holds fs_lock from its start to
 * the reference it takes on what it found, so no rename or unlink can
 * take a node from under it.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "linux.h"

#define LX_MAXSYMLINKS	40	/* Linux's MAXSYMLINKS */

/* Copy a path in from the tenant, NUL-terminated within LX_PATH_MAX; -ENOENT if empty. */
long fs_path_in(struct proc *p, unsigned long upath, char *buf)
{
	unsigned int i;

	for (i = 0; i < LX_PATH_MAX; i++) {
		if (mem_user_copy(p, upath + i, buf + i, 1, MEM_READ))
			return -EFAULT;
		if (!buf[i])
			return i ? 0 : -ENOENT;
	}
	return -ENAMETOOLONG;
}

/* The last part of a path, as Linux's namei types it: a name (LAST_NORM), not "." or "..". */
bool fs_last_norm(const char *name, unsigned int len)
{
	return len && !(len == 1 && name[0] == '.') &&
	       !(len == 2 && name[0] == '.' && name[1] == '.');
}

/* /proc/self/exe is the only file of /proc: the program the process runs. */
bool fs_self_exe(const char *path)
{
	return vostd_has_prefix(path, "/proc/self/exe") && !path[14];
}

/*
 * The rest of a walk, restarted at a link's target: target, then what
 * followed the link's name in the path (rest: empty, or from its slash
 * on), into buf.
 */
static long splice_link(char *buf, const struct lx_node *link, const char *rest)
{
	char tmp[LX_PATH_MAX];
	unsigned int tlen = link->size, rlen = fs_strlen(rest);

	if (!tlen)
		return -ENOENT;
	if (tlen + rlen >= LX_PATH_MAX)
		return -ENAMETOOLONG;
	vostd_memcpy(tmp, link->data, tlen);
	vostd_memcpy(tmp + tlen, rest, rlen + 1);
	vostd_memcpy(buf, tmp, tlen + rlen + 1);
	return 0;
}

/*
 * Walk path from start, under fs_lock, with root as "/" (a process's,
 * after a chroot: ".." goes no higher).  With name, stop at the last part:
 * the directory it would be in comes back and the part is copied to name
 * (its length in *len; "." and ".." as they are, for the caller to
 * refuse, and length 0 for a path of slashes).  Without, the node the
 * path names.  No reference is taken: the caller takes one under the lock.
 */
struct lx_node *fs_walk_locked(struct lx_node *root, struct lx_node *start, const char *path,
			       bool follow, char *name, unsigned int *len, long *err)
{
	struct lx_node *cur = start;
	unsigned int links = 0, n = fs_strlen(path);
	char buf[LX_PATH_MAX];
	const char *s = buf;

	if (n >= LX_PATH_MAX) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	vostd_memcpy(buf, path, n + 1);
	if (*s == '/')
		cur = root;
	for (;;) {
		const char *e, *rest;
		struct lx_dirent *d;
		bool slash, last;

		while (*s == '/')
			s++;
		if (!*s) {		/* nothing but slashes left: cur itself */
			if (name)
				*len = 0;
			return cur;
		}
		for (e = s; *e && *e != '/'; e++)
			;
		slash = *e == '/';
		for (rest = e; *rest == '/'; rest++)
			;
		last = !*rest;
		if (!S_ISDIR(cur->mode)) {
			*err = -ENOTDIR;
			return NULL;
		}
		if (e - s > LX_NAME_MAX) {
			*err = -ENAMETOOLONG;
			return NULL;
		}
		if (last && name) {
			*len = e - s;
			vostd_memcpy(name, s, *len);
			name[*len] = 0;
			return cur;
		}
		if (e - s == 1 && s[0] == '.') {
			s = e;
			continue;
		}
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			if (cur != root)
				cur = cur->parent;
			s = e;
			continue;
		}
		d = fs_find_locked(cur, s, e - s);
		if (!d) {
			*err = -ENOENT;
			return NULL;
		}
		if (S_ISLNK(d->node->mode) && (!last || follow || slash)) {
			if (++links > LX_MAXSYMLINKS) {
				*err = -ELOOP;
				return NULL;
			}
			*err = splice_link(buf, d->node, e);
			if (*err)
				return NULL;
			s = buf;
			if (*s == '/')
				cur = root;
			continue;
		}
		if (last) {
			if (slash && !S_ISDIR(d->node->mode)) {
				*err = -ENOTDIR;
				return NULL;
			}
			return d->node;
		}
		cur = d->node;
		s = e;
	}
}

/* How a call's AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH walk its path. */
int fs_at_walk(long flags)
{
	return (flags & AT_SYMLINK_NOFOLLOW ? 0 : LX_WALK_FOLLOW) |
	       (flags & AT_EMPTY_PATH ? LX_WALK_EMPTY : 0);
}

/*
 * The node descriptor fd's file has, with a reference: NULL with *err 0
 * for a file with none (a pipe, the console, an eventfd), NULL with
 * -EBADF if fd is not open.
 */
struct lx_node *fd_node(struct proc *p, long fd, long *err)
{
	struct lx_file *f = fd_get(p, fd);
	struct lx_node *nd = NULL;

	*err = f ? 0 : -EBADF;
	if (f && f->node) {
		nd = f->node;
		node_get(nd);
	}
	if (f)
		fd_put(f);
	return nd;
}

/*
 * A walk of path (the kernel's copy) from dfd or the working directory,
 * or from the root for /proc/self/exe's target.  The node comes back with
 * a reference; dfd's node is held only for the walk.
 */
static struct lx_node *walk(struct proc *p, long dfd, const char *path, bool follow,
			    char *name, unsigned int *len, long *err)
{
	struct lx_node *nd, *dir = NULL;

	if (fs_self_exe(path))
		path = lxp(p)->exe;
	if (path[0] != '/' && dfd != AT_FDCWD) {
		dir = fd_node(p, dfd, err);
		if (!dir || !S_ISDIR(dir->mode)) {
			*err = *err ?: -ENOTDIR;
			node_put(dir);
			return NULL;
		}
	}
	fs_lock();
	/* chdir and chroot change cwd and root under the lock */
	nd = fs_walk_locked(lxp(p)->root, dir ?: lxp(p)->cwd, path, follow, name, len, err);
	if (nd)
		node_get(nd);
	fs_unlock();
	node_put(dir);
	return nd;
}

/*
 * The node path (the kernel's copy, fs_path_in's) names from dfd, with a
 * reference.  With LX_WALK_EMPTY an empty path names dfd's own node:
 * -ENOTDIR if its file has none, for the caller to ask the file instead.
 */
struct lx_node *fs_lookup_in(struct proc *p, long dfd, const char *path, int how, long *err)
{
	struct lx_node *nd;

	if (path[0])
		return walk(p, dfd, path, how & LX_WALK_FOLLOW, NULL, NULL, err);
	*err = -ENOENT;
	if (!(how & LX_WALK_EMPTY))
		return NULL;
	if (dfd == AT_FDCWD)
		return walk(p, dfd, ".", false, NULL, NULL, err);
	nd = fd_node(p, dfd, err);
	if (!nd && !*err)
		*err = -ENOTDIR;
	return nd;
}

/* The same, of a tenant's path: copied in first. */
struct lx_node *fs_lookup_at(struct proc *p, long dfd, unsigned long upath, int how,
			     long *err)
{
	char path[LX_PATH_MAX];

	*err = fs_path_in(p, upath, path);
	if (*err && *err != -ENOENT)	/* -ENOENT: empty, for fs_lookup_in to judge */
		return NULL;
	return fs_lookup_in(p, dfd, path, how, err);
}

/*
 * The directory path (the kernel's copy) would put its last part in,
 * with a reference, and the part in name (LX_NAME_MAX + 1 bytes), its
 * length in *len: 0 for a path of slashes, "." or ".." as they are.
 */
struct lx_node *fs_parent_in(struct proc *p, long dfd, const char *path, char *name,
			     unsigned int *len, long *err)
{
	if (!path[0]) {
		*err = -ENOENT;
		return NULL;
	}
	return walk(p, dfd, path, false, name, len, err);
}

/* The same, of a tenant's path: copied in first. */
struct lx_node *fs_parent_at(struct proc *p, long dfd, unsigned long upath, char *name,
			     unsigned int *len, long *err)
{
	char path[LX_PATH_MAX];

	*err = fs_path_in(p, upath, path);
	if (*err)
		return NULL;
	return fs_parent_in(p, dfd, path, name, len, err);
}
