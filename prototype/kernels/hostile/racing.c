// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: the endovisor's caches and lock-free paths, raced from two
 * vCPUs (in test mode, after memory_cases and its race).
 *
 *   cache       a vCPU's cache of the last range it found owned (a block
 *               checked once) must not outlive the block: a copy after the
 *               block's free, on the same vCPU or after another vCPU's
 *               free, is refused
 *   free_copy   vCPU 0 allocates a block, shows it to vCPU 1, hides it and
 *               frees it, over and over, while vCPU 1 copies into it and out
 *               of it from a tenant page: every copy is done whole or
 *               refused, the free waits for a copy that found the block,
 *               and every free succeeds
 *   rebuild     vCPU 0 allocates blocks by the thousand, freeing one for
 *               every two, growing the heap's table and rebuilding it,
 *               while vCPU 1
 *               copies in and out of a block it holds, through a pointer
 *               inside it: each free makes vCPU 1's cached range stale, so
 *               each copy looks the block up in the table, lock-free, as the
 *               table is rebuilt under it; not one may be refused.  The
 *               block is 2 MiB, a size no other has, so that the lookup
 *               depends on the table's set of sizes being whole throughout
 *               a rebuild
 *   share       vCPU 0 forks a space again and again (vm_share of its
 *               range into a new space) while vCPU 1 protects the range
 *               and unmaps and maps one page of it: every share takes
 *               every page mapped at that moment, nothing is refused but
 *               as documented, and when both stop the whole of
 *               EV_MAP_QUOTA maps again (no page counted twice or lost)
 *   slab        both vCPUs allocate vOSTD's slab objects of every class by
 *               the hundred, fill each with a pattern of their own, check
 *               it and free them, over and over: no object is given to both
 *               (a pattern overwritten), every free succeeds, and slabs are
 *               added, and the slab's set of frames grown, on one vCPU
 *               while the other's frees read it without a lock
 */
#include "hostile.h"

#define VA		(EV_TENANT_BASE + 0x300000)
#define FREE_ROUNDS	3000
#define SHARE_ROUNDS	300
#define SHARE_PAGES	64
#define CHURN_PAGE	5

#define SLAB_HELD	300
#define SLAB_ROUNDS	40

#define REBUILD_BLOCKS	20000
#define REBUILD_ROUNDS	3

/* What vCPU 0 is at (phase), and where vCPU 1 has got to (ap_phase). */
enum { PHASE_CACHE = 1, PHASE_FREE_COPY, PHASE_REBUILD, PHASE_SHARE, PHASE_DONE,
	PHASE_SLAB };
enum { AP_FREE_COPY_COPYING = 1, AP_FREE_COPY_DONE, AP_REBUILD_COPYING, AP_REBUILD_DONE,
	AP_SHARE_CHURNING, AP_SHARE_DONE, AP_SLAB_DONE };

static struct hostile_race *R(void)
{
	return &H()->race;
}

/*
 * Wait for the other vCPU to bring *flag to want.  Every flag only goes
 * up, and the other vCPU may already be past want when this one looks
 * (vCPU 1 moves from AP_FREE_COPY_DONE to AP_REBUILD_COPYING while vCPU
 * 0's carrier may be preempted), so at or past it is there.
 */
static void await(u32 *flag, u32 want)
{
	while (READ_ONCE(*flag) < want)
		asm volatile("pause");
}

/* A space with one frame mapped at VA, for copies: its handle, or -errno. */
long copy_space(void **frame)
{
	long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

	*frame = vostd_frame_alloc();
	if (vostd_is_err(vm) || !*frame)
		return vostd_is_err(vm) ? vm : -ENOMEM;
	vostd_memset(*frame, 0xaa, PAGE);
	return call(EV_SVC_VM_MAP, vm, VA, (unsigned long)*frame, RW) ?: vm;
}

/* ---- vCPU 0 ---- */

