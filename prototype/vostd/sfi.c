// SPDX-License-Identifier: GPL-2.0
/*
 * Store checks: software fault isolation of a sandbox kernel's own code,
 * a prototype (book/src/containment.md).  A kernel built with VOSTD_SFI
 * (vostd.mk's vostd-sfi-ccflags) has GCC's address sanitizer for the
 * kernel put a call before every store it makes through a pointer, and
 * only before stores (-fsanitize=kernel-address with
 * asan-instrument-reads=0, and every check a call:
 * asan-instrumentation-with-call-threshold=0).  The calls land
 * here, in place of KASAN's: each checks that the bytes about to be
 * written are the sandbox's, and stops the vCPU with a report if they are
 * not, before the store is made.
 *
 * What is the sandbox's: every page of Linux's direct map that it owns
 * carries its owner tag in the struct page (ev_sfi, ev_abi.h: the pool's
 * pages, its frames, its stacks, its globals and shared pages), and its
 * kernel's data objects, which the endovisor's record lists, sorted.
 * Stack pushes and the compiler's own spills are not checked: they go
 * through the stack pointer, to a sandbox stack.  Nor is what vOSTD's
 * assembly writes (switch.S) or its string instructions, which check
 * their ranges themselves (string.c).
 *
 * This file is not instrumented: a check must not check itself.
 */
#include <linux/mm_types.h>
#include <linux/objtool.h>

#include "vostd.h"
#include "sfi.h"

#define SFI_PAGE_SHIFT	12

/* Is page pfn of the direct map one the sandbox owns? */
static __always_inline bool sfi_page_owned(const struct ev_sfi *s, unsigned long pfn)
{
	const struct page *pg = (const struct page *)s->page_array + pfn;

	return (READ_ONCE(pg->private) | 1) == s->owner_tag;
}

/* Does [addr, addr + size) lie wholly in one data object of the kernel? */
static __always_inline bool sfi_object_owned(const struct ev_sfi *s, unsigned long addr,
					     unsigned long size)
{
	const struct { u64 start, end; } *o = (const void *)s->objects;
	unsigned long lo = 0, hi = s->nr_objects;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (o[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr + size <= o[lo - 1].end && addr + size > addr;
}

/* Is [addr, addr + size) the sandbox's to write? */
static __always_inline bool sfi_owned(unsigned long addr, unsigned long size)
{
	const struct ev_sfi *s = &vostd_vcpu()->sfi;
	unsigned long first = (addr - s->direct_base) >> SFI_PAGE_SHIFT;
	unsigned long last = (addr + size - 1 - s->direct_base) >> SFI_PAGE_SHIFT;

	if (first < s->direct_pages && last < s->direct_pages && first <= last) {
		for (; first <= last; first++)
			if (!sfi_page_owned(s, first))
				return false;
		return true;
	}
	return sfi_object_owned(s, addr, size);
}

/*
 * A store the sandbox may not make: report it, and stop the vCPU before
 * it is made, as the checking mode stops one (sanitize.c): upcalls masked,
 * idle until the launcher, reading EV_SANITIZER_STOPS, ends the sandbox.
 */
static __noreturn void sfi_refuse(unsigned long addr, unsigned long size, unsigned long ip)
{
	__atomic_add_fetch(&vostd_globals()->san_reports, 1, __ATOMIC_RELAXED);
	vostd_println("%s wild store: %lu bytes at %lx, by the code at %lx; %s",
		      READ_ONCE(vostd_globals()->sfi_expected) ?
		      EV_SANITIZER_EXPECTED_WORD : EV_SANITIZER_WORD,
		      size, addr, ip, EV_SANITIZER_STOPS);
	vostd_halt();
}

static __always_inline void sfi_check(unsigned long addr, unsigned long size, unsigned long ip)
{
	if (unlikely(!sfi_owned(addr, size)))
		sfi_refuse(addr, size, ip);
}

/* A range vOSTD's own code is about to write, by a string instruction. */
void vostd_sfi_range(const void *p, unsigned long n)
{
	if (n)
		sfi_check((unsigned long)p, n, _RET_IP_);
}

/*
 * The calls GCC makes before each store, by its size.  Linux's objtool
 * takes every __asan_ call for KASAN's, which runs with user access open
 * and may call nothing, and these call out to refuse: they are left out
 * of its checks (so, too, out of the unwinder's tables).
 */
#define SFI_STORE(n)								\
	void __asan_store##n##_noabort(unsigned long addr);			\
	void __asan_store##n##_noabort(unsigned long addr)			\
	{									\
		sfi_check(addr, n, _RET_IP_);					\
	}									\
	STACK_FRAME_NON_STANDARD(__asan_store##n##_noabort)
SFI_STORE(1);
SFI_STORE(2);
SFI_STORE(4);
SFI_STORE(8);
SFI_STORE(16);

void __asan_storeN_noabort(unsigned long addr, size_t size);
void __asan_storeN_noabort(unsigned long addr, size_t size)
{
	if (size)
		sfi_check(addr, size, _RET_IP_);
}

STACK_FRAME_NON_STANDARD(__asan_storeN_noabort);

/* Called before a call that does not return; nothing to do here. */
void __asan_handle_no_return(void);
void __asan_handle_no_return(void)
{
}
