// SPDX-License-Identifier: GPL-2.0
/*
 * A linux process's areas, as Linux's mm keeps its VMAs: the ranges the
 * program was given, sorted and apart, each with what the program may do
 * there.  An area costs nothing until it is touched; its pages (memory.c)
 * come at the first touch, a tenant's fault or a copy of the kernel's, a
 * few around the one touched (FAULT_AROUND), or all at once where that
 * pays: a small map, MAP_POPULATE, the stack's top.  Maps, munmap,
 * mprotect, mremap and madvise split areas and join them again where two
 * neighbours no longer differ.  A shared anonymous area's pages are an
 * object's frames (struct mem_shared), which fork hands to the child as
 * they are rather than copy-on-write.
 *
 * Everything here is under the process's lock; the object's lock nests
 * inside it.  proc's own processes have no areas, and so no faults to fill.
 */
#include "proc.h"

#define VMA_MAX		8192	/* areas a process may have; Linux's max_map_count is 65530 */
#define FAULT_AROUND	64	/* pages a touch next to a page fills, within its area */
#define EAGER_PAGES	16	/* a map this small is filled when made */

/* The index of the first area that ends past va. */
static unsigned int area_index(struct proc *p, unsigned long va)
{
	unsigned int lo = 0, hi = p->nvmas;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (p->vmas[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct vma *area_find(struct proc *p, unsigned long va)
{
	unsigned int i = area_index(p, va);

	return i < p->nvmas && p->vmas[i].start <= va ? &p->vmas[i] : NULL;
}

/* Whether [va, end) meets no area. */
static bool range_free(struct proc *p, unsigned long va, unsigned long end)
{
	unsigned int i = area_index(p, va);

	return i == p->nvmas || p->vmas[i].start >= end;
}

/* Room for n more areas; past VMA_MAX, -ENOMEM as Linux's map count gives. */
static long areas_reserve(struct proc *p, unsigned int n)
{
	struct vma *bigger;
	unsigned int cap;

	if (p->nvmas + n > VMA_MAX)
		return -ENOMEM;
	if (p->nvmas + n <= p->vcap)
		return 0;
	cap = min(max(p->vcap * 2, p->nvmas + n + 8), VMA_MAX);
	bigger = vostd_alloc(cap * sizeof(*bigger), false);
	if (!bigger)
		return -ENOMEM;
	if (p->nvmas)
		vostd_memcpy(bigger, p->vmas, p->nvmas * sizeof(*bigger));
	vostd_free(p->vmas);
	p->vmas = bigger;
	p->vcap = cap;
	return 0;
}

struct mem_shared *shm_new(void)
{
	struct mem_shared *shm = vostd_alloc(sizeof(*shm), true);

	if (shm)
		shm->refs = 1;	/* and its lock, zeroed, is free */
	return shm;
}

/* Another reference, unless the last one has gone (Linux's kref_get_unless_zero). */
bool shm_get_unless_zero(struct mem_shared *shm)
{
	u32 refs = __atomic_load_n(&shm->refs, __ATOMIC_RELAXED);

	do {
		if (!refs)
			return false;
	} while (!__atomic_compare_exchange_n(&shm->refs, &refs, refs + 1, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

void shm_put(struct mem_shared *shm)
{
	unsigned long i;

	if (!shm || __atomic_sub_fetch(&shm->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (shm->release)
		shm->release(shm->owner, shm);
	for (i = 0; i < shm->n; i++)
		if (shm->frames[i])
			frame_put(shm->frames[i]);
	vostd_free(shm->frames);
	vostd_free(shm);
}

/* The object's table holds index idx: under its lock. */
static long shm_grow_locked(struct mem_shared *shm, unsigned long idx)
{
	unsigned long n = min(max3(idx + 1, shm->n * 2, 16UL), SHM_PAGES_MAX);
	struct frame **bigger;

	if (idx < shm->n)
		return 0;
	if (idx >= SHM_PAGES_MAX)
		return -ENOMEM;	/* a page no object has: the fault's OOM */
	bigger = vostd_alloc(n * sizeof(*bigger), true);
	if (!bigger)
		return -ENOMEM;
	if (shm->n)
		vostd_memcpy(bigger, shm->frames, shm->n * sizeof(*bigger));
	vostd_free(shm->frames);
	shm->frames = bigger;
	shm->n = n;
	return 0;
}

/* The object's frame for page idx, made zeroed at its first touch; NULL: no memory. */
static struct frame *shm_frame(struct mem_shared *shm, unsigned long idx)
{
	struct frame *f = NULL;

	vostd_spin_lock(&shm->lock);
	if (!shm_grow_locked(shm, idx)) {
		if (!shm->frames[idx])
			shm->frames[idx] = frame_new();
		f = shm->frames[idx];
	}
	vostd_spin_unlock(&shm->lock);
	return f;
}

/*
 * f, with a reference of the object's, becomes page idx of it in place of
 * what was there: a file's page, which its owner hands every map of it.
 * Areas already holding the old frame keep it until they fault again.
 */
long shm_install(struct mem_shared *shm, unsigned long idx, struct frame *f)
{
	struct frame *old = NULL;
	long err;

	vostd_spin_lock(&shm->lock);
	err = shm_grow_locked(shm, idx);
	if (!err && shm->frames[idx] != f) {
		old = shm->frames[idx];
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
		shm->frames[idx] = f;
	}
	vostd_spin_unlock(&shm->lock);
	if (old)
		frame_put(old);
	return err;
}

/* v, a copy of an area, holds what the area holds. */
static void area_hold(struct vma *v)
{
	if (v->shm)
		__atomic_add_fetch(&v->shm->refs, 1, __ATOMIC_RELAXED);
}

/* Areas [i, j) go, their references with them (their pages are gone). */
static void areas_remove(struct proc *p, unsigned int i, unsigned int j)
{
	unsigned int k;

	for (k = i; k < j; k++)
		shm_put(p->vmas[k].shm);
	if (j < p->nvmas)
		vostd_memmove(&p->vmas[i], &p->vmas[j], (p->nvmas - j) * sizeof(p->vmas[0]));
	p->nvmas -= j - i;
}

/* v goes in at index i, holding its own references (room reserved). */
static void area_insert(struct proc *p, unsigned int i, const struct vma *v)
{
	if (i < p->nvmas)
		vostd_memmove(&p->vmas[i + 1], &p->vmas[i], (p->nvmas - i) * sizeof(*v));
	p->vmas[i] = *v;
	area_hold(&p->vmas[i]);
	p->nvmas++;
}

/* va becomes a boundary: the area across it, if any, is cut in two. */
static long area_split(struct proc *p, unsigned long va)
{
	unsigned int i = area_index(p, va);
	struct vma tail;
	long err;

	if (i == p->nvmas || p->vmas[i].start >= va)
		return 0;
	err = areas_reserve(p, 1);
	if (err)
		return err;
	tail = p->vmas[i];
	tail.pgoff += (va - tail.start) / PAGE;
	tail.start = va;
	p->vmas[i].end = va;
	area_insert(p, i + 1, &tail);
	return 0;
}

/* Two neighbours that could be one area. */
static bool area_joins(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->prot == b->prot && a->flags == b->flags &&
	       a->shm == b->shm && a->ino == b->ino &&
	       (!(a->flags & (VMA_SHARED | VMA_FILE)) ||
		a->pgoff + (a->end - a->start) / PAGE == b->pgoff);
}

/* The areas from the one before va to the one after end join where they can. */
static void areas_merge(struct proc *p, unsigned long va, unsigned long end)
{
	unsigned int i = area_index(p, va);

	i = i ? i - 1 : 0;
	while (i + 1 < p->nvmas && p->vmas[i].start <= end) {
		if (area_joins(&p->vmas[i], &p->vmas[i + 1])) {
			p->vmas[i].end = p->vmas[i + 1].end;
			areas_remove(p, i + 1, i + 2);
		} else {
			i++;
		}
	}
}

/* [va, end) and its areas go: their pages, then the areas, cut to fit. */
static long unmap_locked(struct proc *p, unsigned long va, unsigned long end)
{
	long err = area_split(p, va) ?: area_split(p, end) ?: pages_drop(p, va, end);
	unsigned int i, j;

	if (err)
		return err;
	i = area_index(p, va);
	for (j = i; j < p->nvmas && p->vmas[j].start < end; j++)
		;
	areas_remove(p, i, j);
	return 0;
}

/*
 * The lowest va in [lo, hi) where len bytes meet no area; 0 if there is
 * none.  Whatever was unmapped, or mapped by a map that failed, serves
 * again.
 */
static unsigned long free_gap(struct proc *p, unsigned long lo, unsigned long hi,
			      unsigned long len)
{
	unsigned long va = lo;
	unsigned int i;

	if (hi < lo || len > hi - lo)
		return 0;
	for (i = area_index(p, lo); i < p->nvmas && p->vmas[i].start < hi; i++) {
		if (p->vmas[i].start > va && p->vmas[i].start - va >= len)
			break;
		va = max(va, p->vmas[i].end);
	}
	return va < hi && hi - va >= len ? va : 0;
}

/* The pages of v in [va, end) not there yet come: zeroed, or the object's. */
static long populate_locked(struct proc *p, struct vma *v, unsigned long va, unsigned long end)
{
	long err = 0;

	va = max(va, v->start);
	end = min(end, v->end);
	while (va < end && !err) {
		unsigned long run;
		struct frame *f;

		if (page_find(p, va)) {
			va += PAGE;
			continue;
		}
		if (v->shm) {
			f = shm_frame(v->shm, v->pgoff + (va - v->start) / PAGE);
			err = f ? page_map_shared(p, va, f, v->prot) : -ENOMEM;
			va += PAGE;
			continue;
		}
		for (run = va + PAGE; run < end && !page_find(p, run); run += PAGE)
			;
		err = map_fresh(p, va, run - va, v->prot);
		va = run;
	}
	return err;
}

/*
 * A first touch of va, which has no page: its area's page comes.  A
 * private area touched next to a page it has is being walked through:
 * FAULT_AROUND pages come at once, on in the walk's direction.  A touch
 * with no neighbour gets its page alone, so that a sparse map costs what
 * it touches.  -EFAULT: in no area; -EACCES: the area does not allow it
 * (a poke, the loader's, is allowed any access).
 */
long area_fault_locked(struct proc *p, unsigned long va, bool write, bool poke)
{
	struct vma *v = area_find(p, va);
	unsigned long lo;

	if (!v)
		return -EFAULT;
	if (!poke && (!v->prot || (write && !(v->prot & EV_PROT_WRITE))))
		return -EACCES;
	if (v->shm || !v->prot)
		return populate_locked(p, v, va, va + PAGE);
	if (va > v->start && page_find(p, va - PAGE))
		return populate_locked(p, v, va, va + FAULT_AROUND * PAGE);
	lo = va - min(va - v->start, (FAULT_AROUND - 1) * PAGE);
	if (va + PAGE < v->end && page_find(p, va + PAGE))
		return populate_locked(p, v, lo, va + PAGE);
	return populate_locked(p, v, va, va + PAGE);
}

/*
 * [va, end) lies in areas that allow at least prot: an area there gains
 * prot, a gap becomes an area of prot (the loader's segments and stack).
 */
long area_cover_locked(struct proc *p, unsigned long va, unsigned long end, u8 prot)
{
	long err = areas_reserve(p, 3) ?: area_split(p, va) ?: area_split(p, end);
	unsigned int i = area_index(p, va);
	unsigned long start = va;

	while (!err && va < end) {
		if (i < p->nvmas && p->vmas[i].start <= va) {
			p->vmas[i].prot |= prot;
			va = p->vmas[i++].end;
			continue;
		}
		err = areas_reserve(p, 1);
		if (!err) {
			struct vma gap = { .start = va, .prot = prot };

			gap.end = i < p->nvmas ? min(end, p->vmas[i].start) : end;
			area_insert(p, i++, &gap);
			va = gap.end;
		}
	}
	areas_merge(p, start, end);
	return err;
}

/*
 * A new area like want, at want->start or elsewhere as how says (AREA_*):
 * a free range is looked for in [lo, hi).  A shared anonymous area gets
 * an object of its own.  Its address, or -errno with nothing changed (but
 * for AREA_FIXED, whose range is then left empty, as Linux leaves it).
 */
long mem_map_area(struct proc *p, const struct vma *want, unsigned long lo, unsigned long hi,
		  int how, bool populate)
{
	unsigned long len = want->end - want->start;
	struct vma v = *want;
	long err = 0;

	if (((v.start | len) & PAGE_MASK_LOW) || !len ||
	    (how != AREA_FREE && !mem_in_region(v.start, len)))
		return -EINVAL;
	if ((v.flags & VMA_SHARED) && !v.shm) {
		v.shm = shm_new();
		if (!v.shm)
			return -ENOMEM;
	} else if (v.shm) {
		area_hold(&v);
	}
	proc_lock(p);
	if (how == AREA_FIXED) {
		err = unmap_locked(p, v.start, v.end);
	} else if (how == AREA_NOREPLACE) {
		err = range_free(p, v.start, v.end) ? 0 : -EEXIST;
	} else if (!mem_in_region(v.start, len) || !range_free(p, v.start, v.start + len)) {
		/* The address is a hint, taken if the range is free, as Linux takes it. */
		v.start = free_gap(p, lo, hi, len);
		err = v.start ? 0 : -ENOMEM;
	}
	v.end = v.start + len;
	err = err ?: areas_reserve(p, 1);
	if (!err) {
		area_insert(p, area_index(p, v.start), &v);
		/* PROT_NONE costs nothing until made accessible. */
		if (v.prot && (populate || len <= EAGER_PAGES * PAGE))
			populate_locked(p, area_find(p, v.start), v.start, v.end);
		areas_merge(p, v.start, v.end);
	}
	proc_unlock(p);
	shm_put(v.shm);
	return err ?: (long)v.start;
}

/*
 * The pages of p's areas within [lo, hi): all of them; the private ones
 * but the stack's, which are data as Linux's is_data_mapping says if
 * writable; and those that are.  For the limits a map is checked against
 * (Linux's may_expand_vm).
 */
void mem_count_pages(struct proc *p, unsigned long lo, unsigned long hi, struct mem_count *n)
{
	unsigned int i;

	*n = (struct mem_count){};
	proc_lock(p);
	for (i = area_index(p, lo); i < p->nvmas && p->vmas[i].start < hi; i++) {
		const struct vma *v = &p->vmas[i];
		unsigned long k = (min(v->end, hi) - max(v->start, lo)) / PAGE;

		n->all += k;
		if (v->flags & (VMA_SHARED | VMA_STACK))
			continue;
		n->priv += k;
		if (v->prot & EV_PROT_WRITE)
			n->data += k;
	}
	proc_unlock(p);
}

long mem_unmap_area(struct proc *p, unsigned long va, unsigned long len)
{
	long err;

	if (((va | len) & PAGE_MASK_LOW) || !mem_in_region(va, len))
		return -EINVAL;
	proc_lock(p);
	err = unmap_locked(p, va, va + len);
	areas_merge(p, va, va + len);
	proc_unlock(p);
	return err;
}

/*
 * The object a shared area's byte at va is in, and its offset there, for
 * a futex's key; false if va is in no shared area.
 */
bool mem_shared_key(struct proc *p, unsigned long va, const void **obj, unsigned long *off)
{
	struct vma *v;
	bool shared = false;

	proc_lock(p);
	v = area_find(p, va);
	if (v && v->shm) {
		*obj = v->shm;
		*off = v->pgoff * PAGE + (va - v->start);
		shared = true;
	}
	proc_unlock(p);
	return shared;
}

/*
 * shmdt (Linux's): the attach of a SysV segment that begins at va goes,
 * every area of it up to the segment's size, since an munmap or mprotect
 * may have cut it in pieces; a piece is the attach's if its offset in
 * the segment is its distance from va.  -EINVAL if no attach begins
 * there; *gone says which object it was, a pointer to compare, not read.
 */
long mem_detach_area(struct proc *p, unsigned long va, const struct mem_shared **gone)
{
	struct mem_shared *shm = NULL;
	unsigned long end = 0;
	unsigned int i;
	long err = 0;

	proc_lock(p);
	i = area_index(p, va);
	if (i < p->nvmas && p->vmas[i].start == va && p->vmas[i].shm &&
	    p->vmas[i].shm->sysv_pages && !p->vmas[i].pgoff) {
		shm = p->vmas[i].shm;
		end = va + shm->sysv_pages * PAGE;
	}
	while (shm && !err && i < p->nvmas && p->vmas[i].start < end) {
		struct vma *v = &p->vmas[i];
		unsigned long next = v->end;

		/* shm is compared, never read, once its last piece may be gone */
		if (v->shm == shm && v->start - va == v->pgoff * PAGE)
			err = unmap_locked(p, v->start, next);
		i = area_index(p, next);
	}
	proc_unlock(p);
	*gone = shm;
	return shm ? err : -EINVAL;
}

/*
 * Every area in [va, va + len) and its pages get prot.  -ENOMEM if part
 * of the range is in no area, -EACCES if prot writes where an area may
 * not be written (VMA_NOWRITE), and then nothing changes.  A page whose
 * entry cannot change puts the pages before it back, and the areas keep
 * their protection.
 */
long mem_protect_area(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
	unsigned long end = va + len, at = va;
	unsigned int i, first;
	long err = 0;

	if (((va | len) & PAGE_MASK_LOW) || !mem_in_region(va, len))
		return -ENOMEM;
	proc_lock(p);
	for (i = area_index(p, va); at < end && !err;) {
		if (i == p->nvmas || p->vmas[i].start > at)
			err = -ENOMEM;
		else if ((prot & EV_PROT_WRITE) && (p->vmas[i].flags & VMA_NOWRITE))
			err = -EACCES;
		else
			at = p->vmas[i++].end;
	}
	err = err ?: area_split(p, va) ?: area_split(p, end);
	first = tpage_index(p, va);
	for (i = first; !err && i < p->npages && p->pages[i].va < end; i++)
		err = page_set_prot(p, &p->pages[i], prot);
	if (err) {
		while (i-- > first)
			page_set_prot(p, &p->pages[i], area_find(p, p->pages[i].va)->prot);
	}
	for (i = area_index(p, va); !err && i < p->nvmas && p->vmas[i].start < end; i++)
		p->vmas[i].prot = prot;
	areas_merge(p, va, end);
	proc_unlock(p);
	return err;
}

/*
 * mremap, under one hold of the lock: [old, old + old_len), in one area,
 * becomes new_len long; in place if it shrinks or the range after it is
 * free, else moved (may_move) to the lowest free range of [lo, hi), or
 * to the address to, if it is not 0 (MREMAP_FIXED, whatever was there
 * gone first).  The
 * pages move with their frames.  The new address, or -errno.
 */
long mem_remap(struct proc *p, unsigned long old, unsigned long old_len, unsigned long new_len,
	       bool may_move, unsigned long to, unsigned long lo, unsigned long hi)
{
	unsigned long keep = min(old_len, new_len);
	struct vma *v, moved;
	long err = 0;

	proc_lock(p);
	v = area_find(p, old);
	if (!v || old_len > v->end - old) {
		err = -EFAULT;
		goto out;
	}
	if (to) {
		err = unmap_locked(p, to, to + new_len);
	} else if (new_len <= old_len) {
		err = unmap_locked(p, old + new_len, old + old_len);
		areas_merge(p, old, old + old_len);
		to = old;
		goto out;
	} else if (old + old_len == v->end && mem_in_region(old, new_len) &&
		   range_free(p, v->end, old + new_len)) {
		v->end = old + new_len;
		areas_merge(p, old, old + new_len);
		to = old;
		goto out;
	} else if (!may_move) {
		err = -ENOMEM;
	} else {
		to = free_gap(p, lo, hi, new_len);
		err = to ? 0 : -ENOMEM;
	}
	/* The move: the old range is one area of its own, copied to the new. */
	err = err ?: areas_reserve(p, 3) ?: area_split(p, old) ?: area_split(p, old + old_len);
	if (err)
		goto out;
	moved = *area_find(p, old);
	moved.start = to;
	moved.end = to + new_len;
	area_insert(p, area_index(p, to), &moved);
	err = pages_move(p, old, keep, to);
	if (err)
		unmap_locked(p, to, to + new_len);	/* the new area goes, the old stays */
	else
		err = unmap_locked(p, old, old + old_len);
	areas_merge(p, to, to + new_len);
	areas_merge(p, old, old + old_len);
out:
	proc_unlock(p);
	return err ?: (long)to;
}

/*
 * What madvise, msync and mlock do to [va, va + len), area by area
 * (ADVISE_*): nothing but look, drop the pages (MADV_DONTNEED: a later
 * touch finds a private area's zeroed again and a shared one's object's),
 * or fill them.  A copy of a file keeps its pages: zeroes would not be
 * the file's bytes.  -ENOMEM if part of the range is in no area, as
 * Linux's madvise_walk_vmas says once it has done the rest.
 */
long mem_advise(struct proc *p, unsigned long va, unsigned long len, int what)
{
	unsigned long end = va + len, at = va;
	bool hole = false;
	unsigned int i;
	long err = 0;

	if (!mem_in_region(va, len))
		return -ENOMEM;
	proc_lock(p);
	for (i = area_index(p, va); i < p->nvmas && p->vmas[i].start < end && !err; i++) {
		struct vma *v = &p->vmas[i];

		hole |= v->start > at;
		if (what == ADVISE_DROP && !(v->flags & VMA_FILE))
			err = pages_drop(p, max(va, v->start), min(end, v->end));
		else if (what == ADVISE_FILL && v->prot)
			err = populate_locked(p, v, va, end);
		at = v->end;
	}
	proc_unlock(p);
	return err ?: (hole || at < end ? -ENOMEM : 0);
}

/* fork: the child's areas are the parent's, objects shared.  The parent's lock held. */
long areas_fork_locked(struct proc *parent, struct proc *child)
{
	unsigned int i;

	if (!parent->nvmas)
		return 0;
	child->vmas = vostd_alloc(parent->nvmas * sizeof(*child->vmas), false);
	if (!child->vmas)
		return -ENOMEM;
	vostd_memcpy(child->vmas, parent->vmas, parent->nvmas * sizeof(*child->vmas));
	child->nvmas = parent->nvmas;
	child->vcap = parent->nvmas;
	for (i = 0; i < child->nvmas; i++)
		area_hold(&child->vmas[i]);
	return 0;
}

/* The process's areas go (its pages have gone). */
void areas_release(struct proc *p)
{
	areas_remove(p, 0, p->nvmas);
	vostd_free(p->vmas);
	p->vmas = NULL;
	p->vcap = 0;
}
