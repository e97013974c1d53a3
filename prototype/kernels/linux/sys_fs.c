// SPDX-License-Identifier: GPL-2.0
/*
 * The calls on open files and on what a path finds: read, write and
 * their vectors, lseek, getdents64, readlink, access, ioctl, chdir,
 * getcwd, ftruncate and the syncs.  Each holds the file it works on
 * (fd_get) until it returns, across a pipe's sleep too.  open is
 * sys_open.c's; the calls that change the tree are sys_namei.c's.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define LX_RW_MAX	(1024UL * 1024)	/* a file's read, at most */

static long node_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	unsigned long pos = off >= 0 ? (unsigned long)off : READ_ONCE(f->pos);
	long n;

	if (S_ISDIR(f->node->mode))
		return -EISDIR;
	n = fs_read(t->p, f->node, pos, min(len, LX_RW_MAX), buf, NULL);
	if (n > 0 && off < 0)
		WRITE_ONCE(f->pos, pos + n);
	return n;
}

/*
 * A write at the file's position, or at off for pwrite64; at the end with
 * O_APPEND, pwrite64's too, as Linux's does.
 */
static long node_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len, long off)
{
	unsigned long pos = off >= 0 ? (unsigned long)off : READ_ONCE(f->pos);
	long n = fs_write(t->p, f->node, &pos, buf, len, READ_ONCE(f->flags) & O_APPEND);

	if (n > 0 && off < 0)
		WRITE_ONCE(f->pos, pos);
	return n;
}

static long file_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	if ((f->flags & O_ACCMODE) == 1 || !f->ops->read)
		return -EBADF;
	if (!len)
		return 0;
	return f->ops->read(t, f, buf, len, off);
}

/*
 * read and pread64 (off >= 0): f is held across a pipe's sleep.  As in
 * Linux, a file that cannot seek (a pipe, the console) has no position to
 * read at: pread64 is -ESPIPE before anything else is checked of it.
 */
static long do_read(struct thread *t, long fd, unsigned long buf, unsigned long len, long off)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	if (off >= 0 && f->ops->lseek == lx_no_lseek)
		r = -ESPIPE;
	else
		r = file_read(t, f, buf, len, off);
	fd_put(f);
	return r;
}

LX_PARTIAL(read, "no O_NONBLOCK: empty pipes block; at most 256 B from a pipe, 1 MiB from a file");
LX_SYSCALL_DEFINE3(read, int, fd, unsigned long, buf, unsigned long, len)
{
	return do_read(t, fd, buf, len, -1);
}

LX_PARTIAL(pread64, "at most 1 MiB a call");
LX_SYSCALL_DEFINE4(pread64, int, fd, unsigned long, buf, unsigned long, len, long, pos)
{
	return pos < 0 ? -EINVAL : do_read(t, fd, buf, len, pos);
}

static long file_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len, long off)
{
	if (!(f->flags & O_ACCMODE) || !f->ops->write)
		return -EBADF;
	if (off >= 0 && f->ops->lseek == lx_no_lseek)
		return -ESPIPE;
	return f->ops->write(t, f, buf, len, off);
}

static long do_write(struct thread *t, long fd, unsigned long buf, unsigned long len, long off)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = file_write(t, f, buf, len, off);
	fd_put(f);
	return r;
}

LX_PARTIAL(write, "no O_NONBLOCK; pipe writes not atomic to PIPE_BUF");
LX_SYSCALL_DEFINE3(write, int, fd, unsigned long, buf, unsigned long, len)
{
	return do_write(t, fd, buf, len, -1);
}

LX_SYSCALL_DEFINE4(pwrite64, int, fd, unsigned long, buf, unsigned long, len, long, pos)
{
	return pos < 0 ? -EINVAL : do_write(t, fd, buf, len, pos);
}

/*
 * readv and writev: one file for the whole vector, as Linux's holds one,
 * and each iovec a call of its own, until one comes up short.
 */
