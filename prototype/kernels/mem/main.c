// SPDX-License-Identifier: GPL-2.0
/*
 * mem: the sandbox kernel that tests and measures the memory services.
 *
 *   test   the refusals (frees of memory never given out, double and
 *          interior frees; a frame outside the grant; copies from unmapped
 *          or kernel addresses; maps past the sandbox's bounds), zero
 *          faults on first touch and after protect, the flush that makes a
 *          protect seen, a tenant page fault, and copy-on-write after fork;
 *          and the bugs planted for vOSTD's checking mode; one EVTEST line
 *          each
 *   planted
 *          the planted bugs alone, which must make their reports with the
 *          checking mode on and stay inside the sandbox without it
 *   perf   the memory measurements, one EVFIG line each
 *   perf pair
 *          the vostd_alloc pairs alone, for a run in checking mode
 *   scale [owns]
 *          how the costs grow, for the scale suite: the heap pair with more
 *          blocks live, the ownership check with more frames granted (and,
 *          from the suite, more vCPUs), fork and unmap of more memory, and
 *          the memory a tenant space makes Linux hold; EVFIG scale.* lines
 *
 * It runs on vCPU 0 only; its tenant is prototype/tenants/touch.S.  The
 * fork is this kernel's own: the parent's pages shared read-only with the
 * child by one cursor's copy_from (vm_share), as a kernel proper would do
 * it on vOSTD, timed beside the fork it replaced, a protect of the parent
 * and a map into the child for every page.  It keeps
 * no state in the module's static data, which every sandbox running this
 * kernel would share: what it keeps is in its globals page or on its heap.
 */
#include <linux/stringify.h>

#include "mm.h"
#include "sanitize.h"

extern const char tenant_touch_start[], tenant_touch_end[];

#define PAGE		VOSTD_PAGE_SIZE
#define CODE_VA		EV_TENANT_BASE			/* the tenant's code */
#define RESULTS_VA	(EV_TENANT_BASE + 0x100000)	/* its timings, 8 bytes a page */
#define DATA_VA		(EV_TENANT_BASE + 0x10000000)	/* the pages it touches */
#define RW		(EV_PROT_READ | EV_PROT_WRITE)
#define RO		EV_PROT_READ
#define CURSOR_BATCH	64

#define ROUNDS		9
#define CAL_ROUNDS	__stringify(EV_CAL_ROUNDS)	/* for a figure's line */
#define CAL_PAIRS	__stringify(EV_CAL_PAIRS)
#define PAGES_2M	512
#define FORK_PAGES	16384		/* 64 MiB */
#define FORK_FRAMES	256		/* each mapped 64 times */
#define FORK_ROUNDS	3
#define GIB		BIT(30)
#define PMD_SPAN	(PAGE * 512)	/* what one page of page table maps */

/* A test case: on a FAIL, what came back, got, and what it is. */
static void check(const char *name, bool ok, const char *what, long got)
{
	if (ok)
		vostd_test(name, true, "%s", "");
	else
		vostd_fail(name, "%s %ld", what, got);
}

/* One figure of n samples: their median and p99. */
static void report(const char *key, u64 *s, unsigned int n, const char *unit,
		   const char *baseline)
{
	vostd_fig_median(key, s, n, unit, baseline);
}

static void report_count(const char *key, u64 v, const char *unit)
{
	vostd_println(EV_FIG("%s", "%llu", "sum", "%s"), key, v, unit);
}

/*
 * A measurement whose timed operation failed is a failed case, so that the
 * run fails instead of reporting an error's quick return as a cost.
 */
static void perf_fail(const char *name, const char *what, long got)
{
	vostd_fail(name, "%s %ld", what, got);
}

/* ---- tenants ---- */

struct tenant {
	struct vostd_vmspace *vs;
	void *code;
	void *results[FORK_PAGES * 8 / PAGE];
	unsigned int result_pages;
	/* The traps a fault handler saw, and the last one's address and kind. */
	unsigned int traps;
	unsigned long fault_addr;
	bool fault_write;
};

/* A new address space with touch mapped at CODE_VA and room for n timings. */
static struct tenant *tenant_new(unsigned int n)
{
	struct tenant *t = vostd_alloc(sizeof(*t), true);
	unsigned int i;

	if (!t)
		return NULL;
	t->vs = vostd_vmspace_new();
	t->code = vostd_frame_alloc();
	if (!t->vs || !t->code)
		return NULL;
	vostd_memcpy(t->code, tenant_touch_start, tenant_touch_end - tenant_touch_start);
	if (vostd_vm_map(t->vs, CODE_VA, t->code, EV_PROT_READ | EV_PROT_EXEC))
		return NULL;
	t->result_pages = (n * 8 + PAGE - 1) / PAGE;
	for (i = 0; i < t->result_pages; i++) {
		t->results[i] = vostd_frame_alloc();
		if (!t->results[i] ||
		    vostd_vm_map(t->vs, RESULTS_VA + i * PAGE, t->results[i], RW))
			return NULL;
	}
	return t;
}

static void tenant_free(struct tenant *t)
{
	unsigned int i;

	vostd_vmspace_destroy(t->vs);
	vostd_frame_free(t->code);
	for (i = 0; i < t->result_pages; i++)
		vostd_frame_free(t->results[i]);
	vostd_free(t);
}

/*
 * Run touch over n pages from va; with timings, each access's cycles land
 * in s.  Page faults it takes are handed to fault(), which resolves them.
 * Returns the pass's cycles, or 0 on failure; *faults is what Linux counted.
 */
