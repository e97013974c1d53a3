// SPDX-License-Identifier: GPL-2.0
/*
 * wild: a kernel built with vOSTD's store checks (vostd/sfi.c), that
 * stores where a sandbox kernel may write and where it may not.
 *
 *   own      a store into each kind of memory the sandbox owns: a heap
 *            block small and large, a slab object of vOSTD's, a frame, the
 *            globals page, its stack, a data object of its module; each
 *            must pass, and the run ends with one test line each
 *   direct   a store into a page of Linux's direct map that the sandbox
 *            does not own: the check stops the vCPU before it is made
 *   module   a store into the module's own struct module, which Linux
 *            keeps beside the kernel's data objects: stopped the same way
 *
 * A wild store writes back the value it read, so that even a check that
 * let it through would change nothing; it is declared expected, so that
 * its report reads VOSTD-SANITIZER-EXPECTED and fails nothing, and the
 * suite ends the stopped sandbox with a kill.
 */
#include "vostd.h"
#include "mm.h"

/* in physical page 0, which Linux reserves and leaves alone */
#define LOW_PAGE	0x800UL

static u64 wild_object;

/* A store through a pointer the compiler cannot see into: it is checked. */
static noinline void store(void *p, u64 v)
{
	*(volatile u64 *)p = v;
}

static void own(void)
{
	char *small = vostd_heap_alloc(64, true), *large = vostd_heap_alloc(64 << 10, true);
	char *obj = vostd_alloc(100, true);
	void *frame = vostd_frame_alloc();
	u64 local[4];

	if (!small || !large || !obj || !frame) {
		vostd_fail("own_setup", "no memory");
		return;
	}
	store(small, 1);
	store(large + 60000, 2);
	store(obj, 3);
	store(frame, 4);
	store((char *)vostd_globals() + VOSTD_PAGE_SIZE - 8, 5);
	store(&local[1], 6);
	store(&wild_object, 7);
	vostd_test("own_stores_passed", local[1] == 6 && wild_object == 7,
		   "stores into a heap block small and large, a slab object, a frame, the globals page, the stack and a data object");
	vostd_heap_free(small);
	vostd_heap_free(large);
	vostd_free(obj);
	vostd_frame_free(frame);
}

/* A store the check must stop: the value there, written back. */
static void wild(const char *what, u64 *p)
{
	vostd_println("%s: %s store at %lx", __func__, what, (unsigned long)p);
	WRITE_ONCE(vostd_globals()->sfi_expected, 1);
	store(p, READ_ONCE(*p));
	vostd_fail(what, "the store went through");
}

static long wild_main(void)
{
	const char *args = vostd_vcpu()->args;

	if (vostd_has_prefix(args, "own"))
		own();
	else if (vostd_has_prefix(args, "direct"))
		wild("direct", (u64 *)(vostd_vcpu()->sfi.direct_base + LOW_PAGE));
	else if (vostd_has_prefix(args, "module"))
		wild("module", (u64 *)&THIS_MODULE->state);
	else
		vostd_fail("mode", "unknown mode '%s' (want own, direct or module)", args);
	return vostd_tests_end();
}

VOSTD_KERNEL(wild, wild_main, NULL);
