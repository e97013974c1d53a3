// SPDX-License-Identifier: GPL-2.0
/*
 * The file system: a tree of nodes in the sandbox's memory, as Linux's
 * tmpfs keeps one, whose first contents are the cpio image (image.c).
 * A directory holds a list of entries, each a name and a reference to the
 * node it names; a file's contents are the image's bytes until its first
 * change, then a frame a page.  Paths are namei.c's; the calls are
 * sys_fs.c's, sys_namei.c's and sys_stat.c's.
 *
 * One lock, fs_lock, covers the tree and every node's fields but its
 * count, and is held across a whole read or write of a file, so that a
 * call sees a file as it was before or after another's, as Linux's
 * i_rwsem gives: a copy to or from the tenant never sleeps here (proc's
 * memory is all mapped), and takes the process's lock inside this one.
 * Nothing that takes fs_lock is called with a process's lock held.
 *
 * The sandbox's bounds: LX_FS_NODES nodes, LX_FS_FRAMES frames in files
 * (-ENOSPC past either, as a full tmpfs answers) and LX_FILE_MAX bytes a
 * file (-EFBIG).
 */
#include <linux/stat.h>

#include "linux.h"

/* A file's bytes past its end read as zero: a hole, or past the end. */
const char lx_zero_page[PAGE] __aligned(PAGE);

void fs_lock(void)
{
	kl_spin_lock(&lx()->fs_spin);
}

void fs_unlock(void)
{
	kl_spin_unlock(&lx()->fs_spin);
}

unsigned int fs_strlen(const char *s)
{
	unsigned int n = 0;

	while (s[n])
		n++;
	return n;
}

/* Another reference: the caller holds one, or fs_lock with nd in the tree. */
void node_get(struct lx_node *nd)
{
	__atomic_add_fetch(&nd->refs, 1, __ATOMIC_RELAXED);
}

static void pages_free(struct frame **pages, unsigned long n)
{
	unsigned long i, held = 0;

	for (i = 0; i < n; i++)
		if (pages[i]) {
			frame_put(pages[i]);
			held++;
		}
	__atomic_sub_fetch(&lx()->fs_frames, held, __ATOMIC_RELAXED);
	vostd_free(pages);
}

/*
 * Drop a reference, never under fs_lock: the last frees the node, and its
 * reference to its parent with it.  A node with no references is in no
 * directory (each entry holds one), so nothing can find it meanwhile.
 */
void node_put(struct lx_node *nd)
{
	while (nd && !__atomic_sub_fetch(&nd->refs, 1, __ATOMIC_ACQ_REL)) {
		struct lx_node *parent = nd->parent != nd ? nd->parent : NULL;

		if (nd->pages)
			pages_free(nd->pages, nd->npages);
		if (nd->data_owned)
			vostd_free((void *)nd->data);
		__atomic_sub_fetch(&lx()->fs_nodes, 1, __ATOMIC_RELAXED);
		vostd_free(nd);
		nd = parent;
	}
}

/* A new node, in no directory yet, with one reference for the caller. */
struct lx_node *fs_node_new(u32 mode)
{
	struct lx_globals *g = lx();
	struct lx_node *nd;