static u64 touch(struct tenant *t, unsigned long va, unsigned long n, bool write,
		 u64 *s, u64 *faults,
		 long (*fault)(struct tenant *t, unsigned long addr, bool write))
{
	struct ev_tenant_ctx *c = vostd_alloc(sizeof(*c), true);
	u64 total = 0;
	long trap;

	if (!c)
		return 0;
	c->rip = CODE_VA;
	c->rsp = RESULTS_VA;	/* touch uses no stack */
	c->rdi = va;
	c->rsi = n;
	c->r12 = PAGE;
	c->r13 = s ? RESULTS_VA : 0;
	c->r14 = write;
	c->r15 = 0x5a;
	*faults = 0;
	for (;;) {
		trap = vostd_user_run(t->vs, c, 0);
		*faults += c->linux_faults;
		if (trap == EV_TRAP_FAULT && fault && !fault(t, c->fault_addr, c->fault_write))
			continue;	/* resolved: the access is retried */
		if (trap == EV_TRAP_KICK)
			continue;
		break;
	}
	if (trap == EV_TRAP_SYSCALL && c->syscall_nr == 0)
		total = c->rbx;
	else
		vostd_println("mem: %s ended with trap %ld at %llx (fault %llx)",
			      __func__, trap, c->rip, c->fault_addr);
	if (total && s && vostd_copy_from_user(t->vs, s, RESULTS_VA, n * 8))
		total = 0;
	vostd_free(c);
	return total;
}

/* Map n fresh frames (or frames[i % nframes]) at va, under one cursor. */
static long map_range(struct vostd_vmspace *vs, unsigned long va, unsigned long n,
		      void **frames, unsigned long nframes, unsigned int prot)
{
	struct vostd_cursor cur;
	unsigned long i;

	vostd_cursor_init(&cur, vs, va, va + n * PAGE, CURSOR_BATCH);
	for (i = 0; i < n; i++) {
		void *f = frames ? frames[i % nframes] : vostd_frame_alloc();

		if (!f)
			return -ENOMEM;
		vostd_cursor_map(&cur, f, prot);
	}
	return vostd_cursor_finish(&cur);
}

/* ---- measurements ---- */

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

/*
 * The fork: every page of the parent made read-only and mapped read-only
 * into the child, with one vm_share for the whole range (a cursor's
 * copy_from).  *crossings gets the page-table calls it made.
 */
