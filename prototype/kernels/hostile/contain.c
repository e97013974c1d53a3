// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a kernel that uses its heap after freeing it, and one that
 * watches for the damage (uaf and victim modes).
 *
 *   uaf      both vCPUs allocate blocks of every size the heap serves, 8
 *            bytes to 4 MiB, free them, and keep writing into them while
 *            they allocate until mem_alloc refuses (the quota).  The
 *            writes land in the sandbox's own pool: the blocks given out
 *            again are the freed ones, and the writes spoil them, which
 *            it counts.  Nothing else may see them: the guest's allocator
 *            checks (slub_debug, KFENCE) stay silent, and so does the
 *            victim sandbox
 *   victim   a sandbox of one vCPU, started first, that allocates blocks of
 *            the same sizes, fills each with its own pattern, checks the
 *            pattern a little later and frees the block, over and over for
 *            a while: a block of its that held another's writes counts as
 *            corrupted.  When the heap gave out kmalloc's blocks, freed
 *            memory went back to Linux, and the next sandbox to allocate
 *            got blocks the first one was still writing
 */
#include "hostile.h"

#define UAF_SIZES	14		/* 8 bytes to 64 KiB, and 1 MiB and 4 MiB */
#define UAF_EACH	8		/* blocks of each size up to 64 KiB, per vCPU */
#define UAF_HELD	16384		/* blocks held at most while filling the quota */
#define VICTIM_ROUNDS	4000

static unsigned long uaf_size(unsigned int i)
{
	if (i < UAF_SIZES - 2)
		return 8UL << i;
	return i == UAF_SIZES - 2 ? 1UL << 20 : 4UL << 20;
}

/* The vCPU's blocks, freed; written after their free until the quota fills. */
struct uaf_vcpu {
	char *freed[UAF_SIZES * UAF_EACH];
	unsigned long freed_size[UAF_SIZES * UAF_EACH];
	char **held;
	unsigned long held_n, spoiled, writes;
	long refused;		/* mem_alloc's answer at the quota */
};

static void uaf_write_freed(struct uaf_vcpu *u, u8 mark)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u->freed); i++) {
		/* A word every 64 bytes: enough to spoil every object. */
		unsigned long off;

		for (off = 0; off < u->freed_size[i]; off += 64)
			WRITE_ONCE(*(u64 *)(u->freed[i] + off), 0x5a5a5a5a5a5a5a00ULL | (u8)~mark);
		u->writes++;
	}
}

/*
 * A vCPU's state, allocated before either vCPU frees anything: allocated
 * after, it could be the other vCPU's freed memory, which that vCPU goes
 * on writing, and a kernel that reads its own pointers back spoiled
 * faults in kernel mode.  Both vCPUs are ready before either frees.
 */
static struct uaf_vcpu *uaf_ready(struct hostile_uaf *h)
{
	struct uaf_vcpu *u = vostd_heap_alloc(sizeof(*u), true);

	if (u) {
		u->held = vostd_heap_alloc(UAF_HELD * sizeof(char *), true);
		if (!u->held) {
			vostd_heap_free(u);
			u = NULL;
		}
	}
	__atomic_add_fetch(&h->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) < 2)
		asm volatile("pause");
	return u;
}

static void uaf_run(struct uaf_vcpu *u, u8 mark)
{
	unsigned int i;
	long p;

	/* One block of 1 MiB and one of 4 MiB: eight would pass the quota. */
	for (i = 0; i < ARRAY_SIZE(u->freed); i++) {
		u->freed_size[i] = uaf_size(i % UAF_SIZES);
		if (i >= UAF_SIZES && u->freed_size[i] >= 1UL << 20)
			continue;
		p = call(EV_SVC_MEM_ALLOC, u->freed_size[i], 0, 0, 0);
		u->freed[i] = vostd_is_err(p) ? NULL : (char *)p;
	}
	for (i = 0; i < ARRAY_SIZE(u->freed); i++) {
		if (!u->freed[i])
			continue;
		call(EV_SVC_MEM_FREE, (unsigned long)u->freed[i], 0, 0, 0);
	}
	/* Keep only the ones that were given: the others are no use after free. */
	for (i = 0; i < ARRAY_SIZE(u->freed); i++)
		if (!u->freed[i])
			u->freed_size[i] = 0;
	/* Blocks of every size, till the quota, writing the freed ones between. */
	for (i = 0;; i++) {
		unsigned long size = uaf_size(i % UAF_SIZES);

		p = call(EV_SVC_MEM_ALLOC, size, 0, 0, 0);
		if (vostd_is_err(p)) {
			/* A large block may not fit where a small one still does. */
			if (size <= 64) {
				u->refused = p;
				break;
			}
			continue;
		}
		vostd_memset((void *)p, mark, min(size, 4096UL));
		if (u->held_n < UAF_HELD)
			u->held[u->held_n++] = (char *)p;
		if (i % 64 == 0)
			uaf_write_freed(u, mark);
	}
	uaf_write_freed(u, mark);
	/* The writes after free spoiled the sandbox's own blocks, and only those. */
	for (i = 0; i < u->held_n; i++)
		u->spoiled += u->held[i][0] != (char)mark;
}

