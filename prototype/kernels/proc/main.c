// SPDX-License-Identifier: GPL-2.0
/*
 * proc: the sandbox kernel with processes, and its tests and measurements.
 *
 *   test   runs each test tenant as a process and checks how it ended: hello
 *          (prints, forks, yields, waits, exits), fpcheck (two threads' x87,
 *          SSE and MXCSR registers never mix), threads (fifty threads over
 *          the vCPUs), calls (munmap and clock), cow (after fork neither
 *          process sees the other's writes), segs (FS and GS zero again after
 *          a trap), and the kills: badaddr (a read
 *          of an unmapped page), rowrite (a write to a read-only page),
 *          nullptr (an exception outside the region), badop (an invalid
 *          opcode), badsys (an unknown system call); one EVTEST line each
 *   perf   times the kernel's own crossing pair (perf_crossing), and runs
 *          the yield tenant, which times a null system call, a yield
 *          round trip between two processes on one vCPU and one between
 *          two threads of a process, and, through its timed calls, every
 *          part of each trip (trip_call); EVFIG lines
 *   run NAME
 *          runs the tenant NAME to its end (spin has none: the reliability
 *          suite kills it)
 *
 * vCPU 0 runs a coordinator task; every vCPU runs kl_run until it stops
 * the kernelet.
 */
#include "proc.h"

struct procs *procs(void)
{
	return vostd_global(VOSTD_SLOT_KERNEL, sizeof(struct procs));
}

/* ---- timed trips ---- */

/*
 * The part of tr that ends at now: the cycles since the last part ended,
 * if both readings came from one CPU.  A trip with a part the carrier
 * changed CPU in is not kept, since two CPUs' counters are not to be
 * compared; nor is one with a reading missing (a run that no task work
 * began has no EV_STAMP_RESUMED).
 */
void trip_part(struct trip *tr, enum proc_part part, struct ev_stamp now)
{
	if (!tr->set)
		return;
	if (!now.at || now.cpu != tr->last.cpu || now.at < tr->last.at)
		tr->bad = true;
	else
		tr->part[part] += now.at - tr->last.at;
	tr->last = now;
}

static void trip_keep(struct trip *tr)
{
	struct procs *ps = procs();
	struct proc_perf *perf = ps->perf[tr->set];
	u64 *p = tr->part, *row;
	unsigned int i;
	u64 sum = 0;

	if (!perf)
		return;
	if (tr->bad) {
		__atomic_add_fetch(&ps->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	if (perf->n >= PROC_SAMPLES)
		return;
	row = perf->s[perf->n++];
	for (i = 0; i < PART_NR; i++) {
		row[i] = p[i];
		sum += p[i];
	}
	row[COL_HOOK_IN] = p[PART_ENTRY] + p[PART_SKIP] + p[PART_TRAP];
	row[COL_HOOK_OUT] = p[PART_RUN] + p[PART_EXIT];
	row[COL_TRIP] = sum;
}

long trip_kept(u32 set)
{
	struct proc_perf *perf = set < TIMED_SETS ? procs()->perf[set] : NULL;

	return perf ? (long)perf->n : -1;
}

/*
 * t made a system call, entering the kernel proper at entered.  The trip
 * that brought t here ends with it, if this call is timed in the same set:
 * the tenant's readings give the way out of the last call and the tenant's
 * own code since.  A timed call begins the next trip, its first three parts
 * known already from the tenant's reading and the endovisor's.
 */
void trip_call(struct thread *t, u32 set, struct ev_stamp entered)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct ev_stamp t0 = { .at = c->rdi, .cpu = TIMED_CPU0(c->rdx) };
	struct ev_stamp t3 = { .at = c->rsi, .cpu = TIMED_CPU3(c->rdx) };
	struct trip *tr = &t->trip;

	if (tr->set && tr->set == set) {
		trip_part(tr, PART_RUN, t->stamps[EV_STAMP_RESUMED]);
		trip_part(tr, PART_EXIT, t3);
		trip_part(tr, PART_USER, t0);
		trip_keep(tr);
	}
	tr->set = 0;
	if (!set || set >= TIMED_SETS || !procs()->perf[set])
		return;
	*tr = (struct trip){ .set = set, .from = t, .last = t0 };
	trip_part(tr, PART_ENTRY, t->stamps[EV_STAMP_SYS_ENTER]);
	trip_part(tr, PART_SKIP, t->stamps[EV_STAMP_WORK]);
	trip_part(tr, PART_TRAP, entered);
}

/*
 * t runs next on its vCPU, after a kernelet switch or at its start: a trip
 * a yield left on the vCPU is now t's.  One that t left itself went
 * nowhere, and any other thread's run on the vCPU ends a trip left there.
 */
void trip_arrive(struct thread *t)
{
	struct trip *y = &procs()->yielding[t->vcpu];

	if (!y->set)
		return;
	if (y->from != t) {
		t->trip = *y;
		trip_mark(&t->trip, PART_KL_SWITCH);
	}
	y->set = 0;
}

/* ---- the tenant images (blobs.S) ---- */

#define IMAGE(name) { #name, tenant_##name##_start, tenant_##name##_end }
#define DECLARE(name) extern const char tenant_##name##_start[], tenant_##name##_end[]

DECLARE(hello);
DECLARE(fpcheck);
DECLARE(badaddr);
DECLARE(nullptr);
DECLARE(badsys);
DECLARE(threads);
DECLARE(yield);
DECLARE(spin);
DECLARE(calls);
DECLARE(cow);
DECLARE(rowrite);
DECLARE(badop);
DECLARE(segs);

static const struct {
	const char *name;
	const char *start, *end;
} images[] = {
	IMAGE(hello), IMAGE(fpcheck), IMAGE(badaddr), IMAGE(nullptr),
	IMAGE(badsys), IMAGE(threads), IMAGE(yield), IMAGE(spin), IMAGE(calls),
	IMAGE(cow), IMAGE(rowrite), IMAGE(badop), IMAGE(segs),
};

static bool same(const char *a, const char *b)
{
	return vostd_has_prefix(a, b) && vostd_has_prefix(b, a);
}

const char *tenant_image(const char *name, unsigned long *size)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(images); i++)
		if (same(images[i].name, name)) {
			*size = images[i].end - images[i].start;
			return images[i].start;
		}
	return NULL;
}

