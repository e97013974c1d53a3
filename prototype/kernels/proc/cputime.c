// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's CPU time: its kernelet task's run time (kl_runtime), which
 * the task counts from its start, and of it the time its tenant ran in
 * user mode, which thread_main times around each run with
 * thread_user_begin and thread_user_end.  A leaving thread gives its time
 * to its process (cpu_gone), and a wait that reaps a process gives its
 * time to the parent (proc_wait_any).  The linux kernel proper's clocks
 * and calls read them (kernels/linux/cputime.c).
 */
#include "proc.h"

/* t's task, running its first instruction, counts its run time from now. */
void thread_cpu_begin(struct thread *t)
{
	kl_count_runtime();
	WRITE_ONCE(t->task, kl_self());
}

/* t's tenant is to run from now: the cycle counter, which thread_user_end takes. */
u64 thread_user_begin(struct thread *t)
{
	u64 t0 = vostd_cycles();

	WRITE_ONCE(t->user_since, t0);
	return t0;
}

/*
 * The run that began at t0 has ended: its time, with the crossings in and
 * out of it, is user time.  Returns the reading of its end, which the
 * caller's own measurements take as the trap's.
 */
struct ev_stamp thread_user_end(struct thread *t, u64 t0)
{
	struct ev_stamp now;

	WRITE_ONCE(t->user_seq, t->user_seq + 1);
	smp_wmb();	/* the count odd before the end is read: thread_cpu_locked */
	now = vostd_stamp();
	WRITE_ONCE(t->user_cycles, t->user_cycles + now.at - t0);
	WRITE_ONCE(t->user_since, 0);
	smp_wmb();	/* the end counted before the count is even again */
	WRITE_ONCE(t->user_seq, t->user_seq + 1);
	return now;
}

/*
 * t's CPU time so far: its task's run time and its user mode's part.  The
 * table's lock held, which thread_cpu_leave_locked's caller takes to move
 * t's time to its process's: a reader sees it in one place or the other.
 */
void thread_cpu_locked(struct thread *t, struct proc_cpu *cpu)
{
	u64 user, since, now;
	u32 seq;

	/*
	 * A reading taken while no run's end was being counted, the clock
	 * included: a run that ends after it ends after its now, so a later
	 * reading is never less.
	 */
	do {
		seq = READ_ONCE(t->user_seq);
		smp_rmb();	/* the count before what it guards (thread_user_end's order) */
		user = READ_ONCE(t->user_cycles);
		since = READ_ONCE(t->user_since);
		now = vostd_cycles();
		smp_rmb();	/* what it guards before the count again */
	} while ((seq & 1) || READ_ONCE(t->user_seq) != seq);
	if (since)
		user += max(now, since) - since;
	cpu->user = user;
	/*
	 * The run to the same now, so that system time, the difference,
	 * never goes back; user time is of runs within the task's: never more.
	 */
	cpu->run = max(kl_runtime(READ_ONCE(t->task), now), user);
}

/*
 * t is leaving: its time goes to its process's cpu_gone, and t counts
 * none from now on.  The table's lock held, as by every reader.
 */
void thread_cpu_leave_locked(struct thread *t)
{
	struct proc_cpu cpu;

	thread_cpu_locked(t, &cpu);
	t->p->cpu_gone.run += cpu.run;
	t->p->cpu_gone.user += cpu.user;
	WRITE_ONCE(t->task, 0);
	WRITE_ONCE(t->user_cycles, 0);	/* not in a run: user_since is 0 */
}