	if (__atomic_add_fetch(&g->fs_nodes, 1, __ATOMIC_RELAXED) > LX_FS_NODES) {
		__atomic_sub_fetch(&g->fs_nodes, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	nd = vostd_alloc(sizeof(*nd), true);
	if (!nd) {
		__atomic_sub_fetch(&g->fs_nodes, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	nd->refs = 1;
	nd->mode = mode;
	nd->atime = lx_now_ns();
	nd->mtime = nd->atime;
	nd->ctime = nd->atime;
	fs_lock();
	nd->ino = ++g->next_ino;
	fs_unlock();
	return nd;
}

/* A change to nd: its ctime, and its mtime too if its contents changed. */
void fs_touch_locked(struct lx_node *nd, bool modified)
{
	u64 now = lx_now_ns();

	nd->ctime = now;
	if (modified)
		nd->mtime = now;
}

static bool same_name(const struct lx_dirent *e, const char *name, unsigned int len)
{
	unsigned int i;

	if (e->len != len)
		return false;
	for (i = 0; i < len; i++)
		if (e->name[i] != name[i])
			return false;
	return true;
}

struct lx_dirent *fs_find_locked(struct lx_node *dir, const char *name, unsigned int len)
{
	struct lx_dirent *e;

	for (e = dir->ents; e; e = e->next)
		if (same_name(e, name, len))
			return e;
	return NULL;
}

/*
 * An entry in dir comes (by 1) or goes (by -1) for nd: its links, and for
 * a directory its own "." and dir's "..", as Linux's tmpfs counts them.
 */
static void count_entry_locked(struct lx_node *dir, struct lx_node *nd, int by)
{
	nd->nlink += by;
	if (S_ISDIR(nd->mode)) {
		nd->nlink += by;
		dir->nlink += by;
	}
}

/*
 * A new entry name in dir for nd, which gains a reference, and dir as its
 * parent if it had none (fs_reparent_locked moves one).  The caller has
 * found no entry of that name.  The entry is allocated under the lock:
 * the heap never sleeps.
 */
long fs_link_locked(struct lx_node *dir, const char *name, unsigned int len,
		    struct lx_node *nd)
{
	struct lx_dirent *e = vostd_alloc(sizeof(*e) + len + 1, false), **tail;

	if (!e)
		return -ENOSPC;
	e->next = NULL;
	e->node = nd;
	e->cookie = ++dir->next_cookie + 2;	/* 1 and 2 are "." and ".." */
	e->len = len;
	vostd_memcpy(e->name, name, len);
	e->name[len] = 0;
	for (tail = &dir->ents; *tail; tail = &(*tail)->next)
		;
	*tail = e;
	node_get(nd);
	count_entry_locked(dir, nd, 1);
	/* A new node's parent, which getcwd and /proc/self/exe name it by. */
	if (!nd->parent) {
		node_get(dir);
		nd->parent = dir;
	}
	fs_touch_locked(nd, false);
	return 0;
}

/*
 * e in dir names nd instead of the node it named, whose reference comes
 * back for the caller to put after the lock (a rename over it).
 */
struct lx_node *fs_replace_locked(struct lx_node *dir, struct lx_dirent *e, struct lx_node *nd)
{
	struct lx_node *old = e->node;

	count_entry_locked(dir, old, -1);
	fs_touch_locked(old, false);
	node_get(nd);
	e->node = nd;
	count_entry_locked(dir, nd, 1);
	fs_touch_locked(dir, true);
	return old;
}

/*
 * nd, just linked in dir by a rename, names dir as its parent now.  The
 * old parent's reference is the caller's to put, after the lock.
 */
struct lx_node *fs_reparent_locked(struct lx_node *nd, struct lx_node *dir)
{
	struct lx_node *old = nd->parent;

	if (old == dir)
		return NULL;
	node_get(dir);
	nd->parent = dir;
	return old;
}

/*
 * Take e out of dir.  Its reference to the node is the caller's to put,
 * after the lock: the caller reads e->node, then frees e.
 */
void fs_unlink_locked(struct lx_node *dir, struct lx_dirent *e)
{
	struct lx_dirent **pp;

	for (pp = &dir->ents; *pp != e; pp = &(*pp)->next)
		;
	*pp = e->next;
	count_entry_locked(dir, e->node, -1);
	fs_touch_locked(e->node, false);
	fs_touch_locked(dir, true);
}

/*
 * The image's bytes of nd become frames of its own, before its first
 * change.  -ENOSPC past the sandbox's frames for files.
 */
static long node_own(struct lx_node *nd)
{
	unsigned long count, i;
	struct frame **pages;
	long err = 0;

	if (!READ_ONCE(nd->data) || !S_ISREG(nd->mode))
		return 0;
	count = (nd->size + PAGE_MASK_LOW) / PAGE;	/* an image file's size never changes */
	pages = vostd_alloc(max(count, 1UL) * sizeof(*pages), true);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		unsigned long n = min(PAGE, nd->size - i * PAGE);

		pages[i] = frame_new();
		if (!pages[i])
			break;
		vostd_memcpy(pages[i]->mem, nd->data + i * PAGE, n);
		vostd_memset((char *)pages[i]->mem + n, 0, PAGE - n);
	}
	__atomic_add_fetch(&lx()->fs_frames, i, __ATOMIC_RELAXED);	/* pages_free's to undo */
	if (i < count) {
		pages_free(pages, count);
		return -ENOMEM;
	}
	fs_lock();
	if (!nd->data) {
		err = 1;		/* another call did it first */
	} else if (lx()->fs_frames > LX_FS_FRAMES) {
		err = -ENOSPC;
	} else {
		nd->pages = pages;
		nd->npages = count;
		nd->data = NULL;
	}
	fs_unlock();
	if (err)
		pages_free(pages, count);
	return err < 0 ? err : 0;
}

/*
 * Make nd's page table hold index idx, under the lock; the new table is
 * allocated under it too (the heap never sleeps).
 */
static long pages_grow_locked(struct lx_node *nd, unsigned long idx)
{
	unsigned long n = max3(idx + 1, nd->npages * 2, 16UL);
	struct frame **pages;

	if (idx < nd->npages)
		return 0;
	n = min(n, LX_FILE_MAX / PAGE);
	pages = vostd_alloc(n * sizeof(*pages), true);
	if (!pages)
		return -ENOMEM;
	if (nd->npages)
		vostd_memcpy(pages, nd->pages, nd->npages * sizeof(*pages));
	vostd_free(nd->pages);
	nd->pages = pages;
	nd->npages = n;
	return 0;
}

/*
 * nd's frame for page idx, a zeroed one made for a hole: -ENOSPC past the
 * sandbox's frames for files.  Under fs_lock, nd owning its pages.
 */
static long node_page_locked(struct lx_node *nd, unsigned long idx, struct frame **out)
{
	struct lx_globals *g = lx();
	long err = pages_grow_locked(nd, idx);
	struct frame *f;

	if (err)
		return err;
	f = nd->pages[idx];
	if (!f) {
		if (g->fs_frames >= LX_FS_FRAMES)
			return -ENOSPC;
		f = frame_new();
		if (!f)
			return -ENOMEM;
		vostd_memset(f->mem, 0, PAGE);
		nd->pages[idx] = f;
		__atomic_add_fetch(&g->fs_frames, 1, __ATOMIC_RELAXED);
	}
	*out = f;
	return 0;
}

/*
 * Copy len bytes of nd from off out, to the tenant's va, or to kbuf if
 * it is not NULL: what there is before the end.  The count, or -EFAULT if
 * nothing was copied.
 */
long fs_read(struct proc *p, struct lx_node *nd, unsigned long off, unsigned long len,
	     unsigned long va, void *kbuf)
{
	unsigned long done = 0;
	long err = 0;

	fs_lock();
	len = min(len, nd->size - min(off, nd->size));	/* nothing past the end */
	while (done < len && !err) {
		unsigned long pos = off + done, o = pos & PAGE_MASK_LOW;
		unsigned long n = min(len - done, PAGE - o), idx = pos / PAGE;
		const char *src;

		if (nd->data)
			src = nd->data + pos;
		else if (idx < nd->npages && nd->pages[idx])
			src = (const char *)nd->pages[idx]->mem + o;
		else
			src = lx_zero_page + o;
		if (kbuf)
			vostd_memcpy((char *)kbuf + done, src, n);
		else
			err = mem_user_copy(p, va + done, (void *)src, n, MEM_WRITE);
		if (!err)
			done += n;
	}
	fs_unlock();
	return lx_done_or(done, err);
}

/*
 * Write len bytes from the tenant's va into nd at *pos, or at its end if
 * append, and move *pos past them.  A page not there yet is a fresh
 * zeroed frame.  The count; or -EFAULT, -ENOSPC or -EFBIG if nothing was
 * written.
 */
long fs_write(struct proc *p, struct lx_node *nd, unsigned long *pos, unsigned long va,
	      unsigned long len, bool append)
{
	unsigned long done = 0, at;
	long err = node_own(nd);

	if (err)
		return err;
	fs_lock();
	at = append ? nd->size : *pos;
	if (at >= LX_FILE_MAX && len)
		err = -EFBIG;
	len = min(len, LX_FILE_MAX - min(at, LX_FILE_MAX));
	while (done < len && !err) {
		unsigned long o = (at + done) & PAGE_MASK_LOW, idx = (at + done) / PAGE;
		unsigned long n = min(len - done, PAGE - o);
		struct frame *f;

		err = node_page_locked(nd, idx, &f);
		if (err)
			break;
		err = mem_user_copy(p, va + done, (char *)f->mem + o, n, MEM_READ);
		if (!err)
			done += n;
	}
	if (done) {
		nd->size = max(nd->size, at + done);
		fs_touch_locked(nd, true);
	}
	*pos = at + done;
	fs_unlock();
	return lx_done_or(done, err);
}

/*
 * nd's size becomes size: pages past it go, and the rest of the last
 * page is zeroed, so that growing again shows zeros, as Linux's
 * truncate_setsize leaves it.  -EFBIG past LX_FILE_MAX.
 */
long fs_truncate(struct lx_node *nd, unsigned long size)
{
	struct frame *gone[16];
	unsigned long keep = (size + PAGE_MASK_LOW) / PAGE, n;
	long err;

	if (size > LX_FILE_MAX)
		return -EFBIG;
	err = node_own(nd);
	if (err)
		return err;
	do {
		n = 0;
		fs_lock();
		while (nd->npages > keep && n < ARRAY_SIZE(gone)) {
			struct frame **slot = &nd->pages[nd->npages - 1];

			if (*slot)
				gone[n++] = *slot;
			*slot = NULL;
			/* The table shrinks with the pages it held: a hole needs none. */
			nd->npages--;
		}
		if (nd->npages <= keep) {
			unsigned long o = size & PAGE_MASK_LOW;

			if (o && keep <= nd->npages && nd->pages[keep - 1])
				vostd_memset((char *)nd->pages[keep - 1]->mem + o, 0, PAGE - o);
			if (nd->size != size) {
				nd->size = size;
				fs_touch_locked(nd, true);
			}
		}
		fs_unlock();
		if (n) {
			__atomic_sub_fetch(&lx()->fs_frames, n, __ATOMIC_RELAXED);
			while (n)
				frame_put(gone[--n]);
			n = 1;
		}
	} while (n);
	return 0;
}

/*
 * len bytes of nd from off into np at va, whatever the protection there
 * (the loader's poke, and mmap's copy of a file): a page at a time
 * through a frame of the kernel's, since fs_read copies only into what
 * the tenant may write.  The bytes copied, fewer if the file ends first,
 * or -errno.
 */
long fs_copy_in(struct proc *np, struct lx_node *nd, unsigned long va, unsigned long off,
		unsigned long len)
{
	void *buf = vostd_alloc(PAGE, false);
	unsigned long done = 0;
	long err = buf ? 0 : -ENOMEM, n = PAGE;

	while (!err && done < len && n == PAGE) {
		n = fs_read(NULL, nd, off + done, min(len - done, PAGE), 0, buf);
		if (n > 0)
			err = mem_user_copy(np, va + done, buf, n, MEM_POKE);
		else
			err = n;
		done += n > 0 ? n : 0;
	}
	vostd_free(buf);
	return err ?: (long)done;
}

/*
 * Map n pages of nd from page first at va in np, copy-on-write, as Linux
 * maps a file from its page cache: the frames are the file's own, so a
 * later write to the file shows in a page not yet written by the process
 * (a private mapping's behaviour in Linux too).  -ENOMEM if a page is a
 * hole or past the end; the caller copies then.
 */
long fs_map_pages(struct lx_node *nd, struct proc *np, unsigned long va, unsigned long first,
		  unsigned long n, u8 prot)
{
	unsigned long i;
	long err = node_own(nd);

	if (err)
		return err;
	fs_lock();
	for (i = 0; i < n; i++)
		if (first + i >= nd->npages || !nd->pages[first + i] ||
		    (first + i) * PAGE >= nd->size)
			err = -ENOMEM;
	if (!err)
		err = mem_map_frames(np, va, nd->pages + first, n, prot);
	fs_unlock();
	return err;
}

/* The last shared map of nd has gone: its object no longer the file's. */
static void node_shared_gone(void *owner, struct mem_shared *shm)
{
	struct lx_node *nd = owner;

	__atomic_compare_exchange_n(&nd->shm, &shm, NULL, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	node_put(nd);
}

/*
 * The object every shared map of nd maps, as Linux maps a file's page
 * cache into each: its pages [first, first + n) that are in the file are
 * the file's own frames (a hole made a zeroed one), so that a store
 * through a map is in the file and a write(2) shows in every map.  One
 * object per file while any map of it lives, so that futexes in it meet
 * across processes; it holds the node.  A reference in *out, or -errno.
 * A truncate drops the file's frames but not a map's, which then keeps
 * what it had where Linux would raise SIGBUS; and a page past the end
 * when it was mapped is the map's alone.
 */
long fs_shared(struct lx_node *nd, unsigned long first, unsigned long n, struct mem_shared **out)
{
	struct mem_shared *fresh = shm_new(), *shm;
	unsigned long i, end;
	long err = fresh ? node_own(nd) : -ENOMEM;

	if (err) {
		shm_put(fresh);
		return err;
	}
	fs_lock();
	shm = READ_ONCE(nd->shm);
	if (shm && !shm_get_unless_zero(shm))
		shm = NULL;		/* going: its release clears it */
	if (!shm) {
		shm = fresh;
		fresh = NULL;
		shm->owner = nd;
		shm->release = node_shared_gone;
		node_get(nd);
		WRITE_ONCE(nd->shm, shm);
	}
	end = min(first + n, (nd->size + PAGE_MASK_LOW) / PAGE);
	for (i = first; !err && i < end; i++) {
		struct frame *f;

		err = node_page_locked(nd, i, &f) ?: shm_install(shm, i, f);
	}
	fs_unlock();
	shm_put(fresh);
	if (err) {
		shm_put(shm);
		return err;
	}
	*out = shm;
	return 0;
}

/*
 * nd's path from the root into buf, by the names its parents give it:
 * -ENOENT if it is in no directory (removed), -ENAMETOOLONG past size.
 */
long fs_node_path(struct proc *p, struct lx_node *nd, char *buf, unsigned int size)
{
	unsigned int at = size - 1, depth = 0;
	struct lx_node *root;
	long err = 0;

	buf[at] = 0;
	fs_lock();
	root = lxp(p)->root;
	while (nd->parent != nd && nd != root && !err) {
		struct lx_dirent *e;

		for (e = nd->parent->ents; e && e->node != nd; e = e->next)
			;
		if (!e || ++depth > LX_FS_NODES) {
			err = -ENOENT;
		} else if ((unsigned int)e->len + 1 > at) {
			err = -ENAMETOOLONG;
		} else {
			at -= e->len;
			vostd_memcpy(buf + at, e->name, e->len);
			buf[--at] = '/';
			nd = nd->parent;
		}
	}
	fs_unlock();
	if (err)
		return err;
	if (at == size - 1)
		buf[--at] = '/';
	for (depth = 0; at + depth < size; depth++)	/* down to buf, forwards */
		buf[depth] = buf[at + depth];
	return 0;
}

/*
 * Take the whole tree down at the sandbox's end, deepest entries first,
 * without recursion.  Every process is gone, so nothing else holds a node.
 */
void fs_node_free_all(struct lx_node *root)
{
	struct lx_node *dir = root;

	while (dir) {
		struct lx_dirent *e = dir->ents;

		if (!e) {
			dir = dir == root ? NULL : dir->parent;
			continue;
		}
		if (S_ISDIR(e->node->mode) && e->node->ents) {
			dir = e->node;
			continue;
		}
		fs_lock();
		fs_unlink_locked(dir, e);
		fs_unlock();
		node_put(e->node);
		vostd_free(e);
	}
	node_put(root);
}
