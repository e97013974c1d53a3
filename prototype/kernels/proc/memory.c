// SPDX-License-Identifier: GPL-2.0
/*
 * A process's memory: the pages it has, kept sorted in the process, and the
 * page tables the endovisor writes for them through vOSTD.  The list is the
 * truth; the page tables follow it.  proc's own mmap and munmap, fork,
 * the fault and copies that honour copy-on-write are here; a linux
 * process's areas, which say where pages may come, are vma.c's.
 */
#include "proc.h"

#define CURSOR_BATCH	64
#define MMAP_BASE	(EV_TENANT_BASE + 0x100000000UL)
#define MMAP_END	(EV_TENANT_BASE + 0x300000000UL)
#define MMAP_MAX	(16UL << 20)
#define FAULT_REPEATS	8	/* the same fault this often in a row is a bug of ours */

bool mem_in_region(unsigned long va, unsigned long len)
{
	return va >= EV_TENANT_BASE && len <= EV_TENANT_SIZE &&
	       va - EV_TENANT_BASE <= EV_TENANT_SIZE - len;
}

struct frame *frame_new(void)
{
	struct frame *f = vostd_alloc(sizeof(*f), false);

	if (!f)
		return NULL;
	f->mem = vostd_frame_alloc();
	if (!f->mem) {
		vostd_free(f);
		return NULL;
	}
	f->refs = 1;
	return f;
}

void frame_put(struct frame *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vostd_frame_free(f->mem);
	vostd_free(f);
}

