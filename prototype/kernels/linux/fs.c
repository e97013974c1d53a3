// SPDX-License-Identifier: GPL-2.0
/*
 * Files: a read-only file system from the cpio image the guest pipeline
 * built from prototype/rootfs/ (and Debian's busybox), the console (stdout
 * and stderr to the sandbox's log, a line at a time; stdin empty), and the
 * calls on them.  Pipes are pipe.c's, descriptors fdtable.c's.
 *
 * The image is parsed once at start into a table of nodes; a node's data
 * points into the image, which stays where it is for the sandbox's life.
 * Every path a tenant names is copied in, made absolute against the
 * process's working directory and normalised before it is looked up.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "linux.h"

#define SYMLINKS_MAX	8

extern const char lx_rootfs_start[], lx_rootfs_end[];

/* ---- the image ---- */

static unsigned long hex8(const char *s, bool *bad)
{
	unsigned long v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			*bad = true;
	}
	return v;
}

static bool same_path(const char *a, unsigned int alen, const char *b, unsigned int blen)
{
	unsigned int i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static unsigned int str_len(const char *s)
{
	unsigned int n = 0;

	while (s[n])
		n++;
	return n;
}

/*
 * Parse the newc cpio image into nodes.  Every field is checked against
 * the image's end: the image is the pipeline's, but a parser that trusted
 * it would be the first hole here.
 */
long fs_init(void)
{
	struct lx_globals *g = lx();
	const char *at = lx_rootfs_start, *end = lx_rootfs_end;
	unsigned int n = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		at = lx_rootfs_start;
		n = 0;
		/* The root, whether or not the image names it. */
		if (pass)
			g->nodes[n] = (struct lx_node){ .path = "/", .path_len = 1,
							.mode = S_IFDIR | 0755, .ino = 1 };
		n++;
		while (end - at >= 110) {
			bool bad = false;
			unsigned long mode, size, namesize, off;
			const char *name;

			if (!vostd_has_prefix(at, "070701"))
				return -EINVAL;
			mode = hex8(at + 14, &bad);
			size = hex8(at + 54, &bad);
			namesize = hex8(at + 94, &bad);
			if (bad || namesize < 2 || namesize > (unsigned long)(end - at) - 110)
				return -EINVAL;
			name = at + 110;
			if (name[namesize - 1])
				return -EINVAL;
			if (vostd_has_prefix(name, "TRAILER!!!"))
				break;
			off = (110 + namesize + 3) & ~3UL;
			if (off > (unsigned long)(end - at) ||
			    size > (unsigned long)(end - at) - off)
				return -EINVAL;
			/* "./x" and "x" are both "/x"; "." is the root, already there. */
			if (name[0] == '.' && name[1] == '/')
				name++;
			else if (name[0] == '.' && !name[1])
				name = NULL;
			if (name && name[0] == '/')
				name++;
			if (name && *name) {
				if (pass) {
					unsigned int len = str_len(name);
					char *path = vostd_alloc(len + 2, false);

					if (!path)
						return -ENOMEM;
					path[0] = '/';
					vostd_memcpy(path + 1, name, len + 1);
					g->nodes[n] = (struct lx_node){
						.path = path, .path_len = len + 1,
						.mode = mode, .data = at + off, .size = size,
						.ino = n + 1,
					};
				}
				n++;
			}
			at += (off + size + 3) & ~3UL;
		}
		if (!pass) {
			g->nodes = vostd_alloc(n * sizeof(*g->nodes), true);
			if (!g->nodes)
				return -ENOMEM;
		}
	}
	g->nnodes = n;
	return 0;
}

/* The sandbox is ending: the nodes go (the image is the module's). */
/* How many frames hold nd's contents: its size in pages, rounded up. */
static unsigned long node_pages(const struct lx_node *nd)
{
	return (nd->size + PAGE_MASK_LOW) / PAGE;
}

static void pages_free(struct frame **pages, unsigned long n)
{
	while (n--)
		frame_put(pages[n]);
	vostd_free(pages);
}

