// SPDX-License-Identifier: GPL-2.0
/*
 * Tenant address spaces and their page tables.
 *
 * A tenant address space is a Linux mm of its own (mm_alloc, resolved at
 * load) holding one mapping, the tenant region: [EV_TENANT_BASE,
 * EV_TENANT_BASE + EV_TENANT_SIZE), created with vm_mmap on a file of the
 * endovisor's, whose mmap marks it VM_PFNMAP and shared.  The endovisor
 * writes that region's page-table entries itself with apply_to_page_range:
 * a vm_map puts a granted frame's entry straight into the mm's page table,
 * so a tenant's first touch of the page is a TLB miss and a hardware walk,
 * never a fault.  The entries are "special" (pte_mkspecial): Linux neither
 * counts nor frees the frames behind them, because the grant owns those;
 * when the mm goes away Linux clears the entries and frees the page tables
 * the region used.
 *
 * The endovisor is the only writer of these entries: Linux's own page-table
 * walkers (reclaim, NUMA balancing, khugepaged) skip VM_PFNMAP mappings, the
 * tenant's system calls never reach Linux, and the mm cannot go away while
 * the endovisor holds it.  So the entries are written under the space's own
 * mutex, found by a walk of the page table in software (ev_walk), and
 * apply_to_page_range is called only to allocate a missing page table.
 * The copies hold the same mutex from each walk to the end of its copy, so
 * that no protect, unmap or destroy changes an entry between the two.
 *
 * What a sandbox can make Linux hold in page tables is bounded: its spaces
 * together map at most EV_MAP_QUOTA pages and use at most EV_PT_QUOTA
 * pages of page tables (as Linux counts them, mm_pgtables_bytes); a map
 * past either bound is refused with -ENOSPC.  Linux allocates tables of
 * its own too: a fault in the region finds its PUD and PMD allocated by
 * Linux's fault path before the fault handler runs.  So each space's
 * charge is Linux's count, brought up to date after every map that
 * allocates and at every fault (ev_vm_sync_tables); a fault cannot be
 * refused, so tenant_run is, once the tables reach the bound, and each
 * run ends at its first fault.  Page tables stay until their mm goes, so
 * an unmap gives back mapped pages but not tables; vm_destroy gives back
 * the pages at once and the tables when the mm goes with the last
 * reference.
 *
 * A handle is taken with a reference (ev_vm_get) and the space locked
 * after; vm_destroy may have unpublished and zapped it in between.  So
 * ev_vm_free marks the space dead under its lock, and every service that
 * takes a space by handle to read or write its entries takes it through
 * ev_vm_get_locked, which refuses a dead one with -EBADF: a map into a
 * zapped space would stay mapped, and charged, for ever.
 *
 * A page fault in the region (an unmapped page, or a write to a page mapped
 * read-only) reaches the endovisor's fault handler, which hands it to the
 * sandbox kernel as a trap (trap.c) instead of resolving it.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/msr.h>

#include "endovisor.h"
#include "grant.h"

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

struct mm_struct *ev_vm_mm(struct ev_vm *vm)
{
	return vm->mm;
}

/* Takes a reference; NULL for a handle that names no space of this sandbox. */
struct ev_vm *ev_vm_get(struct ev_sandbox *sb, unsigned long handle)
{
	long i = ev_index(handle, 1, EV_MAX_VMS);
	struct ev_vm *vm;

	if (i < 0)
		return NULL;
	rcu_read_lock();
	vm = rcu_dereference(sb->vms[i]);
	if (vm && !refcount_inc_not_zero(&vm->users))
		vm = NULL;
	rcu_read_unlock();
	return vm;
}

/*
 * The last reference takes the mm with it, and its page tables, which stop
 * counting against the sandbox's bound only then; the struct waits a grace
 * period, since ev_vm_get may still be looking at it.
 */
