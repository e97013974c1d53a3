// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a tenant space's entries (vm.c tells the design): vm_map,
 * vm_protect, vm_unmap and vm_batch, within the sandbox's EV_MAP_QUOTA and
 * EV_PT_QUOTA; the flushes they owe; and vm_share, which puts one space's
 * entries into another's.  Each takes the space by handle, locked
 * (ev_vm_get_locked in vm.h), and writes under its lock.
 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <asm/tlbflush.h>

#include "endovisor.h"
#include "grant.h"
#include "vm.h"

/*
 * The bits of an entry for each EV_PROT_* combination, all but the frame:
 * present, user, accessed, dirty if writable, executable only if asked,
 * and special.  A read-only entry is never dirty: on x86 Write=0, Dirty=1
 * means a shadow-stack page.  Set at load (ev_vm_module_init), so that
 * making an entry is a shift and an or.
 */
pteval_t ev_pte_bits[(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC) + 1];
static pgprot_t ev_prots[ARRAY_SIZE(ev_pte_bits)];

void ev_vm_module_init(void)
{
	unsigned int prot;

	for (prot = 0; prot < ARRAY_SIZE(ev_pte_bits); prot++) {
		vm_flags_t flags = VM_SHARED | VM_READ;
		pte_t pte;

		if (prot & EV_PROT_WRITE)
			flags |= VM_WRITE;
		if (prot & EV_PROT_EXEC)
			flags |= VM_EXEC;
		ev_prots[prot] = vm_get_page_prot(flags);
		pte = pte_mkyoung(pte_mkspecial(pfn_pte(0, ev_prots[prot])));
		ev_pte_bits[prot] = pte_val(prot & EV_PROT_WRITE ? pte_mkdirty(pte) : pte);
	}
}

/*
 * How many page tables a map at va would have Linux allocate: one for each
 * level below the first missing entry on the way down.
 */
static unsigned int ev_tables_needed(struct mm_struct *mm, unsigned long va)
{
	pgd_t *pgd = pgd_offset(mm, va);
	p4d_t *p4d;
	pud_t *pud;

	if (pgd_none(*pgd))
		return 4;	/* only with five levels: pgd_none is never true with four */
	p4d = p4d_offset(pgd, va);
	if (p4d_none(*p4d))
		return 3;
	pud = pud_offset(p4d, va);
	if (pud_none(*pud))
		return 2;
	return pmd_none(*pmd_offset(pud, va)) ? 1 : 0;
}

struct ev_map_job {
	struct mm_struct *mm;
	pte_t pte;
};

/* For apply_to_page_range, which allocates the page tables a map needs. */
static int ev_pte_install(pte_t *ptep, unsigned long addr, void *data)
{
	struct ev_map_job *job = data;

	if (!pte_none(ptep_get(ptep)))
		return -EEXIST;
	set_pte_at(job->mm, addr, ptep, job->pte);
	return 0;
}

/*
 * A page table is missing on the way to va: let Linux allocate what is
 * needed, within the sandbox's bound.  The tables are reserved against
 * the bound first and charged as Linux counted them after.  Called under
 * rcu_read_lock, which is dropped while Linux allocates.
 */
static int ev_map_alloc(struct ev_sandbox *sb, struct ev_vm *vm, unsigned long va,
			struct ev_map_job *job)
{
	long reserve = ev_tables_needed(vm->mm, va) * PAGE_SIZE;
	int ret;

	if (atomic_long_add_return(reserve, &sb->vm_table_bytes) >
	    (long)EV_PT_QUOTA * PAGE_SIZE) {
		atomic_long_sub(reserve, &sb->vm_table_bytes);
		return -ENOSPC;
	}
	rcu_read_unlock();
	ret = apply_to_page_range(vm->mm, va, PAGE_SIZE, ev_pte_install, job);
	rcu_read_lock();
	atomic_long_sub(reserve, &sb->vm_table_bytes);
	ev_vm_sync_tables(vm);
	return ret;
}

