// SPDX-License-Identifier: GPL-2.0
/*
 * Time: the clocks, read from vOSTD's cycle counter since the sandbox
 * began, and sleeps, which yield until their time has passed.
 */
#include "syscalls.h"

u64 lx_now_ns(void)
{
	return vostd_cycles_to_ns(vostd_cycles() - procs()->start);
}

LX_PARTIAL(clock_gettime, "every clock counts from the sandbox's start; REALTIME not the epoch's");
LX_SYSCALL_DEFINE2(clock_gettime, int, clk, unsigned long, uts)
{
	u64 ns = lx_now_ns(), ts[2] = { ns / 1000000000, ns % 1000000000 };

	/* Linux's clocks: 0 to 11 but 10, which it retired (CLOCK_SGI_CYCLE). */
	if (clk < 0 || clk > 11 || clk == 10)
		return -EINVAL;
	return mem_user_copy(t->p, uts, ts, sizeof(ts), MEM_WRITE);
}

LX_PARTIAL(time, "seconds since the sandbox began, not since the epoch");
LX_SYSCALL_DEFINE1(time, unsigned long, tloc)
{
	u64 s = lx_now_ns() / 1000000000;

	return put_user_bytes(t, tloc, &s, 8) ?: (long)s;
}

/*
 * gettimeofday: the clock as a timeval; the time zone, which Linux keeps
 * only for old programs, is zero (UTC, no daylight saving), as Linux's is
 * until someone sets it.  Either pointer may be NULL.
 */
LX_PARTIAL(gettimeofday, "seconds since the sandbox began, not since the epoch");
LX_SYSCALL_DEFINE2(gettimeofday, unsigned long, utv, unsigned long, utz)
{
	u64 ns = lx_now_ns(), tv[2] = { ns / 1000000000, ns % 1000000000 / 1000 };
	u32 tz[2] = {};

	return put_user_bytes(t, utv, tv, sizeof(tv)) ?: put_user_bytes(t, utz, tz, sizeof(tz));
}

/*
 * Sleep by yielding until the time has passed: the kernelet has no timers
 * for tasks.  A signal ends it early with -EINTR and the time left in
 * urem, as Linux's does when a handler runs.
 */
static long sleep_ns(struct thread *t, unsigned long ureq, unsigned long urem)
{
	u64 ts[2], now, until;

	if (mem_user_copy(t->p, ureq, ts, sizeof(ts), MEM_READ))
		return -EFAULT;
	if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	until = vostd_cycles() + vostd_ns_to_cycles(min(ts[0], 1000ULL) * 1000000000 + ts[1]);
	while ((now = vostd_cycles()) < until && !thread_interrupted(t))
		kl_yield();
	if (now >= until)
		return 0;
	now = vostd_cycles_to_ns(until - now);
	ts[0] = now / 1000000000;
	ts[1] = now % 1000000000;
	return put_user_bytes(t, urem, ts, sizeof(ts)) ?: -EINTR;
}

LX_PARTIAL(nanosleep, "a sleep longer than 1000 s ends after 1000 s; never restarted");
LX_SYSCALL_DEFINE2(nanosleep, unsigned long, ureq, unsigned long, urem)
{
	return sleep_ns(t, ureq, urem);
}

/* Relative sleeps only: flags (TIMER_ABSTIME) are refused. */
LX_PARTIAL(clock_nanosleep, "TIMER_ABSTIME -EINVAL; clock id unchecked; sleeps end by 1000 s");
LX_SYSCALL_DEFINE4(clock_nanosleep, int, clk, unsigned long, flags, unsigned long, ureq,
		   unsigned long, urem)
{
	return flags ? -EINVAL : sleep_ns(t, ureq, urem);
}

LX_SYSCALL_DEFINE0(sched_yield)
{
	kl_yield();
	return 0;
}
