/* SPDX-License-Identifier: GPL-2.0 */
/* The tenants' library: system calls, formatting, the cycle counter. */
#ifndef TENANT_H
#define TENANT_H

#include "../abi.h"

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

static inline void yield(void) { sys3(SYS_YIELD, 0, 0, 0); }
static inline long getpid(void) { return sys3(SYS_GETPID, 0, 0, 0); }
static inline long fork(void) { return sys3(SYS_FORK, 0, 0, 0); }
static inline long wait(long pid) { return sys3(SYS_WAIT, pid, 0, 0); }
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

#endif /* TENANT_H */
