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
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "endovisor.h"
#include "grant.h"

/*
 * The grant is a set of page frame numbers, open addressing with linear
 * probing, in an array at most half full: a lookup is a hash and a probe
 * or two, where the xarray it replaced walked three levels of nodes (which
 * cost a frame's map more than the rest of it together, measured).
 * Frames only join it until teardown, so readers need no lock: a slot
 * goes from empty to a frame once.  A grant that would fill it past half
 * builds a bigger one under the grant's lock and publishes it; readers of
 * the old one hold rcu_read_lock, and it is freed after them.  A slot
 * holds pfn + 1, so that 0 is empty.
 */
/* Put pfn into set, which has room: the grant's lock held. */
static void ev_pfn_set_add(struct ev_pfn_set *set, unsigned long pfn)
{
	unsigned long mask = (1UL << set->bits) - 1, i = ev_pfn_hash(pfn, set->bits);

	while (set->slot[i])
		i = (i + 1) & mask;
	WRITE_ONCE(set->slot[i], pfn + 1);
}

static struct ev_pfn_set *ev_pfn_set_alloc(unsigned int bits)
{
	struct ev_pfn_set *set = kvzalloc(struct_size(set, slot, 1UL << bits), GFP_KERNEL);

	if (set)
		set->bits = bits;
	return set;
}

static void ev_pfn_set_free_rcu(struct rcu_head *rcu)
{
	kvfree(container_of(rcu, struct ev_pfn_set, rcu));
}

/* An empty grant: its set comes with its first frames. */
void ev_grant_init(struct ev_grant *g)
{
	mutex_init(&g->lock);
	atomic_set(&g->nr, 0);
	g->frames = 0;
	RCU_INIT_POINTER(g->set, NULL);
}

/*
 * Room in the set for n more frames, growing it if need be: the grant's
 * lock held.  -ENOMEM if Linux has no memory for a bigger one.
 */
static int ev_grant_room(struct ev_grant *g, unsigned long n)
{
	struct ev_pfn_set *old = rcu_dereference_protected(g->set, lockdep_is_held(&g->lock));
	unsigned int bits = old ? old->bits : 6;
	struct ev_pfn_set *new;
	unsigned long i;

	while (2 * (g->frames + n) > 1UL << bits)
		bits++;
	if (old && bits == old->bits)
		return 0;
	new = ev_pfn_set_alloc(bits);
	if (!new)
		return -ENOMEM;
	for (i = 0; old && i < 1UL << old->bits; i++)
		if (old->slot[i])
			ev_pfn_set_add(new, old->slot[i] - 1);
	rcu_assign_pointer(g->set, new);
	if (old)
		call_rcu(&old->rcu, ev_pfn_set_free_rcu);
	return 0;
}

/* The granted page at frame (a direct-map address), or NULL. */
struct page *ev_grant_page(struct ev_grant *g, unsigned long frame)
{
	struct page *page;

	rcu_read_lock();
	page = ev_grant_page_rcu(g, frame);
	rcu_read_unlock();
	return page;
}

/* Is [start, end) made of granted frames?  Safe in hard interrupts. */
bool ev_grant_owns(struct ev_grant *g, unsigned long start, unsigned long end)
{
	unsigned long page;
	bool owns = true;

	if (end <= start || end - start > 2 * PAGE_SIZE)
		return false;	/* callers ask about a few bytes at most */
	rcu_read_lock();
	for (page = start & PAGE_MASK; page < end && owns; page += PAGE_SIZE)
		owns = ev_grant_page_rcu(g, page);
	rcu_read_unlock();
	return owns;
}

/*
 * frame_grant(count, out): grant count more zeroed frames and write their
 * addresses to out[0 .. count-1], which must be the sandbox's memory.  It
 * is one read section (ev_heap_read_begin), so that out, checked once,
 * stays the sandbox's while the addresses go into it: a free of out's
 * block that began before the section bumped the generation first, and
 * the check sees it (ev_sandbox_find); one that begins after waits for
 * the section to end before the block goes (ev_heap_free).
 */
EV_SERVICE_DEFINE2(frame_grant, unsigned long, count, unsigned long, out)
{
	struct ev_grant *g = &v->sb->grant;
	unsigned long i;
	long ret = count;

	if (count == 0 || count > EV_GRANT_MAX_CALL)
		return -EINVAL;
	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	ev_heap_read_begin(v);
	if (!ev_vcpu_owns(v, (void *)out, count * sizeof(u64), true)) {
		ev_heap_read_end(v);
		return -EFAULT;
	}
	if (atomic_add_return(count, &g->nr) > EV_GRANT_QUOTA) {
		atomic_sub(count, &g->nr);
		ev_heap_read_end(v);
		return -ENOMEM;
	}
	mutex_lock(&g->lock);
	i = 0;
	if (!ev_grant_room(g, count)) {
		struct ev_pfn_set *set = rcu_dereference_protected(g->set,
								   lockdep_is_held(&g->lock));

		for (; i < count; i++) {
			struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

			if (!page)
				break;
			ev_pfn_set_add(set, page_to_pfn(page));
			ev_page_own(page, &v->sb->heap.pool);
			g->frames++;
			atomic_inc(&ev_live.frames);
			((u64 *)out)[i] = (u64)page_address(page);
		}
	}
	mutex_unlock(&g->lock);
	ev_heap_read_end(v);
	if (i < count) {
		/* The frames already granted stay granted; teardown frees them. */
		atomic_sub(count - i, &g->nr);
		ret = -ENOMEM;
	}
	return ret;
}

/* Bytes of the grant's set now. */
unsigned long ev_grant_set_bytes(struct ev_grant *g)
{
	unsigned long bytes;

	mutex_lock(&g->lock);
	bytes = g->set ? struct_size(g->set, slot, 1UL << rcu_dereference_protected(g->set,
					    lockdep_is_held(&g->lock))->bits) : 0;
	mutex_unlock(&g->lock);
	return bytes;
}

/* Teardown: every frame back to Linux; no space maps any now. */
void ev_grant_teardown(struct ev_grant *g)
{
	struct ev_pfn_set *set = rcu_dereference_protected(g->set, true);
	unsigned long i;

	for (i = 0; set && i < 1UL << set->bits; i++) {
		if (set->slot[i]) {
			struct page *page = pfn_to_page(set->slot[i] - 1);

			ev_page_disown(page);
			__free_page(page);
			atomic_dec(&ev_live.frames);
		}
	}
	kvfree(set);
	RCU_INIT_POINTER(g->set, NULL);
	g->frames = 0;
	atomic_set(&g->nr, 0);
}
