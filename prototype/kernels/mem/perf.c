// SPDX-License-Identifier: GPL-2.0
/*
 * The mem kernel's measurements (perf, and perf pair in checking mode):
 * one EVFIG line each.
 */
#include "mem.h"

/*
 * The heap pair, and two crossings of the do-nothing service timed the same
 * way: what the pair pays to cross, beside what the endovisor does for it
 * (calibrate measures that part on its own).
 */
/* Whose pair heap_pair times. */
enum pair {
	PAIR_VOSTD,		/* vostd_alloc and vostd_free, as a kernel calls them */
	PAIR_UNCHECKED,		/* the same without the checking mode's switch */
	PAIR_SERVICE,		/* the endovisor's mem_alloc and mem_free */
};

/*
 * One round of an allocation's pair: the cycles of EV_CAL_PAIRS pairs.  A failed
 * alloc frees NULL, which fails too: it shows in *bad.  Inline, so that
 * the pair's calls are direct, as a kernel's are.
 */
static __always_inline u64 heap_round(enum pair pair, size_t size, long *bad)
{
	u64 t0 = vostd_cycles();
	int i;

	for (i = 0; i < EV_CAL_PAIRS; i++) {
		if (pair == PAIR_VOSTD)
			*bad |= vostd_free(vostd_alloc(size, false));
		else if (pair == PAIR_UNCHECKED)
			*bad |= vostd_free_unchecked(vostd_alloc_unchecked(size, false));
		else
			*bad |= vostd_heap_free(vostd_heap_alloc(size, false));
	}
	return vostd_cycles() - t0;
}

/*
 * One allocation's pair, timed as the heap pair is (EV_CAL_ROUNDS rounds of
 * EV_CAL_PAIRS, the cheapest round), in tenths of a cycle a pair; ~0 if a
 * call failed.
 */
static __always_inline u64 heap_pair(enum pair pair, size_t size)
{
	u64 best = ~0ULL;
	long bad = 0;
	int r;

	for (r = 0; r < EV_CAL_ROUNDS; r++)
		best = min(best, heap_round(pair, size, &bad));
	return bad ? ~0ULL : best / (EV_CAL_PAIRS / 10);
}

static void heap_pair_report(const char *key, u64 tenths, const char *baseline)
{
	if (tenths == ~0ULL) {
		perf_fail(key, "an alloc or a free of the pair failed", 0);
		return;
	}
	if (baseline)
		vostd_println(EV_FIG_BEST("%s", "%llu.%llu", CAL_ROUNDS, CAL_PAIRS)
			      EV_BASELINE("%s"),
			      key, tenths / 10, tenths % 10, baseline);
	else
		vostd_println(EV_FIG_BEST("%s", "%llu.%llu", CAL_ROUNDS, CAL_PAIRS),
			      key, tenths / 10, tenths % 10);
}

/*
 * What the slab pair pays for its locks: a class lock taken and released
 * twice with upcalls masked, as an allocation and a free each take it.
 */
static void perf_slab_lock(void)
{
	vostd_spinlock_t lock = {};
	u64 best = ~0ULL;
	int r, i;

	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		u64 t0 = vostd_cycles();

		for (i = 0; i < 2 * EV_CAL_PAIRS; i++) {
			vostd_upcall_disable();
			vostd_spin_lock(&lock);
			vostd_spin_unlock(&lock);
			vostd_upcall_enable();
		}
		best = min(best, vostd_cycles() - t0);
	}
	heap_pair_report("mem.slab_lock_pair", best / (EV_CAL_PAIRS / 10), "mem.alloc_pair");
}

/*
 * The heap pair as a kernel gets it (a 64-byte object, from the slab), and
 * the same with no test of the checking mode: what the switch costs while
 * the mode is off.  Their rounds alternate, each first in turn, so that a
 * change of the emulator's speed meets both; and after each round of the
 * slab's pair, Linux's own, a 64-byte kmalloc and kfree that
 * calibrate(EV_CAL_KMALLOC) times in the endovisor (EV_CAL_ROUNDS rounds a
 * call, the cheapest), the baseline the slab's pair is read against.
 */
