// SPDX-License-Identifier: GPL-2.0
/*
 * What a sandbox kernel reports, in the lines of ev_report.h: a figure of
 * samples, and test cases counted in the sandbox's globals page, which
 * every vCPU shares and no sandbox kernel's own state takes.
 */
#include "vostd.h"

static struct vostd_tests *vostd_tests(void)
{
	return &vostd_globals()->tests;
}

/*
 * One test case: an EVTEST line saying whether it passed, and what was
 * seen (fmt, may be empty), counted.  Cases may run on several vCPUs at
 * once.  Returns ok.
 */
bool vostd_test(const char *name, bool ok, const char *fmt, ...)
{
	struct vostd_tests *t = vostd_tests();
	char detail[EV_LOG_LINE_MAX];
	va_list args;

	va_start(args, fmt);
	vostd_vsnprintf(detail, sizeof(detail), fmt, args);
	va_end(args);
	__atomic_add_fetch(&t->cases, 1, __ATOMIC_RELAXED);
	if (!ok)
		__atomic_add_fetch(&t->failed, 1, __ATOMIC_RELAXED);
	vostd_println(EV_TEST("%s", "%s", "%s") "%s%s", vostd_kernel_name, name,
		      ok ? EV_TEST_OK : EV_TEST_FAIL, detail[0] ? " " : "", detail);
	return ok;
}

u32 vostd_tests_failed(void)
{
	return __atomic_load_n(&vostd_tests()->failed, __ATOMIC_RELAXED);
}

/* The run's summary line: 0 if every case passed, else -EIO. */
long vostd_tests_end(void)
{
	struct vostd_tests *t = vostd_tests();
	u32 cases = __atomic_load_n(&t->cases, __ATOMIC_RELAXED);
	u32 failed = vostd_tests_failed();

	vostd_println(EV_TEST_SUMMARY("%s", "%s", "%u", "%u"), vostd_kernel_name,
		      failed ? EV_TEST_FAIL : EV_TEST_OK, cases, failed);
	return failed ? -EIO : 0;
}

/*
 * One figure: the median of n samples, sorted here, with their 99th
 * percentile; baseline names the Linux figure to read it against, or is
 * NULL.  Returns the median.
 */
u64 vostd_fig_median(const char *key, u64 *s, unsigned int n, const char *unit,
		     const char *baseline)
{
	u64 median;

	vostd_sort_u64(s, n);
	median = vostd_percentile(s, n, 50);
	vostd_println(EV_FIG_MEDIAN("%s", "%llu", "%s", "%u") "%s%s", key, median,
		      unit, vostd_percentile(s, n, 99), n,
		      baseline ? EV_BASELINE("") : "", baseline ? baseline : "");
	return median;
}
