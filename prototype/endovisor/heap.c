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
 */
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "endovisor.h"

struct ev_block {
	struct rb_node node;
	unsigned long addr;
	unsigned long size;
};

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
 * mem_alloc(size, flags): a block of size bytes, zeroed with EV_MEM_ZERO.
 * Power-of-two sizes come back aligned to their size (kmalloc's promise),
 * which is what sandbox stacks rely on.
 */
long ev_svc_mem_alloc(struct ev_vcpu *v, unsigned long size, unsigned long flags,
		      unsigned long a2, unsigned long a3, unsigned long a4)
{
	struct ev_heap *h = &v->sb->heap;
	struct ev_block *b;
	unsigned long irqflags;
	void *p;

	if (size == 0 || size > EV_MEM_MAX_BLOCK || (flags & ~EV_MEM_ZERO))
		return -EINVAL;
	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN |
		    ((flags & EV_MEM_ZERO) ? __GFP_ZERO : 0));
	if (!p) {
		kfree(b);
		return -ENOMEM;
	}
	b->addr = (unsigned long)p;
	b->size = size;
	spin_lock_irqsave(&h->lock, irqflags);
	if (h->bytes + size > EV_MEM_QUOTA) {
		spin_unlock_irqrestore(&h->lock, irqflags);
		kfree(p);
		kfree(b);
		return -ENOMEM;
	}
	h->bytes += size;
	h->nr_blocks++;
	ev_heap_insert(h, b);
	spin_unlock_irqrestore(&h->lock, irqflags);
	atomic_inc(&ev_live.blocks);
	atomic_long_add(size, &ev_live.block_bytes);
	return (long)p;
}

/* mem_free(address): -ENOENT if no block of this sandbox starts there, -EINVAL if inside one. */
long ev_svc_mem_free(struct ev_vcpu *v, unsigned long addr, unsigned long a1,
		     unsigned long a2, unsigned long a3, unsigned long a4)
{
	struct ev_heap *h = &v->sb->heap;
	struct ev_block *b;
	unsigned long flags;

	down_write(&h->free_sem);
	spin_lock_irqsave(&h->lock, flags);
	b = ev_heap_floor(h, addr);
	if (!b || b->addr != addr) {
		bool interior = b && addr < b->addr + b->size;

		spin_unlock_irqrestore(&h->lock, flags);
		up_write(&h->free_sem);
		return interior ? -EINVAL : -ENOENT;
	}
	rb_erase(&b->node, &h->blocks);
	h->bytes -= b->size;
	h->nr_blocks--;
	spin_unlock_irqrestore(&h->lock, flags);
	up_write(&h->free_sem);
	atomic_dec(&ev_live.blocks);
	atomic_long_sub(b->size, &ev_live.block_bytes);
	kfree((void *)b->addr);
	kfree(b);
	return 0;
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
		kfree(b);
	}
	h->bytes = 0;
	h->nr_blocks = 0;
}

/*
 * The table's own cost, for calibrate: n pairs of what mem_alloc and
 * mem_free do to the table (insert under the lock; find, check and erase
 * under the lock), on a block that is never allocated.  Returns cycles.
 */
u64 ev_heap_table_round(struct ev_heap *h, unsigned int n)
{
	struct ev_block b = { .size = 64 };
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		struct ev_block *found;

		/* An address no kmalloc block can have: the top of the address space. */
		b.addr = ULONG_MAX - 64 * (i + 1);
		spin_lock_irqsave(&h->lock, flags);
		ev_heap_insert(h, &b);
		spin_unlock_irqrestore(&h->lock, flags);
		spin_lock_irqsave(&h->lock, flags);
		found = ev_heap_floor(h, b.addr);
		if (found == &b && found->addr == b.addr)
			rb_erase(&found->node, &h->blocks);
		spin_unlock_irqrestore(&h->lock, flags);
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
}
