// SPDX-License-Identifier: GPL-2.0
/*
 * A process's memory: the pages it has, kept sorted in the process, and the
 * page tables the endovisor writes for them through vOSTD.  The list is the
 * truth; the page tables follow it.  Loading an image, a stack, mmap and
 * munmap, fork, and the copy-on-write fault are here.
 */
#include <linux/elf.h>

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
static unsigned int page_index(struct proc *p, unsigned long va)
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

static struct tpage *page_find(struct proc *p, unsigned long va)
{
	unsigned int i = page_index(p, va);

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
static void page_insert(struct proc *p, unsigned long va, struct frame *f, u8 prot, bool cow)
{
	unsigned int i = page_index(p, va), j;

	for (j = p->npages; j > i; j--)
		p->pages[j] = p->pages[j - 1];
	p->pages[i] = (struct tpage){ .va = va, .f = f, .prot = prot, .cow = cow };
	p->npages++;
}

static void page_remove(struct proc *p, struct tpage *pg)
{
	unsigned int i = pg - p->pages;

	for (; i + 1 < p->npages; i++)
		p->pages[i] = p->pages[i + 1];
	p->npages--;
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

		vostd_vm_unmap(p->vs, pg->va, 1);
		frame_put(pg->f);
		page_remove(p, pg);
	}
}

/*
 * Give [va, va + len) fresh zeroed frames, mapped prot, under one cursor.
 * On failure nothing stays mapped or recorded.
 */
static long map_fresh(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
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
		if (vostd_cursor_map(&c, f->mem, prot)) {
			frame_put(f);
			break;
		}
		page_insert(p, va + i * PAGE, f, prot, false);
	}
	err = vostd_cursor_finish(&c) ?: err;
	if (err)
		pages_undo(p, va, i);
	return err;
}

/*
 * Load an ELF executable: each PT_LOAD segment into fresh frames at its
 * address, with its permissions.  Everything is checked against the image's
 * size and the tenant region first; the image is ours, but a loader that
 * trusted its input would be the first hole in the kernel proper.
 */
