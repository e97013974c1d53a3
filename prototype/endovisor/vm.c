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
#include "vm.h"
#include "tenant.h"

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
struct ev_vm *ev_vm_get_locked(struct ev_vcpu *v, unsigned long handle, bool tables)
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

/*
 * Bring the space's charge up to Linux's count of its page tables, and the
 * sandbox's total with it.  No lock: the fault handler, which holds the
 * mmap lock, cannot take vm->lock (the writers take it first).  Each sync
 * moves the total by exactly what it changes the space's charge by, so
 * the total is the sum of the charges whatever order syncs run in; and a
 * sync whose count went stale before its swap, under a racing one that
 * read a newer count, goes round again, so that the last swap is current.
 */
void ev_vm_sync_tables(struct ev_vm *vm)
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
 * current, a carrier, adopts next as its mm: to run a tenant in it, or to
 * map into it (vm_create).  The launcher's own mm is the thread's,
 * whose reference it keeps throughout; any other is referenced while it is
 * current.
 */
void ev_switch_mm(struct ev_vcpu *v, struct mm_struct *next)
{
	struct mm_struct *prev = current->mm;

	if (prev == next)
		return;
	if (next != v->tenant.home_mm)
		mmget(next);
	task_lock(current);
	local_irq_disable();
	current->active_mm = next;
	current->mm = next;
	ev_linux.switch_mm_irqs_off(prev, next, current);
	local_irq_enable();
	task_unlock(current);
	if (prev != v->tenant.home_mm)
		mmput(prev);
}

/*
 * The carrier adopts vm's mm (its own, for NULL), taking over the
 * reference to vm the caller took with ev_vm_use (none, if it is the
 * carrier's already); kernelet_switch_mm comes here.
 */
void ev_vm_adopt(struct ev_vcpu *v, struct ev_vm *vm)
{
	if (v->tenant.vm == vm)
		return;		/* the carrier holds it, and took no other reference */
	ev_switch_mm(v, vm ? ev_vm_mm(vm) : v->tenant.home_mm);
	if (v->tenant.vm)
		ev_vm_put(v->tenant.vm);
	WRITE_ONCE(v->tenant.vm, vm);
}

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
			ev_vm_adopt(v, NULL);
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

