// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox heap.  Small objects come from vOSTD's slab (slab.c), carved
 * out of granted frames with no crossing; larger ones, and any the slab
 * cannot give, are blocks of the endovisor's mem_alloc, one crossing each.
 * In checking mode every object goes through sanitize.c instead, which
 * takes its memory from the same two; the switch is one test of a word
 * of the vCPU's shared page.
 */
#include "sanitize.h"

void *vostd_heap_alloc(size_t size, bool zero)
{
	long ret = vostd_svc_mem_alloc(size, zero ? EV_MEM_ZERO : 0);

	return vostd_is_err(ret) ? NULL : (void *)ret;
}

long vostd_heap_free(void *p)
{
	return vostd_svc_mem_free((unsigned long)p);
}

static __always_inline void *heap_alloc(size_t size, bool zero)
{
	void *p = NULL;

	if (size - 1 < VOSTD_SLAB_MAX)
		p = vostd_slab_alloc(size, zero);
	return p ? p : vostd_heap_alloc(size, zero);
}

static __always_inline long heap_free(void *p)
{
	long ret = vostd_slab_free(p);

	return ret == VOSTD_SLAB_NOT_MINE ? vostd_heap_free(p) : ret;
}

void *vostd_alloc_at(size_t size, bool zero, const struct vostd_site *site)
{
	if (unlikely(vostd_checking()))
		return vostd_san_alloc(size, zero, site);
	return heap_alloc(size, zero);
}

long vostd_free_at(void *p, const struct vostd_site *site)
{
	if (unlikely(vostd_checking()))
		return vostd_san_free(p, site);
	return heap_free(p);
}

void *vostd_alloc_unchecked(size_t size, bool zero)
{
	return heap_alloc(size, zero);
}

long vostd_free_unchecked(void *p)
{
	return heap_free(p);
}

/*
 * Slots are on the endovisor's heap, never the slab's: the slab's own
 * state and the frame pool it draws on hang off slots.
 */
void *vostd_global(enum vostd_slot slot, size_t size)
{
	void **slots = vostd_slots();
	void *p = __atomic_load_n(&slots[slot], __ATOMIC_ACQUIRE), *expected = NULL;

	if (likely(p))
		return p;
	p = vostd_heap_alloc(size, true);
	if (!p)
		return NULL;
	if (!__atomic_compare_exchange_n(&slots[slot], &expected, p, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		vostd_heap_free(p);	/* another vCPU was first */
		p = expected;
	}
	return p;
}

/*
 * Give back the slot's object, once nothing will use it again: each
 * slot's owner calls it as the last vCPU leaves (the kernelet at its stop,
 * the memory layer in vostd_mm_release, vostd_boot for the kernel's),
 * after freeing what the object points to.
 */
void vostd_global_release(enum vostd_slot slot)
{
	void *p = vostd_slots()[slot];

	if (p) {
		__atomic_store_n(&vostd_slots()[slot], NULL, __ATOMIC_RELEASE);
		vostd_heap_free(p);
	}
}
