// SPDX-License-Identifier: GPL-2.0
/*
 * stat, lstat, fstat and newfstatat: Linux's struct stat, filled in from
 * a node of the file system or from what an open file is; statfs and
 * fstatfs, of the one file system there is.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

/* Linux's struct stat on x86-64. */
struct lx_stat {
	u64 dev, ino, nlink;
	u32 mode, uid, gid, pad0;
	u64 rdev;
	s64 size, blksize, blocks;
	u64 atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	s64 unused[3];
};

/* Out to ust: a file with no node, a pipe or the console, of mode, ino and rdev. */
long lx_stat_out(struct thread *t, unsigned long ust, u32 mode, unsigned long ino, u32 rdev)
{
	struct lx_stat st = {
		.dev = 1, .ino = ino, .nlink = 1, .mode = mode, .rdev = rdev, .blksize = 4096,
	};

	return mem_user_copy(t->p, ust, &st, sizeof(st), MEM_WRITE);
}

static void stat_time(u64 ns, u64 *sec, u64 *nsec)
{
	*sec = ns / 1000000000;
	*nsec = ns % 1000000000;
}

/* Out to ust: nd, as it is under fs_lock; its blocks are the frames it holds. */
long lx_stat_node(struct thread *t, unsigned long ust, struct lx_node *nd)
{
	struct lx_stat st = { .dev = 2, .blksize = 4096 };
	unsigned long i;

	fs_lock();
	st.ino = nd->ino;
	st.nlink = nd->nlink;
	st.mode = nd->mode;
	st.uid = nd->uid;
	st.gid = nd->gid;
	st.rdev = nd->rdev;
	st.size = nd->size;
	if (nd->data && S_ISREG(nd->mode))
		st.blocks = (nd->size + PAGE_MASK_LOW) / PAGE * (PAGE / 512);
	for (i = 0; !nd->data && i < nd->npages; i++)
		if (nd->pages[i])
			st.blocks += PAGE / 512;
	stat_time(nd->atime, &st.atime, &st.atime_ns);
	stat_time(nd->mtime, &st.mtime, &st.mtime_ns);
	stat_time(nd->ctime, &st.ctime, &st.ctime_ns);
	fs_unlock();
	return mem_user_copy(t->p, ust, &st, sizeof(st), MEM_WRITE);
}

static long do_fstat(struct thread *t, long fd, unsigned long ust)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = f->ops->stat(t, f, ust);
	fd_put(f);
	return r;
}

static long do_fstatat(struct thread *t, long dfd, unsigned long upath, unsigned long ust,
		       long flags)
{
	char path[LX_PATH_MAX];
	struct lx_node *nd;
	const char *rest;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	err = fs_path_in(t->p, upath, path);
	if (err && err != -ENOENT)	/* -ENOENT: empty, for the lookup to judge */
		return err;
	rest = err ? NULL : proc_file(t->p, path);
	if (rest)
		return proc_stat(t, rest, ust, !(flags & AT_SYMLINK_NOFOLLOW));
	nd = fs_lookup_in(t->p, dfd, path, fs_at_walk(flags), &err);
	/* An empty path names dfd itself, which may be no node: a pipe, the console. */
	if (!nd && err == -ENOTDIR && (flags & AT_EMPTY_PATH))
		return do_fstat(t, dfd, ust);
	if (!nd)
		return err;
	err = lx_stat_node(t, ust, nd);
	node_put(nd);
	return err;
}

LX_PARTIAL(newfstat, "every pipe has st_ino 4, the console 3");
LX_SYSCALL_DEFINE2(newfstat, int, fd, unsigned long, ust)
{
	return do_fstat(t, fd, ust);
}

LX_SYSCALL_DEFINE2(newstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, 0);
}

LX_SYSCALL_DEFINE2(newlstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, AT_SYMLINK_NOFOLLOW);
}

LX_PARTIAL(newfstatat, "AT_STATX_* flags answer -EINVAL");
LX_SYSCALL_DEFINE4(newfstatat, int, dfd, unsigned long, upath, unsigned long, ust, int, flags)
{
	return do_fstatat(t, dfd, upath, ust, flags);
}

/* Linux's struct statfs on x86-64. */
struct lx_statfs {
	s64 type, bsize;
	u64 blocks, bfree, bavail, files, ffree;
	s32 fsid[2];
	s64 namelen, frsize, flags, spare[4];
};

#define TMPFS_MAGIC	0x01021994
#define ST_VALID	0x0020		/* Linux's: f_flags is filled in */

/* The one file system, as its bounds (fs.c) leave it. */
static long statfs_out(struct thread *t, unsigned long ubuf)
{
	struct lx_globals *g = lx();
	unsigned long frames = READ_ONCE(g->fs_frames), nodes = READ_ONCE(g->fs_nodes);
	struct lx_statfs st = {
		.type = TMPFS_MAGIC, .bsize = PAGE, .frsize = PAGE, .namelen = LX_NAME_MAX,
		.blocks = LX_FS_FRAMES, .files = LX_FS_NODES, .flags = ST_VALID,
	};

	st.bfree = LX_FS_FRAMES - min_t(unsigned long, frames, LX_FS_FRAMES);
	st.bavail = st.bfree;
	st.ffree = LX_FS_NODES - min_t(unsigned long, nodes, LX_FS_NODES);
	return mem_user_copy(t->p, ubuf, &st, sizeof(st), MEM_WRITE);
}

LX_SYSCALL_DEFINE2(statfs, unsigned long, upath, unsigned long, ubuf)
{
	long err;
	struct lx_node *nd = fs_lookup_at(t->p, AT_FDCWD, upath, LX_WALK_FOLLOW, &err);

	if (!nd)
		return err;
	node_put(nd);
	return statfs_out(t, ubuf);
}

/* A pipe's is Linux's pipefs in Linux; here every file answers for the one file system. */
LX_PARTIAL(fstatfs, "a pipe or the console answers as the file system does");
LX_SYSCALL_DEFINE2(fstatfs, int, fd, unsigned long, ubuf)
{
	struct lx_file *f = fd_get(t->p, fd);

	if (!f)
		return -EBADF;
	fd_put(f);
	return statfs_out(t, ubuf);
}
