// SPDX-License-Identifier: GPL-2.0
/*
 * Copies between sandbox memory and a tenant space, a page at a time
 * through the software walk (vm.h); vm_query, the frame behind a tenant
 * page; and what calibrate.c times of a space.
 */
#include <linux/mm.h>
#include <linux/string.h>
#include <asm/msr.h>

#include "endovisor.h"
#include "calibrate.h"
#include "vm.h"

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

