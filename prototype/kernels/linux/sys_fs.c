// SPDX-License-Identifier: GPL-2.0
/*
 * The calls on files and paths: read, write, open, lseek, getdents64,
 * readlink, access, ioctl, chdir and getcwd.  Each holds the file it
 * works on (fd_get) until it returns, across a pipe's sleep too.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

static long node_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	unsigned long pos, n;

	if ((f->node->mode & S_IFMT) == S_IFDIR)
		return -EISDIR;
	pos = off >= 0 ? off : READ_ONCE(f->pos);
	if (pos >= f->node->size)
		return 0;
	n = min(len, f->node->size - pos);
	n = min(n, 1UL << 20);
	if (mem_user_copy(t->p, buf, (void *)(f->node->data + pos), n, MEM_WRITE))
		return -EFAULT;
	if (off < 0)
		WRITE_ONCE(f->pos, pos + n);
	return n;
}

/* /dev/null: nothing to read, and everything written taken. */
static long null_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	return 0;
}

static long null_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len)
{
	return len;
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
		       unsigned long len)
{
	if (!(f->flags & O_ACCMODE) || !f->ops->write)
		return -EBADF;
	return f->ops->write(t, f, buf, len);
}

LX_PARTIAL(write, "no O_NONBLOCK; pipe writes not atomic to PIPE_BUF");
LX_SYSCALL_DEFINE3(write, int, fd, unsigned long, buf, unsigned long, len)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = file_write(t, f, buf, len);
	fd_put(f);
	return r;
}

/* writev: one file for the whole vector, as Linux's holds one. */
LX_PARTIAL(writev, "each iovec its own write: no O_NONBLOCK, not atomic on a pipe");
LX_SYSCALL_DEFINE3(writev, int, fd, unsigned long, iov, unsigned long, n)
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
		if (!v[1])
			continue;
		r = file_write(t, f, v[0], v[1]);
		if (r < 0)
			break;
		total += r;
		r = r < v[1];		/* a short write ends it */
	}
	fd_put(f);
	return r < 0 && !total ? r : total;
}

