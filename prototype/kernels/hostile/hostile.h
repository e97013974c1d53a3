/* SPDX-License-Identifier: GPL-2.0 */
/* What the hostile kernel's files share. */
#ifndef HOSTILE_H
#define HOSTILE_H

#include "mm.h"

static inline long call(unsigned long svc, unsigned long a0, unsigned long a1,
			unsigned long a2, unsigned long a3)
{
	return vostd_call(svc, a0, a1, a2, a3, 0);
}

/* One case: a HOSTILE case line, counted, and a failure if got is not want. */
void expect(const char *name, long want, long got);

/* memory.c: what the quotas count */
struct hostile_mem {
	long race_vm;		/* the space vCPU 1 has now, or 0 */
	u32 race_go, race_done;
	u32 race_rounds;	/* the spaces vCPU 1 has created */
};
void memory_cases(struct hostile_mem *m);
void memory_race_ap(struct hostile_mem *m);
void memory_fill(const char *what);

#endif /* HOSTILE_H */