static void cache_cases(struct hostile_race *r)
{
	char *blk = vostd_heap_alloc(64, false);

	/* The same vCPU: the check that fills the cache, the free, the copy. */
	expect("cache_fill", 0, call(EV_SVC_LOG, (unsigned long)blk, 1, 0, 0));
	expect("cache_free", 0, call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0));
	expect("cache_stale_after_free", -EFAULT, call(EV_SVC_LOG, (unsigned long)blk, 1, 0, 0));

	/* Another vCPU's cache: vCPU 1 checks the block, then this one frees it. */
	blk = vostd_heap_alloc(64, false);
	WRITE_ONCE(r->cache_blk, blk);
	WRITE_ONCE(r->step, 1);
	await(&r->step, 2);
	expect("cache_other_free", 0, call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0));
	WRITE_ONCE(r->step, 3);
	await(&r->step, 4);
	expect("cache_other_filled", 0, r->cache_before);
	expect("cache_other_stale_after_free", -EFAULT, r->cache_after);
}

static void free_copy_race(struct hostile_race *r)
{
	u32 i, failed = 0;

	/* Not before vCPU 1 is in the race: else it could miss the phase. */
	await(&r->ap_phase, AP_FREE_COPY_COPYING);
	for (i = 0; i < FREE_ROUNDS; i++) {
		char *blk = vostd_heap_alloc(64, false);

		if (!blk) {
			failed++;
			break;
		}
		WRITE_ONCE(r->blk, blk);
		for (u32 spin = (i * 2654435761u) >> 24; spin; spin--)
			asm volatile("pause");
		WRITE_ONCE(r->blk, NULL);
		if (call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0))
			failed++;
	}
	WRITE_ONCE(r->phase, PHASE_REBUILD);
	await(&r->ap_phase, AP_FREE_COPY_DONE);
	vostd_println("hostile: race free_copy rounds=%u copies=%u done=%u refused=%u other=%u",
		      i, r->copies, r->copies_done, r->copies_refused, r->copies_other);
	expect("race_free_copy_frees", 0, failed);
	expect("race_free_copy_whole_or_refused", 0, r->copies_other);
}

static void rebuild_race(struct hostile_race *r)
{
	void **blocks = vostd_alloc(REBUILD_BLOCKS * sizeof(void *), false);
	u32 round, i, n = 0;

	await(&r->ap_phase, AP_REBUILD_COPYING);
	/*
	 * Two blocks in, one out: the table grows, so it is rebuilt, and every
	 * free makes vCPU 1's cached range stale, so that its copies look the
	 * block up while the rebuilds run.
	 */
	for (round = 0; blocks && round < REBUILD_ROUNDS; round++) {
		void *spare = NULL;

		for (i = 0; i < REBUILD_BLOCKS; i++, n++) {
			blocks[i] = vostd_heap_alloc(16 + i % 200, false);
			if (!blocks[i])
				break;
			if (spare)
				vostd_heap_free(spare);
			spare = vostd_heap_alloc(16, false);
		}
		if (spare)
			vostd_heap_free(spare);
		while (i--)
			vostd_heap_free(blocks[i]);
	}
	WRITE_ONCE(r->phase, PHASE_SHARE);
	await(&r->ap_phase, AP_REBUILD_DONE);
	vostd_println("hostile: race rebuild blocks=%u copies=%u refused=%u", n,
		      r->rebuild_copies, r->rebuild_refused);
	expect("race_rebuild_blocks", REBUILD_BLOCKS * REBUILD_ROUNDS, n);
	expect("race_rebuild_none_refused", 0, r->rebuild_refused);
	if (blocks)
		vostd_free(blocks);
}

