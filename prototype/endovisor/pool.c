// SPDX-License-Identifier: GPL-2.0
/*
 * A sandbox's pool: the memory its heap blocks are made of.  Every block
 * mem_alloc gives out is carved from pages the pool took from Linux's page
 * allocator for this sandbox alone, and a block mem_free takes back goes
 * back to the pool, to be given out again to the same sandbox; the pages
 * go back to Linux only at teardown, when no carrier of the sandbox can
 * run.  So whatever a sandbox kernel does with a block after freeing it
 * (a use after free in a kernel proper, a service that raced the free)
 * lands in memory that is still its own, never in an object Linux or
 * another sandbox has been given since.  kmalloc, which the heap used
 * before, hands a freed block to the next caller of its size anywhere in
 * Linux, and keeps its free list inside freed objects.
 *
 * Nothing of the pool's lies in the pool's pages: a page's state is in
 * Linux's struct page (its private field names the pool, its index says
 * what the page is), a slab's bitmap in a record of the endovisor's, and
 * the lists link struct pages and records.  A write into a freed block
 * spoils that block and nothing else.
 *
 * Two allocators, as Linux's own: runs of 2^j pages, split and merged as
 * buddies (a run of 2^j pages starts at a page frame number that is a
 * multiple of 2^j, so its direct-map address is aligned to its size), for
 * blocks of 4 KiB to 4 MiB; and slabs, one page each, of objects of one
 * power of two from 8 bytes to 2 KiB, aligned to their size, with a bit
 * for each object in the slab's record.  A slab is taken from the runs
 * and goes back to them once empty, but for one empty slab kept per size,
 * so that a block allocated and freed in a loop does not make and unmake
 * a slab each time.  The pool grows only when no free run is large
 * enough: it takes from Linux exactly the run it lacks.
 *
 * Who may touch it: the heap, under the heap's lock; ev_pool_prepare,
 * which sleeps, outside it; ev_pool_teardown alone.
 */
#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "endovisor.h"

/*
 * A page's index while the pool holds it: 0 for a page given out or
 * inside a run; EV_POOL_FREE(j) for the first page of a free run of 2^j
 * pages; the address of its record for a slab's page (a kernel address,
 * never so small).
 */
#define EV_POOL_FREE(j)		((unsigned long)(j) + 1)

/* A slab: one page of objects of 2^order bytes. */
struct ev_pool_slab {
	struct list_head node;		/* on its class's list while it has a free object */
	struct page *page;
	unsigned int order;
	unsigned int free;		/* objects not given out */
	unsigned long used[BITS_TO_LONGS(PAGE_SIZE >> EV_POOL_MIN_ORDER)];	/* set: given out */
};

void ev_pool_init(struct ev_pool *p)
{
	unsigned int i;

	for (i = 0; i < EV_POOL_RUNS; i++)
		INIT_LIST_HEAD(&p->runs[i]);
	for (i = 0; i < EV_POOL_CLASSES; i++) {
		INIT_LIST_HEAD(&p->slabs[i]);
		p->empty[i] = NULL;
	}
	p->pages = 0;
	p->slab_bytes = 0;
}

/*
 * Is page the first page of a free run of 2^j pages of p?  The page may be
 * any of Linux's, in use by anyone: the buddy of a run of p's need not be
 * p's.  Only p writes p's address into a page's private field, and p
 * clears it before a page goes back to Linux, so the test is exact; its
 * reads may race another owner's writes, whose values it then rejects.
 */
static bool ev_pool_free_run(const struct ev_pool *p, struct page *page, unsigned int j)
{
	return data_race(page_private(page)) == (unsigned long)p &&
	       data_race(page->index) == EV_POOL_FREE(j);
}

static void ev_pool_run_add(struct ev_pool *p, struct page *page, unsigned int j)
{
	page->index = EV_POOL_FREE(j);
	list_add(&page->lru, &p->runs[j]);
}

/*
 * A free run of 2^j pages back into p, merged with its buddy as long as
 * the buddy is a free run of p's of the same size.
 */
