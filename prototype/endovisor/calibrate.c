// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's own costs, measured by the endovisor in the boot that measures
 * the sandbox's, for the baselines of the memory chapters, and the parts of
 * the services' own costs that cannot be timed from the sandbox.
 *
 *   calibrate(EV_CAL_HEAP)
 *	a 64-byte kmalloc and its kfree; and mem_alloc's and mem_free's
 *	bodies, whole, built up a part at a time, and the table alone
 *	(ev_heap_cal_round, running heap.c's ev_heap_cal_run), on a private
 *	table, and the same on the table as it was (heap_rbtree.c):
 *	EV_CAL_ROUNDS rounds of EV_CAL_PAIRS each, the cheapest kept, with
 *	interrupts on as the sandbox's pairs are
 *   calibrate(EV_CAL_COPY, vm, va, pages, buf)
 *	over the same tenant pages the sandbox's copies read, pages of them
 *	from va, a page further each time: copy_from_user of 64 bytes and of
 *	4 KiB; the parts of copy_from_tenant (the software walk of one page,
 *	the space's lock taken and released, a reference to the space taken
 *	and dropped, and the check that 64 bytes at buf are the sandbox's, in
 *	a read section); and copy_from_tenant of 64 bytes into buf called
 *	directly, without the crossing.  Each call timed, median and 99th
 *	percentile of 1,000
 *
 *   calibrate(EV_CAL_KMALLOC, n)
 *	the kmalloc and kfree pair of EV_CAL_HEAP with n more 64-byte
 *	blocks of kmalloc's live, for the scale suite, and with none for
 *	mem's rounds of the slab's pair: returned, in tenths of a cycle,
 *	the cheapest of EV_CAL_ROUNDS rounds of EV_CAL_PAIRS
 *   calibrate(EV_CAL_OWNS, buf, len, full)
 *	the check that [buf, buf + len) is the sandbox's, as a service makes
 *	it (ev_vcpu_owns, in a read section) or, with full, the whole check
 *	each time (ev_sandbox_owns): returned, the median of 1,000 in cycles
 *   calibrate(EV_CAL_VM_BYTES, vm)
 *	what the space makes Linux hold but for the frames it maps, in
 *	bytes, returned (vm_copy.c: ev_vm_bytes), for the scale suite
 *
 * Each result of the first two is a figure line (ev_report.h) in the
 * sandbox's log.
 *
 * This file, with calibrate.h, is all the endovisor holds that only
 * measures (but the crossing's timing at each sandbox's start,
 * crossing.c): the subsystems give it no more than the few workloads
 * calibrate.h declares, and a vCPU no more than its stamps.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <asm/msr.h>

#include "endovisor.h"
#include "ev_report.h"

#include <linux/bit_spinlock.h>	/* after endovisor.h: it needs cpu_relax */

#define EV_CAL_SAMPLES	1000

static void ev_cal_report_min(struct ev_vcpu *v, const char *key, u64 best, unsigned int n)
{
	u64 t = DIV_ROUND_CLOSEST_ULL(best * 10, n);

	ev_log_printf(&v->sb->log,
		      "[endovisor] " EV_FIG_BEST("%s", "%llu.%llu", "%d", "%u") "\n",
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

/*
 * Cycles of n rounds of the locking a table pair does (heap.c's
 * ev_heap_add and ev_heap_take each take the table's bit lock once), on a
 * word of its own: the part of the table pair that is two locked atomic
 * instructions, which the table's own work cannot lose.
 */
static u64 ev_table_lock_round(unsigned int n)
{
	unsigned long word = 0;
	unsigned int i;
	u64 t0, t1;

	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		bit_spin_lock(0, &word);
		__bit_spin_unlock(0, &word);
		bit_spin_lock(0, &word);
		__bit_spin_unlock(0, &word);
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
}

/* Cycles of n mem_alloc and mem_free bodies, and of their parts. */
struct ev_heap_cal {
	u64 step[EV_HEAP_STEPS], body, table;
	u64 body_kmalloc;		/* the bodies on kmalloc, as before the pool */
	u64 body_rbtree, table_rbtree;	/* the table as it was: heap_rbtree.c */
};

/* Cycles of n of heap.c's part what on h, or 0 if it failed. */
static u64 ev_heap_cal_time(struct ev_heap *h, unsigned int n, unsigned int what,
			    unsigned long addr)
{
	u64 t0 = rdtsc_ordered();

	if (ev_heap_cal_run(h, n, what, addr))
		return 0;
	return rdtsc_ordered() - t0;
}

/*
 * The cost of mem_alloc's and mem_free's bodies, and where it goes;
 * cycles of n of each.  All of it is measured on a private table that
 * holds as many blocks as the sandbox's table holds now, up to a limit
 * (so its probes are as long), never on the sandbox's own table, which
 * another vCPU may be using.
 *
 *   step[]  the bodies built up a part at a time: the block's allocation
 *           and free, then with the table, then with the wait for
 *           readers (none here) and the live counts
 *   body    ev_heap_alloc and ev_heap_free of 64 bytes: both services
 *           whole, but for their crossings and argument checks; after the
 *           steps, so that it runs no colder than they do, and after the
 *           same bodies on kmalloc and kfree (body_kmalloc), as they were
 *           before the pool
 *   table   ev_heap_add and ev_heap_take of one block, alone, each under
 *           the lock
 *
 * -ENOMEM if the private table cannot be set up.
 */
static int ev_heap_cal_round(struct ev_heap *live, unsigned int n, struct ev_heap_cal *c)
{
	struct ev_heap *h = kmalloc(sizeof(*h), GFP_KERNEL);
	unsigned long fill = min(ev_heap_blocks(live), 4096UL);
	unsigned int step;
	int ret = -ENOMEM;
	void *p = NULL;

	if (!h)
		return -ENOMEM;
	ev_heap_init(h, NULL);
	if (ev_heap_cal_run(h, fill, EV_HEAP_RUN_FILL, 0))
		goto out;
	p = kmalloc(64, GFP_KERNEL);	/* an address such as a block has */
	if (!p)
		goto out;
	/* Room for one more, so that the table's own rebuild is not timed. */
	if (ev_heap_cal_run(h, 1, EV_HEAP_RUN_TABLE, (unsigned long)p))
		goto out;

	for (step = 0; step < EV_HEAP_STEPS; step++) {
		c->step[step] = ev_heap_cal_time(h, n, step, 0);
		if (!c->step[step])
			goto out;
	}
	c->body_kmalloc = ev_heap_cal_time(h, n, EV_HEAP_RUN_BODY_KMALLOC, 0);
	c->body = ev_heap_cal_time(h, n, EV_HEAP_RUN_BODY, 0);
	c->table = ev_heap_cal_time(h, n, EV_HEAP_RUN_TABLE, (unsigned long)p);
	if (!c->body || !c->table || !c->body_kmalloc)
		goto out;
	ret = ev_heap_rbtree_cal(n, fill, &c->body_rbtree, &c->table_rbtree);
out:
	kfree(p);
	ev_heap_teardown(h);
	kfree(h);
	return ret;
}

static long ev_cal_heap(struct ev_vcpu *v)
{
	static const char *const steps[EV_HEAP_STEPS] = {
		"heap.step_allocs", "heap.step_table", "heap.step_all",
	};
	u64 kmalloc = U64_MAX, step[EV_HEAP_STEPS], body = U64_MAX, table = U64_MAX;
	u64 body_rb = U64_MAX, table_rb = U64_MAX, table_lock = U64_MAX, body_km = U64_MAX;
	struct ev_heap_cal c;
	int r, k;

	for (k = 0; k < EV_HEAP_STEPS; k++)
		step[k] = U64_MAX;
	for (r = 0; r < EV_CAL_ROUNDS; r++) {
		/* A kill must not wait for every round (tick.c). */
		if (fatal_signal_pending(current))
			return -EINTR;
		kmalloc = min(kmalloc, ev_kmalloc_round(EV_CAL_PAIRS));
		table_lock = min(table_lock, ev_table_lock_round(EV_CAL_PAIRS));
		if (ev_heap_cal_round(&v->sb->heap, EV_CAL_PAIRS, &c))
			return -ENOMEM;
		for (k = 0; k < EV_HEAP_STEPS; k++)
			step[k] = min(step[k], c.step[k]);
		body = min(body, c.body);
		body_km = min(body_km, c.body_kmalloc);
		table = min(table, c.table);
		body_rb = min(body_rb, c.body_rbtree);
		table_rb = min(table_rb, c.table_rbtree);
	}
	ev_cal_report_min(v, "heap.kmalloc_pair", kmalloc, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.body_pair", body, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.body_pair_kmalloc", body_km, EV_CAL_PAIRS);
	for (k = 0; k < EV_HEAP_STEPS; k++)
		ev_cal_report_min(v, steps[k], step[k], EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.table_pair", table, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.table_lock_pair", table_lock, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.body_pair_rbtree", body_rb, EV_CAL_PAIRS);
	ev_cal_report_min(v, "heap.table_pair_rbtree", table_rb, EV_CAL_PAIRS);
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
		      "[endovisor] " EV_FIG_MEDIAN("%s", "%llu", "cycles", "%zu") "\n",
		      key, ev_percentile(s, n, 50), ev_percentile(s, n, 99), n);
}

/*
 * copy_from_user reads through the carrier's current mm, so the carrier
 * adopts the tenant's for the measurement, as it does to run the tenant.
 */
static long ev_cal_copy(struct ev_vcpu *v, unsigned long handle, unsigned long va,
			unsigned long pages, unsigned long buf)
{
	static const unsigned int sizes[] = { 64, 4096 };
	static const char *const keys[] = { "linux.copy_from_user_64", "linux.copy_from_user_4k" };
	struct mm_struct *was = current->mm;
	u64 *s = kmalloc_array(EV_CAL_SAMPLES, sizeof(u64), GFP_KERNEL);
	char *kbuf = kmalloc(4096, GFP_KERNEL);
	struct ev_vm *vm = ev_vm_get(v->sb, handle);
	long ret = 0;
	int k, i, warm;

	if (!vm || !s || !kbuf) {
		ret = vm ? -ENOMEM : -EBADF;
		goto out;
	}
	/* A fault in copy_from_user may make Linux allocate tables, as a tenant's does. */
	if (ev_vm_tables_full(v->sb)) {
		ret = -ENOSPC;
		goto out;
	}
	if (!pages || pages > EV_TENANT_SIZE >> PAGE_SHIFT || va & ~PAGE_MASK ||
	    va < EV_TENANT_BASE || va - EV_TENANT_BASE > EV_TENANT_SIZE - (pages << PAGE_SHIFT)) {
		ret = -EINVAL;
		goto out;
	}
	warm = min_t(unsigned long, pages, EV_CAL_SAMPLES);
	ev_switch_mm(v, ev_vm_mm(vm));
	for (k = 0; k < ARRAY_SIZE(sizes) && !ret; k++) {
		/* After an untimed pass over the pages, as the sandbox's copies are. */
		for (i = -warm; i < EV_CAL_SAMPLES; i++) {
			void __user *from = (void __user *)(va + ((i + pages) % pages) * PAGE_SIZE);
			u64 t0 = rdtsc_ordered();
			unsigned long left = copy_from_user(kbuf, from, sizes[k]);

			if (i >= 0)
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
	if (ret)
		goto out;
	/* The parts of copy_from_tenant, over the same pages. */
	ret = ev_vm_cal_walk(vm, va, pages, s, EV_CAL_SAMPLES, false);
	if (ret)
		goto out;
	ev_cal_report_samples(v, "copy.walk", s, EV_CAL_SAMPLES);
	ret = ev_vm_cal_walk(vm, va, pages, s, EV_CAL_SAMPLES, true);
	if (ret)
		goto out;
	ev_cal_report_samples(v, "copy.walk_full", s, EV_CAL_SAMPLES);
	ev_vm_cal_lock(vm, s, EV_CAL_SAMPLES);
	ev_cal_report_samples(v, "copy.lock_pair", s, EV_CAL_SAMPLES);
	for (i = 0; i < EV_CAL_SAMPLES; i++) {
		u64 t0 = rdtsc_ordered();
		struct ev_vm *ref = ev_vm_get(v->sb, handle);

		if (ref)
			ev_vm_put(ref);
		s[i] = rdtsc_ordered() - t0;
	}
	ev_cal_report_samples(v, "copy.ref_pair", s, EV_CAL_SAMPLES);
	for (i = 0; i < EV_CAL_SAMPLES; i++) {
		u64 t0 = rdtsc_ordered();
		bool owns;

		ev_heap_read_begin(v);
		owns = ev_vcpu_owns(v, (void *)buf, 64, true);
		ev_heap_read_end(v);
		s[i] = rdtsc_ordered() - t0;
		if (!owns) {
			ret = -EFAULT;
			goto out;
		}
	}
	ev_cal_report_samples(v, "copy.check", s, EV_CAL_SAMPLES);
	for (i = -warm; i < EV_CAL_SAMPLES; i++) {
		unsigned long from = va + ((i + pages) % pages) * PAGE_SIZE;
		u64 t0 = rdtsc_ordered();

		ret = ev_svc_copy_from_tenant(v, handle, buf, from, 64, 0);
		if (i >= 0)
			s[i] = rdtsc_ordered() - t0;
		if (ret)
			goto out;
	}
	ev_cal_report_samples(v, "copy.direct_64", s, EV_CAL_SAMPLES);
out:
	if (vm)
		ev_vm_put(vm);
	kfree(kbuf);
	kfree(s);
	return ret;
}

#define EV_CAL_KMALLOC_MAX	200000

/* kmalloc and kfree of 64 bytes while n more are live: tenths of a cycle per pair. */
static long ev_cal_kmalloc(unsigned long n)
{
	void **live;
	u64 best = U64_MAX;
	unsigned long i;
	long ret = 0;
	int r;

	if (n > EV_CAL_KMALLOC_MAX)
		return -EINVAL;
	live = kvmalloc_array(n ?: 1, sizeof(*live), GFP_KERNEL);
	if (!live)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		live[i] = kmalloc(64, GFP_KERNEL);
		if (!live[i]) {
			ret = -ENOMEM;
			break;
		}
	}
	for (r = 0; r < EV_CAL_ROUNDS && !ret; r++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		best = min(best, ev_kmalloc_round(EV_CAL_PAIRS));
	}
	while (i--)
		kfree(live[i]);
	kvfree(live);
	return ret ?: (long)DIV_ROUND_CLOSEST_ULL(best * 10, EV_CAL_PAIRS);
}

/* The ownership check of [buf, buf + len), n times: the median in cycles, or -EFAULT. */
static long ev_cal_owns(struct ev_vcpu *v, unsigned long buf, unsigned long len, bool full)
{
	u64 *s = kmalloc_array(EV_CAL_SAMPLES, sizeof(u64), GFP_KERNEL);
	long ret;
	int i;

	if (!s)
		return -ENOMEM;
	if (!len || len > PAGE_SIZE) {
		kfree(s);
		return -EINVAL;
	}
	for (i = 0; i < EV_CAL_SAMPLES; i++) {
		u64 t0 = rdtsc_ordered();
		bool owns;

		ev_heap_read_begin(v);
		owns = full ? ev_sandbox_owns(v->sb, (void *)buf, len, true) :
			      ev_vcpu_owns(v, (void *)buf, len, true);
		ev_heap_read_end(v);
		s[i] = rdtsc_ordered() - t0;
		if (!owns) {
			kfree(s);
			return -EFAULT;
		}
	}
	sort(s, EV_CAL_SAMPLES, sizeof(*s), ev_cmp_u64, NULL);
	ret = ev_percentile(s, EV_CAL_SAMPLES, 50);
	kfree(s);
	return ret;
}

int ev_calibrate_init(void)
{
	return ev_heap_rbtree_init();
}

void ev_calibrate_exit(void)
{
	ev_heap_rbtree_exit();
}

EV_SERVICE_DEFINE5(calibrate, unsigned long, what, unsigned long, a0, unsigned long, a1,
		   unsigned long, a2, unsigned long, a3)
{
	switch (what) {
	case EV_CAL_HEAP:
		return ev_cal_heap(v);
	case EV_CAL_COPY:
		return ev_cal_copy(v, a0, a1, a2, a3);
	case EV_CAL_KMALLOC:
		return ev_cal_kmalloc(a0);
	case EV_CAL_OWNS:
		return ev_cal_owns(v, a0, a1, a2);
	case EV_CAL_VM_BYTES:
		return ev_vm_bytes(v, a0);
	}
	return -EINVAL;
}
