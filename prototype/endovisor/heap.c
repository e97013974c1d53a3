// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox heap: mem_alloc and mem_free on the sandbox's pool (pool.c),
 * with every block the sandbox holds recorded in its table of blocks.  The
 * table is what makes a free checkable: a pointer that starts no block of this
 * sandbox is refused, whether it was never given out, was freed already,
 * or belongs to another sandbox, and so is one that points into the middle
 * of a block.  It is also what teardown walks to free whatever the sandbox
 * still holds, and what the other services consult to decide whether
 * memory is the sandbox's.
 *
 * The table is a hash table of the blocks' addresses, open addressing with
 * linear probing, in an array the endovisor allocated: a block costs one
 * slot in it, not an allocation of its own.  The array is at most half
 * full, counting the slots of freed blocks; past that it is rebuilt.  Finding the block that starts
 * at an address is one probe sequence.  Finding the block that holds an
 * address inside it uses the blocks' alignment: every block is given a
 * power of two of slab memory (a 100-byte request gets a 128-byte object,
 * a 5 KiB one 8 KiB), and the pool aligns such an object to its size, so the
 * block holding addr, if its size is 2^k, starts at addr rounded down to
 * 2^k.  The table keeps which powers it has held, and tries those.
 *
 * Who may touch the table, and how:
 *   - readers (ownership checks, for every service that reads or writes
 *     sandbox memory) take no lock: each marks its vCPU as reading for as
 *     long as it uses what it found (ev_heap_read_begin and _end, a store
 *     and a barrier).  A slot's address is written last, with release, so
 *     a reader that sees it sees the rest;
 *   - mem_alloc, mem_free and rebuilds of the array take the lock (a bit
 *     spinlock, inline: Linux's spin_lock is two calls out of line, which
 *     under emulation cost more than the table's own work).  An add writes
 *     an empty slot or the slot of a freed block, never a live one, so a
 *     reader beside it sees the block either there or not yet;
 *   - mem_free marks the block's slot gone and bumps the heap's
 *     generation, which the vCPUs' caches of their last owned range check
 *     (owns.c), and before the block goes back to the pool waits until no
 *     vCPU is in a read section begun before (ev_heap_wait_readers): a
 *     reader either began after the slot went, and does not find the
 *     block, or is waited for.  A rebuild does the same before it frees
 *     the old array.  This is a reader-writer lock whose readers write only
 *     their own vCPU's word; the rw_semaphore it replaced cost a copy two
 *     atomic operations and two calls.
 *
 * EV_MEM_QUOTA bounds what the blocks make Linux hold: each block's power
 * of two, and the table's array.  The charge is a block's order, stored
 * in its slot; the sums added and taken are kept apart, each under its own
 * lock, so neither path needs the other's.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "endovisor.h"
#include <linux/bit_spinlock.h>	/* after endovisor.h: it needs cpu_relax */

/* A freed block's slot: probes go on past it, an add may reuse it. */
#define EV_SLOT_GONE	1UL
#define EV_HEAP_MIN_SLOTS	16

/*
 * The array of slots, with its size: one pointer, so that a reader never
 * pairs one array with another's size.
 */
struct ev_slots {
	unsigned int bits;		/* 2^bits slots */
	struct ev_slot slot[];
};

/* The table before its first block: one slot, empty. */
static struct {
	struct ev_slots t;
	struct ev_slot one;
} ev_no_slots;

static __always_inline void ev_live_blocks_add(long blocks, long bytes)
{
	this_cpu_add(ev_live_blocks.blocks, blocks);
	this_cpu_add(ev_live_blocks.bytes, bytes);
}

void ev_heap_init(struct ev_heap *h, struct ev_sandbox *sb)
{
	h->lock = 0;
	h->sb = sb;
	h->slots = &ev_no_slots.t;
	h->used = 0;
	h->orders = 0;
	h->added = 0;
	h->taken = 0;
	h->table_bytes = 0;
	h->gen = 1;
	ev_pool_init(&h->pool);
}

/* The order of the power of two a block of size bytes gets. */
static __always_inline unsigned int ev_block_order(unsigned long size)
{
	return max_t(unsigned int, order_base_2(size), EV_POOL_MIN_ORDER);
}

/*
 * Where addr's probes begin in an array of 2^bits slots: the top bits of a
 * multiplicative hash (blocks' addresses differ in their middle bits).
 * Two shifts, so that no bits at all gives slot 0.
 */
static __always_inline unsigned long ev_slot_hash(unsigned long addr, unsigned int bits)
{
	return (u64)(addr >> 3) * GOLDEN_RATIO_64 >> (63 - bits) >> 1;
}

/* The slot of the block that starts at addr in t, or NULL. */
static __always_inline struct ev_slot *ev_heap_find(struct ev_slots *t, unsigned long addr)
{
	unsigned long mask = (1UL << t->bits) - 1, i = ev_slot_hash(addr, t->bits), a;

	if (addr <= EV_SLOT_GONE)
		return NULL;
	for (;; i = (i + 1) & mask) {
		/* Pairs with ev_heap_insert's release: a found slot is whole. */
		a = smp_load_acquire(&t->slot[i].addr);
		if (a == addr)
			return &t->slot[i];
		if (!a)
			return NULL;
	}
}

/*
 * The size of the block of t that starts at addr, read once, or 0 if no
 * block starts there.  The slot may be freed, and reused for a block at
 * another address, while a reader looks (ev_heap_take, ev_heap_add), so
 * the address is read again after the size: unchanged, the size was that
 * block's.  An add writes the size before the address (with release), a
 * take writes the address first, and the same address cannot come back
 * into the slot while the reader's section holds the block's memory
 * (ev_heap_free waits for it).
 */
static __always_inline unsigned int ev_heap_size_at(struct ev_slots *t, unsigned long addr)
{
	struct ev_slot *s = ev_heap_find(t, addr);
	unsigned int size;

	if (!s)
		return 0;
	size = READ_ONCE(s->size);
	smp_rmb();	/* the size before the address, again */
	return READ_ONCE(s->addr) == addr ? size : 0;
}

/*
 * The block of t that holds addr, at its start or inside: true, and its
 * range in *block, each field from one reading of its slot.
 */
static bool ev_heap_holder(const struct ev_heap *h, struct ev_slots *t, unsigned long addr,
			   struct ev_range *block)
{
	unsigned long orders = READ_ONCE(h->orders);

	while (orders) {
		unsigned int k = __ffs(orders);
		unsigned long start = addr & ~((1UL << k) - 1);
		unsigned int size = ev_heap_size_at(t, start);

		if (size && addr - start < size) {
			block->start = start;
			block->end = start + size;
			return true;
		}
		orders &= orders - 1;
	}
	return false;
}

/*
 * Does [start, end) lie inside one block of the heap?  In a read section
 * (or under the lock).  The block's size as asked for bounds it, not its
 * power of two.  A caller that caches the answer reads the heap's
 * generation before it asks (ev_sandbox_find).
 */
bool ev_heap_owns(struct ev_heap *h, unsigned long start, unsigned long end,
		  struct ev_range *block)
{
	struct ev_range b;

	/* Pairs with ev_heap_rebuild's release: the array is whole. */
	if (!ev_heap_holder(h, smp_load_acquire(&h->slots), start, &b) || end > b.end)
		return false;
	*block = b;
	return true;
}

/* Bytes the heap makes Linux hold: its pool's, and its table's array. */
static __always_inline unsigned long ev_heap_held(const struct ev_heap *h)
{
	return ev_pool_bytes(&h->pool) + READ_ONCE(h->table_bytes);
}

/*
 * Is no vCPU of the sandbox in a read section begun before the caller's
 * change to the table?  The cheap look ev_heap_wait_readers starts with,
 * which a free makes under the lock: most of the time nobody is reading.
 */
static __always_inline bool ev_heap_no_readers(struct ev_heap *h)
{
	unsigned int i;

	smp_mb();	/* the change before the flags are read; pairs with ev_heap_read_begin */
	for (i = 0; h->sb && i < h->sb->nr_vcpus; i++)
		if (h->sb->vcpus[i] && READ_ONCE(h->sb->vcpus[i]->heap_reading))
			return false;
	return true;
}

/*
 * Wait until no vCPU of the sandbox is in a read section begun before the
 * caller's change to the table (a slot gone, the array replaced).  A
 * section is a check and a copy of at most 1 MiB, usually of a few bytes,
 * so it spins a while first; then it sleeps a tick at a time, for a reader
 * whose carrier lost its processor.
 */
static noinline void ev_heap_wait_readers(struct ev_heap *h)
{
	unsigned int i, spins;

	smp_mb();	/* the change before the flags are read; pairs with ev_heap_read_begin */
	for (i = 0; h->sb && i < h->sb->nr_vcpus; i++) {
		struct ev_vcpu *u = h->sb->vcpus[i];

		for (spins = 0; u && READ_ONCE(u->heap_reading); spins++) {
			if (spins < 1000)
				cpu_relax();
			else
				schedule_timeout_uninterruptible(1);
		}
	}
}

/*
 * A new array for the table, of room for at least three times the live
 * blocks and one more, with every live block moved into it and no gone
 * slot left.  The lock is taken while the blocks move; the old array goes
 * once no reader can be in it.  If another add rebuilt the table
 * meanwhile, or added more than the new array has room for, it starts
 * again.  -ENOMEM if Linux has no memory or the quota no room for it.
 */
static int ev_heap_rebuild(struct ev_heap *h)
{
	unsigned long live, slots, i, bytes, orders = 0;
	struct ev_slots *new, *old;
	unsigned int bits;

again:
	live = READ_ONCE(h->added) - READ_ONCE(h->taken);
	slots = roundup_pow_of_two(max(3 * (live + 1), (unsigned long)EV_HEAP_MIN_SLOTS));
	bits = ilog2(slots);
	bytes = struct_size(new, slot, slots);
	if (ev_heap_held(h) - READ_ONCE(h->table_bytes) + bytes > EV_MEM_QUOTA)
		return -ENOMEM;
	new = kvzalloc(bytes, GFP_KERNEL | __GFP_NOWARN);
	if (!new)
		return -ENOMEM;
	new->bits = bits;
	bit_spin_lock(0, &h->lock);
	if (2 * (h->used + 1) <= 1UL << h->slots->bits) {
		__bit_spin_unlock(0, &h->lock);
		kvfree(new);
		return 0;	/* rebuilt by another add */
	}
	if (2 * (h->added - h->taken + 1) > slots) {
		__bit_spin_unlock(0, &h->lock);
		kvfree(new);
		goto again;
	}
	old = h->slots;
	for (i = 0; i < 1UL << old->bits; i++) {
		unsigned long a = old->slot[i].addr, j;

		if (a <= EV_SLOT_GONE)
			continue;
		for (j = ev_slot_hash(a, bits); new->slot[j].addr; j = (j + 1) & (slots - 1))
			;
		new->slot[j] = old->slot[i];
		orders |= 1UL << old->slot[i].order;
	}
	smp_store_release(&h->slots, new);	/* pairs with ev_heap_owns */
	/*
	 * Only now, whole: a reader in the old array or the new one must find
	 * every live block's order in the set it reads.  Orders of blocks no
	 * longer live drop out.
	 */
	WRITE_ONCE(h->orders, orders);
	h->used = h->added - h->taken;
	h->table_bytes = bytes;
	__bit_spin_unlock(0, &h->lock);
	if (old != &ev_no_slots.t) {
		ev_heap_wait_readers(h);
		kvfree(old);
	}
	return 0;
}

/*
 * Make room in the table for one more block, rebuilding it when the live
 * and gone slots would pass half the array.  Called and returns with the
 * lock held, which it drops to rebuild; -ENOMEM if the rebuild could not
 * be made.  The lock is held on every return, so that each caller takes
 * and drops it once on every path (sparse checks the balance).
 */
static __always_inline int ev_heap_room(struct ev_heap *h)
{
	while (2 * (h->used + 1) > 1UL << h->slots->bits) {
		int ret;

		__bit_spin_unlock(0, &h->lock);
		ret = ev_heap_rebuild(h);
		bit_spin_lock(0, &h->lock);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Put the block of size bytes at addr, of 2^order bytes, into the table,
 * which has room: what mem_alloc does to it, under the lock.
 */
static __always_inline void ev_heap_insert(struct ev_heap *h, unsigned long addr,
					   unsigned long size, unsigned int order)
{
	struct ev_slots *t = h->slots;
	unsigned long mask = (1UL << t->bits) - 1, i, a;
	struct ev_slot *s;

	for (i = ev_slot_hash(addr, t->bits);; i = (i + 1) & mask) {
		a = READ_ONCE(t->slot[i].addr);
		if (a <= EV_SLOT_GONE)
			break;
	}
	s = &t->slot[i];
	h->used += !a;
	WRITE_ONCE(s->size, size);
	s->order = order;
	/* The order first: a reader that finds the block tries its order. */
	if (!(h->orders & (1UL << order)))
		WRITE_ONCE(h->orders, h->orders | (1UL << order));
	smp_store_release(&s->addr, addr);	/* pairs with ev_heap_find */
	WRITE_ONCE(h->added, h->added + 1);
}

/*
 * Take the block that starts at addr out of the table: what mem_free does
 * to it, under the lock.  Its slot, copied into *out; -EINVAL if addr is
 * inside a block, -ENOENT if no block is there at all.
 */
static __always_inline int ev_heap_take(struct ev_heap *h, unsigned long addr,
					struct ev_slot *out)
{
	struct ev_range inside;
	struct ev_slot *s;

	s = ev_heap_find(h->slots, addr);
	if (!s)
		return ev_heap_holder(h, h->slots, addr, &inside) ? -EINVAL : -ENOENT;
	*out = *s;
	WRITE_ONCE(s->addr, EV_SLOT_GONE);
	WRITE_ONCE(h->taken, h->taken + 1);
	/*
	 * After the slot: a reader that sees the new generation sees the
	 * block gone (ev_sandbox_find reads the generation first, with
	 * acquire), so it can never cache the block under the new one.
	 */
	smp_store_release(&h->gen, h->gen + 1);
	return 0;
}

/*
 * A block of 2^order bytes from the pool, for the table: under the lock,
 * which it drops and takes again while it makes room in the table or
 * gets what the pool lacks.  NULL if the quota or Linux refused; the
 * lock is held on every return.
 */
static __always_inline void *ev_heap_get(struct ev_heap *h, unsigned int order,
					 struct ev_pool_spare *spare)
{
	for (;;) {
		void *p;
		int ret;

		if (ev_heap_room(h))
			return NULL;
		p = ev_pool_get(&h->pool, order, EV_MEM_QUOTA - min(h->table_bytes, EV_MEM_QUOTA),
				spare);
		if (p)
			return p;
		__bit_spin_unlock(0, &h->lock);
		ret = ev_pool_prepare(spare);
		bit_spin_lock(0, &h->lock);
		if (ret)
			return NULL;
	}
}

/* Give back what the pool was given and did not use: rarely anything. */
static __always_inline void ev_heap_spare_release(struct ev_pool_spare *spare)
{
	if (unlikely(spare->slab || spare->run))
		ev_pool_spare_release(spare);
}

/*
 * A block of size bytes recorded in h: its address, or -ENOMEM.  The size
 * is rounded up to a power of two, and the pool aligns the block to it
 * (the lookups depend on it).  mem_alloc's body, which calibrate also
 * runs on a private table.
 */
static __always_inline long ev_heap_alloc(struct ev_heap *h, unsigned long size,
					  unsigned long flags)
{
	unsigned int order = ev_block_order(size);
	struct ev_pool_spare spare = {};
	void *p;

	bit_spin_lock(0, &h->lock);
	p = ev_heap_get(h, order, &spare);
	if (p)
		ev_heap_insert(h, (unsigned long)p, size, order);
	__bit_spin_unlock(0, &h->lock);
	ev_heap_spare_release(&spare);
	if (!p)
		return -ENOMEM;
	if (flags & EV_MEM_ZERO)
		memset(p, 0, 1UL << order);
	ev_live_blocks_add(1, size);
	return (long)p;
}

/*
 * Free the block of h that starts at addr: out of the table, then, once
 * no service that could have found it is still reading or writing it,
 * back into the sandbox's pool.  mem_free's body, which calibrate also
 * runs.
 */
static __always_inline long ev_heap_free(struct ev_heap *h, unsigned long addr)
{
	struct ev_slot s;
	int ret;

	bit_spin_lock(0, &h->lock);
	ret = ev_heap_take(h, addr, &s);
	if (ret) {
		__bit_spin_unlock(0, &h->lock);
		return ret;
	}
	if (!ev_heap_no_readers(h)) {
		__bit_spin_unlock(0, &h->lock);
		ev_heap_wait_readers(h);
		bit_spin_lock(0, &h->lock);
	}
	ev_pool_put(&h->pool, (void *)s.addr, s.order);
	__bit_spin_unlock(0, &h->lock);
	ev_live_blocks_add(-1, -(long)s.size);
	return 0;
}

/*
 * mem_alloc(size, flags): a block of size bytes, zeroed with EV_MEM_ZERO.
 * Power-of-two sizes come back aligned to their size, which is what
 * sandbox stacks rely on.
 */
EV_SERVICE_DEFINE2(mem_alloc, unsigned long, size, unsigned long, flags)
{
	if (size == 0 || size > EV_MEM_MAX_BLOCK || (flags & ~EV_MEM_ZERO))
		return -EINVAL;
	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	return ev_heap_alloc(&v->sb->heap, size, flags);
}

/* mem_free(address): -ENOENT if no block of this sandbox starts there, -EINVAL if inside one. */
EV_SERVICE_DEFINE1(mem_free, unsigned long, addr)
{
	return ev_heap_free(&v->sb->heap, addr);
}

/* Blocks the sandbox holds now. */
unsigned long ev_heap_blocks(const struct ev_heap *h)
{
	return READ_ONCE(h->added) - READ_ONCE(h->taken);
}

/* Bytes its pool and table make Linux hold now, against EV_MEM_QUOTA. */
unsigned long ev_heap_bytes(const struct ev_heap *h)
{
	return ev_heap_held(h);
}

/* Bytes of the table's array now. */
unsigned long ev_heap_table_bytes(const struct ev_heap *h)
{
	return READ_ONCE(h->table_bytes);
}

/*
 * Teardown, once no carrier runs: every block the sandbox still holds back
 * into the pool, then the pool back to Linux, and the table.
 */
void ev_heap_teardown(struct ev_heap *h)
{
	struct ev_slots *t = h->slots;
	unsigned long i;

	for (i = 0; i < 1UL << t->bits; i++) {
		struct ev_slot *s = &t->slot[i];

		if (s->addr <= EV_SLOT_GONE)
			continue;
		ev_live_blocks_add(-1, -(long)s->size);
		ev_pool_put(&h->pool, (void *)s->addr, s->order);
	}
	if (t != &ev_no_slots.t)
		kvfree(t);
	ev_pool_teardown(&h->pool);
	ev_heap_init(h, h->sb);
}

/*
 * For calibrate.c's build-up of mem_alloc's and mem_free's bodies: n
 * times what the two do, in their order, up to a step.  Each step's work
 * is done in the same holds of the lock as the bodies do it; the first
 * is the pool's alone, with the lock.  EV_HEAP_STEP_ALL is all of it;
 * only the calls between the functions are missing.  -ENOMEM if the pool
 * refused a block (it cannot: the quota is far off).
 */
static int ev_heap_steps(struct ev_heap *h, unsigned int n, unsigned int step)
{
	unsigned long volatile size = 64;	/* as mem_alloc has it: at run time */
	struct ev_pool_spare spare = {};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		unsigned int order = ev_block_order(size);
		struct ev_slot s;
		void *p;

		bit_spin_lock(0, &h->lock);
		p = ev_heap_get(h, order, &spare);
		if (!p) {
			__bit_spin_unlock(0, &h->lock);
			ret = -ENOMEM;
			break;
		}
		if (step >= EV_HEAP_STEP_TABLE)
			ev_heap_insert(h, (unsigned long)p, size, order);
		__bit_spin_unlock(0, &h->lock);
		if (step >= EV_HEAP_STEP_ALL)
			ev_live_blocks_add(1, size);
		bit_spin_lock(0, &h->lock);
		if (step >= EV_HEAP_STEP_TABLE)
			ev_heap_take(h, (unsigned long)p, &s);
		if (step >= EV_HEAP_STEP_ALL && !ev_heap_no_readers(h)) {
			__bit_spin_unlock(0, &h->lock);
			ev_heap_wait_readers(h);
			bit_spin_lock(0, &h->lock);
		}
		ev_pool_put(&h->pool, p, order);
		__bit_spin_unlock(0, &h->lock);
		if (step >= EV_HEAP_STEP_ALL)
			ev_live_blocks_add(-1, -(long)size);
	}
	ev_heap_spare_release(&spare);
	return ret;
}

/*
 * The bodies as they were before the pool: the block from kmalloc and
 * back to kfree, the table as it is.  calibrate times them beside the
 * bodies of today, in the same boot.
 */
static int ev_heap_kmalloc_bodies(struct ev_heap *h, unsigned int n)
{
	unsigned long volatile size = 64;
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int order = ev_block_order(size);
		void *p = kmalloc(1UL << order, GFP_KERNEL | __GFP_NOWARN);
		struct ev_slot s;

		if (!p)
			return -ENOMEM;
		bit_spin_lock(0, &h->lock);
		if (ev_heap_room(h)) {
			__bit_spin_unlock(0, &h->lock);
			kfree(p);
			return -ENOMEM;
		}
		ev_heap_insert(h, (unsigned long)p, size, order);
		__bit_spin_unlock(0, &h->lock);
		ev_live_blocks_add(1, size);
		bit_spin_lock(0, &h->lock);
		ev_heap_take(h, (unsigned long)p, &s);
		__bit_spin_unlock(0, &h->lock);
		ev_heap_wait_readers(h);
		ev_live_blocks_add(-1, -(long)size);
		kfree(p);
	}
	return 0;
}

/*
 * For calibrate.c (calibrate.h), which times it: n times a part of what
 * mem_alloc and mem_free do, on h, a private table, compiled here, where
 * the table's code is inlined as it is in the services.  No timing here.
 *
 *   EV_HEAP_STEP_*     the bodies built up a part at a time (ev_heap_steps)
 *   EV_HEAP_RUN_BODY   ev_heap_alloc and ev_heap_free of 64 bytes: both
 *                      services whole, but for their crossings and checks
 *   EV_HEAP_RUN_BODY_KMALLOC
 *                      the same on kmalloc and kfree, as before the pool
 *   EV_HEAP_RUN_TABLE  the block at addr into the table and out, alone,
 *                      each under the lock
 *   EV_HEAP_RUN_FILL   64-byte blocks allocated and kept, to fill h
 *
 * -ENOMEM if a block or the table refused, -EINVAL for no such part.
 */
int ev_heap_cal_run(struct ev_heap *h, unsigned int n, unsigned int what, unsigned long addr)
{
	struct ev_slot s;
	unsigned int i;

	switch (what) {
	case EV_HEAP_STEP_ALLOCS:
	case EV_HEAP_STEP_TABLE:
	case EV_HEAP_STEP_ALL:
		return ev_heap_steps(h, n, what);
	case EV_HEAP_RUN_BODY:
		for (i = 0; i < n; i++) {
			long a = ev_heap_alloc(h, 64, 0);

			if (IS_ERR_VALUE(a) || ev_heap_free(h, a))
				return -ENOMEM;
		}
		return 0;
	case EV_HEAP_RUN_BODY_KMALLOC:
		return ev_heap_kmalloc_bodies(h, n);
	case EV_HEAP_RUN_TABLE:
		for (i = 0; i < n; i++) {
			int r;

			bit_spin_lock(0, &h->lock);
			if (ev_heap_room(h)) {
				__bit_spin_unlock(0, &h->lock);
				return -ENOMEM;
			}
			ev_heap_insert(h, addr, 64, 6);
			__bit_spin_unlock(0, &h->lock);
			bit_spin_lock(0, &h->lock);
			r = ev_heap_take(h, addr, &s);
			__bit_spin_unlock(0, &h->lock);
			if (r)
				return -ENOMEM;
		}
		return 0;
	case EV_HEAP_RUN_FILL:
		for (i = 0; i < n; i++)
			if (IS_ERR_VALUE(ev_heap_alloc(h, 64, 0)))
				return -ENOMEM;
		return 0;
	}
	return -EINVAL;
}