void ev_vm_put(struct ev_vm *vm)
{
	if (!refcount_dec_and_test(&vm->users))
		return;
	mmput(vm->mm);
	atomic_long_sub(atomic_long_xchg(&vm->table_bytes, 0), &vm->sb->vm_table_bytes);
	kfree_rcu(vm, rcu);
	atomic_dec(&ev_live.vms);
}

/*
 * The space a handle names, for a service of v: the one v's carrier holds,
 * without a reference of its own, or any other with one; NULL if none.
 * Given back with ev_vm_release.
 */
struct ev_vm *ev_vm_use(struct ev_vcpu *v, unsigned long handle)
{
	struct ev_vm *vm = v->tenant.vm;
	long i = ev_index(handle, 1, EV_MAX_VMS);

	if (vm && i >= 0 && rcu_access_pointer(v->sb->vms[i]) == vm)
		return vm;
	return ev_vm_get(v->sb, handle);
}

/* Drops what ev_vm_use took (with ev_vm_get_locked: the locks were dropped already). */
void ev_vm_release(struct ev_vcpu *v, struct ev_vm *vm)
{
	if (vm != v->tenant.vm)
		ev_vm_put(vm);
}

/*
 * The space a handle names, for a service of v, locked, if it is still
 * live; ERR_PTR(-EBADF) if not.  Page-table writers (tables) hold Linux's
 * mmap lock shared too.  Every service that takes a space by handle and
 * then reads or writes its entries comes through here, and gives the
 * space back through ev_vm_release.  The space v's carrier holds (the one
 * whose tenants it runs) is kept alive by the carrier's reference, which
 * only this carrier's own services drop: for it no reference is taken.
 * Any other is referenced first.
 */
static struct ev_vm *ev_vm_get_locked(struct ev_vcpu *v, unsigned long handle,
				      bool tables)
{
	struct ev_vm *vm = ev_vm_use(v, handle);

	if (!vm)
		return ERR_PTR(-EBADF);
	mutex_lock(&vm->lock);
	if (vm->dead) {
		mutex_unlock(&vm->lock);
		if (vm != v->tenant.vm)
			ev_vm_put(vm);
		return ERR_PTR(-EBADF);
	}
	if (tables)
		mmap_read_lock(vm->mm);
	return vm;
}

static void ev_vm_unlock(struct ev_vm *vm, bool tables)
{
	if (tables)
		mmap_read_unlock(vm->mm);
	mutex_unlock(&vm->lock);
}

/*
 * Bring the space's charge up to Linux's count of its page tables, and the
 * sandbox's total with it.  No lock: the fault handler, which holds the
 * mmap lock, cannot take vm->lock (the writers take it first).  Each sync
 * moves the total by exactly what it changes the space's charge by, so
 * the total is the sum of the charges whatever order syncs run in; and a
 * sync whose count went stale before its swap, under a racing one that
 * read a newer count, goes round again, so that the last swap is current.
 */
static void ev_vm_sync_tables(struct ev_vm *vm)
{
	long now;

	do {
		now = mm_pgtables_bytes(vm->mm);
		atomic_long_add(now - atomic_long_xchg(&vm->table_bytes, now),
				&vm->sb->vm_table_bytes);
	} while (mm_pgtables_bytes(vm->mm) != now);
}

/*
 * Have the sandbox's page tables reached EV_PT_QUOTA?  Then tenant_run is
 * refused: the one fault a run can take may make Linux allocate tables,
 * and a fault cannot be refused.
 */
bool ev_vm_tables_full(struct ev_sandbox *sb)
{
	return atomic_long_read(&sb->vm_table_bytes) >= (long)EV_PT_QUOTA * PAGE_SIZE;
}

/*
 * A tenant's fault becomes a trap for the kernel proper; Linux is told the
 * page is there, so that it retries once the tenant resumes.  A fault from
 * kernel mode (a signal frame, a copy to user on a tenant's behalf) is no
 * tenant's trap, and the trap would only come at the return to user mode:
 * retrying would loop for ever, so the access fails as a bad user address.
 */