static void perf_switch(void)
{
	u64 with = ~0ULL, without = ~0ULL, kmalloc = ~0ULL;
	long bad = 0, k;
	int r;

	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		if (r & 1)
			without = min(without, heap_round(PAIR_UNCHECKED, 64, &bad));
		with = min(with, heap_round(PAIR_VOSTD, 64, &bad));
		k = vostd_call(EV_SVC_CALIBRATE, EV_CAL_KMALLOC, 0, 0, 0, 0);
		if (vostd_is_err(k)) {
			perf_fail("mem.kmalloc_pair", "calibrate(EV_CAL_KMALLOC) failed:", k);
			return;
		}
		kmalloc = min(kmalloc, (u64)k);
		if (!(r & 1))
			without = min(without, heap_round(PAIR_UNCHECKED, 64, &bad));
	}
	vostd_println(EV_FIG("mem.kmalloc_pair", "%llu.%llu", "min", "cycles")
		      EV_FIELD("rounds", "%d") EV_FIELD("calls", CAL_PAIRS),
		      kmalloc / 10, kmalloc % 10, EV_CAL_ROUNDS * EV_CAL_ROUNDS);
	heap_pair_report("mem.alloc_pair", bad ? ~0ULL : with / (EV_CAL_PAIRS / 10),
			 "mem.kmalloc_pair");
	heap_pair_report("mem.alloc_pair_unchecked", bad ? ~0ULL : without / (EV_CAL_PAIRS / 10),
			 "mem.alloc_pair");
}

/*
 * The heap pair, as a kernel gets it (a 64-byte object, from the slab), and
 * through the endovisor's services as it used to be; a size the slab does
 * not serve; and two crossings of the do-nothing service timed the same
 * way: what the service pair pays to cross, beside what the endovisor does
 * for it (calibrate measures that part on its own).
 */
static void perf_heap(void)
{
	u64 nop = ~0ULL;
	long bad;
	int r, i;

	perf_switch();
	heap_pair_report("mem.service_alloc_pair", heap_pair(PAIR_SERVICE, 64),
			 "heap.kmalloc_pair");
	heap_pair_report("mem.alloc_pair_4k", heap_pair(PAIR_VOSTD, PAGE),
			 "mem.service_alloc_pair_4k");
	heap_pair_report("mem.service_alloc_pair_4k", heap_pair(PAIR_SERVICE, PAGE), NULL);
	perf_slab_lock();
	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		u64 t0 = vostd_cycles();

		for (i = 0; i < EV_CAL_PAIRS; i++) {
			vostd_call(EV_SVC_NOP, 0, 0, 0, 0, 0);
			vostd_call(EV_SVC_NOP, 0, 0, 0, 0, 0);
		}
		nop = min(nop, vostd_cycles() - t0);
	}
	vostd_println(EV_FIG_BEST("mem.nop_pair", "%llu.%llu", CAL_ROUNDS, CAL_PAIRS),
		      nop / EV_CAL_PAIRS, nop % EV_CAL_PAIRS / (EV_CAL_PAIRS / 10));
	bad = vostd_call(EV_SVC_CALIBRATE, EV_CAL_HEAP, 0, 0, 0, 0);
	if (bad)
		perf_fail("calibrate_heap", "calibrate(EV_CAL_HEAP) returned", bad);
}

static void perf_touch(u64 *s)
{
	static const unsigned long sizes[] = { 64, 4096 };
	static const char *const keys[] = { "mem.copy_64", "mem.copy_4k" };
	static const char *const baselines[] = { "linux.copy_from_user_64",
						 "linux.copy_from_user_4k" };
	struct tenant *t = tenant_new(PAGES_2M);
	u64 faults;
	int i, k;

	if (!t || map_range(t->vs, DATA_VA, PAGES_2M, NULL, 0, RW))
		goto fail;
	if (!touch(t, DATA_VA, PAGES_2M, false, s, &faults, NULL))
		goto fail;
	report("mem.first_touch", s, PAGES_2M, "cycles", "linux.touch_present");
	report_count("mem.first_touch_faults", faults, "faults");

	/*
	 * Copies out of tenant memory, a page further each time, timed one by
	 * one after an untimed pass over the pages; and Linux's own.
	 */
	for (k = 0; k < 2; k++) {
		for (i = -PAGES_2M; i < 1000; i++) {
			unsigned long src = DATA_VA + ((i + PAGES_2M) % PAGES_2M) * PAGE;
			u64 t0 = vostd_cycles();
			long r = vostd_copy_from_user(t->vs, s + 1000, src, sizes[k]);

			if (i >= 0)
				s[i] = vostd_cycles() - t0;
			if (r) {
				perf_fail(keys[k] + 4, "copy_from_tenant returned", r);
				goto out;
			}
		}
		report(keys[k], s, 1000, "cycles", baselines[k]);
	}
	/* The do-nothing service, timed one call at a time as the copies are. */
	for (i = -PAGES_2M; i < 1000; i++) {
		u64 t0 = vostd_cycles();
		long r = vostd_call(EV_SVC_NOP, 0, 0, 0, 0, 0);

		if (i >= 0)
			s[i] = vostd_cycles() - t0;
		if (r) {
			perf_fail("nop_call", "the do-nothing service returned", r);
			goto out;
		}
	}
	report("mem.nop_call", s, 1000, "cycles", NULL);
	/* Linux's copies, and the parts of ours, over the same pages. */
	if (vostd_call(EV_SVC_CALIBRATE, EV_CAL_COPY, t->vs->handle, DATA_VA, PAGES_2M,
		       (unsigned long)(s + 1000)))
		goto fail;
out:
	tenant_free(t);
	return;
fail:
	vostd_fail("first_touch", "the measurement failed");
}

