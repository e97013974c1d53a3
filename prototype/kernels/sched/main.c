// SPDX-License-Identifier: GPL-2.0
/*
 * sched: the sandbox kernel that tests and measures the kernelet.
 *
 *   test              functional tests, one EVTEST line each
 *   perf              the scheduling measurements, one EVFIG line each
 *   fair SECS N [guard]
 *                     N busy tasks (and, with guard, one that holds a guard
 *                     for 10 ms at a time) for SECS seconds, for the
 *                     fairness measurement Linux makes from outside
 *
 * vCPU 0 runs a coordinator task that does the work and then stops the
 * kernelet; every vCPU runs kl_run until then.
 */
#include "sched.h"

#define WARMUP		100

/*
 * A measurement that could not be made, or whose timed operation failed,
 * is a failed case (vostd_fail), so that the run fails instead of
 * reporting it.
 */
static u64 *samples_alloc(const char *name, unsigned int n)
{
	u64 *s = vostd_alloc(n * sizeof(u64), true);

	if (!s)
		vostd_fail(name, "no memory for the samples");
	return s;
}

/* One figure: the median and p99 of n samples, in cycles. */
static void report(const char *key, u64 *s, unsigned int n, const char *baseline)
{
	vostd_fig_median(key, s, n, "cycles", baseline);
}

/*
 * The same of a count of samples that varies from boot to boot, logged as
 * samples= rather than n= (figlog wants every boot's n alike: n is the
 * row's design).
 */
static void report_samples(const char *key, u64 *s, unsigned int n)
{
	vostd_sort_u64(s, n);
	vostd_println(EV_FIG("%s", "%llu", "median", "cycles") EV_FIELD("p99", "%llu")
		      EV_FIELD("samples", "%u"), key, vostd_percentile(s, n, 50),
		      vostd_percentile(s, n, 99), n);
}

/* ---- row 1: two tasks yielding to each other on one vCPU ---- */

struct yield_pair {
	u64 *s;
	unsigned int n;
	volatile u32 done;
	struct join join;
};

static void yield_a(void *arg)
{
	struct yield_pair *p = arg;
	unsigned int i;

	for (i = 0; i < p->n + WARMUP; i++) {
		u64 t0 = vostd_cycles();

		kl_yield();
		if (i >= WARMUP)
			p->s[i - WARMUP] = vostd_cycles() - t0;
	}
	p->done = 1;
	join_done(&p->join);
}

static void yield_b(void *arg)
{
	struct yield_pair *p = arg;

	while (!p->done)
		kl_yield();
	join_done(&p->join);
}

static void perf_yield(unsigned int n)
{
	struct yield_pair p = { .n = n, .join = { 2, kl_self() } };

	p.s = samples_alloc("yield_rt", n);
	if (!p.s)
		return;
	kl_spawn("yield-a", yield_a, &p, KL_PRIO_NORMAL, 0);
	kl_spawn("yield-b", yield_b, &p, KL_PRIO_NORMAL, 0);
	join_wait(&p.join);
	report("kl.yield_rt", p.s, n, "linux.sched_yield_rt");
	vostd_free(p.s);
}

/* ---- row 2: a high-priority task woken by a lower one on the same vCPU ---- */

struct wake_pair {
	u64 *s;
	unsigned int n;
	u64 t0;
	volatile u32 done, ran;
	kl_tid_t high;
	struct join join;
};

static void wake_high(void *arg)
{
	struct wake_pair *p = arg;
	unsigned int i = 0;

	for (;;) {
		kl_block();
		if (p->done)
			break;
		if (i >= WARMUP)
			p->s[i - WARMUP] = vostd_cycles() - p->t0;
		i++;
		p->ran = 1;
	}
	join_done(&p->join);
}

static void wake_low(void *arg)
{
	struct wake_pair *p = arg;
	unsigned int i;

	for (i = 0; i < p->n + WARMUP; i++) {
		p->ran = 0;
		p->t0 = vostd_cycles();
		if (kl_wake(p->high))
			vostd_fail("wake_local", "kl_wake of the high task failed");
		else if (!p->ran)
			vostd_fail("wake_local", "the high task had not run when kl_wake returned");
	}
	p->done = 1;
	kl_wake(p->high);
	join_done(&p->join);
}

static void perf_wake_local(unsigned int n)
{
	struct wake_pair p = { .n = n, .join = { 2, kl_self() } };

	p.s = samples_alloc("wake_local", n);
	if (!p.s)
		return;
	p.high = kl_spawn("wake-high", wake_high, &p, KL_PRIO_HIGH, 0);
	/* Let the high task reach its first block before the low one starts. */
	kl_yield();
	kl_spawn("wake-low", wake_low, &p, KL_PRIO_LOW, 0);
	join_wait(&p.join);
	report("kl.wake_local", p.s, n, "linux.wake_local");
	vostd_free(p.s);
}

