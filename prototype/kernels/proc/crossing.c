// SPDX-License-Identifier: GPL-2.0
/*
 * One round of the crossing pair that perf_crossing times: EV_CAL_PAIRS
 * pairs of crossings of the do-nothing service, as this kernel's own code
 * makes them (vostd_call, inline here), in cycles.
 *
 * proc_sfi builds this file twice: as it is, with the store checks its
 * other files have (vostd.mk's vostd-sfi-ccflags), and as
 * crossing_unchecked.c, without them.  The rounds of the two alternate in
 * one launch, so that whichever speed the emulator runs at meets both,
 * and what they differ by is the checks alone: vostd_call's store of the
 * count of calls in the shared page is the loop's one checked store.
 */
#include "proc.h"

#ifndef CROSSING_ROUND
#define CROSSING_ROUND	crossing_round
#endif

/*
 * The loop starts a page of its own, in either build and either kernel:
 * under emulation a loop's cost depends on where its code lies (the
 * endovisor's crossing.c says how much), and the two builds and the two
 * kernels are to differ by the checks alone.
 */
#define CROSSING_ALIGN	4096

u64 __aligned(CROSSING_ALIGN) CROSSING_ROUND(void)
{
	u64 t0 = vostd_cycles();
	int i;

	for (i = 0; i < EV_CAL_PAIRS; i++) {
		vostd_svc_nop();
		vostd_svc_nop();
	}
	return vostd_cycles() - t0;
}