/*
 * The frames holding nd's contents, a page each, the last zero past the
 * file's end: made at the first exec of the file and kept until the
 * sandbox ends, so that every exec maps them copy-on-write, as Linux maps
 * a file from its page cache, instead of copying the file.  NULL if there
 * is no memory for them; the caller copies then.
 */
struct frame **fs_pages(const struct lx_node *nd)
{
	struct lx_globals *g = lx();
	struct lx_node *n = &g->nodes[nd - g->nodes];
	unsigned long i, count = node_pages(nd);
	struct frame **pages;

	if (READ_ONCE(n->pages) || !count)
		return READ_ONCE(n->pages);
	pages = vostd_alloc(count * sizeof(*pages), false);
	if (!pages)
		return NULL;
	for (i = 0; i < count; i++) {
		pages[i] = frame_new();
		if (!pages[i]) {
			pages_free(pages, i);
			return NULL;
		}
		vostd_memcpy(pages[i]->mem, nd->data + i * PAGE, min(PAGE, nd->size - i * PAGE));
	}
	/* Another task may have made them meanwhile: the first to get here wins. */
	procs_lock();
	if (!n->pages) {
		WRITE_ONCE(n->pages, pages);
		pages = NULL;
	}
	procs_unlock();
	if (pages)
		pages_free(pages, count);
	return n->pages;
}

void fs_exit(void)
{
	struct lx_globals *g = lx();
	unsigned int i;

	for (i = 0; i < g->nnodes; i++)
		if (g->nodes[i].pages)
			pages_free(g->nodes[i].pages, node_pages(&g->nodes[i]));
	for (i = 1; i < g->nnodes; i++)		/* the root's path is a literal */
		vostd_free((void *)g->nodes[i].path);
	vostd_free(g->nodes);
	g->nodes = NULL;
	g->nnodes = 0;
}

static const struct lx_node *node_find(const char *path, unsigned int len)
{
	struct lx_globals *g = lx();
	unsigned int i;

	for (i = 0; i < g->nnodes; i++)
		if (same_path(g->nodes[i].path, g->nodes[i].path_len, path, len))
			return &g->nodes[i];
	return NULL;
}

/*
 * Make path absolute against cwd and normalise it in place: no ".", no
 * "..", no doubled or trailing slash.  -ENAMETOOLONG past LX_PATH_MAX.
 */
static long path_normalise(const char *cwd, const char *in, char *out)
{
	char tmp[LX_PATH_MAX * 2];
	unsigned int n = 0, i = 0, o = 0;

	if (in[0] != '/') {
		while (cwd[n] && n < LX_PATH_MAX)
			tmp[n] = cwd[n], n++;
		tmp[n++] = '/';
	}
	while (*in && n < sizeof(tmp) - 1)
		tmp[n++] = *in++;
	if (*in)
		return -ENAMETOOLONG;
	tmp[n] = 0;
	out[o++] = '/';
	while (i < n) {
		unsigned int s = i, len;

		while (i < n && tmp[i] != '/')
			i++;
		len = i - s;
		i++;
		if (len == 0 || (len == 1 && tmp[s] == '.'))
			continue;
		if (len == 2 && tmp[s] == '.' && tmp[s + 1] == '.') {
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			continue;
		}
		if (o > 1)
			out[o++] = '/';
		if (o + len >= LX_PATH_MAX)
			return -ENAMETOOLONG;
		vostd_memcpy(out + o, tmp + s, len);
		o += len;
	}
	out[o] = 0;
	return o;
}

/* Copy a path in from the tenant, NUL-terminated within LX_PATH_MAX. */
static long path_copy_in(struct proc *p, unsigned long upath, char *buf)
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

long fs_path(struct proc *p, unsigned long upath, char *path)
{
	char in[LX_PATH_MAX];
	long err = path_copy_in(p, upath, in);

	return err ?: path_normalise(lxp(p)->cwd, in, path) < 0 ? -ENAMETOOLONG : 0;
}

