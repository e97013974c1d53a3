// SPDX-License-Identifier: GPL-2.0
/*
 * Files: a read-only file system from the cpio image the guest pipeline
 * built from prototype/rootfs/ (and Debian's busybox), pipes, the console
 * (stdout and stderr to the sandbox's log, a line at a time; stdin empty),
 * and each process's table of file descriptors.
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
			if (off > (unsigned long)(end - at) || size > (unsigned long)(end - at) - off)
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

/* The path of dfd joined with a tenant's path, looked up. */
static const struct lx_node *lookup_at(struct proc *p, long dfd, unsigned long upath,
				       bool follow, bool empty_ok, long *err)
{
	char in[LX_PATH_MAX], path[LX_PATH_MAX];
	const char *base = lxp(p)->cwd;
	struct lx_file *df = NULL;

	*err = path_copy_in(p, upath, in);
	if (*err == -ENOENT && empty_ok) {
		df = fd_get(p, dfd);
		if (!df || df->kind != LX_NODE) {
			*err = df ? -ENOTDIR : -EBADF;
			return NULL;
		}
		return df->node;
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
			return NULL;
		}
		base = df->node->path;
	}
	if (path_normalise(base, in, path) < 0) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	return lookup(self_exe(path) ? lxp(p)->exe : path, follow, err);
}

/* ---- files and descriptors ---- */

struct lx_file *file_new(enum lx_file_kind kind)
{
	struct lx_file *f = vostd_alloc(sizeof(*f), true);

	if (f) {
		f->refs = 1;
		f->kind = kind;
	}
	return f;
}

void file_get(struct lx_file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

static void pipe_lock(struct lx_pipe *pp)
{
	kl_guard_begin();
	vostd_spin_lock(&pp->lock);
}

static void pipe_unlock(struct lx_pipe *pp)
{
	vostd_spin_unlock(&pp->lock);
	kl_guard_end();
}

/*
 * Wake every task queued on *q, under the pipe's lock: each looks again at
 * the pipe when it runs.  The guard holds their switches until the unlock.
 */
static void pipe_wake_all(struct lx_waiter **q)
{
	struct lx_waiter *w;

	for (w = *q; w; w = w->next) {
		w->queued = false;
		kl_wake(w->tid);
	}
	*q = NULL;
}

void file_put(struct lx_file *f)
{
	struct lx_pipe *pp = f->pipe;

	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (pp) {
		bool gone;

		pipe_lock(pp);
		if (f->kind == LX_PIPE_R)
			pp->readers--;
		else
			pp->writers--;
		/* Every task blocked on the other end sees the end of the pipe now. */
		pipe_wake_all(f->kind == LX_PIPE_R ? &pp->writing : &pp->reading);
		gone = !pp->readers && !pp->writers;
		pipe_unlock(pp);
		if (gone)
			vostd_free(pp);
	}
	vostd_free(f);
}

/* The lowest free descriptor from from on gets f (the caller's reference). */
long fd_install(struct proc *p, struct lx_file *f, int from, bool cloexec)
{
	struct lx_proc *lp = lxp(p);
	int i;

	for (i = from; i < LX_FDS; i++)
		if (!lp->fd[i]) {
			lp->fd[i] = f;
			if (cloexec)
				lp->cloexec |= 1ULL << i;
			else
				lp->cloexec &= ~(1ULL << i);
			return i;
		}
	return -EMFILE;
}

struct lx_file *fd_get(struct proc *p, long fd)
{
	return fd >= 0 && fd < LX_FDS ? lxp(p)->fd[fd] : NULL;
}

static void fd_close(struct lx_proc *lp, int fd)
{
	struct lx_file *f = lp->fd[fd];

	lp->fd[fd] = NULL;
	lp->cloexec &= ~(1ULL << fd);
	if (f)
		file_put(f);
}

/* A process's Linux state: its parent's copy, or the first's (the console on 0, 1, 2). */
long lx_proc_init(struct proc *p, struct proc *parent)
{
	struct lx_proc *lp = vostd_alloc(sizeof(*lp), true);
	int i;

	if (!lp)
		return -ENOMEM;
	if (parent) {
		*lp = *lxp(parent);
		lp->line_len = 0;
		/* Only the calling thread is copied, and it is not asleep. */
		for (i = 0; i < LX_THREADS_MAX; i++)
			lp->sleeping[i] = 0;
		for (i = 0; i < LX_FDS; i++)
			if (lp->fd[i])
				file_get(lp->fd[i]);
	} else {
		struct lx_file *con = file_new(LX_CONSOLE);

		if (!con) {
			vostd_free(lp);
			return -ENOMEM;
		}
		con->flags = 2;		/* O_RDWR */
		con->refs = 3;
		lp->fd[0] = lp->fd[1] = lp->fd[2] = con;
		lp->cwd[0] = '/';
		lp->umask = 022;
		lp->pgid = p->pid;
	}
	p->os = lp;
	return 0;
}

void lx_close_on_exec(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	int i;

	for (i = 0; i < LX_FDS; i++)
		if (lp->cloexec & (1ULL << i))
			fd_close(lp, i);
}

/* proc's exit hook: the last thread has left; its files go. */
void lx_proc_exit(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	int i;

	if (!lp)
		return;
	console_flush(p);
	for (i = 0; i < LX_FDS; i++)
		fd_close(lp, i);
	p->os = NULL;
	p->name = "linux";
	vostd_free(lp);
}

/* ---- the console ---- */

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
}