/* ---- row 3: the same across vCPUs, timed as a round trip on vCPU 0 ---- */

enum background { BG_NONE, BG_SPIN, BG_YIELD };

struct remote_pair {
	u64 *s;
	unsigned int n;
	volatile u32 done, stop_bg;
	kl_tid_t a, b;
	enum background bg;
	struct join join, bg_join;
};

static void remote_a(void *arg)
{
	struct remote_pair *p = arg;
	unsigned int i;

	/*
	 * At high priority this task runs before kl_spawn returns to its
	 * spawner, so p->a is not yet stored when remote_b first needs it.
	 */
	p->a = kl_self();
	for (i = 0; i < p->n + WARMUP; i++) {
		u64 t0 = vostd_cycles();

		if (kl_wake(p->b))
			vostd_fail("wake_remote", "kl_wake of the task on vCPU 1 failed");
		kl_block();
		if (i >= WARMUP)
			p->s[i - WARMUP] = vostd_cycles() - t0;
	}
	p->done = 1;
	kl_wake(p->b);
	join_done(&p->join);
}

static void remote_b(void *arg)
{
	struct remote_pair *p = arg;

	for (;;) {
		kl_block();
		if (p->done)
			break;
		if (kl_wake(p->a))
			vostd_fail("wake_remote", "kl_wake of the task on vCPU 0 failed");
	}
	join_done(&p->join);
}

/* A low-priority task that keeps its vCPU busy: spinning, or yielding. */
static void background(void *arg)
{
	struct remote_pair *p = arg;

	while (!p->stop_bg) {
		if (p->bg == BG_YIELD)
			kl_yield();
		else
			asm volatile("pause");
	}
	join_done(&p->bg_join);
}

/* Sums of the counters over two vCPUs, between two snapshots. */
#define DELTA(field) (after[0].field - before[0].field + after[1].field - before[1].field)

/*
 * window: for the yielding background, the prefix of the reschedule
 * window's figures: upcalls that found the note taken, kicks sent, and
 * kicks the recheck kept back.
 */
static void perf_remote(const char *key, enum background bg, unsigned int n,
			const char *baseline, const char *window)
{
	struct remote_pair p = { .n = n, .bg = bg, .join = { 2, kl_self() },
				 .bg_join = { 2, kl_self() } };
	struct kl_cpu_stats before[2], after[2];
	unsigned int v;

	p.s = samples_alloc(key, n);
	if (!p.s)
		return;
	if (bg != BG_NONE) {
		kl_spawn("bg-0", background, &p, KL_PRIO_LOW, 0);
		kl_spawn("bg-1", background, &p, KL_PRIO_LOW, 1);
	}
	kl_stats(0, &before[0]);
	kl_stats(1, &before[1]);
	p.b = kl_spawn("remote-b", remote_b, &p, KL_PRIO_HIGH, 1);
	kl_spawn("remote-a", remote_a, &p, KL_PRIO_HIGH, 0);
	join_wait(&p.join);
	kl_stats(0, &after[0]);
	kl_stats(1, &after[1]);
	p.stop_bg = 1;
	if (bg != BG_NONE)
		join_wait(&p.bg_join);
	report(key, p.s, n, baseline);
	for (v = 0; v < 2; v++)
		vostd_println("%s vcpu=%u kicks_sent=%llu kicks_saved=%llu kicks_rechecked=%llu upcalls=%llu resched=%llu spurious=%llu idles=%llu",
			      key, v, after[v].kicks_sent - before[v].kicks_sent,
			      after[v].kicks_saved - before[v].kicks_saved,
			      after[v].kicks_rechecked - before[v].kicks_rechecked,
			      after[v].upcalls - before[v].upcalls,
			      after[v].upcall_resched - before[v].upcall_resched,
			      after[v].upcall_spurious - before[v].upcall_spurious,
			      after[v].idles - before[v].idles);
	if (window) {
		u64 wakes = 2 * (n + WARMUP);

		vostd_println(EV_FIG("%s_spurious", "%llu", "count", "upcalls")
			      EV_FIELD("n", "%llu"),
			      window, DELTA(upcall_spurious), wakes);
		vostd_println(EV_FIG("%s_kicks", "%llu", "count", "kicks") EV_FIELD("n", "%llu"),
			      window, DELTA(kicks_sent), wakes);
		vostd_println(EV_FIG("%s_rechecked", "%llu", "count", "kicks")
			      EV_FIELD("n", "%llu"),
			      window, DELTA(kicks_rechecked), wakes);
	}
	vostd_free(p.s);
}

