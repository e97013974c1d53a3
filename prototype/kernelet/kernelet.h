/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernelet: a sandbox kernel's own scheduler, on vOSTD.
 *
 * Tasks have their own stacks and are switched by the stub's vostd_switch
 * without entering Linux.  Each vCPU has a run queue per priority; a task
 * stays on the vCPU it was spawned for.  A vCPU with nothing to run sleeps
 * in vcpu_idle; a wake for another vCPU leaves a note (need_resched) and
 * kicks it, and the kick comes back as an upcall that reschedules.
 */
#ifndef KERNELET_H
#define KERNELET_H

#include "vostd.h"

enum kl_prio {
	KL_PRIO_LOW,
	KL_PRIO_NORMAL,
	KL_PRIO_HIGH,
	KL_NR_PRIOS
};

struct kl_task;

/* What a vCPU's scheduler did, for the measuring kernels. */
struct kl_cpu_stats {
	u64 switches;		/* task switches */
	u64 upcalls;		/* kicks taken */
	u64 upcall_resched;	/* of those, ones that found a note and rescheduled */
	u64 upcall_spurious;	/* ones that found the note already taken */
	u64 spurious_cycles;	/* time spent in the spurious ones */
	u64 kicks_sent;		/* vcpu_kick calls this vCPU made */
	u64 kicks_saved;	/* wakes that needed no kick: the target was looking */
	u64 idles;		/* vcpu_idle calls */
	u64 refused;		/* yields or blocks refused inside a guard */
};

/* Spawn a task to run fn(arg) on vCPU vcpu. */
struct kl_task *kl_spawn(const char *name, void (*fn)(void *), void *arg,
			 enum kl_prio prio, unsigned int vcpu);
struct kl_task *kl_current(void);
const char *kl_task_name(struct kl_task *t);

void kl_yield(void);
/* Sleep until kl_wake; a wake that came first makes it return at once. */
void kl_block(void);
void kl_wake(struct kl_task *t);

/*
 * A guard: while it is held the kernelet does not switch this vCPU's task,
 * and kicks wait.  Linux can still preempt the carrier; the guard is the
 * kernelet's preemption-off section, not Linux's.
 */
void kl_guard_begin(void);
void kl_guard_end(void);

/*
 * Every vCPU calls kl_run once: it runs tasks until kl_stop, sleeping in
 * vcpu_idle whenever it has none.
 */
long kl_run(void);
void kl_stop(void);

/*
 * The carrier of this vCPU adopts vs's address space (NULL: none of a
 * tenant's), unless it already has: the kernelet remembers, per vCPU,
 * which one the carrier holds.  Returns whether it switched.
 */
struct vostd_vmspace;
bool kernelet_switch_mm(struct vostd_vmspace *vs);

/*
 * vs is about to be destroyed: no vCPU may take a later space at the same
 * address for the one its carrier holds.
 */
void kernelet_forget_mm(struct vostd_vmspace *vs);

void kl_stats(unsigned int vcpu, struct kl_cpu_stats *out);
void kl_stats_reset(void);

#endif /* KERNELET_H */
