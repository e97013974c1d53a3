/* SPDX-License-Identifier: GPL-2.0 */
/* The tenants' library: system calls, formatting, figures, the cycle counter. */
#ifndef TENANT_H
#define TENANT_H

#include <stddef.h>

#include "../abi.h"
#include "../../abi/ev_report.h"

typedef unsigned long u64;
typedef unsigned int u32;

static inline long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long sys4(long nr, long a, long b, long c, long d)
{
	register long r10 asm("r10") = d;
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline u64 cycles(void)
{
	u32 lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((u64)hi << 32) | lo;
}

/* The Linux CPU this thread runs on now (abi.h, LINUX_CPUNODE_SEG). */
static inline u32 linux_cpu(void)
{
	u32 limit = 0;

	asm volatile("lsl %1, %0" : "+r"(limit) : "r"((u32)LINUX_CPUNODE_SEG));
	return limit & 0xfff;
}

/*
 * A timed call (abi.h): the readings around it go to the kernel proper
 * with the next timed call.  *rt is the call's round trip, or 0 if the
 * thread changed CPU on the way.
 */
struct timed {
	u64 t3;			/* just after the last call returned */
	u32 cpu3, set;		/* set: TIMED_*, 0 to pass no readings */
};

static inline long timed_call(long nr, struct timed *tm, u64 *rt)
{
	u32 cpu0 = linux_cpu();
	u64 t0 = cycles();
	long ret;

	if (tm->set)
		ret = sys3(nr, t0, tm->t3, TIMED_TAGS(tm->set, cpu0, tm->cpu3));
	else
		ret = sys3(nr, 0, 0, 0);
	tm->t3 = cycles();
	tm->cpu3 = linux_cpu();
	*rt = tm->cpu3 == cpu0 ? tm->t3 - t0 : 0;
	return ret;
}

static inline long yield(void) { return sys3(SYS_YIELD, 0, 0, 0); }
static inline long getpid(void) { return sys3(SYS_GETPID, 0, 0, 0); }
static inline long fork(void) { return sys3(SYS_FORK, 0, 0, 0); }
static inline long wait(long pid) { return sys3(SYS_WAIT, pid, 0, 0); }
static inline long clock(void) { return sys3(SYS_CLOCK, 0, 0, 0); }
static inline void *mmap(u64 len, int prot) { return (void *)sys3(SYS_MMAP, len, prot, 0); }
static inline long munmap(void *p, u64 len) { return sys3(SYS_MUNMAP, (long)p, len, 0); }
static inline void __attribute__((noreturn)) exit(long code)
{
	sys3(SYS_EXIT, code, 0, 0);
	__builtin_unreachable();
}

/* A thread running fn(arg) on a stack of its own; same_vcpu keeps it on ours. */
long thread(long (*fn)(void *), void *arg, int same_vcpu);

int print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sort(u64 *v, unsigned long n);
u64 percentile(const u64 *sorted, unsigned long n, unsigned int pct);
void fig_median(const char *key, u64 *v, unsigned long n, const char *baseline);

#endif /* TENANT_H */