static void perf_map(u64 *s)
{
	struct tenant *t = tenant_new(PAGES_2M);
	void **frames = vostd_alloc(PAGES_2M * sizeof(void *), false);
	u64 per_round[ROUNDS], faults;
	unsigned long va;
	int r, i;

	if (!t || !frames)
		goto fail;
	/*
	 * The frames, each taken from vOSTD's pool and zeroed, as Linux's
	 * write fault allocates and zeroes its page: timed apart, since the
	 * maps below take frames made ready beforehand.  Once in 256 the pool
	 * is refilled from the grant, a crossing that lands in the tail.
	 */
	for (i = 0; i < PAGES_2M; i++) {
		u64 t0 = vostd_cycles();

		frames[i] = vostd_frame_alloc();
		s[i] = vostd_cycles() - t0;
		if (!frames[i])
			goto fail;
	}
	report("mem.frame_alloc", s, PAGES_2M, "cycles", NULL);
	/* One page per call: each its own crossing. */
	for (r = 0; r < ROUNDS; r++) {
		va = DATA_VA + r * 0x400000UL;
		for (i = 0; i < PAGES_2M; i++) {
			u64 t0 = vostd_cycles();
			long ret = vostd_vm_map(t->vs, va + i * PAGE, frames[i], RW);

			s[r * PAGES_2M + i] = vostd_cycles() - t0;
			if (ret)
				goto fail;
		}
	}
	report("mem.map_call", s, ROUNDS * PAGES_2M, "cycles", NULL);
	/*
	 * 512 pages under one cursor, batched as the kernels batch, not at
	 * all, and in one batch for the lot: the cost per page, and how much
	 * of it the batch's size still moves.
	 */
	for (i = 0; i < 3; i++) {
		static const unsigned int batches[] = { CURSOR_BATCH, 1, PAGES_2M };
		static const char *const names[] = {
			"mem.map_cursor", "mem.map_cursor_unbatched", "mem.map_cursor_512",
		};
		unsigned int batch = batches[i];

		for (r = 0; r < ROUNDS; r++) {
			struct vostd_cursor cur;
			u64 t0 = vostd_cycles();
			int p;

			va = DATA_VA + (ROUNDS + i * ROUNDS + r) * 0x400000UL;
			vostd_cursor_init(&cur, t->vs, va, va + PAGES_2M * PAGE, batch);
			for (p = 0; p < PAGES_2M; p++)
				vostd_cursor_map(&cur, frames[p], RW);
			if (vostd_cursor_finish(&cur))
				goto fail;
			per_round[r] = (vostd_cycles() - t0) / PAGES_2M;
		}
		report(names[i], per_round, ROUNDS, "cycles", NULL);
	}
	/*
	 * Protect the first 2 MiB read-only: one call, one flush.  The carrier
	 * holds the tenant's address space, as it does once the tenant has
	 * run on it, and as Linux's mprotect runs in the process's own: so
	 * the flush has a TLB to flush, this processor's.
	 */
	if (vostd_vm_activate(t->vs))
		goto fail;
	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = vostd_cycles();

		if (vostd_vm_protect(t->vs, DATA_VA, PAGES_2M, RO))
			goto fail;
		per_round[r] = vostd_cycles() - t0;
		if (r + 1 < ROUNDS && vostd_vm_protect(t->vs, DATA_VA, PAGES_2M, RW))
			goto fail;
	}
	report("mem.protect_2m", per_round, ROUNDS, "cycles", "linux.mprotect_2m");
	if (!touch(t, DATA_VA, PAGES_2M, false, s, &faults, NULL))
		goto fail;
	report("mem.read_after_protect", s, PAGES_2M, "cycles", NULL);
	report_count("mem.read_after_protect_faults", faults, "faults");
	tenant_free(t);
	for (i = 0; i < PAGES_2M; i++)
		vostd_frame_free(frames[i]);
	vostd_free(frames);
	return;
fail:
	vostd_fail("map", "the measurement failed");
}

/* The services vOSTD called on this vCPU so far. */
static u64 calls(void)
{
	return READ_ONCE(vostd_vcpu()->calls);
}

