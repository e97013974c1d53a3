// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox heap: mem_alloc and mem_free on kmalloc and kfree, with every
 * block the sandbox holds recorded in its table of blocks, a red-black tree
 * by address.  The table is what makes a free checkable: a pointer that
 * starts no block of this sandbox is refused, whether it was never given
 * out, was freed already, or belongs to another sandbox, and so is one that
 * points into the middle of a block.  It is also what teardown walks to free
 * whatever the sandbox still holds, and what the other services consult to
 * decide whether memory is the sandbox's.
 *
 * EV_MEM_QUOTA bounds what the blocks make Linux hold, not the bytes asked
 * for: each block is charged its slab object's size (kmalloc_size_roundup:
 * a 1-byte block takes 8, a 3 MiB one 4 MiB of pages) and its node in the
 * table.  The nodes have a cache of their own, of their exact size and
 * named in /proc/slabinfo, so that a node costs what the charge says.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "endovisor.h"

struct ev_block {
	struct rb_node node;
	unsigned long addr;
	unsigned long size;		/* as asked for: what the sandbox may use */
};

static struct kmem_cache *ev_block_cache;

int ev_heap_module_init(void)
{
	ev_block_cache = kmem_cache_create("ev_block", sizeof(struct ev_block), 0,
					   SLAB_NO_MERGE, NULL);
	return ev_block_cache ? 0 : -ENOMEM;
}

void ev_heap_module_exit(void)
{
	kmem_cache_destroy(ev_block_cache);
}

/* What a block of size bytes makes Linux hold, against EV_MEM_QUOTA. */
static unsigned long ev_block_charge(unsigned long size)
{
	return kmalloc_size_roundup(size) + kmem_cache_size(ev_block_cache);
}

void ev_heap_init(struct ev_heap *h)
{
	spin_lock_init(&h->lock);
	init_rwsem(&h->free_sem);
	h->blocks = RB_ROOT;
	h->bytes = 0;
	h->nr_blocks = 0;
}

/* The block with the highest address not above addr; NULL if none. Lock held. */
static struct ev_block *ev_heap_floor(struct ev_heap *h, unsigned long addr)
{
	struct rb_node *n = h->blocks.rb_node;
	struct ev_block *best = NULL;

