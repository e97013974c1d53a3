/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run reports: the two kinds of line that every part of the
 * prototype writes the same way, and that the host reads
 * (internal/figlog: figlog.go for figures, tests.go for tests).
 *
 *   EVFIG KEY value=V stat=STAT unit=UNIT[ NAME=VALUE ...]
 *	a figure: a measured value, its key for good, the statistic the value
 *	is of the boot's samples (median, min, max, mean, count, sum,
 *	derived), what it counts, then fields that say more (p99, n, rounds,
 *	calls, baseline, ...)
 *   EVTEST SUITE CASE ok|FAIL[ DETAIL]
 *	a test: which program's tests (a sandbox kernel's name, launcher,
 *	scale, killwait), which case, its result, then free text saying what
 *	was seen; CASE "all" is a run's summary, cases=N failed=M.  A FAIL
 *	anywhere fails the suite that printed it.
 *   VOSTD-SANITIZER: KIND: DETAIL
 *	a sandbox kernel's misuse of its heap or frames, found by vOSTD's
 *	checking mode (vostd/sanitize.c): what was damaged and the sites that
 *	allocated and freed it.  Any fails the boot.  A report a test planted
 *	on purpose and expected is VOSTD-SANITIZER-EXPECTED: instead.  One
 *	that ends EV_SANITIZER_STOPS left its vCPU stopped, for the launcher
 *	to end the sandbox.
 *
 * Only string literals, no code, so that every printer uses it as it
 * is: the endovisor (ev_log_printf, Linux's format), a sandbox kernel
 * (vostd_println, vOSTD's format.c), a tenant (print, tenants/lib) and the
 * guest's programs (the C library's printf).  Each macro builds a format
 * string at compile time; its arguments are themselves format text: a
 * conversion ("%s", "%llu") where the value comes at run time, a word
 * ("median", "cycles") where it is fixed, so the compiler checks every
 * line's arguments against it.  A field's value holds no space.
 */
#ifndef EV_REPORT_H
#define EV_REPORT_H

#define EV_FIG_WORD	"EVFIG"
#define EV_TEST_WORD	"EVTEST"
#define EV_SANITIZER_WORD	"VOSTD-SANITIZER:"
#define EV_SANITIZER_EXPECTED_WORD	"VOSTD-SANITIZER-EXPECTED:"
#define EV_SANITIZER_STOPS	"the vCPU stops"

/* A figure line's fixed part: key, value, statistic and unit. */
#define EV_FIG(key, value, stat, unit) \
	EV_FIG_WORD " " key " value=" value " stat=" stat " unit=" unit

/* One more field of a figure line, after the fixed part. */
#define EV_FIELD(name, value)	" " name "=" value

/* The median of a boot's samples, with their 99th percentile and count. */
#define EV_FIG_MEDIAN(key, value, unit, count) \
	EV_FIG(key, value, "median", unit) EV_FIELD("p99", value) EV_FIELD("n", count)

/*
 * The cheapest of a count of rounds (rounds) of a count of calls each
 * (calls), per call, in cycles: value is "%llu.%llu" or the like, a whole
 * and its tenths.
 */
#define EV_FIG_BEST(key, value, rounds, calls) \
	EV_FIG(key, value, "min", "cycles") EV_FIELD("rounds", rounds) EV_FIELD("calls", calls)

/* The Linux figure of the same boot that this one is to be read against. */
#define EV_BASELINE(key)	EV_FIELD("baseline", key)

/* A test line: which program's tests, which case, and its result. */
#define EV_TEST_OK	"ok"
#define EV_TEST_FAIL	"FAIL"
#define EV_TEST_ALL	"all"
#define EV_TEST(suite, name, result) \
	EV_TEST_WORD " " suite " " name " " result

/* A run's summary: every case it made, and how many failed. */
#define EV_TEST_SUMMARY(suite, result, cases, failed) \
	EV_TEST(suite, EV_TEST_ALL, result) EV_FIELD("cases", cases) EV_FIELD("failed", failed)

#endif /* EV_REPORT_H */
