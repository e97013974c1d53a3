// SPDX-License-Identifier: GPL-2.0
/*
 * mem: the sandbox kernel that tests and measures the memory services.
 *
 *   test   the refusals (frees of memory never given out, double and
 *          interior frees; a frame outside the grant; copies from unmapped
 *          or kernel addresses; maps past the sandbox's bounds), zero
 *          faults on first touch and after protect, the flush that makes a
 *          protect seen, a tenant page fault, and copy-on-write after fork;
 *          and the bugs planted for vOSTD's checking mode; one EVTEST line
 *          each
 *   planted
 *          the planted bugs alone, which must make their reports with the
 *          checking mode on and stay inside the sandbox without it
 *   perf   the memory measurements, one EVFIG line each
 *   perf pair
 *          the vostd_alloc pairs alone, for a run in checking mode
 *   scale [owns]
 *          how the costs grow, for the scale suite: the heap pair with more
 *          blocks live, the ownership check with more frames granted (and,
 *          from the suite, more vCPUs), fork and unmap of more memory, and
 *          the memory a tenant space makes Linux hold; EVFIG scale.* lines
 *
 * It runs on vCPU 0 only; its tenant is prototype/tenants/touch.S.  The
 * fork is this kernel's own: the parent's pages shared read-only with the
 * child by one cursor's copy_from (vm_share), as a kernel proper would do
 * it on vOSTD, timed beside the fork it replaced, a protect of the parent
 * and a map into the child for every page.  It keeps
 * no state in the module's static data, which every sandbox running this
 * kernel would share: what it keeps is in its globals page or on its heap.
 *
 * Its files: space.c (tenants and a pass of touch), fork.c, perf.c,
 * scale.c, tests.c and bugs.c, over mem.h.
 */

#include "mem.h"

static long mem_main(void)
{
	const char *args = vostd_vcpu()->args;

	if (vostd_has_prefix(args, "test")) {
		tests();
	} else if (vostd_has_prefix(args, "planted")) {
		planted_bugs();
		vostd_tests_end();
	} else if (vostd_has_prefix(args, "perf pair")) {
		perf_pair();
	} else if (vostd_has_prefix(args, "perf")) {
		perf();
	} else if (vostd_has_prefix(args, "scale")) {
		scale(args + 5);
	} else {
		vostd_fail("mode", "unknown mode '%s' (want test, planted, perf or scale)", args);
	}
	/* A failed case fails the run (vostd_boot). */
	return 0;
}

VOSTD_KERNEL(mem, mem_main, NULL);
