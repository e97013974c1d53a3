// SPDX-License-Identifier: GPL-2.0
/*
 * The table of heap blocks as it was before heap.c's hash table, kept only
 * so that calibrate can time both in one boot: a red-black tree by
 * address under a spinlock taken with interrupts off, a node allocated
 * from a cache of its own for every block, the charge computed on every
 * add and take (kmalloc_size_roundup and the node's size), free_sem taken
 * exclusively by a free, and the live counts in global atomics.  No
 * sandbox's blocks are ever in it: it runs on a private table, with
 * counts of its own.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "endovisor.h"

struct ev_rb_block {
	struct rb_node node;
	unsigned long addr;
	unsigned long size;
};

struct ev_rb_heap {
	spinlock_t lock;		/* the tree, bytes and nr_blocks */
	struct rw_semaphore free_sem;
	struct rb_root blocks;
	unsigned long bytes;
	unsigned long nr_blocks;
};

static struct kmem_cache *ev_rb_block_cache;
static atomic_t ev_rb_live_blocks;
static atomic_long_t ev_rb_live_bytes;

int ev_heap_rbtree_init(void)
{
	ev_rb_block_cache = kmem_cache_create("ev_rb_block", sizeof(struct ev_rb_block), 0,
					      SLAB_NO_MERGE, NULL);
	return ev_rb_block_cache ? 0 : -ENOMEM;
}

void ev_heap_rbtree_exit(void)
{
	kmem_cache_destroy(ev_rb_block_cache);
}

static unsigned long ev_rb_charge(unsigned long size)
{
	return kmalloc_size_roundup(size) + kmem_cache_size(ev_rb_block_cache);
}

static struct ev_rb_block *ev_rb_floor(struct ev_rb_heap *h, unsigned long addr)
{
	struct rb_node *n = h->blocks.rb_node;
	struct ev_rb_block *best = NULL;

	while (n) {
		struct ev_rb_block *b = rb_entry(n, struct ev_rb_block, node);

		if (b->addr <= addr) {
			best = b;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

static int ev_rb_add(struct ev_rb_heap *h, struct ev_rb_block *nb)
{
	struct rb_node **link = &h->blocks.rb_node, *parent = NULL;
	unsigned long flags, charge = ev_rb_charge(nb->size);

	spin_lock_irqsave(&h->lock, flags);
	if (h->bytes + charge > EV_MEM_QUOTA) {
		spin_unlock_irqrestore(&h->lock, flags);
		return -ENOMEM;
	}
	h->bytes += charge;
	h->nr_blocks++;
	while (*link) {
		struct ev_rb_block *b = rb_entry(*link, struct ev_rb_block, node);

		parent = *link;
		link = nb->addr < b->addr ? &(*link)->rb_left : &(*link)->rb_right;
	}
	rb_link_node(&nb->node, parent, link);
	rb_insert_color(&nb->node, &h->blocks);
	spin_unlock_irqrestore(&h->lock, flags);
	return 0;
}

static struct ev_rb_block *ev_rb_take(struct ev_rb_heap *h, unsigned long addr)
{
	struct ev_rb_block *b;
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	b = ev_rb_floor(h, addr);
	if (!b || b->addr != addr) {
		bool interior = b && addr < b->addr + b->size;

		spin_unlock_irqrestore(&h->lock, flags);
		return ERR_PTR(interior ? -EINVAL : -ENOENT);
	}
	rb_erase(&b->node, &h->blocks);
	h->bytes -= ev_rb_charge(b->size);
	h->nr_blocks--;
	spin_unlock_irqrestore(&h->lock, flags);
	return b;
}

static long ev_rb_alloc(struct ev_rb_heap *h, unsigned long size)
{
	struct ev_rb_block *b;
	void *p;

	b = kmem_cache_alloc(ev_rb_block_cache, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!p) {
		kmem_cache_free(ev_rb_block_cache, b);
		return -ENOMEM;
	}
	b->addr = (unsigned long)p;
	b->size = size;
	if (ev_rb_add(h, b)) {
		kfree(p);
		kmem_cache_free(ev_rb_block_cache, b);
		return -ENOMEM;
	}
	atomic_inc(&ev_rb_live_blocks);
	atomic_long_add(size, &ev_rb_live_bytes);
	return (long)p;
}

static long ev_rb_free(struct ev_rb_heap *h, unsigned long addr)
{
	struct ev_rb_block *b;

	down_write(&h->free_sem);
	b = ev_rb_take(h, addr);
	up_write(&h->free_sem);
	if (IS_ERR(b))
		return PTR_ERR(b);
	atomic_dec(&ev_rb_live_blocks);
	atomic_long_sub(b->size, &ev_rb_live_bytes);
	kfree((void *)b->addr);
	kmem_cache_free(ev_rb_block_cache, b);
	return 0;
}

static void ev_rb_teardown(struct ev_rb_heap *h)
{
	struct rb_node *n;

	while ((n = rb_first(&h->blocks))) {
		struct ev_rb_block *b = rb_entry(n, struct ev_rb_block, node);

		rb_erase(n, &h->blocks);
		atomic_dec(&ev_rb_live_blocks);
		atomic_long_sub(b->size, &ev_rb_live_bytes);
		kfree((void *)b->addr);
		kmem_cache_free(ev_rb_block_cache, b);
	}
}

/*
 * The old bodies of mem_alloc and mem_free (64 bytes), and the old table's
 * add and take of one block alone, n of each, on a private tree holding
 * fill blocks: cycles into *body and *table.  -ENOMEM if it cannot be set
 * up.
 */
int ev_heap_rbtree_cal(unsigned int n, unsigned long fill, u64 *body, u64 *table)
{
	struct ev_rb_heap *h = kzalloc(sizeof(*h), GFP_KERNEL);
	struct ev_rb_block b = { .size = 64 };
	void *p = NULL;
	unsigned long i;
	int ret = -ENOMEM;
	u64 t0;

	if (!h)
		return -ENOMEM;
	spin_lock_init(&h->lock);
	init_rwsem(&h->free_sem);
	h->blocks = RB_ROOT;
	for (i = 0; i < fill; i++)
		if (IS_ERR_VALUE(ev_rb_alloc(h, 64)))
			goto out;
	p = kmalloc(64, GFP_KERNEL);
	if (!p)
		goto out;
	b.addr = (unsigned long)p;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		long a = ev_rb_alloc(h, 64);

		if (IS_ERR_VALUE(a) || ev_rb_free(h, a))
			goto out;
	}
	*body = rdtsc_ordered() - t0;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++)
		if (ev_rb_add(h, &b) || ev_rb_take(h, b.addr) != &b)
			goto out;
	*table = rdtsc_ordered() - t0;
	ret = 0;
out:
	kfree(p);
	ev_rb_teardown(h);
	kfree(h);
	return ret;
}