static void ev_pool_run_put(struct ev_pool *p, struct page *page, unsigned int j)
{
	unsigned long pfn = page_to_pfn(page);

	for (; j < EV_POOL_MAX_RUN; j++) {
		unsigned long buddy_pfn = pfn ^ (1UL << j);
		struct page *buddy = pfn_to_page(buddy_pfn);

		if (!ev_pool_free_run(p, buddy, j))
			break;
		list_del(&buddy->lru);
		buddy->index = 0;
		pfn &= buddy_pfn;
	}
	ev_pool_run_add(p, pfn_to_page(pfn), j);
}

/* The pages of a run just taken from Linux become p's, given out. */
static void ev_pool_run_adopt(struct ev_pool *p, struct page *run, unsigned int j)
{
	unsigned long i;

	for (i = 0; i < 1UL << j; i++) {
		struct page *page = nth_page(run, i);

		set_page_private(page, (unsigned long)p);
		page->index = 0;
	}
	p->pages += 1UL << j;
	atomic_add(1 << j, &ev_live.pool_pages);
}

/*
 * A run of 2^j pages from p: the smallest free run that is large enough,
 * split; or the spare run from Linux, if the pool may grow by it within
 * limit bytes.  NULL, with spare->need saying why.
 */
static struct page *ev_pool_run_get(struct ev_pool *p, unsigned int j, unsigned long limit,
				    struct ev_pool_spare *spare)
{
	struct page *page;
	unsigned int o;

	for (o = j; o < EV_POOL_RUNS && list_empty(&p->runs[o]); o++)
		;
	if (o == EV_POOL_RUNS) {
		if (!spare->run || spare->run_order != j) {
			spare->need = EV_POOL_NEED_RUN;
			spare->order = j;
			return NULL;
		}
		if (ev_pool_bytes(p) + (PAGE_SIZE << j) > limit) {
			spare->need = EV_POOL_NEED_NOTHING;	/* the quota */
			return NULL;
		}
		page = spare->run;
		spare->run = NULL;
		ev_pool_run_adopt(p, page, j);
		return page;
	}
	page = list_first_entry(&p->runs[o], struct page, lru);
	list_del(&page->lru);
	page->index = 0;
	while (o > j) {
		o--;
		ev_pool_run_add(p, nth_page(page, 1UL << o), o);
	}
	return page;
}

static void *ev_pool_slab_get(struct ev_pool *p, unsigned int order, unsigned long limit,
			      struct ev_pool_spare *spare)
{
	unsigned int cls = order - EV_POOL_MIN_ORDER, n = PAGE_SIZE >> order, bit;
	struct list_head *list = &p->slabs[cls];
	struct ev_pool_slab *s;

	if (list_empty(list)) {
		struct page *page;

		if (!spare->slab) {
			spare->need = EV_POOL_NEED_SLAB;
			return NULL;
		}
		if (ev_pool_bytes(p) + sizeof(*s) > limit) {
			spare->need = EV_POOL_NEED_NOTHING;
			return NULL;
		}
		page = ev_pool_run_get(p, 0, limit - sizeof(*s), spare);
		if (!page)
			return NULL;
		s = spare->slab;
		spare->slab = NULL;
		s->page = page;
		s->order = order;
		s->free = n;
		bitmap_zero(s->used, n);
		page->index = (unsigned long)s;
		p->slab_bytes += sizeof(*s);
		list_add(&s->node, list);
	}
	s = list_first_entry(list, struct ev_pool_slab, node);
	if (p->empty[cls] == s)
		p->empty[cls] = NULL;
	bit = find_first_zero_bit(s->used, n);
	__set_bit(bit, s->used);
	if (!--s->free)
		list_del_init(&s->node);
	return page_address(s->page) + ((unsigned long)bit << order);
}

/*
 * A block of 2^order bytes, aligned to its size, from p, which may grow to
 * limit bytes.  NULL with spare->need set if the caller must prepare
 * something outside the lock first (ev_pool_prepare), or with need
 * EV_POOL_NEED_NOTHING if the pool would pass limit.  Under the heap's lock.
 */
void *ev_pool_get(struct ev_pool *p, unsigned int order, unsigned long limit,
		  struct ev_pool_spare *spare)
{
	struct page *page;

