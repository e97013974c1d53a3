// SPDX-License-Identifier: GPL-2.0
/*
 * proc: the sandbox kernel with processes, and its tests and measurements.
 *
 *   test   runs each test tenant as a process and checks how it ended: hello
 *          (prints, forks, yields, waits, exits), fpcheck (two threads' FP
 *          and SSE registers never mix), threads (fifty threads over the
 *          vCPUs), and the kills: badaddr (a read of an unmapped page),
 *          nullptr (an exception outside the region), badsys (an unknown
 *          system call); one PROCTEST line each
 *   perf   runs the yield tenant, which times a null system call and a
 *          yield round trip between two processes on one vCPU, and reports
 *          where the kernel proper's time in them went; EVFIG lines
 *   run NAME
 *          runs the tenant NAME to its end (spin has none: the reliability
 *          suite kills it)
 *
 * vCPU 0 runs a coordinator task; every vCPU runs kl_run until it stops
 * the kernelet.
 */
#include "proc.h"

#define WARMUP	100

struct procs *procs(void)
{
	return vostd_global(VOSTD_SLOT_KERNEL, sizeof(struct procs));
}

void proc_sample(enum proc_sample which, u64 cycles)
{
	struct proc_perf *perf = procs()->perf;
	u32 i;

	if (!perf || !READ_ONCE(perf->on))
		return;
	i = __atomic_fetch_add(&perf->n[which], 1, __ATOMIC_RELAXED);
	if (i < PROC_SAMPLES)
		perf->s[which][i] = cycles;
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

static const struct {
	const char *name;
	const char *start, *end;
} images[] = {
	IMAGE(hello), IMAGE(fpcheck), IMAGE(badaddr), IMAGE(nullptr),
	IMAGE(badsys), IMAGE(threads), IMAGE(yield), IMAGE(spin),
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

	if (code == want) {
		vostd_println("PROCTEST %s ok (exit %ld)", name, code);
	} else {
		procs()->failures++;
		vostd_println("PROCTEST %s FAIL: exit %ld, want %ld", name, code, want);
	}
}

static void tests(void)
{
	struct procs *ps = procs();

	expect("hello", 0);
	expect("fpcheck", 0);
	expect("threads", 0);
	expect("badaddr", 128 + 11);	/* killed: nothing mapped there */
	expect("nullptr", 128 + 11);	/* killed: SIGSEGV outside the region */
	expect("badsys", 128 + 31);	/* killed: unknown system call */
	if (ps->live_procs || ps->live_threads) {
		ps->failures++;
		vostd_println("PROCTEST table_empty FAIL: %u processes and %u threads left",
			      ps->live_procs, ps->live_threads);
	} else {
		vostd_println("PROCTEST table_empty ok");
	}
	vostd_println("PROCTEST all %s (%u failed)", ps->failures ? "FAIL" : "ok", ps->failures);
}

/* ---- perf ---- */

/*
 * One EVFIG line of the median and p99, and the median.  skip: the first
 * samples are the warm-up's, which only the kernel proper saw.
 */
static u64 report(const char *key, enum proc_sample which, const char *what, bool skip)
{
	struct proc_perf *perf = procs()->perf;
	u32 n = min_t(u32, perf->n[which], PROC_SAMPLES);
	u64 *s = perf->s[which];

	if (skip && n > 2 * WARMUP) {
		s += WARMUP;
		n -= WARMUP;
	}
	if (!n) {
		procs()->failures++;
		vostd_println("proc: no samples of %s", what);
		return 0;
	}
	vostd_sort_u64(s, n);
	vostd_println("EVFIG %s value=%llu stat=median p99=%llu n=%u unit=cycles",
		      key, vostd_percentile(s, n, 50), vostd_percentile(s, n, 99), n);
	return vostd_percentile(s, n, 50);
}

static void perf(void)
{
	struct procs *ps = procs();
	u64 parts;
	long code;

	ps->perf = vostd_alloc(sizeof(*ps->perf), true);
	if (!ps->perf) {
		ps->failures++;
		return;
	}
	WRITE_ONCE(ps->perf->on, 1);
	code = run("yield");
	WRITE_ONCE(ps->perf->on, 0);
	if (code) {
		ps->failures++;
		vostd_println("proc: the yield tenant ended with %ld", code);
	}
	parts = report("tenant.hook_in", PS_HOOK_IN, "the entry hook", false);
	parts += report("tenant.hook_out", PS_HOOK_OUT, "the exit hook", false);
	parts += report("tenant.kl_switch", PS_KL_SWITCH, "the kernelet's switch", true);
	parts += report("tenant.switch_mm", PS_SWITCH_MM, "the address-space switch", true);
	parts += report("tenant.fpu_switch", PS_FPU_SWITCH, "the FPU switch", true);
	/* A yield round trip is two switches, each all five parts once. */
	vostd_println("EVFIG tenant.yield_parts value=%llu stat=derived unit=cycles", 2 * parts);
	vostd_free(ps->perf);
	ps->perf = NULL;
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
	else {
		vostd_println("proc: unknown mode '%s' (want test, perf or run NAME)", args);
		procs()->failures++;
	}
	kl_stop();
}

static long proc_main(void)
{
	if (!procs() || !kl_spawn("coordinator", coordinator, NULL, KL_PRIO_NORMAL, 0))
		return -ENOMEM;
	kl_run();
	return procs()->failures ? -EIO : 0;
}

static long proc_ap_main(void)
{
	return kl_run();
}

VOSTD_KERNEL(proc, proc_main, proc_ap_main);