/* Look up an absolute, normalised path; symbolic links of the last part followed if follow. */
static const struct lx_node *lookup(const char *path, bool follow, long *err)
{
	char buf[LX_PATH_MAX], dir[LX_PATH_MAX], target[LX_PATH_MAX];
	const struct lx_node *nd;
	unsigned int hops, len;

	len = str_len(path);
	vostd_memcpy(buf, path, len + 1);
	for (hops = 0; hops <= SYMLINKS_MAX; hops++) {
		nd = node_find(buf, len);
		if (!nd) {
			*err = -ENOENT;
			return NULL;
		}
		if ((nd->mode & S_IFMT) != S_IFLNK || !follow)
			return nd;
		if (!nd->size || nd->size >= LX_PATH_MAX) {
			*err = -ENOENT;
			return NULL;
		}
		vostd_memcpy(target, nd->data, nd->size);
		target[nd->size] = 0;
		/* Relative to the link's directory. */
		vostd_memcpy(dir, buf, len + 1);
		while (len > 1 && dir[len - 1] != '/')
			len--;
		dir[len > 1 ? len - 1 : 1] = 0;
		if (path_normalise(dir, target, buf) < 0) {
			*err = -ENAMETOOLONG;
			return NULL;
		}
		len = str_len(buf);
	}
	*err = -ELOOP;
	return NULL;
}

/* /proc/self/exe is the only file of /proc: the program the process runs. */
static bool self_exe(const char *path)
{
	return vostd_has_prefix(path, "/proc/self/exe") && !path[14];
}

const struct lx_node *fs_lookup(struct proc *p, const char *path)
{
	long err;

	return lookup(self_exe(path) ? lxp(p)->exe : path, true, &err);
}

/*
 * The path of dfd joined with a tenant's path, looked up.  dfd's file is
 * held only for the lookup: what it yields is a node, and a node lives as
 * long as the sandbox.
 */
static const struct lx_node *lookup_at(struct proc *p, long dfd, unsigned long upath,
				       bool follow, bool empty_ok, long *err)
{
	char in[LX_PATH_MAX], path[LX_PATH_MAX];
	const struct lx_node *nd = NULL;
	struct lx_file *df = NULL;

	*err = path_copy_in(p, upath, in);
	if (*err == -ENOENT && empty_ok) {
		df = fd_get(p, dfd);
		if (!df || df->kind != LX_NODE)
			*err = df ? -ENOTDIR : -EBADF;
		else
			nd = df->node;
		goto out;
	}
	if (*err)
		return NULL;
	if (in[0] != '/' && dfd != AT_FDCWD) {
		df = fd_get(p, dfd);
		if (!df) {
			*err = -EBADF;
			return NULL;
		}
		if (df->kind != LX_NODE || (df->node->mode & S_IFMT) != S_IFDIR) {
			*err = -ENOTDIR;
			goto out;
		}
	}
	if (path_normalise(df ? df->node->path : lxp(p)->cwd, in, path) < 0)
		*err = -ENAMETOOLONG;
	else
		nd = lookup(self_exe(path) ? lxp(p)->exe : path, follow, err);
out:
	if (df)
		fd_put(df);
	return nd;
}

/* ---- the console ---- */

/* Out goes p's line so far.  Its console lock held, or no thread of p left. */
void console_flush(struct proc *p)
{
	struct lx_proc *lp = lxp(p);

	if (!lp->line_len)
		return;
	lp->line[lp->line_len] = 0;
	/* A program's own figures go out as they are, for mkbook to read. */
	if (vostd_has_prefix(lp->line, EV_FIG_WORD " "))
		vostd_println("%s", lp->line);
	else
		vostd_println("[pid %ld] %s", p->pid, lp->line);
	lp->line_len = 0;
}