/*
 * Pages reserved against EV_MAP_QUOTA for a call's maps: up to
 * EV_MAP_RESERVE at once, so that a batch takes the sandbox's count once
 * per so many maps, and one at a time near the bound, so that the bound is
 * exact for the caller.  Another vCPU's map may meanwhile be refused
 * while the pages reserved and not yet used (fewer than EV_MAP_RESERVE)
 * count against it; the call gives them back when it ends.
 */
#define EV_MAP_RESERVE	64

static int ev_map_reserve(struct ev_sandbox *sb, long *reserved, long want)
{
	want = clamp_val(want, 1, EV_MAP_RESERVE);
	for (;;) {
		if (atomic_long_add_return(want, &sb->vm_pages) <= EV_MAP_QUOTA) {
			*reserved = want;
			return 0;
		}
		atomic_long_sub(want, &sb->vm_pages);
		if (want == 1)
			return -ENOSPC;
		want = 1;
	}
}

/* A map of one page with pte, from the pages reserved (*reserved), under rcu_read_lock. */
static __always_inline int ev_map_one(struct ev_sandbox *sb, struct ev_vm *vm,
				      unsigned long va, pte_t pte, long *reserved,
				      long more)
{
	struct ev_map_job job = { .mm = vm->mm, .pte = pte };
	pte_t *ptep = ev_vm_pte(vm, va);
	int ret;

	if (!*reserved && ev_map_reserve(sb, reserved, more))
		return -ENOSPC;
	ret = ptep ? ev_pte_install(ptep, va, &job) : ev_map_alloc(sb, vm, va, &job);
	if (!ret) {
		(*reserved)--;
		vm->mapped++;
	}
	return ret;
}

/* Is every page of the range mapped (for protect and unmap, before any change)? */
static int ev_check_mapped(struct ev_vm *vm, unsigned long va, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++, va += PAGE_SIZE) {
		pte_t *ptep = ev_vm_pte(vm, va);

		if (!ptep || !ev_pte_mapped(ptep_get(ptep)))
			return -ENOENT;
	}
	return 0;
}

/* Protect or unmap pages already checked to be mapped. */
static void ev_rewrite(struct ev_vm *vm, unsigned int op, unsigned long va,
		       unsigned long pages, unsigned long prot)
{
	unsigned long i;

	for (i = 0; i < pages; i++, va += PAGE_SIZE) {
		pte_t *ptep = ev_vm_pte(vm, va);

		if (op == EV_VM_OP_UNMAP)
			ptep_get_and_clear(vm->mm, va, ptep);
		else
			set_pte_at(vm->mm, va, ptep, ev_pte(pte_pfn(ptep_get(ptep)), prot));
	}
}

/*
 * One op on one page, the space's lock held, under rcu_read_lock (for the
 * grant's lookup): what vm_map and vm_batch are made of.  A map takes its
 * page from *reserved, reserving up to more at once when none is left.
 */
static __always_inline int ev_vm_op_locked(struct ev_sandbox *sb, struct ev_vm *vm,
					   const struct ev_vm_op *op, long *reserved,
					   long more)
{
	struct page *page;
	int ret;

	if (!ev_va_ok(op->va, 1))
		return -EINVAL;
	switch (op->op) {
	case EV_VM_OP_MAP:
		if (!ev_prot_ok(op->prot))
			return -EINVAL;
		page = ev_grant_page_rcu(&sb->grant, op->frame);
		if (!page)
			return -EACCES;
		return ev_map_one(sb, vm, op->va, ev_pte(page_to_pfn(page), op->prot),
				  reserved, more);
	case EV_VM_OP_PROTECT:
		if (!ev_prot_ok(op->prot))
			return -EINVAL;
		fallthrough;
	case EV_VM_OP_UNMAP:
		ret = ev_check_mapped(vm, op->va, 1);
		if (ret)
			return ret;
		ev_rewrite(vm, op->op, op->va, 1, op->prot);
		if (op->op == EV_VM_OP_UNMAP) {
			vm->mapped--;
			atomic_long_dec(&sb->vm_pages);
		}
		return 0;
	}
	return -EINVAL;
}

static void ev_flush(struct ev_vm *vm, unsigned long start, unsigned long end)
{
	if (start < end)
		ev_linux.flush_tlb_mm_range(vm->mm, start, end, PAGE_SHIFT, false);
}

