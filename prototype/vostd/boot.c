// SPDX-License-Identifier: GPL-2.0
/*
 * vOSTD's entry on each vCPU: check what the endovisor handed over, tell it
 * where upcalls enter, then run the kernel.
 */
#include "sanitize.h"

long vostd_boot(const struct vostd_kernel *k, struct ev_vcpu_shared *shared)
{
	long (*fn)(void) = shared->vcpu == 0 ? k->main : k->ap_main;
	long ret;

	BUILD_BUG_ON(offsetof(struct ev_vcpu_shared, upcall_ip) != EV_SHARED_UPCALL_IP);
	BUILD_BUG_ON(offsetof(struct ev_stack_base, shared) != EV_STACK_BASE_SHARED);
	BUILD_BUG_ON(sizeof(struct vostd_globals) > 4096);	/* the globals page */
	if (shared->abi_version != EV_ABI_VERSION)
		return -EPROTO;
	if (vostd_stack_base()->shared != shared ||
	    vostd_stack_base()->magic != EV_STACK_MAGIC)
		return -EFAULT;
	ret = vostd_svc_set_upcall((unsigned long)vostd_upcall_entry);
	if (ret)
		return ret;
	ret = fn ? fn() : 0;
	/*
	 * The last vCPU out gives back the kernel's slot and what vOSTD's
	 * memory layer holds of the heap, so that a kernel that frees all it
	 * allocated leaves no block; in checking mode, after the checking
	 * mode's last look at every object (vostd_san_teardown).
	 */
	if (__atomic_add_fetch(&vostd_globals()->gone, 1, __ATOMIC_ACQ_REL) == vostd_nr_cpus()) {
		if (vostd_checking())
			vostd_san_teardown();
		vostd_global_release(VOSTD_SLOT_KERNEL);
		vostd_mm_release();
	}
	/* A failed test case, or a report, fails the run, whatever the kernel returned. */
	if (!ret && (vostd_tests_failed() || vostd_san_reports()))
		ret = -EIO;
	return ret;
}
