/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The endovisor's measurements for the book, apart from the crossing's own
 * timing at every sandbox's start (crossing.c), which is part of the
 * design.  Everything else that only measures is reached through this
 * header and lives in calibrate.c:
 *
 *   - the calibrate service (ev_svc_calibrate), with its rounds, its
 *     statistics and its log lines;
 *   - the readings of the trap path a kernel proper may ask tenant_run
 *     for (ev_stamp, struct ev_cal_stamps): the only measurement state a
 *     vCPU holds;
 *   - the few workloads that must run where the code they time is
 *     inlined: heap.c's bodies in parts (ev_heap_cal_run), vm_copy.c's walk
 *     and lock (ev_vm_cal_walk, ev_vm_cal_lock), and the table as it was
 *     (heap_rbtree.c).
 *
 * Of the rest of the endovisor only the service list (calibrate) and
 * struct ev_vcpu (its stamps) refer to anything here, and nothing here
 * is part of the ABI but what tenant_run's trailer carries.
 */
#ifndef EV_CALIBRATE_H
#define EV_CALIBRATE_H

#include <linux/smp.h>
#include <linux/types.h>
#include <asm/msr.h>

#include "ev_abi.h"

struct ev_vcpu;
struct ev_vm;
struct ev_heap;

/* calibrate.c */
int ev_calibrate_init(void);
void ev_calibrate_exit(void);

/*
 * The readings of the trap path a vCPU's last tenant_run asked for
 * (tenant_run's third argument, EV_STAMP_* in ev_abi.h): 'wanted' of
 * them go after the tenant context the trap writes back; none is taken
 * while it is 0.
 */
struct ev_cal_stamps {
	unsigned int wanted;
	struct ev_stamp at[EV_STAMPS];
};

/*
 * The cycle counter and the CPU it was read on, for the sandbox kernel's
 * measurements of the trap path: a carrier may move between CPUs, and a
 * difference of two readings means something only on one.
 */
static __always_inline void ev_stamp(struct ev_stamp *s)
{
	s->cpu = raw_smp_processor_id();
	s->at = rdtsc_ordered();
}

/* Reading point of s, if the run asked for it. */
static __always_inline void ev_cal_stamp(struct ev_cal_stamps *s, unsigned int point)
{
	if (point < s->wanted)
		ev_stamp(&s->at[point]);
}

/*
 * The readings for the trap of kind trap, into out[0 .. wanted), which
 * the caller zeroed (zeros stay for the points this endovisor does not
 * know): each reading taken for this trap.  The last resume's is
 * reported once.  Written out point by point: a loop here, on the trap
 * path, the compiler turns into calls of memset and memcpy.
 */
static_assert(EV_STAMPS == EV_STAMP_RESUMED + 1, "ev_cal_stamps_out reports every point");
static __always_inline void ev_cal_stamps_out(struct ev_cal_stamps *s, struct ev_stamp *out,
					      u32 trap)
{
	if (s->wanted > EV_STAMP_SYS_ENTER && trap == EV_TRAP_SYSCALL)
		out[EV_STAMP_SYS_ENTER] = s->at[EV_STAMP_SYS_ENTER];
	if (s->wanted > EV_STAMP_WORK)
		out[EV_STAMP_WORK] = s->at[EV_STAMP_WORK];
	if (s->wanted > EV_STAMP_RESUMED) {
		out[EV_STAMP_RESUMED] = s->at[EV_STAMP_RESUMED];
		s->at[EV_STAMP_RESUMED] = (struct ev_stamp){};
	}
}

/* heap.c: mem_alloc's and mem_free's bodies, a part at a time (no timing). */
enum {
	EV_HEAP_STEP_ALLOCS,	/* the block's allocation and free */
	EV_HEAP_STEP_TABLE,	/* and the table */
	EV_HEAP_STEP_ALL,	/* and the wait for readers and the live counts: all the bodies */
	EV_HEAP_STEPS,
	EV_HEAP_RUN_BODY = EV_HEAP_STEPS,	/* ev_heap_alloc and ev_heap_free, whole */
	EV_HEAP_RUN_BODY_KMALLOC,	/* the same on kmalloc and kfree, as before the pool */
	EV_HEAP_RUN_TABLE,	/* one block, addr, into the table and out, each under the lock */
	EV_HEAP_RUN_FILL,	/* n blocks allocated and kept */
};

int ev_heap_cal_run(struct ev_heap *h, unsigned int n, unsigned int what, unsigned long addr);

/* vm_copy.c */
int ev_vm_cal_walk(struct ev_vm *vm, unsigned long va, unsigned long pages,
		   u64 *s, unsigned int n, bool full);
void ev_vm_cal_lock(struct ev_vm *vm, u64 *s, unsigned int n);

/* heap_rbtree.c */
int ev_heap_rbtree_init(void);
void ev_heap_rbtree_exit(void);
int ev_heap_rbtree_cal(unsigned int n, unsigned long fill, u64 *body, u64 *table);

#endif /* EV_CALIBRATE_H */