/*
 * What to flush now, the space's lock held: [*lo, *hi), which this call
 * changed, with whatever deferred calls left; or, with defer, nothing now:
 * the range is added to what the next call that flushes will flush.
 */
static void ev_flush_range(struct ev_vm *vm, unsigned long *lo, unsigned long *hi,
			   bool defer)
{
	if (vm->flush_lo < vm->flush_hi) {
		*lo = min(*lo, vm->flush_lo);
		*hi = max(*hi, vm->flush_hi);
	}
	if (defer) {
		vm->flush_lo = *lo;
		vm->flush_hi = *hi;
		*lo = ULONG_MAX;
		*hi = 0;
	} else {
		vm->flush_lo = ULONG_MAX;
		vm->flush_hi = 0;
	}
}

/* vm_map(vm, va, frame, prot): one page, no flush (the entry was empty). */
EV_SERVICE_DEFINE4(vm_map, unsigned long, handle, unsigned long, va, unsigned long, frame,
		   unsigned long, prot)
{
	struct ev_vm_op op = { .op = EV_VM_OP_MAP, .prot = prot, .va = va, .frame = frame };
	struct ev_vm *vm = ev_vm_get_locked(v, handle, true);
	long ret, reserved = 0;

	if (IS_ERR(vm))
		return PTR_ERR(vm);
	rcu_read_lock();
	ret = ev_vm_op_locked(v->sb, vm, &op, &reserved, 1);
	rcu_read_unlock();
	atomic_long_sub(reserved, &v->sb->vm_pages);
	ev_vm_unlock(vm, true);
	ev_vm_release(v, vm);
	return ret;
}

/* protect and unmap of a range: all of it mapped, or nothing changes. */
static long ev_vm_range(struct ev_vcpu *v, unsigned long handle, unsigned int kind,
			unsigned long va, unsigned long pages, unsigned long prot)
{
	struct ev_vm *vm = ev_vm_get_locked(v, handle, true);
	unsigned long lo = va, hi = va + (pages << PAGE_SHIFT);
	long ret;

	if (IS_ERR(vm))
		return PTR_ERR(vm);
	if (!ev_va_ok(va, pages) || (kind == EV_VM_OP_PROTECT && !ev_prot_ok(prot))) {
		ev_vm_unlock(vm, true);
		ev_vm_release(v, vm);
		return -EINVAL;
	}
	ret = ev_check_mapped(vm, va, pages);
	if (!ret) {
		ev_rewrite(vm, kind, va, pages, prot);
		if (kind == EV_VM_OP_UNMAP) {
			vm->mapped -= pages;
			atomic_long_sub(pages, &v->sb->vm_pages);
		}
	} else {
		lo = ULONG_MAX;
		hi = 0;
	}
	ev_flush_range(vm, &lo, &hi, false);
	ev_vm_unlock(vm, true);
	ev_flush(vm, lo, hi);
	ev_vm_release(v, vm);
	return ret;
}

/* vm_protect(vm, va, pages, prot): rewrite the entries in place, then flush. */
EV_SERVICE_DEFINE4(vm_protect, unsigned long, handle, unsigned long, va,
		   unsigned long, pages, unsigned long, prot)
{
	return ev_vm_range(v, handle, EV_VM_OP_PROTECT, va, pages, prot);
}

/* vm_unmap(vm, va, pages): clear the entries, then flush. */
EV_SERVICE_DEFINE3(vm_unmap, unsigned long, handle, unsigned long, va,
		   unsigned long, pages)
{
	return ev_vm_range(v, handle, EV_VM_OP_UNMAP, va, pages, 0);
}

/*
 * vm_batch(vm, ops, count, flags): count single-page ops from sandbox
 * memory under one hold of the locks, with one flush at the end for
 * whatever protect or unmap changed.  The first op to fail stops the
 * batch: the ones before it stay done, its op field gets
 * EV_VM_OP_FAILED, and its error is returned.  With EV_BATCH_DEFER the
 * flush is left to the space's next vm_batch without it (or vm_protect,
 * vm_unmap, vm_share of it): a cursor defers all its batches but the last.
 * The ops stay the sandbox's throughout: the batch is one read section
 * (ev_heap_read_begin), inside the space's lock as the copies' are, and
 * they are checked once and read in place.  A free of their block that
 * began before the section is seen by the check, through the heap's
 * generation (ev_sandbox_find); one that begins after waits for the
 * section's end (ev_heap_free).
 */
