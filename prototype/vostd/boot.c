// SPDX-License-Identifier: GPL-2.0
/* vOSTD's entry on each vCPU: check what the endovisor handed over, then run the kernel. */
#include "vostd.h"

long vostd_boot(const struct vostd_kernel *k, struct ev_vcpu_shared *shared)
{
	long (*fn)(void) = shared->vcpu == 0 ? k->main : k->ap_main;

	if (shared->abi_version != EV_ABI_VERSION)
		return -EPROTO;
	if (vostd_stack_base()->shared != shared ||
	    vostd_stack_base()->magic != EV_STACK_MAGIC)
		return -EFAULT;
	return fn ? fn() : 0;
}