static vm_fault_t ev_vm_fault(struct vm_fault *vmf)
{
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	struct ev_vm *vm = vmf->vma->vm_private_data;

	/* Linux's fault path allocated the tables on the way here. */
	ev_vm_sync_tables(vm);
	if (!(vmf->flags & FAULT_FLAG_USER) || !ev_tenant_fault(vm, vmf->address, write))
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

static const struct vm_operations_struct ev_tenant_vm_ops = {
	.fault = ev_vm_fault,
	/* A write to a page mapped read-only: without this Linux would make it writable. */
	.pfn_mkwrite = ev_vm_fault,
};

static int ev_tenant_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ev_vm *vm = file->private_data;

	if (vma->vm_mm != vm->mm || vma->vm_start != EV_TENANT_BASE ||
	    vma->vm_end != EV_TENANT_BASE + EV_TENANT_SIZE)
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &ev_tenant_vm_ops;
	vma->vm_private_data = vm;
	return 0;
}

static const struct file_operations ev_tenant_fops = {
	.owner = THIS_MODULE,
	.mmap = ev_tenant_mmap,
};

/* vm_create(): a new tenant address space with its region in place. */
EV_SERVICE_DEFINE0(vm_create)
{
	struct ev_sandbox *sb = v->sb;
	struct mm_struct *was = current->mm;
	struct file *file;
	unsigned long addr;
	struct ev_vm *vm;
	unsigned int i;
	long ret;

	if (ev_sandbox_ending(sb))
		return -ESHUTDOWN;
	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return -ENOMEM;
	vm->sb = sb;
	vm->walk_base = 1;
	refcount_set(&vm->users, 1);
	atomic_long_set(&vm->table_bytes, 0);
	mutex_init(&vm->lock);
	vm->mm = ev_linux.mm_alloc();
	if (!vm->mm) {
		kfree(vm);
		return -ENOMEM;
	}
#ifdef CONFIG_MEMCG
	/*
	 * mm_alloc makes this carrier the mm's owner, and nothing would
	 * change it when the carrier exits while other carriers still run
	 * the space: memcg would then read a freed task at a fault.  No task
	 * owns a tenant's mm; memcg charges it to the root.
	 */
	RCU_INIT_POINTER(vm->mm->owner, NULL);
#endif
	vm->mm->task_size = TASK_SIZE_MAX;
	vm->mm->mmap_base = EV_TENANT_BASE;
	file = anon_inode_getfile("[endovisor-tenant]", &ev_tenant_fops, vm, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto fail;
	}
	/* vm_mmap maps into current->mm, so the carrier adopts the new mm for it. */
	ev_switch_mm(v, vm->mm);
	addr = vm_mmap(file, EV_TENANT_BASE, EV_TENANT_SIZE,
		       PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED | MAP_FIXED, 0);
	ev_switch_mm(v, was);
	fput(file);		/* the mapping holds its own reference */
	if (IS_ERR_VALUE(addr)) {
		ret = addr;
		goto fail;
	}
	mutex_lock(&sb->vm_lock);
	for (i = 0; i < EV_MAX_VMS; i++)
		if (!rcu_access_pointer(sb->vms[i]))
			break;
	if (i == EV_MAX_VMS) {
		mutex_unlock(&sb->vm_lock);
		ret = -ENOSPC;
		goto fail;
	}
	vm->slot = i;
	rcu_assign_pointer(sb->vms[i], vm);
	mutex_unlock(&sb->vm_lock);
	atomic_inc(&ev_live.vms);
	return i + 1;
fail:
	mmput(vm->mm);
	kfree(vm);
	return ret;
}