/* The index of va's page, or where it would go. */
unsigned int tpage_index(struct proc *p, unsigned long va)
{
	unsigned int lo = 0, hi = p->npages;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (p->pages[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct tpage *page_find(struct proc *p, unsigned long va)
{
	unsigned int i = tpage_index(p, va);

	return i < p->npages && p->pages[i].va == va ? &p->pages[i] : NULL;
}

/* Make room for n more pages. */
static long pages_reserve(struct proc *p, unsigned int n)
{
	struct tpage *bigger;
	unsigned int cap;

	if (p->npages + n <= p->cap)
		return 0;
	cap = max(p->cap * 2, p->npages + n + 16);
	bigger = vostd_alloc(cap * sizeof(*bigger), false);
	if (!bigger)
		return -ENOMEM;
	if (p->npages)
		vostd_memcpy(bigger, p->pages, p->npages * sizeof(*bigger));
	vostd_free(p->pages);
	p->pages = bigger;
	p->cap = cap;
	return 0;
}

/* Record a page the caller has mapped (room reserved). */
static void page_insert(struct proc *p, const struct tpage *pg)
{
	unsigned int i = tpage_index(p, pg->va);

	if (i < p->npages)
		vostd_memmove(&p->pages[i + 1], &p->pages[i], (p->npages - i) * sizeof(*pg));
	p->pages[i] = *pg;
	p->npages++;
}

/* pages [i, j) leave the list. */
static void pages_remove(struct proc *p, unsigned int i, unsigned int j)
{
	if (j < p->npages)
		vostd_memmove(&p->pages[i], &p->pages[j], (p->npages - j) * sizeof(p->pages[0]));
	p->npages -= j - i;
}

static void page_remove(struct proc *p, struct tpage *pg)
{
	pages_remove(p, pg - p->pages, pg - p->pages + 1);
}

/*
 * Undo a cursor's run that failed: the n pages recorded from va go, and
 * whatever the cursor mapped of them too.
 */
static void pages_undo(struct proc *p, unsigned long va, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct tpage *pg = page_find(p, va + i * PAGE);

		if (pg->prot)
			vostd_vm_unmap(p->vs, pg->va, 1);
		frame_put(pg->f);
		page_remove(p, pg);
	}
}

/*
 * Give [va, va + len) fresh zeroed frames, mapped prot under one cursor
 * (PROT_NONE: not mapped, the loader's poke).  On failure nothing stays
 * mapped or recorded.
 */
long map_fresh(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
	struct tpage pg = { .prot = prot };
	unsigned long n = len / PAGE, i;
	struct vostd_cursor c;
	long err;

	err = pages_reserve(p, n);
	if (err)
		return err;
	vostd_cursor_init(&c, p->vs, va, va + len, CURSOR_BATCH);
	for (i = 0; i < n; i++) {
		struct frame *f = frame_new();

		if (!f) {
			err = -ENOMEM;
			break;
		}
		pg.va = va + i * PAGE;
		pg.f = f;
		if (prot && vostd_cursor_map(&c, f->mem, pte_prot(&pg))) {
			frame_put(f);
			break;
		}
		page_insert(p, &pg);
	}
	err = vostd_cursor_finish(&c) ?: err;
	if (err)
		pages_undo(p, va, i);
	return err;
}

/* mmap(len, prot): fresh zeroed pages at the next free address, a guard page after. */
long mem_mmap(struct proc *p, unsigned long len, unsigned int prot)
{
	struct area *a;
	unsigned long va;
	long err;

	if (!len || len > MMAP_MAX || !(prot & PROT_R) || (prot & ~(PROT_R | PROT_W)))
		return -EINVAL;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	a = vostd_alloc(sizeof(*a), false);
	if (!a)
		return -ENOMEM;
	proc_lock(p);
	va = p->mmap_next;
	if (va + len > MMAP_END) {
		err = -ENOMEM;
	} else {
		err = map_fresh(p, va, len, EV_PROT_READ | (prot & PROT_W ? EV_PROT_WRITE : 0));
		if (!err) {
			p->mmap_next = va + len + PAGE;
			*a = (struct area){ .va = va, .len = len, .next = p->areas };
			p->areas = a;
		}
	}
	proc_unlock(p);
	if (err) {
		vostd_free(a);
		return err;
	}
	return va;
}

/* munmap(va, len): exactly one earlier mmap, all of it. */
long mem_munmap(struct proc *p, unsigned long va, unsigned long len)
{
	struct area **ap, *a = NULL;
	unsigned long i;
	long err;

	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	proc_lock(p);
	for (ap = &p->areas; *ap; ap = &(*ap)->next)
		if ((*ap)->va == va && (*ap)->len == len)
			break;
	a = *ap;
	if (!a) {
		proc_unlock(p);
		return -EINVAL;
	}
	err = vostd_vm_unmap(p->vs, va, len / PAGE);
	if (!err) {
		*ap = a->next;
		for (i = 0; i < len / PAGE; i++) {
			struct tpage *pg = page_find(p, va + i * PAGE);

			frame_put(pg->f);
			page_remove(p, pg);
		}
	}
	proc_unlock(p);
	if (!err)
		vostd_free(a);
	return err;
}

/*
 * fork's memory: the child gets every area and every page of the parent,
 * on the same frames.  A private page becomes copy-on-write in both, so
 * that no later mprotect lets one write into the other's: a writable
 * page's entry in the parent is protected read-only, the child's mapped
 * read-only, and the first write in either makes its own copy
 * (mem_fault).  A shared area's page stays writable in both: that is what
 * sharing is.  A PROT_NONE page has no entry in either.  The parent's lock
 * is held throughout, so none of its threads resolves a fault on a page
 * half-way through.
 */
long mem_fork(struct proc *parent, struct proc *child)
{
	struct vostd_cursor pc, cc;
	struct area *a, **tail = &child->areas;
	unsigned int i;
	long err;

	proc_lock(parent);
	err = pages_reserve(child, parent->npages);
	if (err)
		goto out;
	vostd_cursor_init(&pc, parent->vs, EV_TENANT_BASE, EV_TENANT_BASE + EV_TENANT_SIZE,
			  CURSOR_BATCH);
	vostd_cursor_init(&cc, child->vs, EV_TENANT_BASE, EV_TENANT_BASE + EV_TENANT_SIZE,
			  CURSOR_BATCH);
	for (i = 0; i < parent->npages; i++) {
		struct tpage *pg = &parent->pages[i];
		u8 was = pte_prot(pg);

		if (!pg->shared) {
			pg->cow = true;
			if (was != pte_prot(pg)) {
				vostd_cursor_jump(&pc, pg->va);
				vostd_cursor_protect_next(&pc, PAGE, pte_prot(pg));
			}
		}
		if (pg->prot) {
			vostd_cursor_jump(&cc, pg->va);
			vostd_cursor_map(&cc, pg->f->mem, pte_prot(pg));
		}
		__atomic_add_fetch(&pg->f->refs, 1, __ATOMIC_RELAXED);
		page_insert(child, pg);
	}
	err = vostd_cursor_finish(&pc);
	err = vostd_cursor_finish(&cc) ?: err;
	err = err ?: areas_fork_locked(parent, child);
	for (a = parent->areas; !err && a; a = a->next) {
		struct area *copy = vostd_alloc(sizeof(*copy), false);

		if (!copy) {
			err = -ENOMEM;
			break;
		}
		*copy = (struct area){ .va = a->va, .len = a->len };
		*tail = copy;
		tail = &copy->next;
	}
	child->mmap_next = parent->mmap_next;
out:
	proc_unlock(parent);
	return err;	/* on failure the caller releases the child, frames and all */
}

/*
 * A copy-on-write page is written: it becomes the writer's own.  A page
 * with no entry (PROT_NONE) changes its frame alone.  Under p's lock.
 */
static long page_unshare(struct proc *p, struct tpage *pg)
{
	struct tpage own = *pg;
	long err = 0;

	own.cow = false;
	if (__atomic_load_n(&pg->f->refs, __ATOMIC_ACQUIRE) == 1) {
		/* The other sharers have their copies: this one is ours again. */
		if (pg->prot)
			err = vostd_vm_protect(p->vs, pg->va, 1, pte_prot(&own));
	} else {
		struct frame *copy = frame_new();

		if (!copy)
			return -ENOMEM;
		/* Copy before letting go: the last sharer writes in place. */
		vostd_memcpy(copy->mem, pg->f->mem, PAGE);
		if (pg->prot) {
			err = vostd_vm_unmap(p->vs, pg->va, 1);
			if (!err && vostd_vm_map(p->vs, pg->va, copy->mem, pte_prot(&own))) {
				/* The shared frame back, read-only, as the entry was. */
				err = vostd_vm_map(p->vs, pg->va, pg->f->mem, pte_prot(pg));
				err = err ?: -ENOMEM;
			}
		}
		if (err) {
			frame_put(copy);
		} else {
			frame_put(pg->f);
			pg->f = copy;
		}
	}
	if (!err)
		pg->cow = false;
	return err;
}

/*
 * A page fault in the tenant region.  0: resolved, run the tenant again;
 * otherwise the tenant made an access it may not, and is to be killed.
 * A fault on a page another thread has just resolved is no fault at all.
 * Only such faults count as repeats: a page made the writer's own has
 * changed, and the same page faults again, rightly, after every fork.
 */
long mem_fault(struct thread *t, unsigned long addr, bool write)
{
	unsigned long va = addr & ~PAGE_MASK_LOW;
	struct proc *p = t->p;
	struct tpage *pg;
	long err = 0;

	if (va == t->fault_va) {
		if (++t->fault_repeats >= FAULT_REPEATS)
			return -ELOOP;
	} else {
		t->fault_va = va;
		t->fault_repeats = 0;
	}
	proc_lock(p);
	pg = page_find(p, va);
	if (!pg) {
		/* Not there yet: its area's first touch, or no area (-EFAULT). */
		err = area_fault_locked(p, va, write, false);
		if (!err)
			t->fault_repeats = 0;
	} else if (!pg->prot || (write && !(pg->prot & EV_PROT_WRITE))) {
		err = -EACCES;
	} else if (write && pg->cow) {
		err = page_unshare(p, pg);
		if (!err)
			t->fault_repeats = 0;
	}
	proc_unlock(p);
	return err;
}

/*
 * The process is gone: its space destroyed, then every page back.  A space
 * the endovisor would not destroy keeps its frames: they may still be
 * mapped, so they are left out of the pool rather than handed to another.
 */
void mem_release(struct proc *p)
{
	bool keep = false;
	unsigned int i;
	long err;

	if (p->vs) {
		kernelet_forget_mm(p->vs);
		err = vostd_vmspace_destroy(p->vs);
		if (err) {
			vostd_fail("space_destroy",
				   "pid %ld: its space would not go (%ld); %u frames kept out",
				   p->pid, err, p->npages);
			keep = true;
		}
		p->vs = NULL;
	}
	for (i = 0; i < p->npages && !keep; i++)
		frame_put(p->pages[i].f);
	p->npages = 0;
	vostd_free(p->pages);
	p->pages = NULL;
	areas_release(p);
	while (p->areas) {
		struct area *a = p->areas;

		p->areas = a->next;
		vostd_free(a);
	}
}

/*
 * Copy between the kernel proper's buf and the process's pages, through
 * the frames: no crossing.  A page of an area not yet touched is given
 * its frame, and a write to a copy-on-write page unshares it first, as
 * the tenant's own access would.  -EFAULT for a page in no area or that
 * may not be accessed so; what came before it is copied.  A poke, which
 * writes whatever the protection, never writes a shared page: another
 * thread's map may have put one where the poke's caller mapped its own.
 */
long mem_user_copy(struct proc *p, unsigned long va, void *buf, unsigned long len, int how)
{
	char *b = buf;
	long err = 0;

	if (!len)
		return 0;
	if (!mem_in_region(va, len))
		return -EFAULT;
	proc_lock(p);
	while (len && !err) {
		unsigned long off = va & PAGE_MASK_LOW, n = min(len, PAGE - off);
		struct tpage *pg = page_find(p, va - off);

		if (!pg && !area_fault_locked(p, va - off, how != MEM_READ, how == MEM_POKE))
			pg = page_find(p, va - off);
		if (!pg || (how != MEM_POKE && !pg->prot) ||
		    (how == MEM_WRITE && !(pg->prot & EV_PROT_WRITE)) ||
		    (how == MEM_POKE && pg->shared)) {
			err = -EFAULT;
			break;
		}
		if (how != MEM_READ && pg->cow)
			err = page_unshare(p, pg);
		if (err)
			break;
		if (how == MEM_READ)
			vostd_memcpy(b, (char *)pg->f->mem + off, n);
		else
			vostd_memcpy((char *)pg->f->mem + off, b, n);
		va += n;
		b += n;
		len -= n;
	}
	proc_unlock(p);
	return err;
}

/*
 * Fresh zeroed pages over [va, va + len), page-aligned, in an area of
 * prot (the loader's segments and stack); a page already there keeps its
 * frame and gains prot (two segments of an executable that share a page).
 */
long mem_map_anon(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
	unsigned long end = va + len, run;
	long err;

	if ((va | len) & PAGE_MASK_LOW || !mem_in_region(va, len))
		return -EINVAL;
	proc_lock(p);
	err = area_cover_locked(p, va, end, prot);
	while (va < end && !err) {
		struct tpage *pg = page_find(p, va);

		if (pg) {
			err = page_set_prot(p, pg, pg->prot | prot);
			va += PAGE;
			continue;
		}
		for (run = va + PAGE; run < end && !page_find(p, run); run += PAGE)
			;
		err = map_fresh(p, va, run - va, prot);
		va = run;
	}
	proc_unlock(p);
	return err;
}

/*
 * Map frames[0..n) at va, copy-on-write, as fork shares a page: each
 * entry read-only whatever prot says, each frame one reference more, the
 * first write a private copy.  The caller keeps its own references.
 * -EEXIST if a page of the range is there already, and then nothing is
 * mapped.
 */
long mem_map_frames(struct proc *p, unsigned long va, struct frame **frames,
		    unsigned long n, u8 prot)
{
	struct tpage pg = { .prot = prot, .cow = true };
	struct vostd_cursor c;
	unsigned long i;
	long err;

	if (va & PAGE_MASK_LOW || !prot || n > EV_TENANT_SIZE / PAGE ||
	    !mem_in_region(va, n * PAGE))
		return -EINVAL;
	proc_lock(p);
	i = tpage_index(p, va);
	if (i < p->npages && p->pages[i].va < va + n * PAGE) {
		proc_unlock(p);
		return -EEXIST;
	}
	err = pages_reserve(p, n) ?: area_cover_locked(p, va, va + n * PAGE, prot);
	if (err)
		goto out;
	vostd_cursor_init(&c, p->vs, va, va + n * PAGE, CURSOR_BATCH);
	for (i = 0; i < n && !vostd_cursor_map(&c, frames[i]->mem, pte_prot(&pg)); i++) {
		__atomic_add_fetch(&frames[i]->refs, 1, __ATOMIC_RELAXED);
		pg.va = va + i * PAGE;
		pg.f = frames[i];
		page_insert(p, &pg);
	}
	err = vostd_cursor_finish(&c);
	if (err)
		pages_undo(p, va, i);
out:
	proc_unlock(p);
	return err;
}

/*
 * pg's protection becomes prot, and its entry follows: none for
 * PROT_NONE, read-only while copy-on-write.  p's lock held.
 */
long page_set_prot(struct proc *p, struct tpage *pg, u8 prot)
{
	u8 was = pte_prot(pg), old = pg->prot, now;
	long err = 0;

	pg->prot = prot;
	now = pte_prot(pg);
	if (was == now)
		return 0;
	if (!now)
		err = vostd_vm_unmap(p->vs, pg->va, 1);
	else if (!was)
		err = vostd_vm_map(p->vs, pg->va, pg->f->mem, now);
	else
		err = vostd_vm_protect(p->vs, pg->va, 1, now);
	if (err)
		pg->prot = old;		/* the entry did not change: nor does the page */
	return err;
}

/*
 * n entries from va go.  One missing fails a run's unmap whole; then they
 * go one at a time, and a missing one is no error.
 */
static long entries_drop(struct proc *p, unsigned long va, unsigned long n)
{
	long err = vostd_vm_unmap(p->vs, va, n);
	unsigned long i;

	if (err != -ENOENT)
		return err;
	for (i = 0; i < n; i++) {
		err = vostd_vm_unmap(p->vs, va + i * PAGE, 1);
		if (err && err != -ENOENT)
			return err;
	}
	return 0;
}

/*
 * Every page in [va, end) goes, its entry first; holes are no error.  The
 * entries go a run at a time: the endovisor unmaps only what is mapped.
 * On an error the pages whose entries went are dropped, the rest kept.
 * p's lock held.
 */
long pages_drop(struct proc *p, unsigned long va, unsigned long end)
{
	unsigned int i = tpage_index(p, va), j, k;
	long err = 0;

	for (j = i; j < p->npages && p->pages[j].va < end; j = k) {
		if (!p->pages[j].prot) {
			k = j + 1;
			continue;
		}
		for (k = j + 1; k < p->npages && p->pages[k].va < end && p->pages[k].prot &&
		     p->pages[k].va == p->pages[k - 1].va + PAGE; k++)
			;
		err = entries_drop(p, p->pages[j].va, k - j);
		if (err)
			break;
	}
	for (k = i; k < j; k++)
		frame_put(p->pages[k].f);
	pages_remove(p, i, j);
	return err;
}

/*
 * The pages of [from, from + len) move to [to, to + len), which has none
 * and does not overlap it, their frames and states with them (mremap):
 * mapped at the new place first, under one cursor, so that a failure
 * there leaves the old place as it was; then their old entries go.
 * p's lock held.
 */
long pages_move(struct proc *p, unsigned long from, unsigned long len, unsigned long to)
{
	unsigned int i = tpage_index(p, from), j, n, k, at;
	struct vostd_cursor c;
	struct tpage *moved;
	long err;

	for (j = i; j < p->npages && p->pages[j].va < from + len; j++)
		;
	n = j - i;
	if (!n)
		return 0;
	moved = vostd_alloc(n * sizeof(*moved), false);
	if (!moved)
		return -ENOMEM;
	vostd_memcpy(moved, &p->pages[i], n * sizeof(*moved));
	vostd_cursor_init(&c, p->vs, to, to + len, CURSOR_BATCH);
	for (k = 0; k < n; k++) {
		moved[k].va = moved[k].va - from + to;
		if (moved[k].prot) {
			vostd_cursor_jump(&c, moved[k].va);
			vostd_cursor_map(&c, moved[k].f->mem, pte_prot(&moved[k]));
		}
	}
	err = vostd_cursor_finish(&c);
	for (k = 0; k < n && !err; k++)
		if (p->pages[i + k].prot)
			err = entries_drop(p, p->pages[i + k].va, 1);
	if (err) {
		/* What was mapped at the new place goes again; the list is as it was. */
		for (k = 0; k < n; k++)
			if (moved[k].prot)
				vostd_vm_unmap(p->vs, moved[k].va, 1);
		vostd_free(moved);
		return err;
	}
	/* The list: the run out at the old place, in at the new, frames kept. */
	pages_remove(p, i, j);
	at = tpage_index(p, to);
	if (at < p->npages)
		vostd_memmove(&p->pages[at + n], &p->pages[at], (p->npages - at) * sizeof(*moved));
	vostd_memcpy(&p->pages[at], moved, n * sizeof(*moved));
	p->npages += n;
	vostd_free(moved);
	return 0;
}

/* A shared area's page: f, one reference more, mapped prot (room reserved). */
long page_map_shared(struct proc *p, unsigned long va, struct frame *f, u8 prot)
{
	struct tpage pg = { .va = va, .f = f, .prot = prot, .shared = true };
	long err = pages_reserve(p, 1);

	if (!err && prot)
		err = vostd_vm_map(p->vs, va, f->mem, pte_prot(&pg));
	if (err)
		return err;
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	page_insert(p, &pg);
	return 0;
}

/* exec: p's memory is what from built, whose own is then empty. */
void mem_take(struct proc *p, struct proc *from)
{
	p->vs = from->vs;
	p->pages = from->pages;
	p->npages = from->npages;
	p->cap = from->cap;
	p->vmas = from->vmas;
	p->nvmas = from->nvmas;
	p->vcap = from->vcap;
	from->vs = NULL;
	from->pages = NULL;
	from->vmas = NULL;
	from->npages = 0;
	from->nvmas = 0;
}