	spare->need = EV_POOL_NEED_NOTHING;
	if (order < PAGE_SHIFT)
		return ev_pool_slab_get(p, order, limit, spare);
	page = ev_pool_run_get(p, order - PAGE_SHIFT, limit, spare);
	return page ? page_address(page) : NULL;
}

/*
 * A block ev_pool_get gave out, of 2^order bytes, back into p: the heap's
 * table vouches for both.  Under the heap's lock.
 */
void ev_pool_put(struct ev_pool *p, void *block, unsigned int order)
{
	struct page *page = virt_to_page(block);
	struct ev_pool_slab *s;
	unsigned int cls, n;

	if (order >= PAGE_SHIFT) {
		ev_pool_run_put(p, page, order - PAGE_SHIFT);
		return;
	}
	s = (struct ev_pool_slab *)page->index;
	cls = order - EV_POOL_MIN_ORDER;
	n = PAGE_SIZE >> order;
	__clear_bit(offset_in_page(block) >> order, s->used);
	if (!s->free++)
		list_add(&s->node, &p->slabs[cls]);
	if (s->free < n)
		return;
	/* Empty: kept, if its class has no empty slab yet; else back to the runs. */
	if (!p->empty[cls]) {
		p->empty[cls] = s;
		return;
	}
	list_del(&s->node);
	page->index = 0;
	ev_pool_run_put(p, page, 0);
	p->slab_bytes -= sizeof(*s);
	kfree(s);
}

/* Get what the last ev_pool_get lacked, outside the lock: 0 or -ENOMEM. */
int ev_pool_prepare(struct ev_pool_spare *spare)
{
	struct page *run;

	switch (spare->need) {
	case EV_POOL_NEED_SLAB:
		spare->slab = kzalloc(sizeof(*spare->slab), GFP_KERNEL | __GFP_NOWARN);
		return spare->slab ? 0 : -ENOMEM;
	case EV_POOL_NEED_RUN:
		if (spare->run)
			ev_pool_spare_release(spare);
		run = alloc_pages(GFP_KERNEL | __GFP_NOWARN, spare->order);
		if (!run)
			return -ENOMEM;
		/* Every page its own, so that any of them can go back alone. */
		if (spare->order)
			split_page(run, spare->order);
		spare->run = run;
		spare->run_order = spare->order;
		return 0;
	}
	return -ENOMEM;
}

static void ev_pool_free_pages(struct page *run, unsigned int j)
{
	unsigned long i;

	for (i = 0; i < 1UL << j; i++)
		__free_page(nth_page(run, i));
}

/* What a get did not use goes back to Linux: it was never the sandbox's. */
void ev_pool_spare_release(struct ev_pool_spare *spare)
{
	kfree(spare->slab);
	spare->slab = NULL;
	if (spare->run)
		ev_pool_free_pages(spare->run, spare->run_order);
	spare->run = NULL;
}

/*
 * Teardown, once every block is back (ev_heap_teardown puts them): the
 * empty slabs' pages join the runs, and every page goes back to Linux,
 * its private field and index cleared first.
 */
void ev_pool_teardown(struct ev_pool *p)
{
	struct ev_pool_slab *s, *next;
	struct page *page, *tmp;
	unsigned int i;
	unsigned long k;

	for (i = 0; i < EV_POOL_CLASSES; i++) {
		list_for_each_entry_safe(s, next, &p->slabs[i], node) {
			list_del(&s->node);
			s->page->index = 0;
			ev_pool_run_put(p, s->page, 0);
			p->slab_bytes -= sizeof(*s);
			kfree(s);
		}
		p->empty[i] = NULL;
	}
	for (i = 0; i < EV_POOL_RUNS; i++) {
		list_for_each_entry_safe(page, tmp, &p->runs[i], lru) {
			list_del(&page->lru);
			for (k = 0; k < 1UL << i; k++) {
				struct page *pg = nth_page(page, k);

				set_page_private(pg, 0);
				pg->index = 0;
			}
			ev_pool_free_pages(page, i);
			p->pages -= 1UL << i;
			atomic_sub(1 << i, &ev_live.pool_pages);
		}
	}
	WARN_ONCE(p->pages || p->slab_bytes,
		  "endovisor: a pool kept %lu pages and %lu bytes of slabs at teardown\n",
		  p->pages, p->slab_bytes);
}
