// SPDX-License-Identifier: GPL-2.0
/*
 * /proc, a file system of its own beside the tmpfs, made from the
 * sandbox's state as it is read.  Its root holds self, a link to the
 * caller's /proc/PID, and sys/kernel's hostname, osrelease and ostype,
 * which uname's answers come from.  /proc/PID (the caller's own) holds
 * what programs read about themselves: exe, the program's path (namei.c);
 * cmdline, its arguments, read from its stack as Linux's are; fd, a
 * directory of the open descriptors, each a symbolic link to what it
 * names, as glibc's ttyname and Python's subprocess read them; and maps,
 * the memory's areas, as glibc's pthread_getattr_np reads it for the
 * first thread's stack.  A file's text, and a directory's list, are made
 * when it is opened, as Linux's seq_file makes them on the first read.
 * Nothing in it can be changed: mode and owner are -EPERM, a link or a
 * rename to or from it -EXDEV (sys_namei.c), as across two mounts.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define PROC_FD_INO	0x70000000UL	/* the inode numbers of these files: no node's */
#define PROC_INO	(PROC_FD_INO + 2 + LX_FDS)	/* and of the rest, in proc_tree's order */
/* cmdline's, past proc_tree's and the own directory's */
#define PROC_CMDLINE_INO	(PROC_INO + 16)

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
 * A path in /proc, which this file makes (all but the process's own exe,
 * which the walk follows): what follows "/proc", "" for /proc itself; or
 * NULL for a path elsewhere.
 */
const char *proc_file(struct proc *p, const char *path)
{
	const char *rest = proc_self(p, path);

	if (rest && vostd_has_prefix(rest, "exe") && !rest[3])
		return NULL;
	if (!vostd_has_prefix(path, "/proc") || (path[5] && path[5] != '/'))
		return NULL;
	return path + 5;
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

/*
 * A snapshot made at open: text; a directory's names, each after a
 * letter for its type (d, l, r) and ended by a NUL; or the fd
 * directory's numbers.
 */
struct proc_snap {
	unsigned long len;
	unsigned long ino;
	u32 mode;
	char text[];
};

static long snap_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	struct proc_snap *s = f->priv;
	unsigned long pos = off >= 0 ? (unsigned long)off : READ_ONCE(f->pos), n;

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

static long snap_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	struct proc_snap *s = f->priv;

	return lx_stat_fill(ks, s->mode, s->ino, 0);
}

static const struct lx_file_ops text_fops = {
	.read = snap_read,
	.lseek = snap_lseek,
	.stat = snap_stat,
	.release = file_free_priv,
};

/* A snapshot of size bytes of text, for a file of inode ino. */
static struct proc_snap *snap_new(unsigned long size, unsigned long ino, u32 mode)
{
	struct proc_snap *s = vostd_alloc(sizeof(*s) + size, false);

	if (s) {
		s->len = 0;
		s->ino = ino;
		s->mode = mode;
	}
	return s;
}

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

	s = snap_new(size, PROC_FD_INO + 1, S_IFREG | 0444);
	if (!s)
		return NULL;
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
	return r ?: (long)out;
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
	struct proc_snap *s = snap_new(2 * LX_FDS, PROC_FD_INO, S_IFDIR | 0500);
	long fd;

	if (!s)
		return NULL;
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
 * cmdline: the arguments exec left on the stack, each ended by its NUL,
 * read from the process as Linux's proc_pid_cmdline_read reads them, so
 * a program that rewrites its argv shows what it wrote.
 */
static struct proc_snap *cmdline_snap(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	unsigned long len = min(lp->arg_end - lp->arg_start, (unsigned long)LX_STRS_MAX);
	struct proc_snap *s = snap_new(len, PROC_CMDLINE_INO, S_IFREG | 0444);

	if (s && len && !mem_user_copy(p, lp->arg_start, s->text, len, MEM_READ))
		s->len = len;
	return s;
}

