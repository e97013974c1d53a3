// SPDX-License-Identifier: GPL-2.0
/*
 * vOSTD's copies and fills: vostd_memcpy and vostd_memset for the kernels
 * proper, and memcpy, memset and memmove for the compiler, which may call
 * them for a struct's copy or clearing however the code is written.  They
 * are the sandbox kernel's own, linked into its module, so that such a
 * call never reaches Linux's: a sandbox kernel imports nothing of Linux's
 * but its registration with the endovisor, the crossings and the
 * compiler's thunks, which the build checks (tools/guest: sandboxImports).
 * All are the string instructions: no loop for the compiler to turn back
 * into a call.
 */
#include "mm.h"
#include "sfi.h"

/*
 * The compiler's calls find these: named memcpy, memset and memmove in
 * the object, and otherwise in C, where Linux's declarations of those
 * names (macros, under FORTIFY_SOURCE, whose checks call into Linux)
 * stay as they are.
 */
void *vostd_cc_memcpy(void *dst, const void *src, size_t n) __asm__("memcpy");
void *vostd_cc_memset(void *p, int c, size_t n) __asm__("memset");
void *vostd_cc_memmove(void *dst, const void *src, size_t n) __asm__("memmove");

/* The string instructions write where no store check sees: they check first. */
static __always_inline void vostd_movsb(void *dst, const void *src, unsigned long n)
{
	vostd_sfi_range(dst, n);
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static __always_inline void vostd_stosb(void *p, int c, unsigned long n)
{
	vostd_sfi_range(p, n);
	asm volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(c) : "memory");
}

/* No call out of the sandbox for a page of zeroes. */
void vostd_memset(void *p, int c, unsigned long n)
{
	vostd_stosb(p, c, n);
}

void vostd_memcpy(void *dst, const void *src, unsigned long n)
{
	vostd_movsb(dst, src, n);
}

/* Overlapping ranges too. */
void vostd_memmove(void *dst, const void *src, unsigned long n)
{
	vostd_cc_memmove(dst, src, n);
}

void *vostd_cc_memcpy(void *dst, const void *src, size_t n)
{
	vostd_movsb(dst, src, n);
	return dst;
}

void *vostd_cc_memset(void *p, int c, size_t n)
{
	vostd_stosb(p, c, n);
	return p;
}

/* Backwards, with the direction flag set, if dst overlaps src from above. */
void *vostd_cc_memmove(void *dst, const void *src, size_t n)
{
	unsigned long d = (unsigned long)dst, s = (unsigned long)src;

	if (d <= s || d - s >= n) {
		vostd_movsb(dst, src, n);
		return dst;
	}
	vostd_sfi_range(dst, n);
	d += n - 1;
	s += n - 1;
	asm volatile("std; rep movsb; cld" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}