static struct tenant *fork_space(struct tenant *parent, unsigned long pages,
				 unsigned long *crossings)
{
	struct tenant *child = tenant_new(pages);
	struct vostd_cursor pc, cc;

	if (!child)
		return NULL;
	vostd_cursor_init(&pc, parent->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_init(&cc, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_copy_from(&cc, &pc, pages * PAGE, RO);
	if (vostd_cursor_finish(&pc) | vostd_cursor_finish(&cc)) {
		tenant_free(child);
		return NULL;
	}
	*crossings = pc.crossings + cc.crossings;
	return child;
}

/*
 * The fork as it was done before vm_share, kept to be timed beside it: for
 * every page of the parent, protect it read-only and map the same frame
 * read-only into the child, each under a cursor of its own.
 */
static struct tenant *fork_space_cursor(struct tenant *parent, unsigned long pages,
					void **frames, unsigned long nframes,
					unsigned long *crossings)
{
	struct tenant *child = tenant_new(pages);
	struct vostd_cursor pc, cc;
	unsigned long i;

	if (!child)
		return NULL;
	vostd_cursor_init(&pc, parent->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_init(&cc, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	for (i = 0; i < pages; i++) {
		vostd_cursor_protect_next(&pc, PAGE, RO);
		vostd_cursor_map(&cc, frames[i % nframes], RO);
	}
	if (vostd_cursor_finish(&pc) | vostd_cursor_finish(&cc)) {
		tenant_free(child);
		return NULL;
	}
	*crossings = pc.crossings + cc.crossings;
	return child;
}

/*
 * Unmap the child's pages under one cursor: its cycles, or 0 on failure.
 * With flush_each, every batch flushes the TLB, as every batch did before
 * a cursor's batches left their flush to its last.
 */
static u64 unmap_child(struct tenant *child, unsigned long pages, bool flush_each)
{
	struct vostd_cursor cur;
	unsigned long i;
	u64 t0 = vostd_cycles();

	vostd_cursor_init(&cur, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	for (i = 0; i < pages; i++) {
		vostd_cursor_unmap(&cur, PAGE);
		if (flush_each && (i + 1) % CURSOR_BATCH == 0)
			vostd_cursor_flush(&cur);
	}
	if (vostd_cursor_finish(&cur))
		return 0;
	return vostd_cycles() - t0;
}

/* The services vOSTD called on this vCPU so far. */
static u64 calls(void)
{
	return READ_ONCE(vostd_vcpu()->calls);
}

/*
 * The process a fork measurement forks: pages of data over FORK_FRAMES
 * frames, each mapped many times over, so that the data stays in the
 * cache and what is timed is page tables.  NULL if it cannot be made.
 */
static struct tenant *fork_parent(unsigned long pages, void ***frames)
{
	struct tenant *parent = tenant_new(0);
	int i;

	*frames = vostd_alloc(FORK_FRAMES * sizeof(void *), true);
	if (!*frames || !parent)
		goto fail;
	for (i = 0; i < FORK_FRAMES; i++) {
		(*frames)[i] = vostd_frame_alloc();
		if (!(*frames)[i])
			goto fail;
	}
	if (!map_range(parent->vs, DATA_VA, pages, *frames, FORK_FRAMES, RW))
		return parent;
fail:
	if (parent)
		tenant_free(parent);
	if (*frames) {
		for (i = 0; i < FORK_FRAMES && (*frames)[i]; i++)
			vostd_frame_free((*frames)[i]);
		vostd_free(*frames);
	}
	return NULL;
}

static void fork_parent_free(struct tenant *parent, void **frames)
{
	int i;

	tenant_free(parent);
	for (i = 0; i < FORK_FRAMES; i++)
		vostd_frame_free(frames[i]);
	vostd_free(frames);
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
static void perf_pair(void)
{
	heap_pair_report("mem.alloc_pair", heap_pair(PAIR_VOSTD, 64), "mem.alloc_pair");
	heap_pair_report("mem.alloc_pair_4k", heap_pair(PAIR_VOSTD, PAGE), "mem.alloc_pair_4k");
}

static void perf(void)
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

/* ---- the scale suite: how the costs grow ---- */

#define SCALE_ROUNDS	3

/*
 * The service pair as perf_heap times it, with live blocks of 64 bytes held
 * (this kernel's own few among them), and Linux's kmalloc pair with as many
 * of its own live.
 */
static void scale_heap(unsigned long live)
{
	unsigned long n = live > 1 ? live - 1 : 0, i;
	void **held = n ? vostd_alloc(n * sizeof(void *), false) : NULL;
	u64 best = ~0ULL;
	long bad = 0, k;
	int r;

	for (i = 0; i < n && held; i++) {
		held[i] = vostd_heap_alloc(64, false);
		if (!held[i])
			break;
	}
	if (n && (!held || i < n)) {
		perf_fail("scale_heap", "could not hold the live blocks:", i);
		goto out;
	}
	for (r = 0; r < 7; r++) {
		u64 t0 = vostd_cycles();

		for (k = 0; k < 1000; k++)
			bad |= vostd_heap_free(vostd_heap_alloc(64, false));
		best = min(best, vostd_cycles() - t0);
	}
	k = vostd_call(EV_SVC_CALIBRATE, EV_CAL_KMALLOC, live, 0, 0, 0);
	if (bad || vostd_is_err(k)) {
		perf_fail("scale_heap", "a pair, or calibrate(EV_CAL_KMALLOC), failed:", bad ?: k);
		goto out;
	}
	vostd_println(EV_FIG_BEST("scale.kmalloc_pair_live%lu", "%ld.%ld", "7", "1000"),
		      live, k / 10, k % 10);
	vostd_println(EV_FIG_BEST("scale.alloc_pair_live%lu", "%llu.%llu", "7", "1000")
		      EV_BASELINE("scale.kmalloc_pair_live%lu"),
		      live, best / 1000, best % 1000 / 100, live);
out:
	while (held && i--)
		vostd_heap_free(held[i]);
	if (held)
		vostd_free(held);
}

/* One ownership check's median, cycles; full: the whole check each time. */
static long owns_check(void *buf, bool full)
{
	return vostd_call(EV_SVC_CALIBRATE, EV_CAL_OWNS, (unsigned long)buf, 64, full, 0);
}

/*
 * The check that memory is the sandbox's, with grants frames granted, on
 * this sandbox's vCPUs: of a frame (the last test, after the stacks, the
 * heap and the kernel's data) and of a heap block, whole each time, and as
 * a service's cached check finds it.  Frames are granted here directly,
 * before vOSTD's pool has any, so that the grant holds exactly grants.
 */
static void scale_owns(const char *prefix)
{
	static const unsigned int grants[] = { 1, 64, 512 };
	u64 *out = vostd_alloc(512 * sizeof(u64), true);
	char *blk = vostd_alloc(64, false);
	unsigned int g, have = 0, v = vostd_nr_cpus();
	long frame_c, block_c, cached_c, r;

	if (!out || !blk) {
		perf_fail("scale_owns", "no memory:", -ENOMEM);
		return;
	}
	for (g = 0; g < ARRAY_SIZE(grants); g++) {
		r = vostd_call(EV_SVC_FRAME_GRANT, grants[g] - have, (unsigned long)out, 0, 0, 0);
		if (r != (long)(grants[g] - have)) {
			perf_fail("scale_owns", "frame_grant returned", r);
			break;
		}
		have = grants[g];
		frame_c = owns_check((void *)out[0], true);
		block_c = owns_check(blk, true);
		if (vostd_is_err(frame_c) || vostd_is_err(block_c)) {
			perf_fail("scale_owns", "calibrate(EV_CAL_OWNS) returned",
				  vostd_is_err(frame_c) ? frame_c : block_c);
			break;
		}
		vostd_println(EV_FIG("%sowns_frame_g%u_v%u", "%ld", "median", "cycles")
			      EV_FIELD("n", "1000"), prefix, grants[g], v, frame_c);
		vostd_println(EV_FIG("%sowns_block_g%u_v%u", "%ld", "median", "cycles")
			      EV_FIELD("n", "1000"), prefix, grants[g], v, block_c);
	}
	cached_c = owns_check(blk, false);
	if (vostd_is_err(cached_c))
		perf_fail("scale_owns", "calibrate(EV_CAL_OWNS) returned", cached_c);
	else
		vostd_println(EV_FIG("%sowns_cached_v%u", "%ld", "median", "cycles")
			      EV_FIELD("n", "1000"), prefix, v, cached_c);
	/* The frames granted here stay the sandbox's; vOSTD's pool never sees them. */
	vostd_free(blk);
	vostd_free(out);
}

/* Fork and unmap of mib MiB, as perf_fork times them. */
static void scale_fork(unsigned int mib)
{
	unsigned long pages = mib * 256UL, crossings;
	void **frames;
	struct tenant *parent = fork_parent(pages, &frames), *child;
	u64 fork_c[SCALE_ROUNDS], unmap_c[SCALE_ROUNDS];
	char key[40], base[40];
	int r;

	if (!parent)
		goto fail;
	if (vostd_vm_activate(parent->vs)) {
		fork_parent_free(parent, frames);
		goto fail;
	}
	for (r = 0; r < SCALE_ROUNDS; r++) {
		u64 t0 = vostd_cycles();

		child = fork_space(parent, pages, &crossings);
		fork_c[r] = vostd_cycles() - t0;
		if (!child)
			goto fail;
		unmap_c[r] = unmap_child(child, pages, false);
		tenant_free(child);
		if (!unmap_c[r] || vostd_vm_protect(parent->vs, DATA_VA, pages, RW))
			goto fail;
	}
	vostd_snprintf(key, sizeof(key), "scale.fork_%um", mib);
	vostd_snprintf(base, sizeof(base), "linux.fork_%um", mib);
	report(key, fork_c, SCALE_ROUNDS, "cycles", base);
	vostd_snprintf(key, sizeof(key), "scale.unmap_%um", mib);
	vostd_snprintf(base, sizeof(base), "linux.munmap_%um", mib);
	report(key, unmap_c, SCALE_ROUNDS, "cycles", base);
	vostd_vm_activate(NULL);
	fork_parent_free(parent, frames);
	return;
fail:
	vostd_fail("scale_fork", "the fork of %u MiB failed", mib);
}

/*
 * What a tenant space makes Linux hold beyond its frames, with a page
 * mapped (so with the page tables down to it): calibrate's account of it.
 */
static void scale_tenant_memory(void)
{
	struct vostd_vmspace *vs = vostd_vmspace_new();
	void *frame = vostd_frame_alloc();
	long bytes = -ENOMEM;

	if (vs && frame && !vostd_vm_map(vs, DATA_VA, frame, RW))
		bytes = vostd_call(EV_SVC_CALIBRATE, EV_CAL_VM_BYTES, vs->handle, 0, 0, 0);
	if (vostd_is_err(bytes))
		perf_fail("scale_tenant_memory", "calibrate(EV_CAL_VM_BYTES) returned", bytes);
	else
		vostd_println(EV_FIG("scale.mem_per_tenant", "%ld", "mean", "KiB"), bytes / 1024);
	if (vs)
		vostd_vmspace_destroy(vs);
	if (frame)
		vostd_frame_free(frame);
}

/*
 * scale [owns]: the scale suite's rows that one sandbox measures, keyed
 * scale.*; with owns, only the ownership checks, keyed without the
 * prefix, which the suite's launcher adds (it runs this on 16 vCPUs, in a
 * second sandbox whose crossing figures its label keeps apart).
 */
static void scale(const char *args)
{
	if (vostd_has_prefix(args, " owns")) {
		scale_owns("");
		return;
	}
	scale_owns("scale.");
	scale_heap(1);
	scale_heap(1000);
	scale_heap(100000);
	scale_fork(4);
	scale_fork(16);
	scale_fork(64);
	scale_tenant_memory();
}

/* ---- tests ---- */

static int a_static;

/*
 * Did the report a test case expected come?  Always, without the checking
 * mode, where the case's return values say all.
 */
static bool reported(void)
{
	struct vostd_san_report r;

	return !vostd_checking() || vostd_san_expected(&r);
}

/* The endovisor's refusals, on its own blocks (the slab's are below). */
static void test_heap(void)
{
	char *p = vostd_heap_alloc(64, false);
	long r;

	r = vostd_heap_free(&a_static);
	check("free_never_given", r == -ENOENT,
	      "a free of memory the heap never gave out returned", r);
	r = vostd_heap_free(p + 8);
	check("free_interior", r == -EINVAL, "a free of a pointer inside a block returned", r);
	r = vostd_heap_free(p);
	check("free", r == 0, "a free of a block returned", r);
	r = vostd_heap_free(p);
	check("free_double", r == -ENOENT, "a second free of the block returned", r);
}

#define SLAB_MANY	300	/* 64-byte objects: several slabs */

/*
 * The slab: its refusals, its alignment and zeroing, and what is still
 * the endovisor's to refuse.
 */
static void test_slab(void)
{
	char *p = vostd_alloc(64, false), *q;
	void **many = vostd_alloc(SLAB_MANY * sizeof(void *), true);
	unsigned long size, frames = vostd_slab_frames(), bad = 0;
	long r;
	int i;

	check("slab_object", p && vostd_slab_frames() > 0,
	      "a 64-byte object, the slab's frames:", vostd_slab_frames());
	r = vostd_heap_free(p);
	check("slab_object_not_a_block", r == -ENOENT, "mem_free of a slab object returned", r);
	vostd_san_expect(VOSTD_SAN_INVALID_FREE);
	r = vostd_free(&a_static);
	check("slab_free_never_given", r == -ENOENT && reported(),
	      "a free of a static returned", r);
	vostd_san_expect(VOSTD_SAN_INVALID_FREE);
	r = vostd_free(p + 8);
	check("slab_free_interior", r == -EINVAL && reported(),
	      "a free of a pointer inside an object returned", r);
	vostd_memset(p, 0xff, 64);
	r = vostd_free(p);
	check("slab_free", r == 0, "a free of an object returned", r);
	vostd_san_expect(VOSTD_SAN_DOUBLE_FREE);
	r = vostd_free(p);
	check("slab_free_double", r == -ENOENT && reported(),
	      "a second free of the object returned", r);
	/* The checking mode's quarantine holds the object: another one comes. */
	q = vostd_alloc(64, true);
	for (i = 0; q && i < 64; i++)
		bad |= q[i];
	check("slab_zeroed", (q == p || vostd_checking()) && !bad,
	      "the object given again (same one, zeroed) differs by", bad);
	vostd_free(q);
	for (size = 1; size <= 2 * VOSTD_SLAB_MAX; size = size * 2 + 1) {
		unsigned long align = max(32UL, 1UL << (64 - __builtin_clzl((size - 1) | 1)));

		q = vostd_alloc(size, false);
		if (!q || ((unsigned long)q & (align - 1)))
			bad = size;
		vostd_free(q);
	}
	check("slab_aligned", !bad, "an object not aligned to its size, of size", bad);
	for (i = 0; many && i < SLAB_MANY; i++) {
		many[i] = vostd_alloc(64, false);
		if (!many[i])
			bad++;
	}
	check("slab_many", many && !bad && vostd_slab_frames() > frames + 3,
	      "objects held; the slab's frames grew by", vostd_slab_frames() - frames);
	/* A second free of each, but where it is a report (planted_double_free has one). */
	for (i = 0; many && i < SLAB_MANY; i++)
		bad |= vostd_free(many[i]) != 0 ||
		       (!vostd_checking() && vostd_free(many[i]) != -ENOENT);
	check("slab_many_freed", !bad, "a free, or a second free, of the objects went wrong", bad);
	vostd_free(many);
}

/* The services take a slab object as the sandbox's memory, to read and to write. */
static void test_slab_copies(struct tenant *t)
{
	char *from = vostd_alloc(64, false), *to = vostd_alloc(64, true);
	long r = -ENOMEM;
	int i, bad = 0;

	if (from && to) {
		for (i = 0; i < 64; i++)
			from[i] = i;
		r = vostd_copy_to_user(t->vs, DATA_VA, from, 64) ?:
			vostd_copy_from_user(t->vs, to, DATA_VA, 64);
		for (i = 0; i < 64; i++)
			bad |= to[i] != i;
	}
	check("slab_copies", !r && !bad, "copies out of and into slab objects returned", r ?: bad);
	vostd_free(from);
	vostd_free(to);
}

static void test_refusals(struct tenant *t)
{
	void *block = vostd_alloc(PAGE, false);
	char buf[64];
	long r;

	/* A page-aligned heap block is kernel memory, but no frame of the grant. */
	r = vostd_vm_map(t->vs, DATA_VA + 100 * PAGE, block, RW);
	check("map_outside_grant", r == -EACCES, "a map of a frame outside the grant returned", r);
	r = vostd_vm_map(t->vs, DATA_VA, t->code, RW);
	check("map_over_mapping", r == -EEXIST, "a map over an existing mapping returned", r);
	r = vostd_vm_protect(t->vs, DATA_VA + 200 * PAGE, 1, RO);
	check("protect_unmapped", r == -ENOENT, "a protect of an unmapped page returned", r);
	r = vostd_vm_unmap(t->vs, DATA_VA + 200 * PAGE, 1);
	check("unmap_unmapped", r == -ENOENT, "an unmap of an unmapped page returned", r);
	r = vostd_copy_from_user(t->vs, buf, DATA_VA + 300 * PAGE, sizeof(buf));
	check("copy_unmapped", r == -EFAULT, "a copy from an unmapped address returned", r);
	r = vostd_copy_from_user(t->vs, buf, (unsigned long)buf, sizeof(buf));
	check("copy_kernel", r == -EFAULT, "a copy from a kernel address returned", r);
	vostd_free(block);
}

/* Resolve a fault by mapping a fresh frame where it fell. */
static long map_on_fault(struct tenant *t, unsigned long addr, bool write)
{
	void *f = vostd_frame_alloc();

	return f ? vostd_vm_map(t->vs, addr & ~(PAGE - 1), f, RW) : -ENOMEM;
}

/*
 * Copy-on-write: a write to a shared read-only page gets its own copy.  The
 * shared frame is found by asking the page table what is mapped there.
 */
static long cow_fault(struct tenant *t, unsigned long addr, bool write)
{
	unsigned long va = addr & ~(PAGE - 1);
	unsigned int prot;
	void *shared, *copy;
	long r;

	t->traps++;
	if (!write || va < DATA_VA)
		return -EFAULT;
	r = vostd_vm_query(t->vs, va, &shared, &prot);
	if (r)
		return r;	/* nothing there to copy: a plain fault */
	if (prot & EV_PROT_WRITE)
		return 0;	/* made writable meanwhile: retry */
	copy = vostd_frame_alloc();
	if (!copy)
		return -ENOMEM;
	vostd_memcpy(copy, shared, PAGE);
	if (vostd_vm_unmap(t->vs, va, 1))
		return -EFAULT;
	return vostd_vm_map(t->vs, va, copy, RW);
}

/* Note the fault, and let the write through by making the page writable. */
static long note_fault(struct tenant *t, unsigned long addr, bool write)
{
	t->traps++;
	t->fault_addr = addr;
	t->fault_write = write;
	return vostd_vm_protect(t->vs, addr & ~(PAGE - 1), 1, RW);
}

/*
 * A protect must reach the TLB.  The tenant writes a page, so the TLB holds
 * a writable entry for it; the kernel proper protects the page read-only
 * while the carrier holds the tenant's address space; the tenant's next
 * write must trap to the kernel proper as a write fault.  Without the
 * flush, the old entry would let the write through.
 */
static void test_flush(void)
{
	struct tenant *t = tenant_new(1);
	u64 faults;
	long r;

	if (!t || map_range(t->vs, DATA_VA, 1, NULL, 0, RW) ||
	    !touch(t, DATA_VA, 1, true, NULL, &faults, note_fault)) {
		check("protect_flush", false, "could not set up the tenant", 0);
		return;
	}
	check("write_no_faults", t->traps == 0, "a write to a writable page trapped", t->traps);
	r = vostd_vm_activate(t->vs);
	if (!r)
		r = vostd_vm_protect(t->vs, DATA_VA, 1, RO);
	if (r || !touch(t, DATA_VA, 1, true, NULL, &faults, note_fault)) {
		check("protect_flush", false, "the write after the protect did not complete", r);
	} else {
		check("protect_flush", t->traps == 1 && t->fault_write && t->fault_addr == DATA_VA,
		      "write faults trapped after the protect:", t->traps);
	}
	tenant_free(t);
}

/*
 * Map frame at count pages from va, stride bytes apart, with vm_batch,
 * until a map is refused: how many were mapped, and *err the refusal (0 if
 * none was).
 */
static unsigned long map_until_refused(struct vostd_vmspace *vs, unsigned long va,
				       unsigned long stride, void *frame,
				       unsigned long count, long *err)
{
	struct ev_vm_op *ops = vostd_alloc(EV_BATCH_MAX * sizeof(*ops), false);
	unsigned long done = 0, i, n;

	*err = ops ? 0 : -ENOMEM;
	while (ops && done < count && !*err) {
		n = min(count - done, (unsigned long)EV_BATCH_MAX);
		for (i = 0; i < n; i++)
			ops[i] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RO,
						    .va = va + (done + i) * stride,
						    .frame = (unsigned long)frame };
		*err = vostd_call(EV_SVC_VM_BATCH, vs->handle, (unsigned long)ops, n, 0, 0);
		if (*err >= 0) {
			*err = 0;
			done += n;
			continue;
		}
		for (i = 0; i < n && !(ops[i].op & EV_VM_OP_FAILED); i++)
			done++;
	}
	if (ops)
		vostd_free(ops);
	return done;
}

/*
 * The page tables k maps at 2 MiB strides from a 1 GiB boundary make Linux
 * allocate in a new space: a page table each, a middle table per GiB, and
 * one upper table.
 */
static unsigned long tables_for(unsigned long k)
{
	return k + (k + 511) / 512 + 1;
}

/*
 * The sandbox's bounds on what its spaces make Linux hold.  Run when it
 * has no other space, so that the whole of each bound is this test's.
 */
static void test_bounds(void)
{
	struct vostd_vmspace *vs = vostd_vmspace_new();
	void *frame = vostd_frame_alloc();
	unsigned long n, want;
	long r;

	if (!vs || !frame) {
		check("map_bound", false, "could not set up a space", 0);
		return;
	}
	/* One frame at every page, past the bound on mapped pages. */
	n = map_until_refused(vs, DATA_VA, PAGE, frame, EV_MAP_QUOTA + 1, &r);
	check("map_bound", r == -ENOSPC && n == EV_MAP_QUOTA,
	      "pages mapped before a map past the bound was refused:", n);
	vostd_vmspace_destroy(vs);
	vs = vostd_vmspace_new();
	r = vs ? vostd_vm_map(vs, DATA_VA, frame, RO) : -ENOMEM;
	check("map_bound_released", r == 0, "a map after the space was destroyed returned", r);
	if (vs)
		vostd_vmspace_destroy(vs);

	/* One frame every 2 MiB, each map a page table of its own. */
	vs = vostd_vmspace_new();
	if (!vs) {
		check("table_bound", false, "could not set up a space", 0);
		return;
	}
	for (want = 0; tables_for(want + 1) <= EV_PT_QUOTA; want++)
		;
	n = map_until_refused(vs, EV_TENANT_BASE + GIB, PMD_SPAN, frame, EV_PT_QUOTA, &r);
	check("table_bound", r == -ENOSPC && n == want,
	      "sparse maps before the bound on page tables refused one:", n);
	vostd_vmspace_destroy(vs);
	vostd_frame_free(frame);
}

/* ---- bugs planted for the checking mode ---- */

static bool site_is(const struct vostd_site *s, int line)
{
	return s && s->line == line && vostd_has_prefix(s->file, __FILE__) &&
	       vostd_has_prefix(__FILE__, s->file);
}

/*
 * A planted bug's case.  With the checking mode on, it must have made the
 * one report expected: of kind, the damage from byte first to last, naming
 * the lines of this file that allocated and freed the object and where
 * the damage was found (a line of 0: none to name).  Without it, nothing
 * is reported, and that the sandbox goes on is the case.
 */
static void planted(const char *name, enum vostd_san_kind kind, long first, long last,
		    int at_alloc, int at_free, int at_found)
{
	struct vostd_san_report r = {};
	bool seen = vostd_san_expected(&r);

	if (!vostd_checking())
		check(name, !seen, "a report without the checking mode", 0);
	else if (!seen)
		vostd_fail(name, "no report");
	else
		check(name, r.kind == kind && r.first == first && r.last == last &&
		      (at_alloc ? site_is(r.alloc, at_alloc) : !r.alloc) &&
		      (at_free ? site_is(r.free, at_free) : !r.free) &&
		      (at_found ? site_is(r.at, at_found) : !r.at),
		      "the report is another: its kind", r.kind);
}

/* As the linux kernel's pipe, which its reader wrote into after a close freed it. */
struct planted_pipe {
	vostd_spinlock_t lock;
	u32 len;
	u64 head;
	char buf[48];
};

/*
 * A reader that kept a pointer to the pipe across its sleep writes after
 * the pipe's free; the object waits in the quarantine, and a check finds
 * its poison spoiled at head's bytes.  Without the mode the write lands
 * in a free slab object of the sandbox's own.
 */
static void planted_write_after_free(void)
{
	struct planted_pipe *pp = vostd_alloc(sizeof(*pp), true);
	int at_alloc = __LINE__ - 1, at_free;

	if (!pp) {
		vostd_fail("planted_write_after_free", "no object");
		return;
	}
	vostd_san_expect(VOSTD_SAN_WRITE_AFTER_FREE);
	vostd_free(pp);
	at_free = __LINE__ - 1;
	WRITE_ONCE(pp->head, 1);	/* the planted bug */
	vostd_san_check();
	planted("planted_write_after_free", VOSTD_SAN_WRITE_AFTER_FREE, 8, 15,
		at_alloc, at_free, 0);
}

/*
 * The same reader, taking the freed pipe's lock: the word is the poison,
 * no lock's, and the report comes at once (without a planted expectation
 * the vCPU would stop there, for going on would read the poison as the
 * pipe's pointers).  The lock's own write and its release are then a
 * write after free.  Without the mode the freed lock is unlocked, as the
 * free found it.
 */
static void planted_lock_after_free(void)
{
	struct planted_pipe *pp = vostd_alloc(sizeof(*pp), true);
	int at_alloc = __LINE__ - 1, at_free;

	if (!pp) {
		vostd_fail("planted_lock_after_free", "no object");
		return;
	}
	vostd_free(pp);
	at_free = __LINE__ - 1;
	vostd_san_expect(VOSTD_SAN_LOCK_SPOILED);
	vostd_upcall_disable();
	vostd_spin_lock(&pp->lock);	/* the planted bug */
	vostd_spin_unlock(&pp->lock);
	vostd_upcall_enable();
	planted("planted_lock_after_free", VOSTD_SAN_LOCK_SPOILED, 0, 0, at_alloc, at_free, 0);
	vostd_san_expect(VOSTD_SAN_WRITE_AFTER_FREE);
	vostd_san_check();
	planted("planted_lock_after_free_write", VOSTD_SAN_WRITE_AFTER_FREE, 0, 3,
		at_alloc, at_free, 0);
}

/*
 * One byte past a 48-byte object: its redzone, found by its free.  Without
 * the mode, the byte is the slack of the slab's 64-byte object.
 */
static void planted_overrun(void)
{
	char *p = vostd_alloc(48, false);
	int at_alloc = __LINE__ - 1, at_free;

	if (!p) {
		vostd_fail("planted_overrun", "no object");
		return;
	}
	vostd_san_expect(VOSTD_SAN_REDZONE_AFTER);
	p[48] = 1;			/* the planted bug */
	vostd_free(p);
	at_free = __LINE__ - 1;
	planted("planted_overrun", VOSTD_SAN_REDZONE_AFTER, 48, 48, at_alloc, 0, at_free);
}

/*
 * One byte before an object.  Only with the mode on: without it the byte
 * is the end of the slab object before, which may be someone's.
 */
static void planted_underrun(void)
{
	char *p = vostd_alloc(48, false);
	int at_alloc = __LINE__ - 1, at_free;

	if (!p || !vostd_checking()) {
		vostd_free(p);
		return;
	}
	vostd_san_expect(VOSTD_SAN_REDZONE_BEFORE);
	p[-1] = 1;			/* the planted bug */
	vostd_free(p);
	at_free = __LINE__ - 1;
	planted("planted_underrun", VOSTD_SAN_REDZONE_BEFORE, -1, -1, at_alloc, 0, at_free);
}

/* A second free while the first is in the quarantine: both frees named. */
static void planted_double_free(void)
{
	char *p = vostd_alloc(64, false);
	int at_alloc = __LINE__ - 1, at_free, at_again;
	long r;

	vostd_san_expect(VOSTD_SAN_DOUBLE_FREE);
	vostd_free(p);
	at_free = __LINE__ - 1;
	r = vostd_free(p);		/* the planted bug */
	at_again = __LINE__ - 1;
	if (r != -ENOENT)
		vostd_fail("planted_double_free", "the second free returned %ld", r);
	else
		planted("planted_double_free", VOSTD_SAN_DOUBLE_FREE, 0, 0,
			at_alloc, at_free, at_again);
}

/*
 * A frame written after its free, found when the pool gives it out again
 * (the pool is a stack: the next allocation takes it back).  Without the
 * mode the write lands in a frame of the sandbox's pool, zeroed when
 * given out.
 */
static void planted_frame_write(void)
{
	char *f = vostd_frame_alloc(), *g;
	int at_free;

	if (!f) {
		vostd_fail("planted_frame_write", "no frame");
		return;
	}
	vostd_san_expect(VOSTD_SAN_FRAME_WRITE);
	vostd_frame_free(f);
	at_free = __LINE__ - 1;
	f[100] = 1;			/* the planted bug */
	g = vostd_frame_alloc();
	planted("planted_frame_write", VOSTD_SAN_FRAME_WRITE, 100, 100, 0, at_free, 0);
	if (g)
		vostd_frame_free(g);
}

/*
 * A frame freed twice: the second free is refused, and the frame is in
 * the pool once.  Only with the mode on: without it the pool would hold
 * the frame twice and give it to two owners.
 */
static void planted_frame_double_free(void)
{
	void *f = vostd_frame_alloc();
	int at_free, at_again;

	if (!f || !vostd_checking()) {
		if (f)
			vostd_frame_free(f);
		return;
	}
	vostd_san_expect(VOSTD_SAN_FRAME_DOUBLE_FREE);
	vostd_frame_free(f);
	at_free = __LINE__ - 1;
	vostd_frame_free(f);		/* the planted bug */
	at_again = __LINE__ - 1;
	planted("planted_frame_double_free", VOSTD_SAN_FRAME_DOUBLE_FREE, 0, 0,
		0, at_free, at_again);
}

static void planted_bugs(void)
{
	planted_write_after_free();
	planted_lock_after_free();
	planted_overrun();
	planted_underrun();
	planted_double_free();
	planted_frame_write();
	planted_frame_double_free();
}

static void tests(void)
{
	struct tenant *t = tenant_new(8), *child, *cow_parent;
	unsigned long pt_calls;
	void *frames[4];
	u64 faults, s[8];
	char before[1], after[1];
	long r;
	int i;

	test_heap();
	test_slab();
	if (!t) {
		check("tenant", false, "could not set up a tenant", 0);
		return;
	}
	if (map_range(t->vs, DATA_VA, 8, NULL, 0, RW) ||
	    !touch(t, DATA_VA, 8, false, s, &faults, NULL))
		check("first_touch", false, "the tenant did not run", 0);
	else
		check("first_touch_no_faults", faults == 0,
		      "first touch of mapped pages faulted", faults);
	test_slab_copies(t);
	test_refusals(t);
	r = vostd_vm_protect(t->vs, DATA_VA, 8, RO);
	check("protect", r == 0, "protect returned", r);
	if (touch(t, DATA_VA, 8, false, s, &faults, NULL))
		check("protect_no_faults", faults == 0, "reads after protect faulted", faults);
	else
		check("protect_no_faults", false,
		      "the tenant's reads after protect did not finish", 0);
	/* A touch of pages nobody mapped: each faults to the kernel proper. */
	if (touch(t, DATA_VA + 400 * PAGE, 4, false, NULL, &faults, map_on_fault))
		check("tenant_fault", faults == 4,
		      "page faults resolved by the kernel proper:", faults);
	else
		check("tenant_fault", false, "the faulting tenant did not finish", 0);
	tenant_free(t);

	test_flush();

	/* Fork four pages, then write in the child. */
	cow_parent = tenant_new(4);
	for (i = 0; i < 4; i++)
		frames[i] = vostd_frame_alloc();
	if (!cow_parent || map_range(cow_parent->vs, DATA_VA, 4, frames, 4, RW)) {
		check("cow", false, "could not set up the parent", 0);
		return;
	}
	vostd_copy_to_user(cow_parent->vs, DATA_VA, "P", 1);
	child = fork_space(cow_parent, 4, &pt_calls);
	if (!child || !touch(child, DATA_VA, 4, true, NULL, &faults, cow_fault)) {
		check("cow", false, "the child's writes did not complete", 0);
		return;
	}
	vostd_copy_from_user(cow_parent->vs, before, DATA_VA, 1);
	vostd_copy_from_user(child->vs, after, DATA_VA, 1);
	check("cow_fault_count", faults == 4 && child->traps == 4,
	      "the child's writes faulted this many times:", faults);
	check("cow_parent_kept", before[0] == 'P', "the parent's page changed to", before[0]);
	check("cow_child_copy", after[0] == 0x5a, "the child's page holds", after[0]);
	r = vostd_copy_to_user(cow_parent->vs, DATA_VA, "Q", 1);
	check("copy_to_readonly", r == -EFAULT,
	      "a copy into the parent's read-only page returned", r);
	tenant_free(child);
	tenant_free(cow_parent);
	for (i = 0; i < 4; i++)
		vostd_frame_free(frames[i]);
	test_bounds();
	planted_bugs();
	vostd_tests_end();
}

static long mem_main(void)
{
	const char *args = vostd_vcpu()->args;

	if (vostd_has_prefix(args, "test")) {
		tests();
	} else if (vostd_has_prefix(args, "planted")) {
		planted_bugs();
		vostd_tests_end();
	} else if (vostd_has_prefix(args, "perf pair")) {
		perf_pair();
	} else if (vostd_has_prefix(args, "perf")) {
		perf();
	} else if (vostd_has_prefix(args, "scale")) {
		scale(args + 5);
	} else {
		vostd_fail("mode", "unknown mode '%s' (want test, planted, perf or scale)", args);
	}
	/* A failed case fails the run (vostd_boot). */
	return 0;
}

VOSTD_KERNEL(mem, mem_main, NULL);