static void share_race(struct hostile_race *r)
{
	struct ev_vm_op *ops = vostd_alloc(SHARE_PAGES * sizeof(*ops), false);
	long parent = call(EV_SVC_VM_CREATE, 0, 0, 0, 0), n, err = 0;
	void *frame = vostd_frame_alloc();
	u32 i, full = 0, short_one = 0, other = 0;

	if (!ops || !frame || vostd_is_err(parent)) {
		expect("race_share_setup", 0, -ENOMEM);
		WRITE_ONCE(r->phase, PHASE_DONE);
		return;
	}
	for (i = 0; i < SHARE_PAGES; i++)
		ops[i] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RW,
					    .va = VA + i * PAGE, .frame = (unsigned long)frame };
	n = call(EV_SVC_VM_BATCH, parent, (unsigned long)ops, SHARE_PAGES, 0);
	expect("race_share_parent_mapped", SHARE_PAGES, n);
	WRITE_ONCE(r->frame, frame);
	WRITE_ONCE(r->parent, parent);
	await(&r->ap_phase, AP_SHARE_CHURNING);
	for (i = 0; i < SHARE_ROUNDS; i++) {
		long child = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

		if (vostd_is_err(child)) {
			other++;
			continue;
		}
		n = vostd_call(EV_SVC_VM_SHARE, child, parent, VA, SHARE_PAGES, EV_PROT_READ);
		/* vCPU 1 has one page unmapped for a moment now and then. */
		if (n == SHARE_PAGES)
			full++;
		else if (n == SHARE_PAGES - 1)
			short_one++;
		else
			other++;
		call(EV_SVC_VM_DESTROY, child, 0, 0, 0);
	}
	WRITE_ONCE(r->phase, PHASE_DONE);
	await(&r->ap_phase, AP_SHARE_DONE);
	vostd_println("hostile: race share rounds=%u full=%u short=%u other=%u protects=%u churns=%u",
		      i, full, short_one, other, r->protects, r->churns);
	expect("race_share_each_whole", 0, other);
	expect("race_share_protects_ok", 0, r->protects_failed);
	call(EV_SVC_VM_DESTROY, parent, 0, 0, 0);
	/* No page of the race is counted twice, or lost. */
	n = map_until_refused(frame, &err);
	expect("race_share_map_quota_whole_after", EV_MAP_QUOTA, n);
	expect("race_share_map_quota_then_nospc", -ENOSPC, err);
	vostd_frame_free(frame);
	vostd_free(ops);
}

/*
 * One vCPU's side of the slab race: its objects' bytes all hold a pattern
 * of its own while it holds them.  The number of objects found overwritten
 * or failed to free.
 */
static u32 slab_churn(u8 mark)
{
	char **held = vostd_heap_alloc(SLAB_HELD * sizeof(char *), true);
	u32 round, i, j, bad = 0;

	if (!held)
		return 1;
	for (round = 0; round < SLAB_ROUNDS; round++) {
		for (i = 0; i < SLAB_HELD; i++) {
			u32 size = 16 + (i * 37 + round) % (VOSTD_SLAB_MAX - 16);

			held[i] = vostd_alloc(size, false);
			if (held[i])
				vostd_memset(held[i], mark ^ i, size);
			else
				bad++;
		}
		for (i = 0; i < SLAB_HELD; i++) {
			u32 size = 16 + (i * 37 + round) % (VOSTD_SLAB_MAX - 16);

			for (j = 0; held[i] && j < size; j++)
				if ((u8)held[i][j] != (u8)(mark ^ i)) {
					bad++;
					break;
				}
			bad += held[i] && vostd_free(held[i]) != 0;
		}
	}
	vostd_heap_free(held);
	return bad;
}

void racing_cases(void)
{
	struct hostile_race *r = R();

	WRITE_ONCE(r->phase, PHASE_CACHE);
	cache_cases(r);
	WRITE_ONCE(r->phase, PHASE_FREE_COPY);
	free_copy_race(r);
	rebuild_race(r);
	share_race(r);
	WRITE_ONCE(r->phase, PHASE_SLAB);
	expect("race_slab_objects_whole", 0, slab_churn(0x5a));
	await(&r->ap_phase, AP_SLAB_DONE);
	expect("race_slab_objects_whole_other_vcpu", 0, r->slab_bad);
}

/* ---- vCPU 1 ---- */

