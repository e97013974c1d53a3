// SPDX-License-Identifier: GPL-2.0
/*
 * CPU time as Linux's calls give it: the CPU clocks of threads and
 * processes (clock_gettime, clock_getres), getrusage, times, and wait4's
 * rusage (sys_proc.c); the CPU-time interval timers are itimer.c's.
 *
 * A thread's time is its kernelet task's run time (kl_runtime), for which
 * the kernelet reads the clock at every switch to or from it, and, of it,
 * the time its tenant ran in user mode, which thread_main times around
 * each run; the rest is system time.  A process's is its live threads'
 * and that of the threads that have left (cpu_gone); its children's is
 * what its waits have reaped (cpu_children).  Linux charges whole ticks to user or system
 * and scales them by its scheduler's clock; here both parts are counted
 * to the switch.  Neither kernel sees time the machine beneath took away,
 * and here Linux's own preemptions of a carrier count as well: the
 * kernelet cannot tell them from its task running.
 */
#include "syscalls.h"

#define RUSAGE_SELF		0
#define RUSAGE_CHILDREN		(-1)
#define RUSAGE_THREAD		1
#define USER_HZ			100	/* times' ticks */

/* p's CPU time: its live threads' and its gone ones'.  The table's lock held. */
void lx_proc_cpu_locked(struct proc *p, struct proc_cpu *cpu)
{
	struct proc_cpu th;
	int i;

	*cpu = p->cpu_gone;
	for (i = 0; p->os && i < LX_THREADS_MAX; i++) {
		if (!lxp(p)->threads[i])
			continue;
		thread_cpu_locked(lxp(p)->threads[i], &th);
		cpu->run += th.run;
		cpu->user += th.user;
	}
}

/*
 * A CPU clock's id is negative, in Linux's encoding, whose macros the
 * kernel's headers give (linux/posix-timers_types.h): a pid or thread id
 * (0: the caller's) in the bits above the low three, a bit for per
 * thread, and which time; CLOCK_PROCESS_CPUTIME_ID and
 * CLOCK_THREAD_CPUTIME_ID are the caller's scheduler clocks.
 *
 * The CPU clock clk of t's view, by Linux's rules (pid_for_clock): the
 * caller's thread or process for an id of 0; a thread only of t's own
 * process; a process by its pid, or, to read it (gettime) and not to ask
 * its resolution, by the caller's own thread id.  The reading in ns, or
 * -EINVAL if clk names no clock or nothing that is.
 */
static long cpu_clock_read(struct thread *t, s32 clk, bool gettime, u64 *ns)
{
	struct proc_cpu cpu;
	struct thread *th;
	struct proc *p;
	long err = 0;
	s32 id;

	if (clk == CLOCK_PROCESS_CPUTIME_ID)
		clk = (s32)(~0U << 3) | CPUCLOCK_SCHED;
	else if (clk == CLOCK_THREAD_CPUTIME_ID)
		clk = (s32)(~0U << 3) | CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED;
	if (clk >= 0 || (clk & CLOCKFD_MASK) == CLOCKFD || CPUCLOCK_WHICH(clk) >= CPUCLOCK_MAX)
		return -EINVAL;
	id = CPUCLOCK_PID(clk);
	procs_lock();
	if (CPUCLOCK_PERTHREAD(clk)) {
		th = id ? lx_thread_find(t->p, id) : t;
		if (th)
			thread_cpu_locked(th, &cpu);
		else
			err = -EINVAL;
	} else {
		p = !id || (gettime && id == t->tid) ? t->p : lx_pid_find(id);
		if (p)
			lx_proc_cpu_locked(p, &cpu);
		else
			err = -EINVAL;
	}
	procs_unlock();
	if (!err)
		*ns = vostd_cycles_to_ns(CPUCLOCK_WHICH(clk) == CPUCLOCK_VIRT ? cpu.user : cpu.run);
	return err;
}

/* Whether clk is one of the CPU clocks, which cpu_clock_read reads. */
static bool cpu_clock(s32 clk)
{
	return clk < 0 || clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID;
}