	while (n) {
		struct ev_block *b = rb_entry(n, struct ev_block, node);

		if (b->addr <= addr) {
			best = b;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

static void ev_heap_insert(struct ev_heap *h, struct ev_block *nb)
{
	struct rb_node **link = &h->blocks.rb_node, *parent = NULL;

	while (*link) {
		struct ev_block *b = rb_entry(*link, struct ev_block, node);

		parent = *link;
		link = nb->addr < b->addr ? &(*link)->rb_left : &(*link)->rb_right;
	}
	rb_link_node(&nb->node, parent, link);
	rb_insert_color(&nb->node, &h->blocks);
}

/* Does [start, end) lie inside one block of the heap? */
bool ev_heap_owns(struct ev_heap *h, unsigned long start, unsigned long end)
{
	struct ev_block *b;
	unsigned long flags;
	bool owns;

	spin_lock_irqsave(&h->lock, flags);
	b = ev_heap_floor(h, start);
	owns = b && end <= b->addr + b->size;
	spin_unlock_irqrestore(&h->lock, flags);
	return owns;
}

/*
 * Put b into the table, if the sandbox's blocks with it stay within the
 * quota.  What mem_alloc does to the table, under the table's lock.
 */
static int ev_heap_add(struct ev_heap *h, struct ev_block *b)
{
	unsigned long flags, charge = ev_block_charge(b->size);

	spin_lock_irqsave(&h->lock, flags);
	if (h->bytes + charge > EV_MEM_QUOTA) {
		spin_unlock_irqrestore(&h->lock, flags);
		return -ENOMEM;
	}
	h->bytes += charge;
	h->nr_blocks++;
	ev_heap_insert(h, b);
	spin_unlock_irqrestore(&h->lock, flags);
	return 0;
}

/*
 * Take the block that starts at addr out of the table: what mem_free does
 * to it, under the table's lock.  ERR_PTR(-EINVAL) if addr is inside a
 * block, ERR_PTR(-ENOENT) if no block is there at all.
 */
static struct ev_block *ev_heap_take(struct ev_heap *h, unsigned long addr)
{
	struct ev_block *b;
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	b = ev_heap_floor(h, addr);
	if (!b || b->addr != addr) {
		bool interior = b && addr < b->addr + b->size;

		spin_unlock_irqrestore(&h->lock, flags);
		return ERR_PTR(interior ? -EINVAL : -ENOENT);
	}
	rb_erase(&b->node, &h->blocks);
	h->bytes -= ev_block_charge(b->size);
	h->nr_blocks--;
	spin_unlock_irqrestore(&h->lock, flags);
	return b;
}

/*
 * A block of size bytes recorded in h: its address, or -ENOMEM.  The
 * table's node is an allocation of its own, since the sandbox must not be
 * able to reach it.  mem_alloc's body, which calibrate also runs on a
 * private table.
 */
static long ev_heap_alloc(struct ev_heap *h, unsigned long size, unsigned long flags)
{
	struct ev_block *b;
	void *p;

	b = kmem_cache_alloc(ev_block_cache, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN |
		    ((flags & EV_MEM_ZERO) ? __GFP_ZERO : 0));
	if (!p) {
		kmem_cache_free(ev_block_cache, b);
		return -ENOMEM;
	}
	b->addr = (unsigned long)p;
	b->size = size;
	if (ev_heap_add(h, b)) {
		kfree(p);
		kmem_cache_free(ev_block_cache, b);
		return -ENOMEM;
	}
	atomic_inc(&ev_live.blocks);
	atomic_long_add(size, &ev_live.block_bytes);
	return (long)p;
}

/*
 * Free the block of h that starts at addr.  free_sem is held for writing
 * while the block leaves the table, so no service is writing into it when
 * it goes back to kfree.  mem_free's body, which calibrate also runs.
 */
static long ev_heap_free(struct ev_heap *h, unsigned long addr)
{
	struct ev_block *b;

	down_write(&h->free_sem);
	b = ev_heap_take(h, addr);
	up_write(&h->free_sem);
	if (IS_ERR(b))
		return PTR_ERR(b);
	atomic_dec(&ev_live.blocks);
	atomic_long_sub(b->size, &ev_live.block_bytes);
	kfree((void *)b->addr);
	kmem_cache_free(ev_block_cache, b);
	return 0;
}

/*
 * mem_alloc(size, flags): a block of size bytes, zeroed with EV_MEM_ZERO.
 * Power-of-two sizes come back aligned to their size (kmalloc's promise),
 * which is what sandbox stacks rely on.
 */
long ev_svc_mem_alloc(struct ev_vcpu *v, unsigned long size, unsigned long flags,
		      unsigned long a2, unsigned long a3, unsigned long a4)
{
	if (size == 0 || size > EV_MEM_MAX_BLOCK || (flags & ~EV_MEM_ZERO))
		return -EINVAL;
	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	return ev_heap_alloc(&v->sb->heap, size, flags);
}

/* mem_free(address): -ENOENT if no block of this sandbox starts there, -EINVAL if inside one. */
long ev_svc_mem_free(struct ev_vcpu *v, unsigned long addr, unsigned long a1,
		     unsigned long a2, unsigned long a3, unsigned long a4)
{
	return ev_heap_free(&v->sb->heap, addr);
}

/* Teardown: free every block the sandbox still holds. */
void ev_heap_teardown(struct ev_heap *h)
{
	struct rb_node *n;

	while ((n = rb_first(&h->blocks))) {
		struct ev_block *b = rb_entry(n, struct ev_block, node);

		rb_erase(n, &h->blocks);
		atomic_dec(&ev_live.blocks);
		atomic_long_sub(b->size, &ev_live.block_bytes);
		kfree((void *)b->addr);
		kmem_cache_free(ev_block_cache, b);
	}
	h->bytes = 0;
	h->nr_blocks = 0;
}

/*
 * For calibrate's build-up of mem_alloc's and mem_free's bodies: n times
 * what the two do, in their order, up to a step.  EV_HEAP_STEP_ALL is all
 * of it; only the calls between the functions are missing.  Cycles,
 * or 0 if the table refused a block (it cannot: the quota is far off).
 */
static u64 ev_heap_steps(struct ev_heap *h, unsigned int n, unsigned int step)
{
	unsigned long volatile size = 64;	/* as mem_alloc has it: at run time */
	unsigned int i;
	u64 t0 = rdtsc_ordered();

	for (i = 0; i < n; i++) {
		struct ev_block *b = kmem_cache_alloc(ev_block_cache, GFP_KERNEL);
		void *p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);

		if (!b || !p) {
			kfree(p);
			if (b)
				kmem_cache_free(ev_block_cache, b);
			return 0;
		}
		b->addr = (unsigned long)p;
		b->size = size;
		if (step >= EV_HEAP_STEP_TABLE && ev_heap_add(h, b)) {
			kfree(p);
			kmem_cache_free(ev_block_cache, b);
			return 0;
		}
		if (step >= EV_HEAP_STEP_ALL) {
			atomic_inc(&ev_live.blocks);
			atomic_long_add(size, &ev_live.block_bytes);
		}
		if (step >= EV_HEAP_STEP_ALL)
			down_write(&h->free_sem);
		if (step >= EV_HEAP_STEP_TABLE)
			ev_heap_take(h, b->addr);	/* b: the only block at its address */
		if (step >= EV_HEAP_STEP_ALL)
			up_write(&h->free_sem);
		if (step >= EV_HEAP_STEP_ALL) {
			atomic_dec(&ev_live.blocks);
			atomic_long_sub(size, &ev_live.block_bytes);
		}
		kfree(p);
		kmem_cache_free(ev_block_cache, b);
	}
	return rdtsc_ordered() - t0;
}

/*
 * The cost of mem_alloc's and mem_free's bodies, and where it goes, for
 * calibrate; cycles of n of each.  All of it is measured on a private
 * table that holds as many blocks as the sandbox's table holds now (so its
 * tree is as deep), never on the sandbox's own table, which another vCPU
 * may be using.
 *
 *   step[]  the bodies built up a part at a time (ev_heap_steps): the two
 *           allocations and frees, then with the table, then with free_sem
 *           and the live counts
 *   body    ev_heap_alloc and ev_heap_free of 64 bytes: both services
 *           whole, but for their crossings and argument checks; last, so
 *           that it runs no colder than the steps
 *   table   ev_heap_add and ev_heap_take of one block, alone
 *
 * -ENOMEM if the private table cannot be set up.
 */
int ev_heap_cal_round(struct ev_heap *live, unsigned int n, struct ev_heap_cal *c)
{
	struct ev_block b = { .size = 64 };
	struct ev_heap *h = kmalloc(sizeof(*h), GFP_KERNEL);
	unsigned long fill = min(READ_ONCE(live->nr_blocks), 4096UL), i;
	unsigned int step;
	int ret = -ENOMEM;
	void *p = NULL;
	u64 t0;

	if (!h)
		return -ENOMEM;
	ev_heap_init(h);
	for (i = 0; i < fill; i++)
		if (IS_ERR_VALUE(ev_heap_alloc(h, 64, 0)))
			goto out;
	p = kmalloc(64, GFP_KERNEL);	/* an address such as a block has */
	if (!p)
		goto out;
	b.addr = (unsigned long)p;

	for (step = 0; step < EV_HEAP_STEPS; step++) {
		c->step[step] = ev_heap_steps(h, n, step);
		if (!c->step[step])
			goto out;
	}

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		long a = ev_heap_alloc(h, 64, 0);

		if (IS_ERR_VALUE(a) || ev_heap_free(h, a))
			goto out;
	}
	c->body = rdtsc_ordered() - t0;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++)
		if (ev_heap_add(h, &b) || ev_heap_take(h, b.addr) != &b)
			goto out;
	c->table = rdtsc_ordered() - t0;
	ret = 0;
out:
	kfree(p);
	ev_heap_teardown(h);
	kfree(h);
	return ret;
}