static void cache_ap(struct hostile_race *r)
{
	await(&r->step, 1);
	r->cache_before = call(EV_SVC_LOG, (unsigned long)READ_ONCE(r->cache_blk), 1, 0, 0);
	WRITE_ONCE(r->step, 2);
	await(&r->step, 3);
	r->cache_after = call(EV_SVC_LOG, (unsigned long)READ_ONCE(r->cache_blk), 1, 0, 0);
	WRITE_ONCE(r->step, 4);
}

static void free_copy_ap(struct hostile_race *r)
{
	void *frame;
	long vm = copy_space(&frame);

	WRITE_ONCE(r->ap_phase, AP_FREE_COPY_COPYING);
	while (READ_ONCE(r->phase) == PHASE_FREE_COPY) {
		char *blk = READ_ONCE(r->blk);
		long a, b;

		if (!blk || vostd_is_err(vm))
			continue;
		a = call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)blk, VA, 64);
		b = call(EV_SVC_COPY_TO_TENANT, vm, VA, (unsigned long)blk, 64);
		r->copies += 2;
		r->copies_done += !a + !b;
		r->copies_refused += (a == -EFAULT) + (b == -EFAULT);
		r->copies_other += (a && a != -EFAULT) + (b && b != -EFAULT);
	}
	if (!vostd_is_err(vm))
		call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	else
		r->copies_other++;
	if (frame)
		vostd_frame_free(frame);
	WRITE_ONCE(r->ap_phase, AP_FREE_COPY_DONE);
}

static void rebuild_ap(struct hostile_race *r)
{
	/*
	 * A size no other block has: while a rebuild moves the blocks, the
	 * order to look in must be there.
	 */
	char *blk = vostd_alloc(2UL << 20, false);
	void *frame;
	long vm = copy_space(&frame);

	WRITE_ONCE(r->ap_phase, AP_REBUILD_COPYING);
	while (READ_ONCE(r->phase) == PHASE_REBUILD) {
		if (!blk || vostd_is_err(vm)) {
			r->rebuild_refused++;
			break;
		}
		r->rebuild_refused += !!call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)blk + 24,
					     VA, 32);
		r->rebuild_copies++;
	}
	if (!vostd_is_err(vm))
		call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	if (frame)
		vostd_frame_free(frame);
	if (blk)
		vostd_free(blk);
	WRITE_ONCE(r->ap_phase, AP_REBUILD_DONE);
}

static void share_ap(struct hostile_race *r)
{
	long parent;
	u32 i = 0;

	while (!(parent = READ_ONCE(r->parent)) && READ_ONCE(r->phase) == PHASE_SHARE)
		asm volatile("pause");
	WRITE_ONCE(r->ap_phase, AP_SHARE_CHURNING);
	while (parent && READ_ONCE(r->phase) == PHASE_SHARE) {
		unsigned long churn = VA + CHURN_PAGE * PAGE;

		r->protects_failed += !!call(EV_SVC_VM_PROTECT, parent, VA, SHARE_PAGES,
					    i++ & 1 ? RW : EV_PROT_READ);
		r->protects++;
		if (!call(EV_SVC_VM_UNMAP, parent, churn, 1, 0)) {
			r->protects_failed += !!call(EV_SVC_VM_MAP, parent, churn,
						    (unsigned long)READ_ONCE(r->frame), RW);
			r->churns++;
		} else {
			r->protects_failed++;
		}
	}
	WRITE_ONCE(r->ap_phase, AP_SHARE_DONE);
}

void racing_ap(void)
{
	struct hostile_race *r = R();

	await(&r->phase, PHASE_CACHE);
	cache_ap(r);
	await(&r->phase, PHASE_FREE_COPY);
	free_copy_ap(r);
	rebuild_ap(r);
	share_ap(r);
	await(&r->phase, PHASE_SLAB);
	r->slab_bad = slab_churn(0xa5);
	WRITE_ONCE(r->ap_phase, AP_SLAB_DONE);
}
