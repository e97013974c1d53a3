// SPDX-License-Identifier: GPL-2.0
/* The sandbox heap: every block is one mem_alloc, recorded by the endovisor. */
#include "vostd.h"

void *vostd_alloc(size_t size, bool zero)
{
	long ret = vostd_svc_mem_alloc(size, zero ? EV_MEM_ZERO : 0);

	return vostd_is_err(ret) ? NULL : (void *)ret;
}

long vostd_free(void *p)
{
	return vostd_svc_mem_free((unsigned long)p);
}

void *vostd_global(enum vostd_slot slot, size_t size)
{
	void **slots = vostd_slots();
	void *p = __atomic_load_n(&slots[slot], __ATOMIC_ACQUIRE), *expected = NULL;

	if (likely(p))
		return p;
	p = vostd_alloc(size, true);
	if (!p)
		return NULL;
	if (!__atomic_compare_exchange_n(&slots[slot], &expected, p, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		vostd_free(p);		/* another vCPU was first */
		p = expected;
	}
	return p;
}