long mem_load(struct proc *p, const char *image, unsigned long size, unsigned long *entry)
{
	const Elf64_Ehdr *eh = (const void *)image;
	const Elf64_Phdr *ph;
	unsigned int i;
	long err;

	if (size < sizeof(*eh) || eh->e_ident[EI_MAG0] != ELFMAG0 ||
	    eh->e_ident[EI_MAG1] != ELFMAG1 || eh->e_ident[EI_MAG2] != ELFMAG2 ||
	    eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_type != ET_EXEC || eh->e_phentsize != sizeof(*ph) ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(*ph) ||
	    !mem_in_region(eh->e_entry, 1))
		return -ENOEXEC;
	ph = (const void *)(image + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++, ph++) {
		unsigned long start, end, va;
		u8 prot = EV_PROT_READ;

		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		if (ph->p_filesz > ph->p_memsz || ph->p_offset > size ||
		    ph->p_filesz > size - ph->p_offset || !mem_in_region(ph->p_vaddr, ph->p_memsz))
			return -ENOEXEC;
		if (ph->p_flags & PF_W)
			prot |= EV_PROT_WRITE;
		if (ph->p_flags & PF_X)
			prot |= EV_PROT_EXEC;
		start = ph->p_vaddr & ~PAGE_MASK_LOW;
		end = (ph->p_vaddr + ph->p_memsz + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
		for (va = start; va < end; va += PAGE)
			if (page_find(p, va))
				return -ENOEXEC;	/* segments sharing a page: not ours */
		err = map_fresh(p, start, end - start, prot);
		if (err)
			return err;
		/* The file's bytes, page by page; the rest stays zero. */
		for (va = start; va < end; va += PAGE) {
			unsigned long lo = max_t(unsigned long, va, ph->p_vaddr);
			unsigned long hi = min(va + PAGE,
					       (unsigned long)(ph->p_vaddr + ph->p_filesz));

			if (lo < hi)
				vostd_memcpy((char *)page_find(p, va)->f->mem + (lo - va),
					     image + ph->p_offset + (lo - ph->p_vaddr), hi - lo);
		}
	}
	*entry = eh->e_entry;
	return 0;
}

long mem_stack(struct proc *p)
{
	return map_fresh(p, TENANT_STACK_TOP - TENANT_STACK_PAGES * PAGE,
			 TENANT_STACK_PAGES * PAGE, EV_PROT_READ | EV_PROT_WRITE);
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
 * fork's memory: the child gets every page of the parent, on the same
 * frames.  Every page becomes copy-on-write in both, so that no later
 * mprotect lets one write into the other's: a writable page's entry in
 * the parent is protected read-only, the child's mapped read-only, and the
 * first write in either makes its own copy (mem_fault).  The parent's
 * lock is held throughout, so none of its threads resolves a fault on a
 * page half-way through.
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
		u8 now = pg->prot & ~EV_PROT_WRITE;

		if ((pg->prot & EV_PROT_WRITE) && !pg->cow) {
			vostd_cursor_jump(&pc, pg->va);
			vostd_cursor_protect_next(&pc, PAGE, now);
		}
		pg->cow = true;
		vostd_cursor_jump(&cc, pg->va);
		vostd_cursor_map(&cc, pg->f->mem, now);
		__atomic_add_fetch(&pg->f->refs, 1, __ATOMIC_RELAXED);
		page_insert(child, pg->va, pg->f, pg->prot, true);
	}
	err = vostd_cursor_finish(&pc);
	err = vostd_cursor_finish(&cc) ?: err;
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

/* A copy-on-write page is written: it becomes the writer's own.  Under p's lock. */
static long page_unshare(struct proc *p, struct tpage *pg)
{
	long err;

	if (__atomic_load_n(&pg->f->refs, __ATOMIC_ACQUIRE) == 1) {
		/* The other sharers have their copies: this one is ours again. */
		err = vostd_vm_protect(p->vs, pg->va, 1, pg->prot);
	} else {
		struct frame *copy = frame_new();

		if (!copy)
			return -ENOMEM;
		/* Copy before letting go: the last sharer writes in place. */
		vostd_memcpy(copy->mem, pg->f->mem, PAGE);
		err = vostd_vm_unmap(p->vs, pg->va, 1) ?:
		      vostd_vm_map(p->vs, pg->va, copy->mem, pg->prot);
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
		err = -EFAULT;
	} else if (write && !(pg->prot & EV_PROT_WRITE)) {
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
	while (p->areas) {
		struct area *a = p->areas;

		p->areas = a->next;
		vostd_free(a);
	}
}

/*
 * Copy between the kernel proper's buf and the process's pages, through
 * the frames: no crossing, and a write to a copy-on-write page unshares it
 * first, as the tenant's own write would.  -EFAULT for a page that is not
 * there or may not be accessed so; what came before it is copied.
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

		if (!pg || (how == MEM_WRITE && !(pg->prot & EV_PROT_WRITE))) {
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
 * Fresh zeroed pages over [va, va + len), page-aligned; a page already
 * there keeps its frame and gains prot (two segments of an executable
 * that share a page).
 */
long mem_map_anon(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
	unsigned long end = va + len, run;
	long err = 0;

	if ((va | len) & PAGE_MASK_LOW || !mem_in_region(va, len))
		return -EINVAL;
	proc_lock(p);
	while (va < end && !err) {
		struct tpage *pg = page_find(p, va);

		if (pg) {
			if ((pg->prot | prot) != pg->prot) {
				pg->prot |= prot;
				err = vostd_vm_protect(p->vs, va, 1,
						       pg->cow ? pg->prot & ~EV_PROT_WRITE :
						       pg->prot);
			}
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
	struct vostd_cursor c;
	unsigned long i;
	long err;

	if (va & PAGE_MASK_LOW || n > EV_TENANT_SIZE / PAGE || !mem_in_region(va, n * PAGE))
		return -EINVAL;
	proc_lock(p);
	for (i = 0; i < n; i++) {
		if (page_find(p, va + i * PAGE)) {
			proc_unlock(p);
			return -EEXIST;
		}
	}
	err = pages_reserve(p, n);
	if (err)
		goto out;
	vostd_cursor_init(&c, p->vs, va, va + n * PAGE, CURSOR_BATCH);
	for (i = 0; i < n && !vostd_cursor_map(&c, frames[i]->mem, prot & ~EV_PROT_WRITE); i++) {
		__atomic_add_fetch(&frames[i]->refs, 1, __ATOMIC_RELAXED);
		page_insert(p, va + i * PAGE, frames[i], prot, true);
	}
	err = vostd_cursor_finish(&c);
	if (err)
		pages_undo(p, va, i);
out:
	proc_unlock(p);
	return err;
}

/* Every page in [va, va + len) goes; holes are no error.  p's lock held. */
static long unmap_locked(struct proc *p, unsigned long va, unsigned long len)
{
	unsigned long end = va + len;
	long err = 0;

	for (; va < end && !err; va += PAGE) {
		struct tpage *pg = page_find(p, va);

		if (!pg)
			continue;
		err = vostd_vm_unmap(p->vs, va, 1);
		if (!err) {
			frame_put(pg->f);
			page_remove(p, pg);
		}
	}
	return err;
}

long mem_unmap_range(struct proc *p, unsigned long va, unsigned long len)
{
	long err;

	if ((va | len) & PAGE_MASK_LOW || !mem_in_region(va, len))
		return -EINVAL;
	proc_lock(p);
	err = unmap_locked(p, va, len);
	proc_unlock(p);
	return err;
}

/*
 * The lowest address in [lo, hi) where len bytes are free, with a free
 * page after them as a guard between two maps; 0 if there is none.  The
 * pages are the truth: whatever was unmapped, or mapped by a map that
 * failed and was undone, is free again.  p's lock held.
 */
static unsigned long free_range(struct proc *p, unsigned long lo, unsigned long hi,
				unsigned long len)
{
	unsigned long va = lo;
	unsigned int i;

	for (i = page_index(p, lo); i < p->npages && p->pages[i].va < hi; i++) {
		if (p->pages[i].va >= va + len + PAGE)
			break;
		va = p->pages[i].va + 2 * PAGE;
	}
	return va + len + PAGE <= hi ? va : 0;
}

/*
 * mmap's fresh zeroed pages, prot, len bytes at the lowest free range of
 * [lo, hi): found and mapped under one hold of p's lock, so that two
 * threads' maps never get the same range.  The address, or -errno
 * (-ENOMEM: no range is free), with nothing mapped.
 */
long mem_map_free(struct proc *p, unsigned long lo, unsigned long hi, unsigned long len,
		  u8 prot)
{
	unsigned long va;
	long err;

	if ((lo | len) & PAGE_MASK_LOW || !len || !mem_in_region(lo, hi - lo))
		return -EINVAL;
	proc_lock(p);
	va = free_range(p, lo, hi, len);
	err = va ? map_fresh(p, va, len, prot) : -ENOMEM;
	proc_unlock(p);
	return err ?: (long)va;
}

/*
 * mmap's fresh zeroed pages, prot, over [va, va + len) exactly: whatever
 * was there goes first if replace (MAP_FIXED), or else the range must be
 * empty (MAP_FIXED_NOREPLACE: -EEXIST).  Under one hold of p's lock, so
 * that no other thread's map comes in between.  va, or -errno; a range
 * that was to be replaced is then left empty, as Linux leaves it.
 */
long mem_map_fixed(struct proc *p, unsigned long va, unsigned long len, u8 prot, bool replace)
{
	unsigned int i;
	long err;

	if ((va | len) & PAGE_MASK_LOW || !mem_in_region(va, len))
		return -EINVAL;
	proc_lock(p);
	if (replace) {
		err = unmap_locked(p, va, len);
	} else {
		i = page_index(p, va);
		err = i < p->npages && p->pages[i].va < va + len ? -EEXIST : 0;
	}
	err = err ?: map_fresh(p, va, len, prot);
	proc_unlock(p);
	return err ?: (long)va;
}

/*
 * Every page in [va, va + len) gets prot (at least readable: an entry is
 * either there or not); a copy-on-write page stays read-only until written.
 */
long mem_protect_range(struct proc *p, unsigned long va, unsigned long len, u8 prot)
{
	unsigned long end = va + len;
	long err = 0;

	if ((va | len) & PAGE_MASK_LOW || !mem_in_region(va, len))
		return -EINVAL;
	prot |= EV_PROT_READ;
	proc_lock(p);
	for (; va < end && !err; va += PAGE) {
		struct tpage *pg = page_find(p, va);

		if (!pg || pg->prot == prot)
			continue;
		pg->prot = prot;
		err = vostd_vm_protect(p->vs, va, 1, pg->cow ? prot & ~EV_PROT_WRITE : prot);
	}
	proc_unlock(p);
	return err;
}