static void perf_fork(void)
{
	u64 fork_c[FORK_ROUNDS], cursor_c[FORK_ROUNDS], child_c[FORK_ROUNDS];
	u64 parent_c[FORK_ROUNDS], unmap_c[FORK_ROUNDS], unmap_each_c[FORK_ROUNDS];
	u64 child_f = 0, parent_f = 0, faults, calls0, fork_calls = 0, cursor_calls = 0;
	unsigned long pt_calls = 0, cursor_pt_calls = 0;
	void **frames;
	struct tenant *parent = fork_parent(FORK_PAGES, &frames), *child;
	int r;

	if (!parent)
		goto fail;
	for (r = 0; r < FORK_ROUNDS; r++) {
		u64 t0;

		/* A process forks itself: its address space is the carrier's. */
		if (vostd_vm_activate(parent->vs))
			goto fail;
		/* The fork as it was, timed first, its child unmapped at once. */
		calls0 = calls();
		t0 = vostd_cycles();
		child = fork_space_cursor(parent, FORK_PAGES, frames, FORK_FRAMES,
					  &cursor_pt_calls);
		cursor_c[r] = vostd_cycles() - t0;
		cursor_calls = calls() - calls0;
		if (!child)
			goto fail;
		unmap_each_c[r] = unmap_child(child, FORK_PAGES, true);
		tenant_free(child);
		if (!unmap_each_c[r] || vostd_vm_protect(parent->vs, DATA_VA, FORK_PAGES, RW))
			goto fail;

		calls0 = calls();
		t0 = vostd_cycles();
		child = fork_space(parent, FORK_PAGES, &pt_calls);
		fork_c[r] = vostd_cycles() - t0;
		fork_calls = calls() - calls0;
		if (!child)
			goto fail;
		child_c[r] = touch(child, DATA_VA, FORK_PAGES, false, NULL, &faults, NULL);
		child_f += faults;
		parent_c[r] = touch(parent, DATA_VA, FORK_PAGES, false, NULL, &faults, NULL);
		parent_f += faults;
		if (!child_c[r] || !parent_c[r])
			goto fail;
		unmap_c[r] = unmap_child(child, FORK_PAGES, false);
		tenant_free(child);
		if (!unmap_c[r] || vostd_vm_protect(parent->vs, DATA_VA, FORK_PAGES, RW))
			goto fail;
	}
	/*
	 * Each fork's crossings: every service call it made, the child's new
	 * space included, and of them the page-table calls (vm_share, or the
	 * cursors' vm_batch calls) that carry its work on the pages.
	 */
	vostd_println(EV_FIG("mem.fork_64m_crossings", "%llu", "count", "crossings")
		      EV_FIELD("pages", "%u"), fork_calls, FORK_PAGES);
	vostd_println(EV_FIG("mem.fork_64m_batches", "%lu", "count", "crossings")
		      EV_FIELD("pages", "%u"), pt_calls, FORK_PAGES);
	vostd_println(EV_FIG("mem.fork_64m_cursor_crossings", "%llu", "count", "crossings")
		      EV_FIELD("pages", "%u"), cursor_calls, FORK_PAGES);
	vostd_println(EV_FIG("mem.fork_64m_cursor_batches", "%lu", "count", "crossings")
		      EV_FIELD("pages", "%u"), cursor_pt_calls, FORK_PAGES);
	report("mem.fork_64m", fork_c, FORK_ROUNDS, "cycles", "linux.fork_64m");
	report("mem.fork_64m_cursor", cursor_c, FORK_ROUNDS, "cycles", "linux.fork_64m");
	report("mem.child_read_pass", child_c, FORK_ROUNDS, "cycles", NULL);
	report_count("mem.child_read_pass_faults", child_f, "faults");
	report("mem.parent_reread", parent_c, FORK_ROUNDS, "cycles", NULL);
	report_count("mem.parent_reread_faults", parent_f, "faults");
	report("mem.unmap_64m", unmap_c, FORK_ROUNDS, "cycles", "linux.munmap_64m");
	report("mem.unmap_64m_flush_each", unmap_each_c, FORK_ROUNDS, "cycles", "linux.munmap_64m");
	fork_parent_free(parent, frames);
	return;
fail:
	vostd_fail("fork", "the measurement failed");
}

/*
 * perf pair: the pairs of vostd_alloc and vostd_free alone, which
 * mem-perf runs again in a sandbox of the checking mode, labelled
 * checked: what the mode costs when it is on, beside the same pairs of
 * the run without it.
 */
void perf_pair(void)
{
	heap_pair_report("mem.alloc_pair", heap_pair(PAIR_VOSTD, 64), "mem.alloc_pair");
	heap_pair_report("mem.alloc_pair_4k", heap_pair(PAIR_VOSTD, PAGE), "mem.alloc_pair_4k");
}

void perf(void)
{
	u64 *s = vostd_alloc(ROUNDS * PAGES_2M * sizeof(u64), false);

	if (!s) {
		vostd_fail("perf", "no memory for the samples");
		return;
	}
	perf_heap();
	perf_touch(s);
	perf_map(s);
	perf_fork();
	vostd_free(s);
}
