/* SPDX-License-Identifier: GPL-2.0 */
/* vOSTD's store checks, a prototype built with VOSTD_SFI (sfi.c). */
#ifndef VOSTD_SFI_H
#define VOSTD_SFI_H

#ifdef VOSTD_SFI
/* Stop the vCPU unless [p, p + n) is the sandbox's to write. */
void vostd_sfi_range(const void *p, unsigned long n);
#else
/* Built without the store checks: nothing is checked. */
#define vostd_sfi_range(p, n)	((void)(p), (void)(n))
#endif

#endif /* VOSTD_SFI_H */