/*
 * Unpublish the space, mark it dead and clear its region, so that no frame
 * stays reachable through it; the mm itself (and its page tables) goes
 * with the last reference, which a carrier that last ran one of its
 * tenants may hold for a while yet.  vm_lock held.
 */
static void ev_vm_free(struct ev_sandbox *sb, struct ev_vm *vm)
{
	struct vm_area_struct *vma;

	RCU_INIT_POINTER(sb->vms[vm->slot], NULL);
	mutex_lock(&vm->lock);
	vm->dead = true;
	mmap_read_lock(vm->mm);
	vma = find_vma(vm->mm, EV_TENANT_BASE);
	if (vma && vma->vm_start == EV_TENANT_BASE)
		zap_vma_ptes(vma, EV_TENANT_BASE, EV_TENANT_SIZE);
	mmap_read_unlock(vm->mm);
	/* Its pages no longer count against the sandbox's bound. */
	atomic_long_sub(vm->mapped, &sb->vm_pages);
	vm->mapped = 0;
	mutex_unlock(&vm->lock);
	ev_vm_put(vm);
}

/* Is a tenant of vm running on one of the sandbox's vCPUs? */
static bool ev_vm_running(struct ev_sandbox *sb, struct ev_vm *vm)
{
	unsigned int i;

	for (i = 0; i < sb->nr_vcpus; i++)
		if (READ_ONCE(sb->vcpus[i]->tenant.running) &&
		    READ_ONCE(sb->vcpus[i]->tenant.vm) == vm)
			return true;
	return false;
}

/*
 * vm_destroy(vm): the handle goes at once, the space when no carrier
 * holds it; -EBUSY while a tenant runs in it.  The caller's own carrier
 * lets go of it first if it last ran it, so that its page tables, which
 * count until the mm goes, are given back at once.
 */
EV_SERVICE_DEFINE1(vm_destroy, unsigned long, handle)
{
	struct ev_sandbox *sb = v->sb;
	struct ev_vm *vm = ev_vm_get(sb, handle);
	long i = ev_index(handle, 1, EV_MAX_VMS), ret = 0;

	if (vm) {
		if (vm == v->tenant.vm)
			ev_svc_vm_activate(v, 0, 0, 0, 0, 0);
		ev_vm_put(vm);
	}
	mutex_lock(&sb->vm_lock);
	vm = i >= 0 ? rcu_dereference_protected(sb->vms[i], lockdep_is_held(&sb->vm_lock)) : NULL;
	if (!vm)
		ret = -EBADF;
	else if (ev_vm_running(sb, vm))
		ret = -EBUSY;
	else
		ev_vm_free(sb, vm);
	mutex_unlock(&sb->vm_lock);
	return ret;
}

/* Teardown: no carrier is left, so every space can go. */
void ev_vm_teardown(struct ev_sandbox *sb)
{
	unsigned int i;

	mutex_lock(&sb->vm_lock);
	for (i = 0; i < EV_MAX_VMS; i++) {
		struct ev_vm *vm = rcu_dereference_protected(sb->vms[i], true);

		if (vm)
			ev_vm_free(sb, vm);
	}
	mutex_unlock(&sb->vm_lock);
}

/* Is the run of pages at va, pages long, page-aligned and inside the tenant region? */
static bool ev_va_ok(unsigned long va, unsigned long pages)
{
	return !(va & ~PAGE_MASK) && pages &&
	       pages <= EV_TENANT_SIZE >> PAGE_SHIFT &&
	       va >= EV_TENANT_BASE &&
	       va - EV_TENANT_BASE <= EV_TENANT_SIZE - (pages << PAGE_SHIFT);
}

static bool ev_prot_ok(unsigned long prot)
{
	return !(prot & ~(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC)) &&
	       (prot & EV_PROT_READ);
}

/*
 * The bits of an entry for each EV_PROT_* combination, all but the frame:
 * present, user, accessed, dirty if writable, executable only if asked,
 * and special.  A read-only entry is never dirty: on x86 Write=0, Dirty=1
 * means a shadow-stack page.  Set at load (ev_vm_module_init), so that
 * making an entry is a shift and an or.
 */
