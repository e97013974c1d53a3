// SPDX-License-Identifier: GPL-2.0
/*
 * The file system: a read-only one from the cpio image the guest pipeline
 * built from prototype/rootfs/ (and Debian's busybox), and its paths.  The
 * calls on files are sys_fs.c's and sys_stat.c's; the console is
 * console.c's, pipes pipe.c's and descriptors fdtable.c's.
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

unsigned int fs_strlen(const char *s)
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
					unsigned int len = fs_strlen(name);
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
const struct lx_node *fs_lookup_path(const char *path, bool follow, long *err)
{
	char buf[LX_PATH_MAX], dir[LX_PATH_MAX], target[LX_PATH_MAX];
	const struct lx_node *nd;
	unsigned int hops, len;

	len = fs_strlen(path);
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
		len = fs_strlen(buf);
	}
	*err = -ELOOP;
	return NULL;
}

/* /proc/self/exe is the only file of /proc: the program the process runs. */
bool fs_self_exe(const char *path)
{
	return vostd_has_prefix(path, "/proc/self/exe") && !path[14];
}

const struct lx_node *fs_lookup(struct proc *p, const char *path)
{
	long err;

	return fs_lookup_path(fs_self_exe(path) ? lxp(p)->exe : path, true, &err);
}

/*
 * The path of dfd joined with a tenant's path, looked up.  dfd's file is
 * held only for the lookup: what it yields is a node, and a node lives as
 * long as the sandbox.
 */
const struct lx_node *fs_lookup_at(struct proc *p, long dfd, unsigned long upath,
				   bool follow, bool empty_ok, long *err)
{
	char in[LX_PATH_MAX], path[LX_PATH_MAX];
	const struct lx_node *nd = NULL;
	struct lx_file *df = NULL;

	*err = path_copy_in(p, upath, in);
	if (*err == -ENOENT && empty_ok) {
		df = fd_get(p, dfd);
		if (!df || df->ops != &lx_node_fops)
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
		if (df->ops != &lx_node_fops || (df->node->mode & S_IFMT) != S_IFDIR) {
			*err = -ENOTDIR;
			goto out;
		}
	}
	if (path_normalise(df ? df->node->path : lxp(p)->cwd, in, path) < 0)
		*err = -ENAMETOOLONG;
	else
		nd = fs_lookup_path(fs_self_exe(path) ? lxp(p)->exe : path, follow, err);
out:
	if (df)
		fd_put(df);
	return nd;
}
