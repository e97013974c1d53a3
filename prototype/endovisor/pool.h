/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sandbox's pool: the pages its heap blocks are carved from, taken from
 * Linux as the heap grows and given back only when the sandbox is torn
 * down (pool.c).  The heap (heap.c) calls it under the heap's lock.
 */
#ifndef EV_POOL_H
#define EV_POOL_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mm_types.h>

/* Blocks of 2^EV_POOL_MIN_ORDER (8) to 2^(PAGE_SHIFT - 1) bytes are slab objects. */
#define EV_POOL_MIN_ORDER	3
#define EV_POOL_CLASSES		(PAGE_SHIFT - EV_POOL_MIN_ORDER)
/* Larger ones are runs of 2^0 to 2^EV_POOL_MAX_RUN pages: 4 KiB to 4 MiB. */
#define EV_POOL_MAX_RUN		10
#define EV_POOL_RUNS		(EV_POOL_MAX_RUN + 1)

struct ev_pool_slab;

struct ev_pool {
	struct list_head runs[EV_POOL_RUNS];	/* free runs of 2^j pages, by j */
	struct list_head slabs[EV_POOL_CLASSES];	/* slabs with a free object, by class */
	struct ev_pool_slab *empty[EV_POOL_CLASSES];	/* an empty slab kept for its class */
	unsigned long pages;		/* taken from Linux, in every state */
	unsigned long slab_bytes;	/* the slabs' records, which are Linux's memory */
};

/*
 * What a get needs from outside the heap's lock, which it cannot sleep
 * under: a record for a new slab, or a run of pages from Linux.  The
 * caller drops the lock, prepares it (ev_pool_prepare) and gets again;
 * whatever the get did not use goes back (ev_pool_spare_release).
 */
struct ev_pool_spare {
	int need;		/* what the last get lacked: EV_POOL_NEED_* */
	unsigned int order;	/* the run it lacked, for EV_POOL_NEED_RUN */
	struct ev_pool_slab *slab;
	struct page *run;	/* split: each page its own */
	unsigned int run_order;
};

enum {
	EV_POOL_NEED_NOTHING,
	EV_POOL_NEED_SLAB,	/* a slab's record */
	EV_POOL_NEED_RUN,	/* a run of spare->run_order from Linux */
};

void ev_pool_init(struct ev_pool *p);
void *ev_pool_get(struct ev_pool *p, unsigned int order, unsigned long limit,
		  struct ev_pool_spare *spare);
void ev_pool_put(struct ev_pool *p, void *block, unsigned int order);
int ev_pool_prepare(struct ev_pool_spare *spare);
void ev_pool_spare_release(struct ev_pool_spare *spare);
void ev_pool_teardown(struct ev_pool *p);

/*
 * The tag every other page the sandbox owns carries in its private field
 * (its frames, stacks, globals and shared pages): the pool's own address
 * with the low bit set, which a store check takes as the sandbox's as it
 * takes the pool's pages (ev_sfi in ev_abi.h), and which the pool's own
 * test of a free run (pool.c) never mistakes for one of its pages.
 */
static inline unsigned long ev_owner_tag(const struct ev_pool *p)
{
	return (unsigned long)p | 1;
}

static inline void ev_page_own(struct page *page, const struct ev_pool *p)
{
	set_page_private(page, ev_owner_tag(p));
}

/* Before the page goes back to Linux. */
static inline void ev_page_disown(struct page *page)
{
	set_page_private(page, 0);
}

/* Bytes the pool makes Linux hold: its pages and its slabs' records. */
static inline unsigned long ev_pool_bytes(const struct ev_pool *p)
{
	return READ_ONCE(p->pages) * PAGE_SIZE + READ_ONCE(p->slab_bytes);
}

#endif /* EV_POOL_H */
