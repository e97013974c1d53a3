/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tenant address space (vm.c), shared by the files that work on it:
 * its record, the checks of a range and a protection, the making of an
 * entry, the software walk, and the take-and-lock of a space by handle.
 * The walk and the lock are on every map, protect, unmap and copy, so they
 * are inline here, as they were when the four files were one.
 */
#ifndef EV_VM_H
#define EV_VM_H

#include <linux/mm.h>
#include <linux/mutex.h>

#include "endovisor.h"

struct ev_vm {
	struct ev_sandbox *sb;
	struct mm_struct *mm;
	unsigned int slot;
	refcount_t users;		/* the handle's, and each carrier's and caller's */
	struct rcu_head rcu;
	struct mutex lock;		/* this space's page-table writes, and copies */
	/* Under lock: what it holds against the sandbox's EV_MAP_QUOTA. */
	unsigned long mapped;		/* pages mapped now */
	bool dead;			/* unpublished and zapped by ev_vm_free */
	/* Its page tables as Linux counted them at the last sync, against EV_PT_QUOTA. */
	atomic_long_t table_bytes;
	/*
	 * Under lock: the last page table a walk found, and the 2 MiB it
	 * maps (walk_base; 1 for none).  A page table of the region stays
	 * until the mm goes, so the pointer stays good while the space does.
	 */
	unsigned long walk_base;
	pte_t *walk_table;
	/* Under lock: what deferred vm_batch calls changed and left unflushed. */
	unsigned long flush_lo, flush_hi;
};

struct ev_vm *ev_vm_get_locked(struct ev_vcpu *v, unsigned long handle, bool tables);

static inline void ev_vm_unlock(struct ev_vm *vm, bool tables)
{
	if (tables)
		mmap_read_unlock(vm->mm);
	mutex_unlock(&vm->lock);
}

/* Is the run of pages at va, pages long, page-aligned and inside the tenant region? */
static inline bool ev_va_ok(unsigned long va, unsigned long pages)
{
	return !(va & ~PAGE_MASK) && pages &&
	       pages <= EV_TENANT_SIZE >> PAGE_SHIFT &&
	       va >= EV_TENANT_BASE &&
	       va - EV_TENANT_BASE <= EV_TENANT_SIZE - (pages << PAGE_SHIFT);
}

static inline bool ev_prot_ok(unsigned long prot)
{
	return !(prot & ~(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC)) &&
	       (prot & EV_PROT_READ);
}

/* The bits of an entry for each EV_PROT_* combination (vm_ops.c). */
extern pteval_t ev_pte_bits[(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC) + 1];

/*
 * The entry for pfn with prot (checked by ev_prot_ok): a present entry's
 * bits are its frame's and prot's.
 */
static inline pte_t ev_pte(unsigned long pfn, unsigned long prot)
{
	return __pte(((pteval_t)pfn << PAGE_SHIFT) | ev_pte_bits[prot]);
}

/* Is pte one of the endovisor's: present and special? */
static inline bool ev_pte_mapped(pte_t pte)
{
	return pte_present(pte) && pte_special(pte);
}

/*
 * The entry that maps va in mm, or NULL if a page table on the way is
 * missing.  The region is never mapped with huge pages, and its page tables
 * are freed only when the mm goes, so the walk needs no lock of Linux's.
 */
static inline pte_t *ev_walk(struct mm_struct *mm, unsigned long va)
{
	pgd_t *pgd = pgd_offset(mm, va);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;

	if (pgd_none(*pgd) || pgd_bad(*pgd))
		return NULL;
	p4d = p4d_offset(pgd, va);
	if (p4d_none(*p4d) || p4d_bad(*p4d))
		return NULL;
	pud = pud_offset(p4d, va);
	if (pud_none(*pud) || pud_bad(*pud))
		return NULL;
	pmd = pmd_offset(pud, va);
	if (pmd_none(*pmd) || pmd_bad(*pmd))
		return NULL;
	return pte_offset_kernel(pmd, va);
}

/*
 * The entry that maps va in vm, as ev_walk finds it, but walking from the
 * top only when va is in another 2 MiB than the last walk's: a page table
 * maps 512 pages, and a range's entries are neighbours in it.  The space's
 * lock held.
 */
static inline pte_t *ev_vm_pte(struct ev_vm *vm, unsigned long va)
{
	unsigned long base = va & PMD_MASK;

	if (base != vm->walk_base) {
		pte_t *table = ev_walk(vm->mm, base);

		if (!table)
			return NULL;
		vm->walk_base = base;
		vm->walk_table = table;
	}
	return vm->walk_table + pte_index(va);
}

/* The frame mapped at va in vm (0 if none), and whether it is writable. */
static inline unsigned long ev_vm_pfn(struct ev_vm *vm, unsigned long va, bool *writable)
{
	pte_t *ptep = ev_vm_pte(vm, va);
	pte_t pte;

	if (!ptep)
		return 0;
	pte = ptep_get(ptep);
	if (!ev_pte_mapped(pte))
		return 0;
	if (writable)
		*writable = pte_write(pte);
	return pte_pfn(pte);
}

void ev_vm_sync_tables(struct ev_vm *vm);

#endif /* EV_VM_H */
