/* SPDX-License-Identifier: GPL-2.0 */
/* What the hostile kernel's files share: the case, raw calls, its state. */
#ifndef HOSTILE_H
#define HOSTILE_H

#include "mm.h"

#define PAGE		VOSTD_PAGE_SIZE
#define RW		(EV_PROT_READ | EV_PROT_WRITE)

/* A service called through the crossing directly, past vOSTD's own checks. */
static inline long call(unsigned long svc, unsigned long a0, unsigned long a1,
			unsigned long a2, unsigned long a3)
{
	return vostd_call(svc, a0, a1, a2, a3, 0);
}

/* memory.c: what the quotas count */
struct hostile_mem {
	long race_vm;		/* the space vCPU 1 has now, or 0 */
	u32 race_go, race_done;
	u32 race_rounds;	/* the spaces vCPU 1 has created */
};

void memory_cases(struct hostile_mem *m);
void memory_race_ap(struct hostile_mem *m);
void memory_fill(const char *what);
long map_until_refused(void *frame, long *err);

/* racing.c: caches and lock-free paths raced from two vCPUs */
struct hostile_race {
	u32 phase, ap_phase, step;
	char *cache_blk;
	long cache_before, cache_after;
	char *blk;			/* free_copy: vCPU 0's block now, or NULL */
	u32 copies, copies_done, copies_refused, copies_other;
	u32 rebuild_copies, rebuild_refused;
	long parent;			/* share: the space both race on */
	void *frame;
	u32 protects, protects_failed, churns;
	u32 slab_bad;			/* slab: vCPU 1's objects overwritten or not freed */
};

void racing_cases(void);
void racing_ap(void);
long copy_space(void **frame);

/* stale.c: the ownership check raced against a free */
#define STALE_ROUNDS	200000
struct hostile_stale {
	u64 seq;		/* 2r + 1: round r's block is live; 2r + 2: it is freed */
	u64 ap_seq;		/* the last freed round vCPU 1 has tried */
	char *blk;
	/* vCPU 1's copies while the block was live, and those that passed */
	u64 racing, found;
	u64 passes;		/* copies after the free that passed: must stay 0 */
	u64 other;		/* answers that are neither 0 nor -EFAULT */
	u32 ap_ready, done;
};

void stale_cases(u64 rounds);
void stale_ap(void);

/* contain.c: writes after free, and a sandbox that watches for them */
struct hostile_uaf {
	u32 ready, ap_done;
	unsigned long ap_spoiled;
	long ap_refused;
};

void uaf_cases(void);
void uaf_ap(void);
void victim_cases(void);

/* flags.c: flags sandbox code may set and Linux must not inherit */
void flags_cases(void);
void __noreturn flags_hold(void);

/* parking.c: a masked spin while the suite stops and freezes the launcher */
void park_cases(void);
void park_ap(void);

/* The kernel's state, in the sandbox's globals: one per sandbox. */
struct hostile {
	u32 heap_done;		/* vCPU 0's heap cases are done */
	u32 vcpu0_done;
	long busy_fpu;		/* a context vCPU 1 has loaded, once it has */
	u32 race_done;		/* traps.c: vCPU 0's tenants are done, stop kicking */
	long ctxfree_blk;	/* traps.c: this round's context, for vCPU 1 to free */
	struct hostile_mem mem;
	struct hostile_race race;
	struct hostile_stale stale;
	struct hostile_uaf uaf;
	u32 park_done;
};

static inline struct hostile *H(void)
{
	return vostd_global(VOSTD_SLOT_KERNEL, sizeof(struct hostile));
}

/* One case: an EVTEST line, failed if got is not want (vostd_test). */
void expect(const char *name, long want, long got);

/* registry.c: services aimed at Linux's tables in the module, and the registry. */
void hostile_registry_cases(void);

/* fpu_image.c: the x87 and SSE image of a context; busy is loaded on vCPU 1. */
void fpu_image_cases(long busy);

#endif /* HOSTILE_H */
