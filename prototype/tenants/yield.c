// SPDX-License-Identifier: GPL-2.0
/*
 * yield: the tenant side of proc's measurements.  First a null system
 * call, timed around, with the timestamps the kernel proper uses to time
 * its two hooks; then two processes on one vCPU passing the vCPU back and
 * forth with the yield system call, the round trip timed in the parent.
 */
#include "lib/tenant.h"

#define WARMUP 100
#define N 2000

static u64 s[N];

static void report(const char *key, unsigned long n, const char *baseline)
{
	sort(s, n);
	print("EVFIG %s value=%lu stat=median p99=%lu n=%lu unit=cycles%s%s", key,
	      percentile(s, n, 50), percentile(s, n, 99), n,
	      baseline ? " baseline=" : "", baseline ? baseline : "");
}

int main(void)
{
	u64 t3 = 0;
	long i, child;

	/* The null call: its round trip, and t0 and t3 for the hooks. */
	for (i = 0; i < N + WARMUP; i++) {
		u64 t0 = cycles();

		/* No timestamps in the warm-up: the kernel proper keeps none of it. */
		sys3(SYS_NOP, i >= WARMUP ? t0 : 0, i > WARMUP ? t3 : 0, 0);
		t3 = cycles();
		if (i >= WARMUP)
			s[i - WARMUP] = t3 - t0;
	}
	sys3(SYS_NOP, 0, t3, 0);	/* the last call's exit */
	report("tenant.syscall_rt", N, "linux.getppid_rt");

	/*
	 * The child starts on this vCPU, behind the parent: each of the
	 * parent's yields runs one of the child's, and both make the same
	 * number, so neither ever yields to nobody.
	 */
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		for (i = 0; i < N + WARMUP; i++)
			yield();
		return 0;
	}
	for (i = 0; i < N + WARMUP; i++) {
		u64 t0 = cycles();

		yield();
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	report("tenant.yield_rt", N, "linux.sched_yield_rt");
	return wait(child);
}
