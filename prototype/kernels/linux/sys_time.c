// SPDX-License-Identifier: GPL-2.0
/*
 * Time: the clocks, read from vOSTD's cycle counter since the sandbox
 * began, and sleeps, which block on the kernelet's timer until their time
 * (kl_block_until, through lx_sleep_until).
 */
#include "syscalls.h"

u64 lx_now_ns(void)
{
	return vostd_cycles_to_ns(vostd_cycles() - procs()->start);
}

/*
 * lx_now_ns's ns as the cycle count kl_block_until takes: seconds and the
 * rest apart, and the seconds bounded (twice the longest sleep), lest the
 * product overflow.
 */
u64 lx_cycles_at(u64 ns)
{
	u64 s = min(ns / NS_PER_SEC, 2 * LX_SLEEP_MAX_S);

	return procs()->start + s * vostd_ns_to_cycles(NS_PER_SEC) +
	       vostd_ns_to_cycles(ns % NS_PER_SEC);
}

LX_PARTIAL(clock_gettime, "every clock but the CPU clocks counts from the sandbox's start");
LX_SYSCALL_DEFINE2(clock_gettime, int, clk, unsigned long, uts)
{
	u64 ns, ts[2];
	long err = lx_clock_read(t, clk, true, &ns);

	if (err)
		return err;
	ts[0] = ns / NS_PER_SEC;
	ts[1] = ns % NS_PER_SEC;
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
 * Sleep for the timespec at ureq, or until it (abs: on lx_now_ns's clock),
 * blocked on the kernelet's timer; a signal ends it early with -EINTR and
 * the time left at urem (a relative sleep's only, as in Linux).
 */
static long sleep_ns(struct thread *t, unsigned long ureq, unsigned long urem, bool abs)
{
	u64 ts[2], now, until;

	if (mem_user_copy(t->p, ureq, ts, sizeof(ts), MEM_READ))
		return -EFAULT;
	if ((s64)ts[0] < 0 || ts[1] >= NS_PER_SEC)
		return -EINVAL;
	until = min(ts[0], LX_SLEEP_MAX_S) * NS_PER_SEC + ts[1];
	if (!abs)
		until += lx_now_ns();
	lx_sleep_until(t, NULL, true, until ?: 1);	/* 0 would be no end */
	now = lx_now_ns();
	if (now >= until)
		return 0;
	if (abs)
		return -EINTR;
	now = until - now;
	ts[0] = now / NS_PER_SEC;
	ts[1] = now % NS_PER_SEC;
	return put_user_bytes(t, urem, ts, sizeof(ts)) ?: -EINTR;
}

LX_PARTIAL(nanosleep, "never restarted after a handler");
LX_SYSCALL_DEFINE2(nanosleep, unsigned long, ureq, unsigned long, urem)
{
	return sleep_ns(t, ureq, urem, false);
}

/*
 * Linux sleeps on REALTIME, MONOTONIC, BOOTTIME and TAI, and on a
 * process's CPU time; the thread's CPU clock, the raw and coarse clocks
 * cannot time a sleep (-EOPNOTSUPP), nor the alarm clocks without an RTC.
 * Other flags than TIMER_ABSTIME are ignored, as Linux ignores them.
 */
LX_PARTIAL(clock_nanosleep, "one clock for all; CPU and alarm clocks refused; not restarted");
LX_SYSCALL_DEFINE4(clock_nanosleep, int, clk, unsigned long, flags, unsigned long, ureq,
		   unsigned long, urem)
{
	if (clk < 0 || clk > 11 || clk == 10)
		return -EINVAL;
	if (clk >= 2 && clk != 7 && clk != 11)
		return -EOPNOTSUPP;
	return sleep_ns(t, ureq, urem, flags & TIMER_ABSTIME);
}

LX_SYSCALL_DEFINE0(sched_yield)
{
	kl_yield();
	return 0;
}
