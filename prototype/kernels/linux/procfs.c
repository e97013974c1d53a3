// SPDX-License-Identifier: GPL-2.0
/*
 * The files of /proc/self (and /proc/PID, for the caller's own PID) that
 * programs read about themselves: exe, the program's path (namei.c);
 * fd, a directory of the open descriptors, each a symbolic link to what
 * it names, as glibc's ttyname and Python's subprocess read them; and
 * maps, the memory's runs of pages, as glibc's pthread_getattr_np reads
 * it for the first thread's stack.  A file's text, and the fd
 * directory's list, are made when it is opened, as Linux's seq_file
 * makes them on the first read.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define PROC_FD_INO	0x70000000UL	/* the inode numbers of these files: no node's */

/* What a path names under /proc/self, or NULL if it is not there. */
const char *proc_self(struct proc *p, const char *path)
{
	char pid[24];
	unsigned int n;

	if (vostd_has_prefix(path, "/proc/self/"))
		return path + 11;
	n = vostd_snprintf(pid, sizeof(pid), "/proc/%ld/", p->pid);
	return vostd_has_prefix(path, pid) ? path + n : NULL;
}

/*
 * A path under /proc/self that this file makes (all but exe, which the
 * walk follows): what follows /proc/self/, or NULL.
 */
const char *proc_file(struct proc *p, const char *path)
{
	const char *rest = proc_self(p, path);

	return rest && !(vostd_has_prefix(rest, "exe") && !rest[3]) ? rest : NULL;
}

/* "fd/N": N, or -1. */
static long fd_number(const char *rest)
{
	long n = 0;

	if (!vostd_has_prefix(rest, "fd/") || !rest[3])
		return -1;
	for (rest += 3; *rest; rest++) {
		if (*rest < '0' || *rest > '9' || n > LX_FDS)
			return -1;
		n = n * 10 + *rest - '0';
	}
	return n;
}

/* What descriptor fd names, as its link in /proc/self/fd reads (Linux's d_path). */
static long fd_target(struct thread *t, long fd, char *buf, unsigned int size)
{
	struct lx_file *f = fd_get(t->p, fd);

	if (!f)
		return -ENOENT;
	if (f->node && fs_node_path(t->p, f->node, buf, size))
		vostd_snprintf(buf, size, "/(deleted)");	/* removed: no path names it */
	else if (!f->node && f->pipe)
		vostd_snprintf(buf, size, "pipe:[%lu]", (unsigned long)f->pipe & 0xffffff);
	else if (!f->node && f->ops == &lx_console_fops)
		vostd_snprintf(buf, size, "/dev/console");
	else if (!f->node && f->ops == &lx_sock_fops)
		vostd_snprintf(buf, size, "socket:[%lu]", (unsigned long)f->priv & 0xffffff);
	else if (!f->node)
		vostd_snprintf(buf, size, "anon_inode:[eventfd]");
	fd_put(f);
	return 0;
}

/* readlink of /proc/self/fd/N; -EINVAL for a path here that is no link. */
long proc_readlink(struct thread *t, const char *rest, char *buf, unsigned int size)
{
	long fd = fd_number(rest);

	if (fd < 0)
		return -EINVAL;
	return fd_target(t, fd, buf, size);
}

/* A snapshot made at open: text, or the fd directory's numbers. */
struct proc_snap {
	unsigned long len;
	char text[];
};

static long snap_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	struct proc_snap *s = f->priv;
	unsigned long pos = off >= 0 ? off : READ_ONCE(f->pos), n;

	if (pos >= s->len)
		return 0;
	n = min(len, s->len - pos);
	if (mem_user_copy(t->p, buf, s->text + pos, n, MEM_WRITE))
		return -EFAULT;
	if (off < 0)
		WRITE_ONCE(f->pos, pos + n);
	return n;
}

static long snap_lseek(struct lx_file *f, long off, long whence)
{
	long base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (long)READ_ONCE(f->pos) : -1;

	if (base < 0 || base + off < 0)
		return -EINVAL;
	WRITE_ONCE(f->pos, base + off);
	return base + off;
}

static long maps_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, S_IFREG | 0444, PROC_FD_INO + 1, 0);
}

static const struct lx_file_ops maps_fops = {
	.read = snap_read,
	.lseek = snap_lseek,
	.stat = maps_stat,
	.release = file_free_priv,
};

/*
 * The maps text: a line for each area, as Linux's show_map_vma writes it;
 * the heap, the stack and shared anonymous memory named, a file's copy by
 * its inode and offset.  Sized for the areas there are, then written under
 * the process's lock: areas made between give a cut text, never one past
 * the buffer (vostd_snprintf stops at its end).
 */
static struct proc_snap *maps_snap(struct proc *p)
{
	unsigned long size = 1 + 112 * (READ_ONCE(p->nvmas) + 1);
	struct proc_snap *s;
	unsigned int i;

	s = vostd_alloc(sizeof(*s) + size, false);
	if (!s)
		return NULL;
	s->len = 0;
	proc_lock(p);
	for (i = 0; i < p->nvmas; i++) {
		const struct vma *v = &p->vmas[i];
		const char *name = v->flags & VMA_HEAP ? "[heap]" :
				   v->flags & VMA_STACK ? "[stack]" :
				   v->flags & VMA_SHARED ? "/dev/zero (deleted)" : "";

		s->len += vostd_snprintf(s->text + s->len, size - s->len,
					 "%lx-%lx %c%c%c%c %08lx 00:00 %lu %s\n", v->start, v->end,
					 v->prot & EV_PROT_READ ? 'r' : '-',
					 v->prot & EV_PROT_WRITE ? 'w' : '-',
					 v->prot & EV_PROT_EXEC ? 'x' : '-',
					 v->flags & VMA_SHARED ? 's' : 'p',
					 v->flags & VMA_FILE ? v->pgoff * PAGE : 0,
					 v->flags & VMA_FILE ? v->ino : 0, name);
		s->len = min(s->len, size - 1);
	}
	proc_unlock(p);
	return s;
}