/* Bytes to the log, a line at a time, nothing unprintable. */
static void console_write(struct proc *p, const char *b, unsigned long n)
{
	struct lx_proc *lp = lxp(p);

	kl_guard_begin();
	vostd_spin_lock(&lp->con_lock);
	while (n--) {
		char c = *b++;

		if (c == '\n') {
			if (!lp->line_len)
				lp->line[lp->line_len++] = ' ';
			console_flush(p);
			continue;
		}
		if (c == '\t')
			c = ' ';
		if (c < 0x20 || c > 0x7e)
			c = '?';
		lp->line[lp->line_len++] = c;
		if (lp->line_len >= sizeof(lp->line) - 1)
			console_flush(p);
	}
	vostd_spin_unlock(&lp->con_lock);
	kl_guard_end();
}

/* ---- the calls ---- */

static long file_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	unsigned long pos, n;

	if ((f->flags & O_ACCMODE) == 1)
		return -EBADF;
	if (!len)
		return 0;
	switch (f->kind) {
	case LX_CONSOLE:
	case LX_NULL:
		return 0;		/* stdin is empty */
	case LX_PIPE_R:
		return off >= 0 ? -ESPIPE : pipe_read(t->p, f->pipe, buf, len);
	case LX_PIPE_W:
		return -EBADF;
	case LX_NODE:
		break;
	}
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

/* read and pread64 (off >= 0): f is held across a pipe's sleep. */
long sys_read(struct thread *t, long fd, unsigned long buf, unsigned long len, long off)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = file_read(t, f, buf, len, off);
	fd_put(f);
	return r;
}

static long file_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len)
{
	char chunk[LX_CHUNK];
	unsigned long done = 0;

	if (!(f->flags & O_ACCMODE))
		return -EBADF;
	switch (f->kind) {
	case LX_NULL:
		return len;
	case LX_PIPE_W:
		return pipe_write(t->p, f->pipe, buf, len);
	case LX_CONSOLE:
		break;
	default:
		return -EBADF;
	}
	while (done < len) {
		unsigned long n = min_t(unsigned long, len - done, LX_CHUNK);

		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_READ))
			return done ?: -EFAULT;
		console_write(t->p, chunk, n);
		done += n;
	}
	return done;
}

long sys_write(struct thread *t, long fd, unsigned long buf, unsigned long len)
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
long sys_writev(struct thread *t, long fd, unsigned long iov, unsigned long n)
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