static long do_openat(struct thread *t, long dfd, unsigned long upath, long flags)
{
	/* O_CREAT | O_EXCL follows no symbolic link, and fails on anything there. */
	bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	const struct lx_file_ops *ops = &lx_node_fops;
	const struct lx_node *nd;
	struct lx_file *f;
	long err, fd;

	/* As Linux's open: bits it does not know are dropped, O_SYNC implies O_DSYNC. */
	flags &= VALID_OPEN_FLAGS;
	if (flags & __O_SYNC)
		flags |= O_DSYNC;
	nd = fs_lookup_at(t->p, dfd, upath, !(flags & O_NOFOLLOW) && !excl, false, &err);
	if (!nd)
		return err == -ENOENT && (flags & O_CREAT) ? -EROFS : err;
	if (excl)
		return -EEXIST;
	if ((flags & O_CREAT) && (nd->mode & S_IFMT) == S_IFDIR)
		return -EISDIR;
	if ((nd->mode & S_IFMT) == S_IFLNK)
		return -ELOOP;
	if ((flags & O_DIRECTORY) && (nd->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	if ((nd->mode & S_IFMT) == S_IFCHR)
		ops = &lx_null_fops;
	else if ((flags & O_ACCMODE) || (flags & O_TRUNC))
		return (nd->mode & S_IFMT) == S_IFDIR ? -EISDIR : -EROFS;
	/* Nothing here can do O_DIRECT, as Linux's do_dentry_open finds. */
	if (flags & O_DIRECT)
		return -EINVAL;
	f = file_new(ops);
	if (!f)
		return -ENOMEM;
	f->node = nd;
	/* As Linux's do_dentry_open keeps them; a 64-bit open is O_LARGEFILE. */
	f->flags = (flags | O_LARGEFILE) & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* The mode is never used: no file is created. */
LX_PARTIAL(open, "O_CREAT of a new file, writing, O_TRUNC: -EROFS; O_PATH ignored");
LX_SYSCALL_DEFINE2(open, unsigned long, upath, int, flags)
{
	return do_openat(t, AT_FDCWD, upath, flags);
}

LX_PARTIAL(openat, "O_CREAT of a new file, writing, O_TRUNC: -EROFS; O_PATH ignored");
LX_SYSCALL_DEFINE3(openat, int, dfd, unsigned long, upath, int, flags)
{
	return do_openat(t, dfd, upath, flags);
}

static long node_lseek(struct lx_file *f, long off, long whence)
{
	long base;

	switch (whence) {
	case 0:
		base = 0;
		break;
	case 1:
		base = READ_ONCE(f->pos);
		break;
	case 2:
		/* As Linux's in-memory file systems: a directory has no end to seek from. */
		if ((f->node->mode & S_IFMT) == S_IFDIR)
			return -EINVAL;
		base = f->node->size;
		break;
	default:
		return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	WRITE_ONCE(f->pos, base + off);
	return base + off;
}

static long null_lseek(struct lx_file *f, long off, long whence)
{
	return 0;
}

/* A file with no position, a pipe or a terminal (Linux's no_llseek). */
long lx_no_lseek(struct lx_file *f, long off, long whence)
{
	return -ESPIPE;
}

LX_PARTIAL(lseek, "SEEK_DATA and SEEK_HOLE answer -EINVAL");
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

/* Is c a child of dir, directly?  Its name, or NULL. */
static const char *child_name(const struct lx_node *dir, const struct lx_node *c)
{
	unsigned int dl = dir->path_len == 1 ? 0 : dir->path_len, i;

	if (c == dir || c->path_len <= dl + 1 || c->path[dl] != '/')
		return NULL;
	for (i = 0; i < dl; i++)
		if (c->path[i] != dir->path[i])
			return NULL;
	for (i = dl + 1; i < c->path_len; i++)
		if (c->path[i] == '/')
			return NULL;
	return c->path + dl + 1;
}

static u8 dtype(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return 4;
	case S_IFREG: return 8;
	case S_IFLNK: return 10;
	case S_IFCHR: return 2;
	}
	return 0;
}

/*
 * getdents64: ".", "..", then the directory's children in the image's
 * order; the file's position counts the entries given out.
 */
static long node_getdents64(struct thread *t, struct lx_file *f, unsigned long ubuf,
			    unsigned long len)
{
	struct lx_globals *g = lx();
	unsigned long out = 0, idx = 0, i;
	char rec[LX_PATH_MAX + 24];

	if ((f->node->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	for (i = 0; i < g->nnodes + 2; i++) {
		const struct lx_node *c = i < 2 ? f->node : &g->nodes[i - 2];
		const char *name = i == 0 ? "." : i == 1 ? ".." : child_name(f->node, c);
		unsigned int nlen, reclen;

		if (!name)
			continue;
		if (idx++ < READ_ONCE(f->pos))
			continue;
		nlen = i < 2 ? i + 1 : c->path_len - (name - c->path);
		reclen = (19 + nlen + 1 + 7) & ~7U;
		if (out + reclen > len)
			return out ?: -EINVAL;
		vostd_memset(rec, 0, reclen);
		*(u64 *)rec = c->ino;
		*(s64 *)(rec + 8) = idx;
		*(u16 *)(rec + 16) = reclen;
		rec[18] = i < 2 ? 4 : dtype(c->mode);
		vostd_memcpy(rec + 19, name, nlen);
		if (mem_user_copy(t->p, ubuf + out, rec, reclen, MEM_WRITE))
			return -EFAULT;
		out += reclen;
		WRITE_ONCE(f->pos, idx);
	}
	return out;
}

static long node_stat(struct thread *t, struct lx_file *f, unsigned long ust)
{
	return lx_stat_out(t, ust, f->node->mode, f->node, f->node->ino);
}

/* A node of the image: opened to be read only (do_openat). */
const struct lx_file_ops lx_node_fops = {
	.read = node_read,
	.lseek = node_lseek,
	.stat = node_stat,
	.getdents64 = node_getdents64,
};

/* /dev/null, whose node is the image's. */
const struct lx_file_ops lx_null_fops = {
	.read = null_read,
	.write = null_write,
	.lseek = null_lseek,
	.stat = node_stat,
};

LX_PARTIAL(getdents64, "the .. entry carries the directory's own inode number, not its parent's");
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

static long do_readlinkat(struct thread *t, long dfd, unsigned long upath,
			  unsigned long ubuf, unsigned long len)
{
	const struct lx_node *nd;
	long err;

	char path[LX_PATH_MAX];

	if ((long)len <= 0)
		return -EINVAL;
	if (!fs_path(t->p, upath, path) && fs_self_exe(path)) {
		const char *exe = lxp(t->p)->exe;

		len = min_t(unsigned long, len, fs_strlen(exe));
		return mem_user_copy(t->p, ubuf, (void *)exe, len, MEM_WRITE) ?: (long)len;
	}
	nd = fs_lookup_at(t->p, dfd, upath, false, false, &err);
	if (!nd)
		return err;
	if ((nd->mode & S_IFMT) != S_IFLNK)
		return -EINVAL;
	len = min(len, nd->size);
	return mem_user_copy(t->p, ubuf, (void *)nd->data, len, MEM_WRITE) ?: (long)len;
}

LX_PARTIAL(readlink, "mid-path symlinks not followed");
LX_SYSCALL_DEFINE3(readlink, unsigned long, upath, unsigned long, ubuf, unsigned long, len)
{
	return do_readlinkat(t, AT_FDCWD, upath, ubuf, len);
}

LX_PARTIAL(readlinkat, "mid-path symlinks not followed");
LX_SYSCALL_DEFINE4(readlinkat, int, dfd, unsigned long, upath, unsigned long, ubuf,
		   unsigned long, len)
{
	return do_readlinkat(t, dfd, upath, ubuf, len);
}

/* Whether the file is there: every file may be read, so the mode asks nothing more. */
static long do_faccessat(struct thread *t, long dfd, unsigned long upath)
{
	long err;

	return fs_lookup_at(t->p, dfd, upath, true, false, &err) ? 0 : err;
}

LX_PARTIAL(access, "mode unchecked (W_OK, X_OK pass); mid-path symlinks not followed");
LX_SYSCALL_DEFINE1(access, unsigned long, upath)
{
	return do_faccessat(t, AT_FDCWD, upath);
}

LX_PARTIAL(faccessat, "mode unchecked (W_OK, X_OK pass); mid-path symlinks not followed");
LX_SYSCALL_DEFINE2(faccessat, int, dfd, unsigned long, upath)
{
	return do_faccessat(t, dfd, upath);
}

LX_PARTIAL(faccessat2, "mode, flags unchecked (W_OK, X_OK pass); mid-path symlinks not followed");
LX_SYSCALL_DEFINE2(faccessat2, int, dfd, unsigned long, upath)
{
	return do_faccessat(t, dfd, upath);
}

/* No descriptor is a terminal: TCGETS and the rest get -ENOTTY, as for a file. */
LX_PARTIAL(ioctl, "every request answers -ENOTTY: no FIONREAD, FIONBIO, FIOCLEX, nor termios");
LX_SYSCALL_DEFINE3(ioctl, int, fd, unsigned long, cmd, unsigned long, arg)
{
	struct lx_file *f = fd_get(t->p, fd);

	if (!f)
		return -EBADF;
	fd_put(f);
	return -ENOTTY;
}

LX_PARTIAL(chdir, "mid-path symlinks not followed");
LX_SYSCALL_DEFINE1(chdir, unsigned long, upath)
{
	char path[LX_PATH_MAX];
	const struct lx_node *nd;
	long err = fs_path(t->p, upath, path);

	if (err)
		return err;
	nd = fs_lookup_path(path, true, &err);
	if (!nd)
		return err;
	if ((nd->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	vostd_memcpy(lxp(t->p)->cwd, nd->path, nd->path_len);
	lxp(t->p)->cwd[nd->path_len] = 0;
	return 0;
}

LX_SYSCALL_DEFINE2(getcwd, unsigned long, ubuf, unsigned long, len)
{
	const char *cwd = lxp(t->p)->cwd;
	unsigned long n = fs_strlen(cwd) + 1;

	if (len < n)
		return -ERANGE;
	return mem_user_copy(t->p, ubuf, (void *)cwd, n, MEM_WRITE) ?: (long)n;
}
