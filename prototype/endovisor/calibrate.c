// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's own costs, measured by the endovisor in the boot that measures
 * the sandbox's, for the baselines of the memory chapter.
 *
 *   calibrate(EV_CAL_HEAP)          a 64-byte kmalloc and its kfree, seven
 *                                   rounds of 1,000 pairs, the cheapest kept,
 *                                   with interrupts on as the sandbox's pairs
 *                                   are; and the table of blocks alone
 *   calibrate(EV_CAL_COPY, vm, va)  copy_from_user of 64 bytes and of 4 KiB
 *                                   from tenant memory at va, each call timed,
 *                                   median and 99th percentile of 1,000
 *
 * Each result is an EVFIG line in the sandbox's log.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <asm/msr.h>

#include "endovisor.h"

#define EV_CAL_ROUNDS	7
#define EV_CAL_PAIRS	1000
#define EV_CAL_SAMPLES	1000

static void ev_cal_report_min(struct ev_vcpu *v, const char *key, u64 best, unsigned int n)
{
	u64 t = DIV_ROUND_CLOSEST_ULL(best * 10, n);

	ev_log_printf(&v->sb->log,
		      "[endovisor] EVFIG %s value=%llu.%llu stat=min unit=cycles rounds=%d calls=%u\n",
		      key, t / 10, t % 10, EV_CAL_ROUNDS, n);
}

static u64 ev_kmalloc_round(unsigned int n)
{
	void *volatile p;
	unsigned int i;
	u64 t0, t1;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		p = kmalloc(64, GFP_KERNEL);
		kfree(p);
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static long ev_cal_heap(struct ev_vcpu *v)
{
	u64 kmalloc = U64_MAX, table = U64_MAX;
	int r;

	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		kmalloc = min(kmalloc, ev_kmalloc_round(EV_CAL_PAIRS));
		table = min(table, ev_heap_table_round(&v->sb->heap, EV_CAL_PAIRS));
	}
	ev_cal_report_min(v, "heap.kmalloc_pair", kmalloc, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.table_pair", table, EV_CAL_PAIRS);
	return 0;
}

static int ev_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as the sandbox kernels and the Linux baselines compute it. */
static u64 ev_percentile(const u64 *sorted, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

static void ev_cal_report_samples(struct ev_vcpu *v, const char *key, u64 *s, size_t n)
{
	sort(s, n, sizeof(*s), ev_cmp_u64, NULL);
	ev_log_printf(&v->sb->log,
		      "[endovisor] EVFIG %s value=%llu stat=median p99=%llu n=%zu unit=cycles\n",
		      key, ev_percentile(s, n, 50), ev_percentile(s, n, 99), n);
}

/*
 * copy_from_user reads through the carrier's current mm, so the carrier
 * adopts the tenant's for the measurement, as it does to run the tenant.
 */
static long ev_cal_copy(struct ev_vcpu *v, unsigned long handle, unsigned long va)
{
	static const unsigned int sizes[] = { 64, 4096 };
	static const char *const keys[] = { "linux.copy_from_user_64", "linux.copy_from_user_4k" };
	struct mm_struct *was = current->mm;
	u64 *s = kmalloc_array(EV_CAL_SAMPLES, sizeof(u64), GFP_KERNEL);
	char *buf = kmalloc(4096, GFP_KERNEL);
	struct ev_vm *vm = ev_vm_get(v->sb, handle);
	long ret = 0;
	int k, i;

	if (!vm || !s || !buf) {
		ret = vm ? -ENOMEM : -EBADF;
		goto out;
	}
	if (va < EV_TENANT_BASE || va - EV_TENANT_BASE > EV_TENANT_SIZE - 4096) {
		ret = -EINVAL;
		goto out;
	}
	ev_switch_mm(v, ev_vm_mm(vm));
	for (k = 0; k < ARRAY_SIZE(sizes) && !ret; k++) {
		for (i = 0; i < EV_CAL_SAMPLES; i++) {
			u64 t0 = rdtsc_ordered();
			unsigned long left = copy_from_user(buf, (void __user *)va, sizes[k]);

			s[i] = rdtsc_ordered() - t0;
			if (left) {
				ret = -EFAULT;
				break;
			}
		}
		if (!ret)
			ev_cal_report_samples(v, keys[k], s, EV_CAL_SAMPLES);
	}
	ev_switch_mm(v, was);
out:
	if (vm)
		ev_vm_put(vm);
	kfree(buf);
	kfree(s);
	return ret;
}

long ev_svc_calibrate(struct ev_vcpu *v, unsigned long what, unsigned long a0,
		      unsigned long a1, unsigned long a2, unsigned long a3)
{
	switch (what) {
	case EV_CAL_HEAP:
		return ev_cal_heap(v);
	case EV_CAL_COPY:
		return ev_cal_copy(v, a0, a1);
	}
	return -EINVAL;
}
