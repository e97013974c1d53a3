/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grant's lookup, inline: vm_batch asks it once for every page it
 * maps, and under emulation a call and its return cost a lookup of the
 * emulator's each (book/src/crossing.md).  The set is described in grant.c.
 */
#ifndef EV_GRANT_H
#define EV_GRANT_H

#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "endovisor.h"

struct ev_pfn_set {
	struct rcu_head rcu;
	unsigned int bits;
	unsigned long slot[];
};

static __always_inline unsigned long ev_pfn_hash(unsigned long pfn, unsigned int bits)
{
	return hash_long(pfn, bits);
}

/* Is pfn in set?  rcu_read_lock held. */
static __always_inline bool ev_pfn_set_has(const struct ev_pfn_set *set, unsigned long pfn)
{
	unsigned long mask = (1UL << set->bits) - 1, i = ev_pfn_hash(pfn, set->bits), s;

	for (;; i = (i + 1) & mask) {
		s = READ_ONCE(set->slot[i]);
		if (s == pfn + 1)
			return true;
		if (!s)
			return false;
	}
}

/*
 * Is the frame (a direct-map address) granted?  Its page, or NULL.  The
 * caller holds rcu_read_lock (a batch of maps holds it across many).  The
 * frame number is the address's offset in the direct map, whatever the
 * address is: one outside the direct map gives a number no granted frame
 * has (the set holds only pages the page allocator gave), and a granted
 * frame's number can only come from that frame's own address.  So no test
 * of the address itself is needed (virt_addr_valid cost as much as the
 * rest of the lookup).
 */
static __always_inline struct page *ev_grant_page_rcu(struct ev_grant *g, unsigned long frame)
{
	struct ev_pfn_set *set = rcu_dereference(g->set);
	unsigned long pfn;

	if (!set || frame & ~PAGE_MASK || frame < PAGE_OFFSET)
		return NULL;
	pfn = (frame - PAGE_OFFSET) >> PAGE_SHIFT;
	return ev_pfn_set_has(set, pfn) ? pfn_to_page(pfn) : NULL;
}

#endif /* EV_GRANT_H */