static long do_iov(struct thread *t, long fd, unsigned long iov, unsigned long n, bool write)
{
	struct lx_file *f = fd_get(t->p, fd);
	unsigned long i;
	long r = 0, total = 0;

	if (!f)
		return -EBADF;
	if (n > 1024)
		r = -EINVAL;
	for (i = 0; i < n && !r; i++) {
		u64 v[2];

		if (mem_user_copy(t->p, iov + i * 16, v, 16, MEM_READ)) {
			r = -EFAULT;
			break;
		}
		if ((s64)v[1] < 0) {
			r = -EINVAL;
			break;
		}
		if (!v[1])
			continue;
		r = write ? file_write(t, f, v[0], v[1], -1) : file_read(t, f, v[0], v[1], -1);
		if (r < 0)
			break;
		total += r;
		r = (u64)r < v[1];		/* a short one ends it */
	}
	fd_put(f);
	return r < 0 && !total ? r : total;
}

LX_PARTIAL(writev, "each iovec its own write: no O_NONBLOCK, not atomic on a pipe");
LX_SYSCALL_DEFINE3(writev, int, fd, unsigned long, iov, unsigned long, n)
{
	return do_iov(t, fd, iov, n, true);
}

LX_PARTIAL(readv, "each iovec its own read: a pipe's may block between them");
LX_SYSCALL_DEFINE3(readv, int, fd, unsigned long, iov, unsigned long, n)
{
	return do_iov(t, fd, iov, n, false);
}

/*
 * Where SEEK_SET, SEEK_CUR and SEEK_END count from in f, a file of a
 * node: -EINVAL for any other whence.  lseek's and the record locks'.
 */
long lx_seek_base(struct lx_file *f, long whence)
{
	unsigned long size;

	switch (whence) {
	case SEEK_SET:
		return 0;
	case SEEK_CUR:
		return READ_ONCE(f->pos);
	case SEEK_END:
		fs_lock();
		size = f->node->size;
		fs_unlock();
		return size;
	}
	return -EINVAL;
}

/*
 * As Linux's in-memory file systems: a directory has no end to seek
 * from; SEEK_DATA and SEEK_HOLE as a file system without holes answers
 * them: all is data.
 */
static long node_lseek(struct lx_file *f, long off, long whence)
{
	struct lx_node *nd = f->node;
	long base;

	if (S_ISDIR(nd->mode) && whence >= SEEK_END)
		return -EINVAL;
	if (whence == SEEK_DATA || whence == SEEK_HOLE) {
		long size = lx_seek_base(f, SEEK_END);

		if (off < 0 || off >= size)
			return -ENXIO;
		if (whence == SEEK_HOLE)
			off = size;
		whence = SEEK_SET;
	}
	base = lx_seek_base(f, whence);
	if (base < 0 || base + off < 0)
		return -EINVAL;
	WRITE_ONCE(f->pos, base + off);
	return base + off;
}

/* A file with no position, a pipe or a terminal (Linux's no_llseek). */
long lx_no_lseek(struct lx_file *f, long off, long whence)
{
	return -ESPIPE;
}

LX_SYSCALL_DEFINE3(lseek, int, fd, long, off, int, whence)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = f->ops->lseek(f, off, whence);
	fd_put(f);
	return r;
}

static u8 dtype(u32 mode)
{
	return (mode & S_IFMT) >> 12;	/* DT_* are the S_IF* bits, shifted */
}

/*
 * One record of getdents64 (Linux's struct linux_dirent64) out at ubuf +
 * *out, if it fits in len: 0, and *out moved past it; or, if it does not
 * fit or cannot be written, what the call returns now: what it wrote
 * already, else -EINVAL or -EFAULT.
 */