/* A directory's names, each after its type's letter: ".", "..", then each. */
static long names_getdents64(struct thread *t, struct lx_file *f, unsigned long ubuf,
			     unsigned long len)
{
	struct proc_snap *s = f->priv;
	unsigned long out = 0, at = 0, i;
	long r = 0;

	while (!r) {
		unsigned long pos = READ_ONCE(f->pos);
		const char *name = "..";
		u8 type = DT_DIR;

		if (pos < 2) {
			name += 1 - pos;
		} else {
			/* The entry pos - 2: past the ones before it. */
			for (at = 0, i = 2; at < s->len && i < pos; i++)
				at += fs_strlen(s->text + at) + 1;
			if (at >= s->len)
				break;
			type = s->text[at] == 'd' ? DT_DIR : s->text[at] == 'l' ? DT_LNK : DT_REG;
			name = s->text + at + 1;
		}
		r = lx_dirent_out(t, ubuf, len, &out, s->ino + pos, pos + 1, type, name,
				  fs_strlen(name));
		if (!r)
			WRITE_ONCE(f->pos, pos + 1);
	}
	return r ?: (long)out;
}

static const struct lx_file_ops names_fops = {
	.lseek = snap_lseek,
	.stat = snap_stat,
	.getdents64 = names_getdents64,
	.release = file_free_priv,
};

/* /proc's own files and directories, by their paths after "/proc". */
struct proc_entry {
	const char *path;
	const char *text;		/* a file's; NULL: a directory, of names */
	const char *names;		/* each after its type's letter, ended by a NUL */
	unsigned int size;
};

#define PROC_DIR(p, n)	{ .path = p, .names = n, .size = sizeof(n) - 1 }
#define PROC_TEXT(p, x)	{ .path = p, .text = x, .size = sizeof(x) - 1 }

static const struct proc_entry proc_tree[] = {
	PROC_DIR("", "lself\0dsys\0"),
	PROC_DIR("/sys", "dkernel\0"),
	PROC_DIR("/sys/kernel", "rhostname\0rosrelease\0rostype\0"),
	PROC_TEXT("/sys/kernel/hostname", LX_UTS_NODENAME "\n"),
	PROC_TEXT("/sys/kernel/osrelease", LX_UTS_RELEASE "\n"),
	PROC_TEXT("/sys/kernel/ostype", LX_UTS_SYSNAME "\n"),
};

static_assert(ARRAY_SIZE(proc_tree) + 2 <= PROC_CMDLINE_INO - PROC_INO);

/* A process's own directory, /proc/PID. */
static const struct proc_entry own_dir = PROC_DIR("/self", "rcmdline\0lexe\0dfd\0rmaps\0");

/* Where a path after "/proc" leads. */
struct proc_place {
	const struct proc_entry *e;	/* one of proc_tree's or own_dir; or NULL: */
	const char *own;		/* a file of the process's own, after /proc/PID/ */
	bool self;			/* /proc/self itself, not followed: the link */
	unsigned long ino;
};

/* Whether rest, but for slashes at its end, is path. */
static bool same_path(const char *rest, const char *path)
{
	unsigned int n = fs_strlen(path);

	if (!vostd_has_prefix(rest, path))
		return false;
	for (rest += n; *rest == '/'; rest++)
		;
	return !*rest;
}

/*
 * rest's place in /proc; /proc/self is the link if !follow.  -ENOENT for
 * a path /proc does not have: every other process's, among others.
 */
static long proc_place(struct proc *p, const char *rest, bool follow, struct proc_place *pl)
{
	char pid[24];
	unsigned int i, n;

	*pl = (struct proc_place){};
	n = vostd_snprintf(pid, sizeof(pid), "/%ld", p->pid);
	if (vostd_has_prefix(rest, "/self") && (!rest[5] || rest[5] == '/'))
		n = 5;
	else if (!vostd_has_prefix(rest, pid) || (rest[n] && rest[n] != '/'))
		n = 0;
	if (n) {
		for (rest += n; *rest == '/' && rest[1] == '/'; rest++)
			;
		if (*rest && rest[1]) {
			pl->own = rest + 1;
			return 0;
		}
		pl->self = n == 5 && !*rest && !follow;
		pl->e = &own_dir;
		pl->ino = PROC_INO + ARRAY_SIZE(proc_tree) + pl->self;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(proc_tree); i++) {
		if (same_path(rest, proc_tree[i].path) &&
		    (!proc_tree[i].text || rest[fs_strlen(proc_tree[i].path)] != '/')) {
			pl->e = &proc_tree[i];
			pl->ino = PROC_INO + i;
			return 0;
		}
	}
	return -ENOENT;
}

/* A new snapshot of a directory's names or a file's text. */
static struct proc_snap *entry_snap(const struct proc_entry *e, unsigned long ino)
{
	struct proc_snap *s = snap_new(e->size, ino, e->text ? S_IFREG | 0444 : S_IFDIR | 0555);

	if (s) {
		vostd_memcpy(s->text, e->text ?: e->names, e->size);
		s->len = e->size;
	}
	return s;
}