/* The fd directory: ".", "..", then a link for each open descriptor. */
static long fds_getdents64(struct thread *t, struct lx_file *f, unsigned long ubuf,
			   unsigned long len)
{
	struct proc_snap *s = f->priv;
	unsigned long out = 0;

	long r = 0;

	while (!r) {
		unsigned long pos = READ_ONCE(f->pos);
		char name[8] = "..";
		long fd;

		if (pos >= s->len + 2)
			break;
		if (pos < 2) {
			r = lx_dirent_out(t, ubuf, len, &out, PROC_FD_INO, pos + 1, DT_DIR, name,
					  pos + 1);
		} else {
			u16 n;

			vostd_memcpy(&n, s->text + 2 * (pos - 2), 2);
			fd = n;
			r = lx_dirent_out(t, ubuf, len, &out, PROC_FD_INO + 2 + fd, pos + 1, DT_LNK,
					  name, vostd_snprintf(name, sizeof(name), "%ld", fd));
		}
		if (!r)
			WRITE_ONCE(f->pos, pos + 1);
	}
	return r ?: out;
}

static long fds_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, S_IFDIR | 0500, PROC_FD_INO, 0);
}

static const struct lx_file_ops fds_fops = {
	.lseek = snap_lseek,
	.stat = fds_stat,
	.getdents64 = fds_getdents64,
	.release = file_free_priv,
};

/* The numbers of the open descriptors, two bytes each (LX_FDS is below 65536). */
static struct proc_snap *fds_snap(struct proc *p)
{
	struct proc_snap *s = vostd_alloc(sizeof(*s) + 2 * LX_FDS, false);
	long fd;

	if (!s)
		return NULL;
	s->len = 0;
	for (fd = 0; fd < LX_FDS; fd++) {
		struct lx_file *f = fd_get(p, fd);

		if (f) {
			vostd_memcpy(s->text + 2 * s->len++, &(u16){ fd }, 2);
			fd_put(f);
		}
	}
	return s;
}

/*
 * open of a file under /proc/self: maps and the fd directory as
 * snapshots; fd/N as the file N names, opened again if it is a node of
 * the file system (Linux's reopen through the link), else N's own file.
 */
long proc_open(struct thread *t, const char *rest, long flags)
{
	const struct lx_file_ops *ops = NULL;
	struct proc_snap *s = NULL;
	struct lx_file *f;
	long fd = fd_number(rest);

	if (fd >= 0) {
		struct lx_file *of = fd_get(t->p, fd);

		if (!of)
			return -ENOENT;
		if (!of->node) {
			f = of;		/* the call's reference becomes the descriptor's */
			goto install;
		}
		/* A new open file of the same node, at its start, with the flags asked. */
		f = file_new(of->ops);
		if (f) {
			f->node = of->node;
			node_get(f->node);
			f->flags = (flags | O_LARGEFILE) &
				   (O_ACCMODE | O_APPEND | O_NONBLOCK | O_LARGEFILE);
		}
		fd_put(of);
		goto install;
	}
	if (flags & O_ACCMODE)
		return !vostd_has_prefix(rest, "fd") && !vostd_has_prefix(rest, "maps") ?
		       -ENOENT : -EACCES;
	if (!vostd_has_prefix(rest, "maps") || rest[4]) {
		if (!vostd_has_prefix(rest, "fd") || (rest[2] && (rest[2] != '/' || rest[3])))
			return -ENOENT;
		ops = &fds_fops;
		s = fds_snap(t->p);
	} else {
		ops = &maps_fops;
		s = maps_snap(t->p);
	}
	f = s ? file_new(ops) : NULL;
	if (!f) {
		vostd_free(s);
		return -ENOMEM;
	}
	f->priv = s;
	f->flags = O_RDONLY | O_LARGEFILE;
install:
	if (!f)
		return -ENOMEM;
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/*
 * stat of a path under /proc/self: fd/N is a link, to what fstat of N
 * finds if the stat follows it; fd a directory; maps a file.  -ENOENT
 * for anything else.
 */
long proc_stat(struct thread *t, const char *rest, struct lx_kstat *ks, bool follow)
{
	long fd = fd_number(rest);
	struct lx_file *f;
	long err;

	if (fd >= 0) {
		f = fd_get(t->p, fd);
		if (!f)
			return -ENOENT;
		err = follow ? f->ops->stat(t, f, ks) :
		      lx_stat_fill(ks, S_IFLNK | 0700, PROC_FD_INO + 2 + fd, 0);
		fd_put(f);
		return err;
	}
	if (!vostd_has_prefix(rest, "fd") || (rest[2] && (rest[2] != '/' || rest[3]))) {
		if (vostd_has_prefix(rest, "maps") && !rest[4])
			return lx_stat_fill(ks, S_IFREG | 0444, PROC_FD_INO + 1, 0);
		return -ENOENT;
	}
	return lx_stat_fill(ks, S_IFDIR | 0500, PROC_FD_INO, 0);
}