long lx_dirent_out(struct thread *t, unsigned long ubuf, unsigned long len, unsigned long *out,
		   u64 ino, s64 next, u8 type, const char *name, unsigned int nlen)
{
	char rec[(19 + LX_NAME_MAX + 1 + 7) & ~7];
	unsigned int reclen = (19 + nlen + 1 + 7) & ~7U;

	if (*out + reclen > len)
		return lx_done_or(*out, -EINVAL);
	vostd_memset(rec, 0, reclen);
	*(u64 *)rec = ino;
	*(s64 *)(rec + 8) = next;
	*(u16 *)(rec + 16) = reclen;
	rec[18] = type;
	vostd_memcpy(rec + 19, name, nlen);
	if (mem_user_copy(t->p, ubuf + *out, rec, reclen, MEM_WRITE))
		return lx_done_or(*out, -EFAULT);
	*out += reclen;
	return 0;
}

/*
 * getdents64: ".", "..", then the directory's entries, oldest first.  The
 * file's position is the last entry's cookie given out, so an entry
 * removed meanwhile moves none of the others, as Linux's tmpfs cursor.
 * Each record goes out under fs_lock, which a copy to the tenant may be
 * made under (fs.c).
 */
static long node_getdents64(struct thread *t, struct lx_file *f, unsigned long ubuf,
			    unsigned long len)
{
	struct lx_node *dir = f->node;
	unsigned long out = 0;
	long r = 0;

	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	fs_lock();
	while (!r) {
		u64 pos = READ_ONCE(f->pos);
		struct lx_dirent *e;

		if (pos < 2) {
			r = lx_dirent_out(t, ubuf, len, &out, pos ? dir->parent->ino : dir->ino,
					  pos + 1, DT_DIR, "..", pos + 1);
			e = NULL;
		} else {
			for (e = dir->ents; e && e->cookie <= pos; e = e->next)
				;
			if (!e || !dir->nlink)	/* the end, or a removed directory's */
				break;
			r = lx_dirent_out(t, ubuf, len, &out, e->node->ino, e->cookie,
					  dtype(e->node->mode), e->name, e->len);
		}
		if (!r)
			WRITE_ONCE(f->pos, e ? e->cookie : pos + 1);
	}
	fs_unlock();
	return r ?: (long)out;
}

static long node_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_node(ks, f->node);
}

/* A file or directory of the file system (do_openat). */
#define FIONREAD	0x541B
#define FIONBIO		0x5421
#define FIONCLEX	0x5450
#define FIOCLEX		0x5451

/* FIONREAD of a file of the file system: the bytes past its position (Linux's file_ioctl). */
static long node_ioctl(struct thread *t, struct lx_file *f, unsigned long cmd, unsigned long arg)
{
	long left;
	int n;

	if (cmd != FIONREAD || !S_ISREG(f->node->mode))
		return -ENOTTY;
	fs_lock();
	left = f->node->size - READ_ONCE(f->pos);
	fs_unlock();
	n = clamp_t(long, left, 0, INT_MAX);
	return mem_user_copy(t->p, arg, &n, sizeof(n), MEM_WRITE);
}

const struct lx_file_ops lx_node_fops = {
	.read = node_read,
	.write = node_write,
	.lseek = node_lseek,
	.stat = node_stat,
	.ioctl = node_ioctl,
	.getdents64 = node_getdents64,
};

LX_SYSCALL_DEFINE3(getdents64, int, fd, unsigned long, ubuf, unsigned long, len)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = f->ops->getdents64 ? f->ops->getdents64(t, f, ubuf, len) : -ENOTDIR;
	fd_put(f);
	return r;
}

/* A link's target out, cut to len as readlink cuts it: its length, or -EFAULT. */
static long link_out(struct thread *t, unsigned long ubuf, unsigned long len, const char *target,
		     unsigned long n)
{
	n = min(n, len);
	return mem_user_copy(t->p, ubuf, (void *)target, n, MEM_WRITE) ?: (long)n;
}