static pteval_t ev_pte_bits[(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC) + 1];
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
 * The entry for pfn with prot (checked by ev_prot_ok): a present entry's
 * bits are its frame's and prot's.
 */
static pte_t ev_pte(unsigned long pfn, unsigned long prot)
{
	return __pte(((pteval_t)pfn << PAGE_SHIFT) | ev_pte_bits[prot]);
}

/* Is pte one of the endovisor's: present and special? */
static bool ev_pte_mapped(pte_t pte)
{
	return pte_present(pte) && pte_special(pte);
}

/*
 * The entry that maps va in mm, or NULL if a page table on the way is
 * missing.  The region is never mapped with huge pages, and its page tables
 * are freed only when the mm goes, so the walk needs no lock of Linux's.
 */
static pte_t *ev_walk(struct mm_struct *mm, unsigned long va)
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
static pte_t *ev_vm_pte(struct ev_vm *vm, unsigned long va)
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
static unsigned long ev_vm_pfn(struct ev_vm *vm, unsigned long va, bool *writable)
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

#define EV_COPY_MAX	BIT(20)

/*
 * Copy len bytes between sandbox memory and tenant memory, a page at a
 * time, each page found by a software walk of the tenant's page table.
 * The space's lock is held throughout, as the page-table writers hold it:
 * otherwise a copy_to_tenant could find a page writable, lose the
 * processor while another vCPU's fork made the frame read-only and shared
 * with a child, and then write into the child's memory.  The read section
 * is inside it, as vm_batch's is.
 */
static long ev_copy_tenant(struct ev_vcpu *v, unsigned long handle, unsigned long kaddr,
			   unsigned long uaddr, unsigned long len, bool to_tenant)
{
	struct ev_vm *vm;
	long ret = 0;

	if (len == 0 || len > EV_COPY_MAX)
		return -EINVAL;
	if (uaddr < EV_TENANT_BASE || uaddr - EV_TENANT_BASE > EV_TENANT_SIZE - len)
		return -EFAULT;	/* outside the tenant region: a kernel address, say */
	vm = ev_vm_get_locked(v, handle, false);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	/*
	 * The sandbox's buffer stays its own until the copy is done: one read
	 * section from the check to the last page, as ev_sandbox_write has for
	 * its one small copy.  A free of it from another vCPU is either seen
	 * by the check or waits for the section (ev_heap_free).
	 */
	ev_heap_read_begin(v);
	if (!ev_vcpu_owns(v, (void *)kaddr, len, !to_tenant)) {
		ret = -EFAULT;
		len = 0;
	}
	while (len) {
		unsigned long off = uaddr & ~PAGE_MASK, n = min(len, PAGE_SIZE - off);
		bool writable = false;
		unsigned long pfn = ev_vm_pfn(vm, uaddr & PAGE_MASK, &writable);
		char *frame = pfn ? pfn_to_kaddr(pfn) : NULL;

		if (!frame || (to_tenant && !writable)) {
			ret = -EFAULT;
			break;
		}
		if (to_tenant)
			memcpy(frame + off, (void *)kaddr, n);
		else
			memcpy((void *)kaddr, frame + off, n);
		uaddr += n;
		kaddr += n;
		len -= n;
	}
	ev_heap_read_end(v);
	ev_vm_unlock(vm, false);
	ev_vm_release(v, vm);
	return ret;
}

/* copy_from_tenant(vm, dst, src, len): -EFAULT at an unmapped page. */
EV_SERVICE_DEFINE4(copy_from_tenant, unsigned long, vm, unsigned long, dst,
		   unsigned long, src, unsigned long, len)
{
	return ev_copy_tenant(v, vm, dst, src, len, false);
}

