// SPDX-License-Identifier: GPL-2.0
/* Order statistics for the measuring kernels: a heap sort and percentiles. */
#include "vostd.h"

static void vostd_sift(u64 *v, size_t root, size_t n)
{
	while (2 * root + 1 < n) {
		size_t child = 2 * root + 1;
		u64 t;

		if (child + 1 < n && v[child] < v[child + 1])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void vostd_sort_u64(u64 *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		vostd_sift(v, i, n);
	for (i = n; i-- > 1;) {
		u64 t = v[0];

		v[0] = v[i];
		v[i] = t;
		vostd_sift(v, 0, i);
	}
}

/* The nearest-rank percentile of sorted samples. */
u64 vostd_percentile(const u64 *sorted, size_t n, unsigned int pct)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (n * pct + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}