EV_SERVICE_DEFINE4(vm_batch, unsigned long, handle, unsigned long, ops,
		   unsigned long, count, unsigned long, flags)
{
	struct ev_vm_op *op = (struct ev_vm_op *)ops, one;
	unsigned long lo = ULONG_MAX, hi = 0, done;
	long ret = 0, reserved = 0;
	struct ev_vm *vm;

	if (count == 0 || count > EV_BATCH_MAX || (flags & ~EV_BATCH_DEFER))
		return -EINVAL;
	vm = ev_vm_get_locked(v, handle, true);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	ev_heap_read_begin(v);
	if (!ev_vcpu_owns(v, op, count * sizeof(*op), true)) {
		ret = -EFAULT;
		goto out;
	}
	rcu_read_lock();
	for (done = 0; done < count; done++) {
		/* A copy: the sandbox's other vCPUs may be writing the ops. */
		one = op[done];
		ret = ev_vm_op_locked(v->sb, vm, &one, &reserved, count - done);
		if (ret) {
			WRITE_ONCE(op[done].op, one.op | EV_VM_OP_FAILED);
			break;
		}
		if (one.op != EV_VM_OP_MAP) {
			lo = min_t(unsigned long, lo, one.va);
			hi = max_t(unsigned long, hi, one.va + PAGE_SIZE);
		}
	}
	rcu_read_unlock();
	atomic_long_sub(reserved, &v->sb->vm_pages);
out:
	ev_heap_read_end(v);
	ev_flush_range(vm, &lo, &hi, flags & EV_BATCH_DEFER);
	ev_vm_unlock(vm, true);
	ev_flush(vm, lo, hi);
	ev_vm_release(v, vm);
	return ret ? ret : (long)count;
}

/*
 * The page table that maps va's 2 MiB in vm, allocated by Linux if it is
 * missing, within the sandbox's bound on page tables (as ev_map_alloc):
 * its first entry, or NULL with *err set.  The space's lock and mmap lock
 * held.
 */
static int ev_pte_leave(pte_t *ptep, unsigned long addr, void *data)
{
	return 0;
}

static pte_t *ev_vm_table(struct ev_sandbox *sb, struct ev_vm *vm, unsigned long va,
			  int *err)
{
	unsigned long base = va & PMD_MASK;
	pte_t *table = ev_vm_pte(vm, base);
	long reserve;

	if (table)
		return table;
	reserve = ev_tables_needed(vm->mm, base) * PAGE_SIZE;
	if (atomic_long_add_return(reserve, &sb->vm_table_bytes) >
	    (long)EV_PT_QUOTA * PAGE_SIZE) {
		atomic_long_sub(reserve, &sb->vm_table_bytes);
		*err = -ENOSPC;
		return NULL;
	}
	*err = apply_to_page_range(vm->mm, base, PAGE_SIZE, ev_pte_leave, NULL);
	atomic_long_sub(reserve, &sb->vm_table_bytes);
	ev_vm_sync_tables(vm);
	if (*err)
		return NULL;
	table = ev_vm_pte(vm, base);
	if (!table)
		*err = -ENOMEM;
	return table;
}

/* Locks two spaces, the one in the lower slot first, so two vm_shares cannot deadlock. */
static void ev_vm_lock_pair(struct ev_vm *a, struct ev_vm *b)
{
	if (a->slot > b->slot)
		swap(a, b);
	mutex_lock(&a->lock);
	mutex_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	mmap_read_lock(a->mm);
	down_read_nested(&b->mm->mmap_lock, SINGLE_DEPTH_NESTING);
}