static long do_readlinkat(struct thread *t, long dfd, unsigned long upath,
			  unsigned long ubuf, unsigned long len)
{
	char path[LX_PATH_MAX], target[LX_PATH_MAX];
	const char *rest;
	struct lx_node *nd;
	long err;

	if ((long)len <= 0)
		return -EINVAL;
	err = fs_path_in(t->p, upath, path);
	if (err && err != -ENOENT)	/* -ENOENT: empty, for the lookup to judge */
		return err;
	rest = err ? NULL : proc_file(t->p, path);
	if (!err && fs_self_exe(path))
		return link_out(t, ubuf, len, lxp(t->p)->exe, fs_strlen(lxp(t->p)->exe));
	if (rest) {
		err = proc_readlink(t, rest, target, sizeof(target));
		return err ?: link_out(t, ubuf, len, target, fs_strlen(target));
	}
	nd = fs_lookup_in(t->p, dfd, path, 0, &err);
	if (!nd)
		return err;
	/* A link's target never changes: nd's reference keeps it. */
	err = S_ISLNK(nd->mode) ? link_out(t, ubuf, len, nd->data, nd->size) : -EINVAL;
	node_put(nd);
	return err;
}

LX_SYSCALL_DEFINE3(readlink, unsigned long, upath, unsigned long, ubuf, unsigned long, len)
{
	return do_readlinkat(t, AT_FDCWD, upath, ubuf, len);
}

LX_SYSCALL_DEFINE4(readlinkat, int, dfd, unsigned long, upath, unsigned long, ubuf,
		   unsigned long, len)
{
	return do_readlinkat(t, dfd, upath, ubuf, len);
}

/*
 * access and its kin, as Linux answers root: everything may be read and
 * written; a file may be executed only if some execute bit is set.
 */
static long do_faccessat(struct thread *t, long dfd, unsigned long upath, long mode,
			 long flags)
{
	char path[LX_PATH_MAX];
	struct lx_kstat ks;
	struct lx_node *nd;
	const char *rest;
	long err;

	if (mode & ~7)
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	rest = fs_path_in(t->p, upath, path) ? NULL : proc_file(t->p, path);
	if (rest) {
		/* As for a node: root may do anything but run what has no execute bit. */
		err = proc_stat(t, rest, &ks, !(flags & AT_SYMLINK_NOFOLLOW));
		return err ?: (mode & 1) && !S_ISDIR(ks.mode) && !(ks.mode & 0111) ? -EACCES : 0;
	}
	nd = fs_lookup_at(t->p, dfd, upath, fs_at_walk(flags), &err);
	if (!nd)
		return err;
	err = (mode & 1) && !S_ISDIR(nd->mode) && !(nd->mode & 0111) ? -EACCES : 0;
	node_put(nd);
	return err;
}

LX_SYSCALL_DEFINE2(access, unsigned long, upath, int, mode)
{
	return do_faccessat(t, AT_FDCWD, upath, mode, 0);
}

LX_SYSCALL_DEFINE3(faccessat, int, dfd, unsigned long, upath, int, mode)
{
	return do_faccessat(t, dfd, upath, mode, 0);
}

LX_SYSCALL_DEFINE4(faccessat2, int, dfd, unsigned long, upath, int, mode, int, flags)
{
	return do_faccessat(t, dfd, upath, mode, flags);
}

/*
 * The requests Linux's do_vfs_ioctl answers for every file, then the
 * file's own (a pipe's and a file's FIONREAD).  No descriptor is a
 * terminal: TCGETS and the rest get -ENOTTY, as for a file.
 */
LX_PARTIAL(ioctl, "FIONREAD, FIONBIO, FIOCLEX and FIONCLEX only; no termios, FIOASYNC or FIGETBSZ");
LX_SYSCALL_DEFINE3(ioctl, int, fd, unsigned long, cmd, unsigned long, arg)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r = -ENOTTY;
	int on;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		fd_set_cloexec(t->p, fd, cmd == FIOCLEX);
		r = 0;
		break;
	case FIONBIO:
		r = mem_user_copy(t->p, arg, &on, sizeof(on), MEM_READ);
		if (!r && on)
			__atomic_or_fetch(&f->flags, O_NONBLOCK, __ATOMIC_RELAXED);
		else if (!r)
			__atomic_and_fetch(&f->flags, ~O_NONBLOCK, __ATOMIC_RELAXED);
		break;
	default:
		if (f->ops->ioctl)
			r = f->ops->ioctl(t, f, cmd, arg);
	}
	fd_put(f);
	return r;
}

