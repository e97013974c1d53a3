// SPDX-License-Identifier: GPL-2.0
/*
 * stat, lstat, fstat, newfstatat and statx: what a node of the file
 * system or an open file is (struct lx_kstat), written in Linux's struct
 * stat or struct statx; statfs and fstatfs, of the one file system there
 * is.
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

/* A file with no node, a pipe or the console, of mode, ino and rdev. */
long lx_stat_fill(struct lx_kstat *ks, u32 mode, unsigned long ino, u32 rdev)
{
	*ks = (struct lx_kstat){ .dev = 1, .ino = ino, .nlink = 1, .mode = mode, .rdev = rdev };
	return 0;
}

/* nd, as it is under fs_lock; its blocks are the frames it holds. */
long lx_stat_node(struct lx_kstat *ks, struct lx_node *nd)
{
	unsigned long i;

	*ks = (struct lx_kstat){ .dev = 2 };
	fs_lock();
	ks->ino = nd->ino;
	ks->nlink = nd->nlink;
	ks->mode = nd->mode;
	ks->uid = nd->uid;
	ks->gid = nd->gid;
	ks->rdev = nd->rdev;
	ks->size = nd->size;
	if (nd->data && S_ISREG(nd->mode))
		ks->blocks = (nd->size + PAGE_MASK_LOW) / PAGE * (PAGE / 512);
	for (i = 0; !nd->data && i < nd->npages; i++)
		if (nd->pages[i])
			ks->blocks += PAGE / 512;
	ks->atime = nd->atime;
	ks->mtime = nd->mtime;
	ks->ctime = nd->ctime;
	fs_unlock();
	return 0;
}

/* Out to ust in stat's layout (Linux's cp_new_stat). */
static long stat_out(struct thread *t, struct lx_kstat *ks, unsigned long ust)
{
	struct lx_stat st = {
		.dev = ks->dev, .ino = ks->ino, .nlink = ks->nlink, .mode = ks->mode,
		.uid = ks->uid, .gid = ks->gid, .rdev = ks->rdev, .size = ks->size,
		.blksize = PAGE, .blocks = ks->blocks,
		.atime = ks->atime / 1000000000, .atime_ns = ks->atime % 1000000000,
		.mtime = ks->mtime / 1000000000, .mtime_ns = ks->mtime % 1000000000,
		.ctime = ks->ctime / 1000000000, .ctime_ns = ks->ctime % 1000000000,
	};

	return mem_user_copy(t->p, ust, &st, sizeof(st), MEM_WRITE);
}

static long do_fstat(struct thread *t, long fd, struct lx_kstat *ks)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = f->ops->stat(t, f, ks);
	fd_put(f);
	return r;
}

/*
 * What path names, from dfd, after the caller has checked flags and
 * copied the path in (NULL: an empty path, which must come with
 * AT_EMPTY_PATH and names dfd itself).
 */
static long stat_path(struct thread *t, long dfd, const char *path, struct lx_kstat *ks,
		      long flags)
{
	struct lx_node *nd;
	const char *rest;
	long err;

	rest = path ? proc_file(t->p, path) : NULL;
	if (rest)
		return proc_stat(t, rest, ks, !(flags & AT_SYMLINK_NOFOLLOW));
	if (!path)
		return flags & AT_EMPTY_PATH ? do_fstat(t, dfd, ks) : -ENOENT;
	nd = fs_lookup_in(t->p, dfd, path, fs_at_walk(flags), &err);
	/* An empty path names dfd itself, which may be no node: a pipe, the console. */
	if (!nd && err == -ENOTDIR && (flags & AT_EMPTY_PATH))
		return do_fstat(t, dfd, ks);
	if (!nd)
		return err;
	err = lx_stat_node(ks, nd);
	node_put(nd);
	return err;
}

#define LX_STAT_FLAGS	(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE)

static long do_fstatat(struct thread *t, long dfd, unsigned long upath, unsigned long ust,
		       long flags)
{
	char path[LX_PATH_MAX];
	struct lx_kstat ks;
	long err;

	if (flags & ~LX_STAT_FLAGS)
		return -EINVAL;
	err = fs_path_in(t->p, upath, path);
	if (err && err != -ENOENT)	/* -ENOENT: empty, for the lookup to judge */
		return err;
	err = stat_path(t, dfd, err ? "" : path, &ks, flags);
	return err ?: stat_out(t, &ks, ust);
}

LX_PARTIAL(newfstat, "every pipe has st_ino 4, the console 3");
LX_SYSCALL_DEFINE2(newfstat, int, fd, unsigned long, ust)
{
	struct lx_kstat ks;

	return do_fstat(t, fd, &ks) ?: stat_out(t, &ks, ust);
}

LX_SYSCALL_DEFINE2(newstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, 0);
}

LX_SYSCALL_DEFINE2(newlstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, AT_SYMLINK_NOFOLLOW);
}

LX_SYSCALL_DEFINE4(newfstatat, int, dfd, unsigned long, upath, unsigned long, ust, int, flags)
{
	return do_fstatat(t, dfd, upath, ust, flags);
}

/* A device number as stat gives it (Linux's new_encode_dev), split for statx. */
static u32 dev_major(u64 dev)
{
	return (dev >> 8) & 0xfff;
}

static u32 dev_minor(u64 dev)
{
	return (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

static struct statx_timestamp statx_time(u64 ns)
{
	return (struct statx_timestamp){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
}

/*
 * statx, in Linux's order: the path copied in first (a NULL one is
 * dfd's own with AT_EMPTY_PATH alone), then mask and flags checked.  It
 * answers the basic fields and the mount's id whatever the mask asks
 * for, as Linux may; there is no birth time.
 */
LX_SYSCALL_DEFINE5(statx, int, dfd, unsigned long, upath, unsigned int, flags,
		   unsigned int, mask, unsigned long, ubuf)
{
	char path[LX_PATH_MAX];
	struct lx_kstat ks;
	struct statx stx;
	long err = 0;

	if (upath || (flags & ~(AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE)) != AT_EMPTY_PATH) {
		err = fs_path_in(t->p, upath, path);
		if (err && err != -ENOENT)
			return err;
	}
	if (mask & STATX__RESERVED)
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE || (flags & ~LX_STAT_FLAGS))
		return -EINVAL;
	err = stat_path(t, dfd, !upath ? NULL : err ? "" : path, &ks, flags);
	if (err)
		return err;
	stx = (struct statx){
		.stx_mask = STATX_BASIC_STATS | STATX_MNT_ID, .stx_blksize = PAGE,
		.stx_nlink = ks.nlink, .stx_uid = ks.uid, .stx_gid = ks.gid, .stx_mode = ks.mode,
		.stx_ino = ks.ino, .stx_size = ks.size, .stx_blocks = ks.blocks,
		.stx_atime = statx_time(ks.atime), .stx_ctime = statx_time(ks.ctime),
		.stx_mtime = statx_time(ks.mtime),
		.stx_rdev_major = dev_major(ks.rdev), .stx_rdev_minor = dev_minor(ks.rdev),
		.stx_dev_major = dev_major(ks.dev), .stx_dev_minor = dev_minor(ks.dev),
		.stx_mnt_id = 1,
	};
	return mem_user_copy(t->p, ubuf, &stx, sizeof(stx), MEM_WRITE);
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