/* copy_to_tenant(vm, dst, src, len): -EFAULT at an unmapped or read-only page. */
EV_SERVICE_DEFINE4(copy_to_tenant, unsigned long, vm, unsigned long, dst,
		   unsigned long, src, unsigned long, len)
{
	return ev_copy_tenant(v, vm, src, dst, len, true);
}

/*
 * vm_query(vm, va): the frame mapped at va, with the entry's EV_PROT_* bits
 * in the low bits of the result (a frame is page-aligned); -ENOENT if
 * nothing is mapped there.  OSTD's cursor query: what a kernel proper's
 * fault handler asks to find the frame behind a faulting page.
 */
EV_SERVICE_DEFINE2(vm_query, unsigned long, handle, unsigned long, va)
{
	unsigned long pfn, prot = EV_PROT_READ;
	struct ev_vm *vm = ev_vm_get_locked(v, handle, false);
	pte_t *ptep = NULL;
	pte_t pte;

	if (IS_ERR(vm))
		return PTR_ERR(vm);
	/* A bad handle is -EBADF whatever va is, as the other services have it. */
	if (ev_va_ok(va, 1))
		ptep = ev_vm_pte(vm, va);
	pte = ptep ? ptep_get(ptep) : __pte(0);
	ev_vm_unlock(vm, false);
	ev_vm_release(v, vm);
	if (!ev_va_ok(va, 1))
		return -EINVAL;
	if (!ev_pte_mapped(pte))
		return -ENOENT;
	pfn = pte_pfn(pte);
	if (pte_write(pte))
		prot |= EV_PROT_WRITE;
	if (pte_exec(pte))
		prot |= EV_PROT_EXEC;
	return (long)pfn_to_kaddr(pfn) | prot;
}

/*
 * For calibrate: what a space makes Linux and the endovisor hold beyond
 * the frames it maps: its page tables as Linux counts them, its top-level
 * table (two pages with page-table isolation), and its record here; not
 * the mm_struct, the mapping's VMA and file, which are of fixed size.
 * -EBADF for no such space.
 */
long ev_vm_bytes(struct ev_vcpu *v, unsigned long handle)
{
	struct ev_vm *vm = ev_vm_use(v, handle);
	long bytes;

	if (!vm)
		return -EBADF;
	bytes = mm_pgtables_bytes(vm->mm) +
		(PAGE_SIZE << (cpu_feature_enabled(X86_FEATURE_PTI) ? 1 : 0)) + ksize(vm);
	ev_vm_release(v, vm);
	return bytes;
}

/*
 * For calibrate.c (calibrate.h): n software walks of the run of pages from va, a page
 * further each time, each timed into s[i], as the copies walk (through the
 * space's last page table) or, with full, from the top each time; -EFAULT
 * if one is not mapped, -EBADF if the space was destroyed since the caller
 * took it.
 */
int ev_vm_cal_walk(struct ev_vm *vm, unsigned long va, unsigned long pages,
		   u64 *s, unsigned int n, bool full)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&vm->lock);
	if (vm->dead)
		ret = -EBADF;
	for (i = 0; i < n && !ret; i++) {
		unsigned long at = va + (i % pages) * PAGE_SIZE, pfn;
		u64 t0 = rdtsc_ordered();

		if (full)
			vm->walk_base = 1;
		pfn = ev_vm_pfn(vm, at, NULL);
		s[i] = rdtsc_ordered() - t0;
		if (!pfn) {
			ret = -EFAULT;
			break;
		}
	}
	mutex_unlock(&vm->lock);
	return ret;
}

/* For calibrate.c (calibrate.h): the space's lock taken and released n times, each timed. */
void ev_vm_cal_lock(struct ev_vm *vm, u64 *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u64 t0 = rdtsc_ordered();

		mutex_lock(&vm->lock);
		mutex_unlock(&vm->lock);
		s[i] = rdtsc_ordered() - t0;
	}
}

