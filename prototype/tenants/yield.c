// SPDX-License-Identifier: GPL-2.0
/*
 * yield: the tenant side of proc's measurements (see proc's perf).  A null
 * system call; two processes on one vCPU passing it back and forth with
 * the yield system call; two threads of one process doing the same.  Each
 * is timed twice: first plain, then as timed calls, which hand the kernel
 * proper the tenant's readings so that it can time the parts of the trip
 * between them; the difference is what the timing itself costs.  A round
 * trip is kept only if the thread read both ends of it on one Linux CPU.
 */
#include "lib/tenant.h"

#define WARMUP 100
#define N 2000

static u64 s[N], s2[N];	/* s2: the second thread's */

/*
 * The null call, until N round trips are timed here; timed calls in set
 * (if not 0) until the kernel proper has kept N trips too (it returns
 * how many; -1: it is not measuring).
 */
static void null_calls(unsigned int set)
{
	struct timed tm = {};
	unsigned long n = 0, calls;
	long kept = set ? 0 : N;
	u64 rt;

	for (calls = 0; n < N || (kept >= 0 && kept < N); calls++) {
		tm.set = calls >= WARMUP && kept >= 0 && kept < N ? set : 0;
		kept = timed_call(SYS_NOP, &tm, &rt);
		if (!set)
			kept = N;
		if (calls >= WARMUP && rt && n < N)
			s[n++] = rt;
	}
}

/*
 * Yield to the other thread of this vCPU, the calls after the warm-up
 * timed in set (0: plain), their round trips into out.  want: stop once
 * that many are timed; otherwise stop when a yield ran no other thread
 * (the other has stopped) or *stop is set.
 */
static void pingpong(unsigned int set, u64 *out, unsigned long want, volatile int *stop)
{
	struct timed tm = {};
	unsigned long n = 0, calls;
	long alone;
	u64 rt;

	for (calls = 0;; calls++) {
		tm.set = calls >= WARMUP ? set : 0;
		alone = timed_call(SYS_YIELD, &tm, &rt);
		if (calls >= WARMUP && rt && n < N)
			out[n++] = rt;
		if (want ? n >= want : alone || (stop && *stop))
			return;
	}
}

/*
 * The emulated TLB's refill: after each yield, the time to read one byte
 * of each of the TOUCH pages of buf, which the last round trip also read.
 * After a yield between processes the CR3 load has emptied the TLB; after
 * one between threads the entries are still there.
 */
#define TOUCH 16

static volatile char *buf;

static void touch_after_yield(u64 *out)
{
	unsigned long n = 0;

	while (n < N) {
		u32 cpu;
		u64 t;
		int i;

		yield();
		cpu = linux_cpu();
		t = cycles();
		for (i = 0; i < TOUCH; i++)
			(void)buf[i * 4096];
		t = cycles() - t;
		if (linux_cpu() == cpu)
			out[n++] = t;
	}
}

static volatile int stop, stopped;

static long second(void *arg)
{
	pingpong(0, s2, N, NULL);
	pingpong(TIMED_THREADS, s2, 0, &stop);
	stopped = 1;
	return (long)arg;
}

int main(void)
{
	u64 procs_touch, threads_touch;
	long child;
	int i;

	buf = mmap(TOUCH * 4096, PROT_R | PROT_W);
	if ((long)buf < 0)
		return 5;
	for (i = 0; i < TOUCH; i++)
		buf[i * 4096] = 1;

	null_calls(0);
	fig_median("tenant.syscall_rt", s, N, "linux.getppid_rt");
	null_calls(TIMED_NOP);
	fig_median("tenant.syscall_rt_timed", s, N, NULL);

	/*
	 * The child starts on this vCPU, behind the parent: each of the
	 * parent's yields runs the child.  Both time N plain round trips
	 * (on the same CPU, all of them, but for a migration), then the
	 * child yields until a yield finds the parent gone to wait for it.
	 */
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		pingpong(0, s, N, NULL);
		pingpong(TIMED_PROCS, s, 0, NULL);
		return 0;
	}
	pingpong(0, s, N, NULL);
	fig_median("tenant.yield_rt", s, N, "linux.sched_yield_rt");
	pingpong(TIMED_PROCS, s, N, NULL);
	fig_median("tenant.yield_rt_timed", s, N, NULL);
	touch_after_yield(s);
	fig_median("tenant.touch_procs", s, N, NULL);
	procs_touch = percentile(s, N, 50);
	if (wait(child))
		return 3;

	/* Two threads of this process, on this vCPU: no address space to switch. */
	if (thread(second, 0, 1) < 0)
		return 4;
	pingpong(0, s, N, NULL);
	fig_median("tenant.tyield_rt", s, N, NULL);
	pingpong(TIMED_THREADS, s, N, NULL);
	fig_median("tenant.tyield_rt_timed", s, N, NULL);
	touch_after_yield(s);
	fig_median("tenant.touch_threads", s, N, NULL);
	threads_touch = percentile(s, N, 50);
	stop = 1;
	while (!stopped)
		yield();
	print(EV_FIG("tenant.tlb_refill", "%ld", "derived", "cycles") EV_FIELD("pages", "%d"),
	      ((long)procs_touch - (long)threads_touch) / TOUCH, TOUCH);
	return 0;
}