/*
 * What an upcall that finds nothing to do costs the task it lands on.  A
 * task on vCPU 1 reads the cycle counter in a loop and records every gap
 * between two readings longer than the loop's own.  vCPU 0 kicks vCPU 1
 * with no note left, so that every upcall is one of the reschedule
 * window's, and after each collects the stamp the handler took on vCPU 1's
 * clock.  The gap that holds a stamp is that upcall's whole cost to the
 * task: the interrupt, the diversion, the entry and the handler.  Gaps with
 * no stamp in them (Linux's timer, the host) are not counted.
 */
#define GAP_MIN		1000	/* cycles: far longer than one turn of the loop */
#define GAPS_PER_KICK	16

struct gap {
	u64 start, end;
};

struct upcall_probe {
	struct gap *gaps;
	unsigned int nr_gaps, max_gaps;
	volatile u32 ready, done;
	struct join join;
};

static void upcall_victim(void *arg)
{
	struct upcall_probe *p = arg;
	u64 prev, now;

	p->ready = 1;
	prev = vostd_cycles();
	while (!p->done) {
		now = vostd_cycles();
		if (now - prev > GAP_MIN && p->nr_gaps < p->max_gaps)
			p->gaps[p->nr_gaps++] = (struct gap){ prev, now };
		prev = now;
	}
	join_done(&p->join);
}

static void perf_spurious_upcall(unsigned int n)
{
	unsigned int kicks = n + WARMUP, i, g = 0, got = 0;
	struct upcall_probe p = { .join = { 1, kl_self() } };
	struct kl_cpu_stats before, after, st;
	u64 *stamps = samples_alloc("spurious_upcall", kicks);
	u64 *s = samples_alloc("spurious_upcall", kicks);

	p.max_gaps = GAPS_PER_KICK * kicks;
	p.gaps = vostd_alloc(p.max_gaps * sizeof(*p.gaps), false);
	if (!stamps || !s || !p.gaps) {
		if (!p.gaps)
			vostd_fail("spurious_upcall", "no memory for the gaps");
		goto out;
	}
	kl_spawn("victim", upcall_victim, &p, KL_PRIO_NORMAL, 1);
	if (!wait_flag(&p.ready, 2000)) {
		vostd_fail("spurious_upcall", "the victim did not start");
		p.done = 1;
		join_wait(&p.join);
		goto out;
	}
	kl_stats(1, &before);
	for (i = 0; i < kicks; i++) {
		u64 end = vostd_cycles() + ms_cycles(1000);

		kl_stats(1, &st);
		if (vostd_kick(1)) {
			vostd_fail("spurious_upcall", "vcpu_kick of vCPU 1 failed");
			break;
		}
		do {
			asm volatile("pause");
			kl_stats(1, &after);
		} while (after.upcalls == st.upcalls && vostd_cycles() < end);
		stamps[i] = after.upcalls == st.upcalls + 1 ? after.last_upcall : 0;
		spin_cycles(ms_cycles(1) / 20);	/* keep the gaps apart */
	}
	kl_stats(1, &after);
	p.done = 1;
	join_wait(&p.join);
	/* Stamps and gaps are both in time order: match them in one pass. */
	for (i = WARMUP; i < kicks; i++) {
		if (!stamps[i])
			continue;
		while (g < p.nr_gaps && p.gaps[g].end <= stamps[i])
			g++;
		if (g < p.nr_gaps && p.gaps[g].start < stamps[i])
			s[got++] = p.gaps[g].end - p.gaps[g].start;
	}
	vostd_println("kl.spurious_upcall kicks=%u upcalls=%llu spurious=%llu gaps=%u matched=%u",
		      kicks, after.upcalls - before.upcalls,
		      after.upcall_spurious - before.upcall_spurious, p.nr_gaps, got);
	if (got)
		report_samples("kl.spurious_upcall", s, got);
	else
		vostd_fail("spurious_upcall", "no upcall's stamp fell in a gap");
out:
	if (p.gaps)
		vostd_free(p.gaps);
	if (s)
		vostd_free(s);
	if (stamps)
		vostd_free(stamps);
}

