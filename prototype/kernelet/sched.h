/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernelet's own structures, shared by its scheduler (sched.c) and
 * its timers and time slices (timer.c) and the run times of tasks
 * (runtime.c).  Nothing outside the kernelet
 * includes this: its users have kernelet.h.
 */
#ifndef KERNELET_SCHED_H
#define KERNELET_SCHED_H

#include "kernelet.h"

enum kl_state { KL_READY, KL_RUNNING, KL_BLOCKED, KL_DEAD };

struct kl_task {
	unsigned long sp;		/* saved while not running */
	struct ev_stack_base *stack;
	const char *name;
	kl_tid_t tid;
	enum kl_prio prio;
	enum kl_state state;
	unsigned int vcpu;
	bool wake_token;		/* a wake that came before its block */
	struct kl_task *next;		/* run-queue or zombie link */
	u64 wake_at;			/* kl_block_until's time; 0: none */
	struct kl_task *timer_next;	/* the vCPU's timer list, by wake_at */
	bool counted;			/* it counts its run time: kl_count_runtime */
	u64 run_cycles;			/* run before its current run (kl_runtime) */
};

struct kl_queue {
	struct kl_task *head, *tail;
};

struct kl_cpu {
	vostd_spinlock_t lock;
	struct kl_queue rq[KL_NR_PRIOS];
	struct kl_task *curr;		/* NULL: the idle loop */
	u64 curr_since;			/* the cycle counter when a counted curr began its run */
	struct kl_task *zombies;	/* dead, stacks to free */
	struct kl_task *timers;		/* blocked until a time, soonest first */
	u64 slice_at;			/* the armed slice check's time; 0: none */
	u64 slice_switches;		/* stats.switches when it was armed */
	u64 slice_cycles;		/* KL_SLICE_MS on the cycle counter */
	unsigned long idle_sp;
	u32 need_resched;		/* the note */
	u32 sleeping;			/* in or about to enter vcpu_idle */
	u32 gone;			/* left kl_run: its tasks are freed */
	struct vostd_vmspace *mm;	/* the address space the carrier holds */
	struct ev_vcpu_shared *shared;
	struct kl_cpu_stats stats;
} ____cacheline_aligned;

/* What a wake leaves its caller to do once the lock is dropped. */
enum kl_after { KL_AFTER_NOTHING, KL_AFTER_PREEMPT, KL_AFTER_KICK };

/* sched.c: the running vCPU's; the task tid names, its vCPU's lock held (NULL: none) */
struct kl_cpu *kl_this_cpu(void);
struct kl_task *kl_lock_task(kl_tid_t tid, struct kl_cpu **cp);

/* sched.c: make t, blocked or new, ready on c; c's lock held. */
enum kl_after kl_ready_locked(struct kl_cpu *c, struct kl_cpu *me, struct kl_task *t);
bool kl_slices_on(void);

/* timer.c; each with c's lock held. */
void kl_timer_add_locked(struct kl_cpu *c, struct kl_task *t);
void kl_timer_del_locked(struct kl_cpu *c, struct kl_task *t);
void kl_timers_expire_locked(struct kl_cpu *c, u64 now);
void kl_slice_init(struct kl_cpu *c);
void kl_slice_check_locked(struct kl_cpu *c, u64 now);
void kl_slice_switch_locked(struct kl_cpu *c);
void kl_timer_arm_locked(struct kl_cpu *c);

#endif /* KERNELET_SCHED_H */