/* ---- test ---- */

/* Run one tenant to its end; -1000 if it could not start. */
static long run(const char *name)
{
	struct proc *p = proc_spawn(name);

	return p ? proc_wait(p) : -1000;
}

static void expect(const char *name, long want)
{
	long code = run(name);

	vostd_test(name, code == want, "exit=%ld want=%ld", code, want);
}

static void tests(void)
{
	struct procs *ps = procs();

	expect("hello", 0);
	expect("fpcheck", 0);
	expect("threads", 0);
	expect("calls", 0);		/* its child killed: nothing mapped there */
	expect("cow", 0);
	expect("segs", 0);
	expect("badaddr", 128 + 11);	/* killed: nothing mapped there */
	expect("rowrite", 128 + 11);	/* killed: the page is read-only */
	expect("nullptr", 128 + 11);	/* killed: SIGSEGV outside the region */
	expect("badop", 128 + 4);	/* killed: SIGILL, an invalid opcode */
	expect("badsys", 128 + 31);	/* killed: unknown system call */
	vostd_test("table_empty", !ps->live_procs && !ps->live_threads,
		   "processes=%u threads=%u", ps->live_procs, ps->live_threads);
	vostd_tests_end();
}

/* ---- perf ---- */

static const char *const part_names[PROC_COLS] = {
	[PART_ENTRY] = "entry", [PART_SKIP] = "skip", [PART_TRAP] = "trap",
	[PART_KERNEL] = "kernel", [PART_KL_SWITCH] = "kl_switch",
	[PART_SWITCH_MM] = "switch_mm", [PART_FPU_SWITCH] = "fpu_switch",
	[PART_RUN] = "run", [PART_EXIT] = "exit", [PART_USER] = "user",
	[COL_HOOK_IN] = "hook_in", [COL_HOOK_OUT] = "hook_out", [COL_TRIP] = "trip",
};

/* The figure of a column's median and p99, sorted in s; the median. */
static u64 report(const char *prefix, const char *name, u32 set, unsigned int col, u64 *s)
{
	struct proc_perf *perf = procs()->perf[set];
	u32 n = perf->n, i;
	char key[64];

	for (i = 0; i < n; i++)
		s[i] = perf->s[i][col];
	if (!n) {
		vostd_fail("perf", "no timed trips for %s%s", prefix, name);
		return 0;
	}
	vostd_snprintf(key, sizeof(key), "%s%s", prefix, name);
	return vostd_fig_median(key, s, n, "cycles", NULL);
}

/*
 * Every part of a set's trips, and their sums; the sum of the parts'
 * medians as a round trip has them: a null call once each but the
 * tenant's own code, which is outside its round trip; a yield round trip
 * twice each (there and back), the tenant's own code once (the other
 * thread's, between its calls).
 */
