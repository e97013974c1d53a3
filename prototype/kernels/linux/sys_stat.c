// SPDX-License-Identifier: GPL-2.0
/*
 * stat, lstat, fstat and newfstatat: Linux's struct stat, filled in from
 * a node of the image or from what an open file is.
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

/* Out to ust: a file of mode and inode ino, sized from its node nd if it has one. */
long lx_stat_out(struct thread *t, unsigned long ust, u32 mode, const struct lx_node *nd,
		 unsigned long ino)
{
	struct lx_stat st = {
		.dev = 1, .ino = ino, .nlink = (mode & S_IFMT) == S_IFDIR ? 2 : 1,
		.mode = mode, .blksize = 4096,
	};

	if (nd) {
		st.size = nd->size;
		st.blocks = (nd->size + 511) / 512;
		if ((mode & S_IFMT) == S_IFCHR)
			st.rdev = 1 << 8 | 3;	/* /dev/null */
	} else if ((mode & S_IFMT) == S_IFCHR) {
		st.rdev = 5 << 8 | 1;		/* the console */
	}
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
	const struct lx_node *nd;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	nd = fs_lookup_at(t->p, dfd, upath, !(flags & AT_SYMLINK_NOFOLLOW),
			  flags & AT_EMPTY_PATH, &err);
	/* An empty path names dfd itself, which may be no node: a pipe, the console. */
	if (!nd && err == -ENOTDIR && (flags & AT_EMPTY_PATH))
		return do_fstat(t, dfd, ust);
	if (!nd)
		return err;
	return lx_stat_out(t, ust, nd->mode, nd, nd->ino);
}

LX_PARTIAL(newfstat, "a pipe's or the console's st_dev and st_ino may be an image file's");
LX_SYSCALL_DEFINE2(newfstat, int, fd, unsigned long, ust)
{
	return do_fstat(t, fd, ust);
}

LX_PARTIAL(newstat, "mid-path symlinks not followed");
LX_SYSCALL_DEFINE2(newstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, 0);
}

LX_PARTIAL(newlstat, "mid-path symlinks not followed");
LX_SYSCALL_DEFINE2(newlstat, unsigned long, upath, unsigned long, ust)
{
	return do_fstatat(t, AT_FDCWD, upath, ust, AT_SYMLINK_NOFOLLOW);
}

LX_PARTIAL(newfstatat, "AT_STATX_* flags answer -EINVAL; mid-path symlinks not followed");
LX_SYSCALL_DEFINE4(newfstatat, int, dfd, unsigned long, upath, unsigned long, ust, int, flags)
{
	return do_fstatat(t, dfd, upath, ust, flags);
}
