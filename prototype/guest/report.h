/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's own programs (the baseline, the launcher, scale,
 * killwait) share to report: the lines of ev_report.h, which their build
 * finds with -I prototype/abi, and the figure of a set of samples, ordered
 * as vOSTD and the tenants order theirs.
 */
#ifndef EV_GUEST_REPORT_H
#define EV_GUEST_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ev_report.h"

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as vOSTD's vostd_percentile. */
static inline uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/*
 * One figure: the median of n samples, sorted here, and their p99, in
 * cycles; more, if not empty, is the line's further fields (" part=1/3").
 */
static inline void fig_median_more(const char *key, uint64_t *s, size_t n, const char *more)
{
	qsort(s, n, sizeof(*s), cmp_u64);
	printf(EV_FIG_MEDIAN("%s", "%llu", "cycles", "%zu") "%s\n", key,
	       (unsigned long long)percentile(s, n, 50),
	       (unsigned long long)percentile(s, n, 99), n, more);
	fflush(stdout);
}

static inline void fig_median(const char *key, uint64_t *s, size_t n)
{
	fig_median_more(key, s, n, "");
}

#endif /* EV_GUEST_REPORT_H */