/* A snapshot opened as a file of ops, at a descriptor. */
static long snap_install(struct thread *t, struct proc_snap *s,
			 const struct lx_file_ops *ops, long flags)
{
	struct lx_file *f = s ? file_new(ops) : NULL;
	long fd;

	if (!f) {
		vostd_free(s);
		return -ENOMEM;
	}
	f->priv = s;
	f->flags = O_RDONLY | O_LARGEFILE;
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/*
 * open of a file of the process's own, after /proc/PID/: maps, cmdline
 * and the fd directory as snapshots; fd/N as the file N names, opened
 * again if it is a node of the file system (Linux's reopen through the
 * link), else N's own file.
 */
static long own_open(struct thread *t, const char *rest, long flags)
{
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
	if (same_path(rest, "fd"))
		return flags & O_ACCMODE ? -EACCES :
		       snap_install(t, fds_snap(t->p), &fds_fops, flags);
	if (same_path(rest, "maps") && rest[4] != '/')
		return flags & O_ACCMODE ? -EACCES :
		       snap_install(t, maps_snap(t->p), &text_fops, flags);
	if (same_path(rest, "cmdline") && rest[7] != '/')
		return flags & O_ACCMODE ? -EACCES :
		       snap_install(t, cmdline_snap(t->p), &text_fops, flags);
	return -ENOENT;
install:
	if (!f)
		return -ENOMEM;
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* open of a path in /proc: a directory to list, or a file read-only. */
long proc_open(struct thread *t, const char *rest, long flags)
{
	struct proc_place pl;
	long err = proc_place(t->p, rest, !(flags & O_NOFOLLOW), &pl);

	if (err)
		return err;
	if (pl.own)
		return own_open(t, pl.own, flags);
	if (pl.self)
		return -ELOOP;		/* O_NOFOLLOW at the link */
	if (flags & O_ACCMODE)
		return pl.e->text ? -EACCES : -EISDIR;
	if ((flags & O_DIRECTORY) && pl.e->text)
		return -ENOTDIR;
	return snap_install(t, entry_snap(pl.e, pl.ino), pl.e->text ? &text_fops : &names_fops,
			    flags);
}

/* readlink of a path in /proc: /proc/self's target, or an fd's; -EINVAL for others. */
long proc_readlink(struct thread *t, const char *rest, char *buf, unsigned int size)
{
	struct proc_place pl;
	long err = proc_place(t->p, rest, false, &pl), fd;

	if (err)
		return err;
	if (pl.self) {
		vostd_snprintf(buf, size, "%ld", t->p->pid);
		return 0;
	}
	fd = pl.own ? fd_number(pl.own) : -1;
	if (fd < 0)
		return -EINVAL;
	return fd_target(t, fd, buf, size);
}

/*
 * stat of a file of the process's own, after /proc/PID/: fd/N is a link,
 * to what fstat of N finds if the stat follows it; fd a directory; maps
 * and cmdline files.  -ENOENT for anything else.
 */
static long own_stat(struct thread *t, const char *rest, struct lx_kstat *ks, bool follow)
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
	if (same_path(rest, "fd"))
		return lx_stat_fill(ks, S_IFDIR | 0500, PROC_FD_INO, 0);
	if (same_path(rest, "maps") && rest[4] != '/')
		return lx_stat_fill(ks, S_IFREG | 0444, PROC_FD_INO + 1, 0);
	if (same_path(rest, "cmdline") && rest[7] != '/')
		return lx_stat_fill(ks, S_IFREG | 0444, PROC_CMDLINE_INO, 0);
	return -ENOENT;
}

/* stat of a path in /proc. */
long proc_stat(struct thread *t, const char *rest, struct lx_kstat *ks, bool follow)
{
	struct proc_place pl;
	long err = proc_place(t->p, rest, follow, &pl);

	if (err)
		return err;
	if (pl.own)
		return own_stat(t, pl.own, ks, follow);
	if (pl.self)
		return lx_stat_fill(ks, S_IFLNK | 0777, pl.ino, 0);
	return lx_stat_fill(ks, pl.e->text ? S_IFREG | 0444 : S_IFDIR | 0555, pl.ino,
			    pl.e->text ? pl.e->size : 0);
}

/* Whether rest names something in /proc: 0, or -ENOENT. */
long proc_exists(struct thread *t, const char *rest)
{
	struct lx_kstat ks;

	return proc_stat(t, rest, &ks, false);
}