/*
 * The working directory or the root (*slot) becomes nd, whose reference
 * it takes; the old one goes.  Walks read both under fs_lock.
 */
static long set_dir(struct lx_node **slot, struct lx_node *nd)
{
	struct lx_node *old;

	if (!S_ISDIR(nd->mode)) {
		node_put(nd);
		return -ENOTDIR;
	}
	fs_lock();
	old = *slot;
	*slot = nd;
	fs_unlock();
	node_put(old);
	return 0;
}

LX_SYSCALL_DEFINE1(chdir, unsigned long, upath)
{
	long err;
	struct lx_node *nd = fs_lookup_at(t->p, AT_FDCWD, upath, LX_WALK_FOLLOW, &err);

	return nd ? set_dir(&lxp(t->p)->cwd, nd) : err;
}

LX_SYSCALL_DEFINE1(fchdir, int, fd)
{
	long err;
	struct lx_node *nd = fd_node(t->p, fd, &err);

	return nd ? set_dir(&lxp(t->p)->cwd, nd) : err ?: -ENOTDIR;
}

/*
 * chroot, in Linux's order: the path walked (it must name a directory),
 * then the permission, which root always has.  The old root goes; the
 * working directory stays, even outside the new root, as in Linux.
 */
LX_SYSCALL_DEFINE1(chroot, unsigned long, upath)
{
	long err;
	struct lx_node *nd = fs_lookup_at(t->p, AT_FDCWD, upath, LX_WALK_FOLLOW, &err);

	return nd ? set_dir(&lxp(t->p)->root, nd) : err;
}

/* The working directory's path from the root; -ENOENT once it is removed, as Linux's. */
LX_SYSCALL_DEFINE2(getcwd, unsigned long, ubuf, unsigned long, len)
{
	char path[LX_PATH_MAX];
	struct lx_node *cwd;
	unsigned long n;
	long err;

	fs_lock();
	cwd = lxp(t->p)->cwd;
	node_get(cwd);
	fs_unlock();
	err = fs_node_path(t->p, cwd, path, sizeof(path));
	node_put(cwd);
	if (err)
		return err;
	n = fs_strlen(path) + 1;
	if (len < n)
		return -ERANGE;
	return mem_user_copy(t->p, ubuf, path, n, MEM_WRITE) ?: (long)n;
}

LX_SYSCALL_DEFINE2(ftruncate, int, fd, long, len)
{
	struct lx_file *f;
	long err = -EINVAL;

	if (len < 0)
		return -EINVAL;
	f = fd_get(t->p, fd);
	if (!f)
		return -EBADF;
	if (f->node && S_ISREG(f->node->mode) && (f->flags & O_ACCMODE))
		err = fs_truncate(f->node, len);
	fd_put(f);
	return err;
}

/* Everything is in memory: a sync has nothing to write; a pipe or device has no fsync. */
static long do_fsync(struct thread *t, long fd)
{
	struct lx_file *f = fd_get(t->p, fd);
	long err;

	if (!f)
		return -EBADF;
	err = f->ops == &lx_node_fops ? 0 : -EINVAL;
	fd_put(f);
	return err;
}

LX_SYSCALL_DEFINE1(fsync, int, fd)
{
	return do_fsync(t, fd);
}

LX_SYSCALL_DEFINE1(fdatasync, int, fd)
{
	return do_fsync(t, fd);
}

LX_SYSCALL_DEFINE0(sync)
{
	return 0;
}

LX_SYSCALL_DEFINE1(syncfs, int, fd)
{
	struct lx_file *f = fd_get(t->p, fd);

	if (!f)
		return -EBADF;
	fd_put(f);
	return 0;
}
