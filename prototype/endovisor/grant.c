// SPDX-License-Identifier: GPL-2.0
/*
 * Frames and the grant.  A frame is one page from Linux's page allocator,
 * named by its address in the kernel's direct map; the sandbox's grant is
 * the set of frames it was given, by page frame number.  Only a granted
 * frame can be mapped into a tenant address space, and every frame goes back
 * to Linux at teardown, after the last address space that could map it is
 * gone.  Frames are page-allocator pages, never slab memory, because page
 * tables may point only at whole pages.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/xarray.h>

#include "endovisor.h"

void ev_grant_init(struct ev_grant *g)
{
	xa_init(&g->frames);
	atomic_set(&g->nr, 0);
}

/* The granted page at frame (a direct-map address), or NULL. */
struct page *ev_grant_page(struct ev_grant *g, unsigned long frame)
{
	if (frame & ~PAGE_MASK || !virt_addr_valid((void *)frame))
		return NULL;
	return xa_load(&g->frames, __pa(frame) >> PAGE_SHIFT);
}

/* Is [start, end) made of granted frames?  Safe in hard interrupts. */
bool ev_grant_owns(struct ev_grant *g, unsigned long start, unsigned long end)
{
	unsigned long page;

	if (end <= start || end - start > 2 * PAGE_SIZE)
		return false;	/* callers ask about a few bytes at most */
	for (page = start & PAGE_MASK; page < end; page += PAGE_SIZE)
		if (!ev_grant_page(g, page))
			return false;
	return true;
}

/*
 * frame_grant(count, out): grant count more zeroed frames and write their
 * addresses to out[0 .. count-1], which must be the sandbox's memory.
 */
long ev_svc_frame_grant(struct ev_vcpu *v, unsigned long count, unsigned long out,
			unsigned long a2, unsigned long a3, unsigned long a4)
{
	struct ev_grant *g = &v->sb->grant;
	unsigned long i;

	if (count == 0 || count > EV_GRANT_MAX_CALL)
		return -EINVAL;
	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	if (!ev_sandbox_owns(v->sb, (void *)out, count * sizeof(u64), true))
		return -EFAULT;
	if (atomic_add_return(count, &g->nr) > EV_GRANT_QUOTA) {
		atomic_sub(count, &g->nr);
		return -ENOMEM;
	}
	for (i = 0; i < count; i++) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		u64 addr;

		if (!page)
			goto fail;
		if (xa_err(xa_store(&g->frames, page_to_pfn(page), page, GFP_KERNEL))) {
			__free_page(page);
			goto fail;
		}
		atomic_inc(&ev_live.frames);
		addr = (u64)page_address(page);
		if (ev_sandbox_write(v->sb, (u64 *)out + i, &addr, sizeof(addr)))
			goto fail_next;
	}
	return count;
fail:
	/* The frames already granted stay granted; teardown frees them. */
	atomic_sub(count - i, &g->nr);
	return -ENOMEM;
fail_next:
	atomic_sub(count - i - 1, &g->nr);
	return -EFAULT;
}

void ev_grant_teardown(struct ev_grant *g)
{
	struct page *page;
	unsigned long pfn;

	xa_for_each(&g->frames, pfn, page) {
		__free_page(page);
		atomic_dec(&ev_live.frames);
	}
	xa_destroy(&g->frames);
	atomic_set(&g->nr, 0);
}