long sys_openat(struct thread *t, long dfd, unsigned long upath, long flags)
{
	const struct lx_node *nd;
	struct lx_file *f;
	long err, fd;

	nd = lookup_at(t->p, dfd, upath, !(flags & O_NOFOLLOW), false, &err);
	if (!nd)
		return err == -ENOENT && (flags & O_CREAT) ? -EROFS : err;
	if ((nd->mode & S_IFMT) == S_IFLNK)
		return -ELOOP;
	if ((flags & O_DIRECTORY) && (nd->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	if ((nd->mode & S_IFMT) == S_IFCHR) {
		f = file_new(LX_NULL);
	} else {
		if ((flags & O_ACCMODE) || (flags & O_TRUNC))
			return (nd->mode & S_IFMT) == S_IFDIR ? -EISDIR : -EROFS;
		f = file_new(LX_NODE);
	}
	if (!f)
		return -ENOMEM;
	f->node = nd;
	f->flags = flags;
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* Linux's struct stat on x86-64. */
struct lx_stat {
	u64 dev, ino, nlink;
	u32 mode, uid, gid, pad0;
	u64 rdev;
	s64 size, blksize, blocks;
	u64 atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	s64 unused[3];
};

static long stat_out(struct thread *t, unsigned long ust, u32 mode, const struct lx_node *nd,
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

static long stat_file(struct thread *t, struct lx_file *f, unsigned long ust)
{
	switch (f->kind) {
	case LX_NODE:
	case LX_NULL:
		if (f->node)
			return stat_out(t, ust, f->node->mode, f->node, f->node->ino);
		return stat_out(t, ust, S_IFCHR | 0666, NULL, 2);
	case LX_CONSOLE:
		return stat_out(t, ust, S_IFCHR | 0620, NULL, 3);
	default:
		return stat_out(t, ust, S_IFIFO | 0600, NULL, 4);
	}
}

long sys_fstat(struct thread *t, long fd, unsigned long ust)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = stat_file(t, f, ust);
	fd_put(f);
	return r;
}

long sys_fstatat(struct thread *t, long dfd, unsigned long upath, unsigned long ust, long flags)
{
	const struct lx_node *nd;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	nd = lookup_at(t->p, dfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), flags & AT_EMPTY_PATH,
		       &err);
	/* An empty path names dfd itself, which may be no node: a pipe, the console. */
	if (!nd && err == -ENOTDIR && (flags & AT_EMPTY_PATH))
		return sys_fstat(t, dfd, ust);
	if (!nd)
		return err;
	return stat_out(t, ust, nd->mode, nd, nd->ino);
}

static long file_lseek(struct lx_file *f, long off, long whence)
{
	long base;

	if (f->kind == LX_PIPE_R || f->kind == LX_PIPE_W || f->kind == LX_CONSOLE)
		return -ESPIPE;
	if (f->kind != LX_NODE)
		return 0;
	switch (whence) {
	case 0:
		base = 0;
		break;
	case 1:
		base = READ_ONCE(f->pos);
		break;
	case 2:
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

long sys_lseek(struct thread *t, long fd, long off, long whence)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = file_lseek(f, off, whence);
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
static long file_getdents64(struct thread *t, struct lx_file *f, unsigned long ubuf,
			    unsigned long len)
{
	struct lx_globals *g = lx();
	unsigned long out = 0, idx = 0, i;
	char rec[LX_PATH_MAX + 24];

	if (f->kind != LX_NODE || (f->node->mode & S_IFMT) != S_IFDIR)
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

long sys_getdents64(struct thread *t, long fd, unsigned long ubuf, unsigned long len)
{
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	r = file_getdents64(t, f, ubuf, len);
	fd_put(f);
	return r;
}

long sys_readlinkat(struct thread *t, long dfd, unsigned long upath, unsigned long ubuf,
		    unsigned long len)
{
	const struct lx_node *nd;
	long err;

	char path[LX_PATH_MAX];

	if ((long)len <= 0)
		return -EINVAL;
	if (!fs_path(t->p, upath, path) && self_exe(path)) {
		const char *exe = lxp(t->p)->exe;

		len = min_t(unsigned long, len, str_len(exe));
		return mem_user_copy(t->p, ubuf, (void *)exe, len, MEM_WRITE) ?: (long)len;
	}
	nd = lookup_at(t->p, dfd, upath, false, false, &err);
	if (!nd)
		return err;
	if ((nd->mode & S_IFMT) != S_IFLNK)
		return -EINVAL;
	len = min(len, nd->size);
	return mem_user_copy(t->p, ubuf, (void *)nd->data, len, MEM_WRITE) ?: (long)len;
}

long sys_faccessat(struct thread *t, long dfd, unsigned long upath)
{
	long err;

	return lookup_at(t->p, dfd, upath, true, false, &err) ? 0 : err;
}

/* No descriptor is a terminal: TCGETS and the rest get -ENOTTY, as for a file. */
long sys_ioctl(struct thread *t, long fd, unsigned long cmd, unsigned long arg)
{
	struct lx_file *f = fd_get(t->p, fd);

	if (!f)
		return -EBADF;
	fd_put(f);
	return -ENOTTY;
}

long sys_chdir(struct thread *t, unsigned long upath)
{
	char path[LX_PATH_MAX];
	const struct lx_node *nd;
	long err = fs_path(t->p, upath, path);

	if (err)
		return err;
	nd = lookup(path, true, &err);
	if (!nd)
		return err;
	if ((nd->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	vostd_memcpy(lxp(t->p)->cwd, nd->path, nd->path_len);
	lxp(t->p)->cwd[nd->path_len] = 0;
	return 0;
}

long sys_getcwd(struct thread *t, unsigned long ubuf, unsigned long len)
{
	const char *cwd = lxp(t->p)->cwd;
	unsigned long n = str_len(cwd) + 1;

	if (len < n)
		return -ERANGE;
	return mem_user_copy(t->p, ubuf, (void *)cwd, n, MEM_WRITE) ?: (long)n;
}