static void perf(void)
{
	struct kl_cpu_stats before[2], after[2];

	perf_yield(5000);
	perf_wake_local(5000);
	kl_stats(0, &before[0]);
	kl_stats(1, &before[1]);
	perf_remote("kl.wake_remote_rt", BG_SPIN, 2000, "linux.pipe_wake_busy_rt", NULL);
	perf_remote("kl.wake_remote_idle_rt", BG_NONE, 2000, "linux.pipe_wake_rt", NULL);
	perf_remote("kl.wake_remote_yield_rt", BG_YIELD, 2000, "linux.pipe_wake_busy_rt",
		    "kl.window");
	/* The same with the note looked at again just before each kick. */
	kl_set_recheck(true);
	perf_remote("kl.wake_remote_yield_recheck_rt", BG_YIELD, 2000,
		    "linux.pipe_wake_busy_rt", "kl.window_recheck");
	kl_set_recheck(false);
	kl_stats(0, &after[0]);
	kl_stats(1, &after[1]);
	/* Of the cross-vCPU wakes that wanted the target's attention, how each went. */
	vostd_println(EV_FIG("kl.kicks_saved", "%llu", "count", "kicks") EV_FIELD("wakes", "%llu"),
		      DELTA(kicks_saved),
		      DELTA(kicks_saved) + DELTA(kicks_sent) + DELTA(kicks_rechecked));
	perf_spurious_upcall(1000);
}

/* ---- fairness: busy tasks for Linux to measure against ---- */

struct fair {
	u64 deadline;
	struct join join;
	u64 guard_holds;
};

static void fair_busy(void *arg)
{
	struct fair *f = arg;

	while (vostd_cycles() < f->deadline) {
		spin_cycles(ms_cycles(1) / 10);
		kl_yield();
	}
	join_done(&f->join);
}

static void fair_guard(void *arg)
{
	struct fair *f = arg;

	while (vostd_cycles() < f->deadline) {
		kl_guard_begin();
		spin_cycles(ms_cycles(10));
		kl_guard_end();
		f->guard_holds++;
		kl_yield();
	}
	join_done(&f->join);
}

static unsigned int parse_uint(const char **s)
{
	unsigned int v = 0;

	while (**s == ' ')
		(*s)++;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + *(*s)++ - '0';
	return v;
}

static void fair(const char *args)
{
	unsigned int secs = parse_uint(&args), n = parse_uint(&args), i;
	bool guard = args[0] == ' ' && args[1] == 'g';
	struct fair f = { .join = { n + guard, kl_self() } };

	if (!secs || !n || n > 200) {
		vostd_fail("fair", "want 'fair SECS N [guard]'");
		return;
	}
	f.deadline = vostd_cycles() + ms_cycles(secs * 1000ULL);
	for (i = 0; i < n; i++)
		kl_spawn("busy", fair_busy, &f, KL_PRIO_NORMAL, i % vostd_nr_cpus());
	if (guard)
		kl_spawn("guard", fair_guard, &f, KL_PRIO_NORMAL, 0);
	join_wait(&f.join);
	vostd_println("fair done secs=%u tasks=%u guard=%d guard_holds=%llu",
		      secs, n, guard, f.guard_holds);
}

/*
 * scale MS [measure]: one of many sandboxes alive at once (the scale
 * suite's scale program), on one vCPU: with measure, the yield round trip
 * first (kl.yield_rt), while the others run; then it spins until MS
 * milliseconds from its start have passed, as the others do from theirs.
 */
static void scale(const char *args)
{
	u64 start = vostd_cycles(), deadline;
	unsigned int ms = parse_uint(&args);

	while (*args == ' ')
		args++;
	if (vostd_has_prefix(args, "measure"))
		perf_yield(2000);
	deadline = start + ms_cycles(ms);
	while (vostd_cycles() < deadline)
		spin_cycles(ms_cycles(1));
}

static void coordinator(void *arg)
{
	const char *args = vostd_vcpu()->args;

	if (vostd_has_prefix(args, "test"))
		tests();
	else if (vostd_has_prefix(args, "perf"))
		perf();
	else if (vostd_has_prefix(args, "fair"))
		fair(args + 4);
	else if (vostd_has_prefix(args, "scale"))
		scale(args + 5);
	else
		vostd_fail("mode", "unknown mode '%s' (want test, perf, fair or scale)", args);
	kl_stop();
}

static long sched_main(void)
{
	if (vostd_nr_cpus() < 2 && !vostd_has_prefix(vostd_vcpu()->args, "scale")) {
		vostd_println("sched: needs two vCPUs (but in scale mode)");
		return -EINVAL;
	}
	if (!kl_spawn("coordinator", coordinator, NULL, KL_PRIO_NORMAL, 0))
		return -ENOMEM;
	/* A failed case fails the run (vostd_boot). */
	return kl_run();
}

static long sched_ap_main(void)
{
	return kl_run();
}

VOSTD_KERNEL(sched, sched_main, sched_ap_main);