/*
 * Share the pages of one page table of src (the 2 MiB from va, [va, end))
 * with dst: each mapped entry of src set to prot, and the same entry
 * written into dst, whose entry must be empty.  src's entry is the proof
 * that its frame is granted: only the endovisor writes entries there, and
 * only after ev_grant_page said so.  Pages shared go into *shared; the
 * range changed in src into [*lo, *hi).
 */
static int ev_share_table(struct ev_sandbox *sb, struct ev_vm *dst, struct ev_vm *src,
			  unsigned long va, unsigned long end, unsigned long prot,
			  unsigned long *shared, unsigned long *lo, unsigned long *hi)
{
	pte_t *sp = ev_vm_pte(src, va), *dp = NULL;
	unsigned long n = (end - va) >> PAGE_SHIFT, i, reserved = 0, start = va;
	int ret = 0;

	if (!sp)
		return 0;	/* nothing mapped in these 2 MiB */
	for (i = 0; i < n; i++, va += PAGE_SIZE) {
		pte_t pte = ptep_get(sp + i);

		if (!ev_pte_mapped(pte))
			continue;
		if (!dp) {
			/* dst's entries for the same pages: sp's, in dst's table. */
			dp = ev_vm_table(sb, dst, va, &ret);
			if (!dp)
				break;
			dp += pte_index(start);
			/*
			 * The rest of the pages, reserved at once; what is not
			 * used goes back below.
			 */
			reserved = n - i;
			if (atomic_long_add_return(reserved, &sb->vm_pages) > EV_MAP_QUOTA) {
				atomic_long_sub(reserved, &sb->vm_pages);
				reserved = 0;
				ret = -ENOSPC;
				break;
			}
		}
		if (!pte_none(ptep_get(dp + i))) {
			ret = -EEXIST;
			break;
		}
		pte = ev_pte(pte_pfn(pte), prot);
		set_pte_at(src->mm, va, sp + i, pte);
		set_pte_at(dst->mm, va, dp + i, pte);
		dst->mapped++;
		reserved--;
		(*shared)++;
		*lo = min(*lo, va);
		*hi = va + PAGE_SIZE;
	}
	atomic_long_sub(reserved, &sb->vm_pages);
	return ret;
}

/*
 * vm_share(dst, src, va, pages, prot): every page mapped in src's
 * [va, va + pages) is set to prot there and mapped with prot at the same
 * address in dst, whose entries there must be empty; unmapped pages of src
 * are passed over.  What a fork does, in one pass over src's page tables
 * rather than a protect and a map per page, and one flush of src at the
 * end (dst's entries were empty: nothing of them is in any TLB).  The
 * pages shared, or the error of the first page that could not be: the
 * ones before it stay shared (-EEXIST, -ENOSPC).
 */
EV_SERVICE_DEFINE5(vm_share, unsigned long, dst_handle, unsigned long, src_handle,
		   unsigned long, va, unsigned long, pages, unsigned long, prot)
{
	unsigned long lo = ULONG_MAX, hi = 0, shared = 0, end, next;
	struct ev_sandbox *sb = v->sb;
	struct ev_vm *dst, *src;
	int ret = 0;

	if (!ev_va_ok(va, pages) || !ev_prot_ok(prot) || dst_handle == src_handle)
		return -EINVAL;
	dst = ev_vm_get(sb, dst_handle);
	src = ev_vm_get(sb, src_handle);
	if (!dst || !src) {
		ret = -EBADF;
		goto put;
	}
	ev_vm_lock_pair(dst, src);
	if (dst->dead || src->dead) {
		ret = -EBADF;
		goto unlock;
	}
	end = va + (pages << PAGE_SHIFT);
	for (; va < end && !ret; va = next) {
		next = min((va & PMD_MASK) + PMD_SIZE, end);
		ret = ev_share_table(sb, dst, src, va, next, prot, &shared, &lo, &hi);
	}
	ev_flush_range(src, &lo, &hi, false);
unlock:
	mmap_read_unlock(src->mm);
	mmap_read_unlock(dst->mm);
	mutex_unlock(&src->lock);
	mutex_unlock(&dst->lock);
	ev_flush(src, lo, hi);
put:
	if (dst)
		ev_vm_put(dst);
	if (src)
		ev_vm_put(src);
	return ret ? ret : (long)shared;
}