/*
 * A clock's reading in ns, the CPU clocks' or lx_now_ns's; -EINVAL for no
 * clock.  gettime: for clock_gettime, which finds a process's clock by one
 * more id than clock_getres does.
 */
long lx_clock_read(struct thread *t, s32 clk, bool gettime, u64 *ns)
{
	if (cpu_clock(clk))
		return cpu_clock_read(t, clk, gettime, ns);
	/* Linux's clocks: 0 to 11 but 10, which it retired (CLOCK_SGI_CYCLE). */
	if (clk > 11 || clk == 10)
		return -EINVAL;
	*ns = lx_now_ns();
	return 0;
}

/*
 * The resolution Linux reports: a nanosecond for its high-resolution
 * clocks and the scheduler's CPU clocks, a tick for the coarse clocks
 * and for the CPU clocks of user and system time.
 */
LX_SYSCALL_DEFINE2(clock_getres, int, clk, unsigned long, ures)
{
	u64 ns, ts[2] = { 0, 1 };
	long err = lx_clock_read(t, clk, false, &ns);

	if (err)
		return err;
	if (clk == 5 || clk == 6 ||	/* CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE */
	    (clk < 0 && CPUCLOCK_WHICH(clk) != CPUCLOCK_SCHED))
		ts[1] = LX_TICK_NS;
	return put_user_bytes(t, ures, ts, sizeof(ts));
}

/* ns as Linux's struct timeval, into v[0] and v[1]. */
static void cpu_timeval(u64 cycles, u64 *v)
{
	u64 ns = vostd_cycles_to_ns(cycles);

	v[0] = ns / NS_PER_SEC;
	v[1] = ns % NS_PER_SEC / 1000;
}

/*
 * cpu as Linux's struct rusage: user and system time, and the rest, the
 * memory and the counts of faults, switches and signals, zero.
 */
void lx_rusage(const struct proc_cpu *cpu, u64 ru[LX_RUSAGE_WORDS])
{
	vostd_memset(ru, 0, LX_RUSAGE_WORDS * sizeof(u64));
	cpu_timeval(cpu->user, &ru[0]);
	cpu_timeval(cpu->run - cpu->user, &ru[2]);
}

LX_PARTIAL(getrusage, "user and system time alone: ru_maxrss and the counts are 0");
LX_SYSCALL_DEFINE2(getrusage, int, who, unsigned long, uru)
{
	u64 ru[LX_RUSAGE_WORDS];
	struct proc_cpu cpu;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	procs_lock();
	if (who == RUSAGE_SELF)
		lx_proc_cpu_locked(t->p, &cpu);
	else if (who == RUSAGE_CHILDREN)
		cpu = t->p->cpu_children;
	else
		thread_cpu_locked(t, &cpu);
	procs_unlock();
	lx_rusage(&cpu, ru);
	return mem_user_copy(t->p, uru, ru, sizeof(ru), MEM_WRITE) ? -EFAULT : 0;
}

static u64 to_clock_t(u64 cycles)
{
	return vostd_cycles_to_ns(cycles) / (NS_PER_SEC / USER_HZ);
}

/*
 * times: the process's and its reaped children's user and system time,
 * in ticks of USER_HZ; it returns the ticks since the sandbox began,
 * where Linux's count from a point before its boot.  buf may be NULL.
 */
LX_SYSCALL_DEFINE1(times, unsigned long, ubuf)
{
	struct proc_cpu self, children;
	u64 tms[4];

	procs_lock();
	lx_proc_cpu_locked(t->p, &self);
	children = t->p->cpu_children;
	procs_unlock();
	tms[0] = to_clock_t(self.user);
	tms[1] = to_clock_t(self.run - self.user);
	tms[2] = to_clock_t(children.user);
	tms[3] = to_clock_t(children.run - children.user);
	if (put_user_bytes(t, ubuf, tms, sizeof(tms)))
		return -EFAULT;
	return lx_now_ns() / (NS_PER_SEC / USER_HZ);
}