/* ---- pipes ---- */

#define CHUNK	256

/*
 * Wait on queue q of pp, whose lock the caller holds, for the other end or
 * for a kill (which wakes the thread through lx_sleeping's slot); return
 * with the lock held again and off the queue.
 */
static void pipe_block(struct proc *p, struct lx_pipe *pp, struct lx_waiter **q)
{
	struct lx_waiter w = { .tid = kl_self(), .next = *q, .queued = true }, **pw;
	int slot;

	*q = &w;
	pipe_unlock(pp);
	slot = lx_sleeping(p);
	if (!READ_ONCE(p->killed))
		kl_block();
	lx_awake(p, slot);
	pipe_lock(pp);
	for (pw = q; w.queued && *pw; pw = &(*pw)->next) {
		if (*pw == &w) {
			*pw = w.next;
			break;
		}
	}
}

static long pipe_read(struct proc *p, struct lx_pipe *pp, unsigned long buf, unsigned long len)
{
	char chunk[CHUNK];
	unsigned int n, i;

	pipe_lock(pp);
	while (!pp->len && pp->writers && !READ_ONCE(p->killed))
		pipe_block(p, pp, &pp->reading);
	n = min_t(unsigned long, min_t(unsigned long, len, pp->len), CHUNK);
	for (i = 0; i < n; i++)
		chunk[i] = pp->buf[(pp->head + i) % sizeof(pp->buf)];
	pp->head = (pp->head + n) % sizeof(pp->buf);
	pp->len -= n;
	if (n)
		pipe_wake_all(&pp->writing);
	pipe_unlock(pp);
	if (n && mem_user_copy(p, buf, chunk, n, MEM_WRITE))
		return -EFAULT;
	return n;
}

static long pipe_write(struct proc *p, struct lx_pipe *pp, unsigned long buf, unsigned long len)
{
	char chunk[CHUNK];
	unsigned long done = 0;

	while (done < len) {
		unsigned int n = min_t(unsigned long, len - done, CHUNK), i, room;

		if (mem_user_copy(p, buf + done, chunk, n, MEM_READ))
			return done ?: -EFAULT;
		pipe_lock(pp);
		while (pp->readers && pp->len == sizeof(pp->buf) && !READ_ONCE(p->killed))
			pipe_block(p, pp, &pp->writing);
		room = sizeof(pp->buf) - pp->len;
		if (!pp->readers || READ_ONCE(p->killed)) {
			pipe_unlock(pp);
			return done ?: -EPIPE;
		}
		n = min(n, room);
		for (i = 0; i < n; i++)
			pp->buf[(pp->head + pp->len + i) % sizeof(pp->buf)] = chunk[i];
		pp->len += n;
		pipe_wake_all(&pp->reading);
		pipe_unlock(pp);
		done += n;
	}
	return done;
}

long sys_pipe2(struct thread *t, unsigned long ufds, long flags)
{
	struct lx_pipe *pp = vostd_alloc(sizeof(*pp), true);
	struct lx_file *r = file_new(LX_PIPE_R), *w = file_new(LX_PIPE_W);
	int fds[2] = { -1, -1 };

	if (flags & ~(O_CLOEXEC | 04000))	/* O_NONBLOCK is taken and ignored */
		flags = -EINVAL;
	if (!pp || !r || !w || flags < 0) {
		vostd_free(pp);
		vostd_free(r);
		vostd_free(w);
		return flags < 0 ? flags : -ENOMEM;
	}
	pp->readers = pp->writers = 1;
	r->pipe = w->pipe = pp;
	w->flags = 1;
	fds[0] = fd_install(t->p, r, 0, flags & O_CLOEXEC);
	if (fds[0] >= 0)
		fds[1] = fd_install(t->p, w, 0, flags & O_CLOEXEC);
	if (fds[1] < 0 || mem_user_copy(t->p, ufds, fds, sizeof(fds), MEM_WRITE)) {
		long err = fds[1] < 0 ? -EMFILE : -EFAULT;

		if (fds[0] >= 0)
			fd_close(lxp(t->p), fds[0]);
		else
			file_put(r);
		if (fds[1] >= 0)
			fd_close(lxp(t->p), fds[1]);
		else
			file_put(w);
		return err;
	}
	return 0;
}

/* ---- the calls ---- */

long sys_read(struct thread *t, long fd, unsigned long buf, unsigned long len, long off)
{
	struct lx_file *f = fd_get(t->p, fd);
	unsigned long pos, n;

	if (!f || (f->flags & O_ACCMODE) == 1)
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
	pos = off >= 0 ? off : f->pos;
	if (pos >= f->node->size)
		return 0;
	n = min(len, f->node->size - pos);
	n = min(n, 1UL << 20);
	if (mem_user_copy(t->p, buf, (void *)(f->node->data + pos), n, MEM_WRITE))
		return -EFAULT;
	if (off < 0)
		f->pos = pos + n;
	return n;
}