static void uaf_report(const char *who, struct uaf_vcpu *u)
{
	vostd_println("hostile: uaf %s held=%lu spoiled=%lu writes=%lu refused=%ld",
		      who, u->held_n, u->spoiled, u->writes, u->refused);
}

static void uaf_free_all(struct uaf_vcpu *u)
{
	unsigned long i;

	for (i = 0; i < u->held_n; i++)
		call(EV_SVC_MEM_FREE, (unsigned long)u->held[i], 0, 0, 0);
	vostd_heap_free(u->held);
	/* What was held past UAF_HELD the teardown frees, and says so. */
}

/* vCPU 0's side; vCPU 1 runs uaf_ap beside it. */
void uaf_cases(void)
{
	struct hostile_uaf *h = &H()->uaf;
	struct uaf_vcpu *u = uaf_ready(h);

	if (!u) {
		expect("uaf_setup", 0, -ENOMEM);
		return;
	}
	uaf_run(u, 0x11);
	while (!READ_ONCE(h->ap_done))
		asm volatile("pause");
	uaf_report("vcpu0", u);
	expect("uaf_quota_reached", -ENOMEM, u->refused);
	expect("uaf_quota_reached_other_vcpu", -ENOMEM, READ_ONCE(h->ap_refused));
	vostd_println(EV_FIG("spoiled", "%lu", "min", "blocks"), u->spoiled + h->ap_spoiled);
	uaf_free_all(u);
	vostd_heap_free(u);
}

void uaf_ap(void)
{
	struct hostile_uaf *h = &H()->uaf;
	struct uaf_vcpu *u = uaf_ready(h);

	if (u) {
		uaf_run(u, 0x22);
		uaf_report("vcpu1", u);
		h->ap_spoiled = u->spoiled;
		h->ap_refused = u->refused;
		uaf_free_all(u);
		vostd_heap_free(u);
	} else {
		h->ap_refused = -ENOMEM;
	}
	WRITE_ONCE(h->ap_done, 1);
}

/*
 * The victim: blocks of every size, each filled, checked a moment later
 * and freed, over and over.  A block that changed while it was held was
 * written by someone else.
 */
void victim_cases(void)
{
	unsigned long corrupted = 0, checked = 0;
	unsigned int round, i;

	vostd_println("hostile: victim running");
	for (round = 0; round < VICTIM_ROUNDS; round++) {
		char *blk[UAF_SIZES];

		for (i = 0; i < UAF_SIZES; i++) {
			unsigned long size = min(uaf_size(i), 65536UL);
			long p = call(EV_SVC_MEM_ALLOC, size, 0, 0, 0);

			blk[i] = vostd_is_err(p) ? NULL : (char *)p;
			if (blk[i])
				vostd_memset(blk[i], 0xc3 ^ i, size);
		}
		for (u32 spin = 0; spin < 2000; spin++)
			barrier();
		for (i = 0; i < UAF_SIZES; i++) {
			unsigned long size = min(uaf_size(i), 65536UL), off;

			if (!blk[i])
				continue;
			for (off = 0; off < size; off += 8) {
				if (blk[i][off] != (char)(0xc3 ^ i)) {
					corrupted++;
					break;
				}
			}
			checked++;
			call(EV_SVC_MEM_FREE, (unsigned long)blk[i], 0, 0, 0);
		}
	}
	vostd_println("hostile: victim checked=%lu corrupted=%lu", checked, corrupted);
	expect("victim_blocks_whole", 0, corrupted);
	expect("victim_blocks_checked", VICTIM_ROUNDS * UAF_SIZES, checked);
}