static void report_set(u32 set, const char *prefix, const char *parts_key, u64 *s)
{
	u64 sum = 0, user = 0;
	unsigned int i;

	for (i = 0; i < PROC_COLS; i++) {
		const char *prefix_here;
		u64 m;

		if (set == TIMED_NOP && (i == PART_KL_SWITCH || i == PART_SWITCH_MM ||
					 i == PART_FPU_SWITCH))
			continue;		/* a null call switches nothing */
		if (set == TIMED_THREADS && i == PART_SWITCH_MM)
			continue;		/* one address space */
		/*
		 * The null call's hooks keep their names of book/src/hooks.md, the
		 * switches between processes theirs of book/src/switching.md.
		 */
		if ((set == TIMED_NOP && (i == COL_HOOK_IN || i == COL_HOOK_OUT)) ||
		    (set == TIMED_PROCS && (i == PART_KL_SWITCH || i == PART_SWITCH_MM ||
					    i == PART_FPU_SWITCH)))
			prefix_here = "tenant.";
		else
			prefix_here = prefix;
		m = report(prefix_here, part_names[i], set, i, s);
		if (i == PART_USER)
			user = m;
		else if (i < PART_NR)
			sum += m;
	}
	if (set != TIMED_NOP)
		sum = 2 * sum + user;
	vostd_println(EV_FIG("%s", "%llu", "derived", "cycles"), parts_key, sum);
}

/* The cheapest round of pairs, best cycles, per pair in tenths of a cycle. */
static void report_pair(const char *key, u64 best)
{
	u64 tenths = best / (EV_CAL_PAIRS / 10);

	vostd_println(EV_FIG_BEST("%s", "%llu.%llu", __stringify(EV_CAL_ROUNDS),
				  __stringify(EV_CAL_PAIRS)), key, tenths / 10, tenths % 10);
}

/*
 * Two crossings of the do-nothing service, as this kernel's own code makes
 * them (crossing_round), timed as mem's heap pair is: EV_CAL_ROUNDS rounds
 * of EV_CAL_PAIRS pairs, the cheapest.  Beside the tenants' null call,
 * what a kernel built with vOSTD's store checks pays on the way in and out
 * of a service (book/src/containment.md): proc_sfi times the same rounds
 * built without the checks too, the two builds' rounds alternating, each
 * first in turn.
 */
static void perf_crossing(void)
{
	u64 best = ~0ULL, unchecked = ~0ULL;
	bool sfi = IS_ENABLED(VOSTD_SFI);
	int r;

	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		if (sfi && (r & 1))
			unchecked = min(unchecked, crossing_round_unchecked());
		best = min(best, crossing_round());
		if (sfi && !(r & 1))
			unchecked = min(unchecked, crossing_round_unchecked());
	}
	report_pair("nop_pair", best);
	if (sfi)
		report_pair("nop_pair_unchecked", unchecked);
}

static void perf(void)
{
	struct procs *ps = procs();
	unsigned int set;
	u64 *column;
	long code;

	for (set = 1; set < TIMED_SETS; set++) {
		ps->perf[set] = vostd_alloc(sizeof(*ps->perf[set]), true);
		if (!ps->perf[set]) {
			vostd_fail("perf", "no memory for the timed trips");
			goto out;
		}
	}
	perf_crossing();
	/* Trip by trip: no slice's kick in the middle of one (kl_set_slices). */
	kl_set_slices(false);
	code = run("yield");
	kl_set_slices(true);
	if (code)
		vostd_fail("perf", "the yield tenant ended with %ld", code);
	/* The tenant is gone: no trip is kept while they are read. */
	column = vostd_alloc(PROC_SAMPLES * sizeof(*column), false);
	if (!column) {
		vostd_fail("perf", "no memory to sort the timed trips");
		goto out;
	}
	report_set(TIMED_NOP, "tenant.nop.", "tenant.nop_parts", column);
	report_set(TIMED_PROCS, "tenant.yield.", "tenant.yield_parts", column);
	report_set(TIMED_THREADS, "tenant.tyield.", "tenant.tyield_parts", column);
	vostd_println(EV_FIG("tenant.dropped", "%u", "count", "trips"), ps->dropped);
	vostd_free(column);
out:
	for (set = 1; set < TIMED_SETS; set++) {
		vostd_free(ps->perf[set]);
		ps->perf[set] = NULL;
	}
}

static void coordinator(void *arg)
{
	const char *args = vostd_vcpu()->args;

	procs()->start = vostd_cycles();
	if (vostd_has_prefix(args, "test"))
		tests();
	else if (vostd_has_prefix(args, "perf"))
		perf();
	else if (vostd_has_prefix(args, "run "))
		vostd_println("proc: %s ended with %ld", args + 4, run(args + 4));
	else
		vostd_fail("mode", "unknown mode '%s' (want test, perf or run NAME)", args);
	kl_stop();
}

static long proc_main(void)
{
	if (!procs() || !kl_spawn("coordinator", coordinator, NULL, KL_PRIO_NORMAL, 0))
		return -ENOMEM;
	kl_run();
	/* A failed case fails the run (vostd_boot). */
	return 0;
}

static long proc_ap_main(void)
{
	return kl_run();
}

VOSTD_KERNEL(proc, proc_main, proc_ap_main);