long sys_write(struct thread *t, long fd, unsigned long buf, unsigned long len)
{
	struct lx_file *f = fd_get(t->p, fd);
	char chunk[CHUNK];
	unsigned long done = 0;

	if (!f || !(f->flags & O_ACCMODE))
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
		unsigned long n = min_t(unsigned long, len - done, CHUNK);

		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_READ))
			return done ?: -EFAULT;
		console_write(t->p, chunk, n);
		done += n;
	}
	return done;
}

long sys_writev(struct thread *t, long fd, unsigned long iov, unsigned long n)
{
	unsigned long i, total = 0;

	if (n > 1024)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		u64 v[2];
		long r;

		if (mem_user_copy(t->p, iov + i * 16, v, 16, MEM_READ))
			return total ?: -EFAULT;
		if (!v[1])
			continue;
		r = sys_write(t, fd, v[0], v[1]);
		if (r < 0)
			return total ?: r;
		total += r;
		if (r < v[1])
			break;
	}
	return total;
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

long sys_close(struct thread *t, long fd)
{
	if (!fd_get(t->p, fd))
		return -EBADF;
	fd_close(lxp(t->p), fd);
	return 0;
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

	return f ? stat_file(t, f, ust) : -EBADF;
}

long sys_fstatat(struct thread *t, long dfd, unsigned long upath, unsigned long ust, long flags)
{
	const struct lx_node *nd;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	nd = lookup_at(t->p, dfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), flags & AT_EMPTY_PATH,
		       &err);
	if (!nd) {
		struct lx_file *f = err == -ENOTDIR && (flags & AT_EMPTY_PATH) ?
				    fd_get(t->p, dfd) : NULL;

		return f ? stat_file(t, f, ust) : err;
	}
	return stat_out(t, ust, nd->mode, nd, nd->ino);
}

long sys_lseek(struct thread *t, long fd, long off, long whence)
{
	struct lx_file *f = fd_get(t->p, fd);
	long base;

	if (!f)
		return -EBADF;
	if (f->kind == LX_PIPE_R || f->kind == LX_PIPE_W || f->kind == LX_CONSOLE)
		return -ESPIPE;
	if (f->kind != LX_NODE)
		return 0;
	switch (whence) {
	case 0:
		base = 0;
		break;
	case 1:
		base = f->pos;
		break;
	case 2:
		base = f->node->size;
		break;
	default:
		return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->pos = base + off;
	return f->pos;
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
long sys_getdents64(struct thread *t, long fd, unsigned long ubuf, unsigned long len)
{
	struct lx_file *f = fd_get(t->p, fd);
	struct lx_globals *g = lx();
	unsigned long out = 0, idx = 0, i;
	char rec[LX_PATH_MAX + 24];

	if (!f)
		return -EBADF;
	if (f->kind != LX_NODE || (f->node->mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	for (i = 0; i < g->nnodes + 2; i++) {
		const struct lx_node *c = i < 2 ? f->node : &g->nodes[i - 2];
		const char *name = i == 0 ? "." : i == 1 ? ".." : child_name(f->node, c);
		unsigned int nlen, reclen;

		if (!name)
			continue;
		if (idx++ < f->pos)
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
		f->pos = idx;
	}
	return out;
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

long sys_dup3(struct thread *t, long from, long to, long flags, bool dup2)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_file *f = fd_get(t->p, from);

	if (!f)
		return -EBADF;
	if (to < 0 || to >= LX_FDS)
		return -EBADF;
	if (from == to)
		return dup2 ? to : -EINVAL;
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	file_get(f);
	fd_close(lp, to);
	lp->fd[to] = f;
	if (flags & O_CLOEXEC)
		lp->cloexec |= 1ULL << to;
	return to;
}

long sys_fcntl(struct thread *t, long fd, long cmd, unsigned long arg)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_file *f = fd_get(t->p, fd);
	long r;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case 0:		/* F_DUPFD */
	case 1030:	/* F_DUPFD_CLOEXEC */
		if (arg >= LX_FDS)
			return -EINVAL;
		file_get(f);
		r = fd_install(t->p, f, arg, cmd == 1030);
		if (r < 0)
			file_put(f);
		return r;
	case 1:		/* F_GETFD */
		return !!(lp->cloexec & (1ULL << fd));
	case 2:		/* F_SETFD */
		if (arg & 1)
			lp->cloexec |= 1ULL << fd;
		else
			lp->cloexec &= ~(1ULL << fd);
		return 0;
	case 3:		/* F_GETFL */
		return f->flags & ~O_CLOEXEC;
	case 4:		/* F_SETFL: only O_APPEND, O_NONBLOCK and the like, ignored */
		return 0;
	}
	return -EINVAL;
}

/* No descriptor is a terminal: TCGETS and the rest get -ENOTTY, as for a file. */
long sys_ioctl(struct thread *t, long fd, unsigned long cmd, unsigned long arg)
{
	return fd_get(t->p, fd) ? -ENOTTY : -EBADF;
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
