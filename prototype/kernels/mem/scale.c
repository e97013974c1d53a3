// SPDX-License-Identifier: GPL-2.0
/*
 * The scale suite's measurements: how the costs grow with the blocks
 * live, the frames granted, the memory forked, and what a tenant space
 * makes Linux hold.
 */
#include "mem.h"

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
void scale(const char *args)
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
