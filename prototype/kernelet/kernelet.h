/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernelet: a sandbox kernel's own scheduler, on vOSTD.
 *
 * Tasks have their own stacks and are switched by the stub's vostd_switch
 * without entering Linux.  Each vCPU has a run queue per priority; a task
 * stays on the vCPU it was spawned for.  A vCPU with nothing to run sleeps
 * in vcpu_idle; a wake for another vCPU leaves a note (need_resched) and
 * kicks it, and the kick comes back as an upcall that reschedules.  Tasks
 * of one priority share a vCPU in time slices, and a task can block until
 * a time (timer.c).
 *
 * Callers name tasks by id, never by pointer: a task may exit and be freed
 * at any time after it is spawned or woken, and an id that outlived its
 * task names nothing (kl_wake says so) rather than freed memory.
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

/*
 * A task's id: a slot of the sandbox's task table (the id modulo
 * KL_MAX_TASKS) and that slot's generation (the rest), which changes when
 * the task is freed.  A freed slot is the next one handed out.  0 is no
 * task.
 */
typedef u32 kl_tid_t;

/* Tasks alive at once, per sandbox. */
#define KL_MAX_TASKS	1024

/* What a vCPU's scheduler did, for the measuring kernels. */
struct kl_cpu_stats {
	u64 switches;		/* task switches */
	u64 upcalls;		/* kicks taken */
	u64 upcall_resched;	/* of those, ones that found a note and rescheduled */
	u64 upcall_spurious;	/* ones that found the note already taken */
	u64 last_upcall;	/* this vCPU's cycle counter when it last took one */
	u64 kicks_sent;		/* vcpu_kick calls this vCPU made */
	u64 kicks_saved;	/* wakes that needed no kick: the target's idle loop was looking */
	u64 kicks_rechecked;	/* kicks not sent: the note was taken before the kick */
	u64 idles;		/* vcpu_idle calls made */
	u64 idles_done;		/* of those, calls that have returned */
	u64 idle_wakes;		/* of those, ones a kick ended */
	u64 idle_last;		/* cycles the last returned call took, on this clock */
	u64 refused;		/* yields or blocks refused inside a guard */
	u64 timer_wakes;	/* tasks whose kl_block_until time came first */
	u64 slices_ended;	/* tasks sent to the back of their queue by their slice */
};

/*
 * Spawn a task to run fn(arg) on vCPU vcpu.  Returns its id, or 0 if it
 * could not (no memory, a full table, a bad vCPU or priority, or the
 * kernelet stopping).  The task may have run, and even ended, by then.
 */
kl_tid_t kl_spawn(const char *name, void (*fn)(void *), void *arg,
		  enum kl_prio prio, unsigned int vcpu);
/* The running task's id and name: 0 and "idle" in the idle loop. */
kl_tid_t kl_self(void);
const char *kl_self_name(void);

void kl_yield(void);
/* Sleep until kl_wake; a wake that came first makes it return at once. */
void kl_block(void);
/*
 * kl_block, until a wake or until the cycle counter (vostd_cycles) passes
 * at, whichever comes first; at once if at has passed.  0: no time.
 */
void kl_block_until(u64 at);
/*
 * The running task counts its run time from now on: every switch to it
 * or away from it reads the clock, which other switches do not.
 */
void kl_count_runtime(void);
/*
 * Cycles (vostd_cycles) the task has run on its vCPU since it called
 * kl_count_runtime, its current run included: from each switch to it to
 * the next switch away, whether in sandbox code or in its tenant's user
 * mode, and with any time Linux took the carrier away meanwhile, which
 * the kernelet cannot see.  0 if tid names no task or one that does not
 * count.  now is the cycle counter to count a run under way to (0: the
 * clock's now), so that a caller can read another time at the same now.
 */
u64 kl_runtime(kl_tid_t tid, u64 now);
/* Make the task runnable.  -ESRCH if it has ended: its id names no task. */
int kl_wake(kl_tid_t tid);

/*
 * A guard: while it is held the kernelet does not switch this vCPU's task,
 * and kicks wait.  Linux can still preempt the carrier; the guard is the
 * kernelet's preemption-off section, not Linux's.
 */
void kl_guard_begin(void);
void kl_guard_end(void);

/* A sandbox spinlock, held in a guard, as every lock a task takes must be. */
static inline void kl_spin_lock(vostd_spinlock_t *l)
{
	kl_guard_begin();
	vostd_spin_lock(l);
}

static inline void kl_spin_unlock(vostd_spinlock_t *l)
{
	vostd_spin_unlock(l);
	kl_guard_end();
}

/*
 * Every vCPU calls kl_run once: it runs tasks until kl_stop, sleeping in
 * vcpu_idle whenever it has none.  Each vCPU then frees its tasks, ended
 * or not, and the last one out frees the kernelet's own state: no
 * kernelet call may follow.  kl_run returns with upcalls masked, since no
 * scheduler is left to take a kick.
 */
long kl_run(void);
void kl_stop(void);

/*
 * Whether kl_wake looks at the note again after dropping the lock and
 * skips the kick if the target has taken it meanwhile.  Off by default:
 * it was tried and saves almost no kicks (book/src/kicks.md); the switch
 * is kept so that the measuring kernel can go on timing both.
 */
void kl_set_recheck(bool on);

/*
 * Whether tasks of one priority share a vCPU in time slices (timer.c).
 * On by default.  A measuring kernel that times round trips one by one
 * turns them off while it times: a slice's kick that lands in a round
 * trip voids it, and the count of trips kept would differ between boots.
 */
void kl_set_slices(bool on);

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
