/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls of the proc kernel (prototype/kernels/proc/), as its
 * tenants make them: the number in %rax, arguments in %rdi, %rsi, %rdx, the
 * result in %rax, negative for an error.  They are the kernel proper's own:
 * no call of a tenant ever reaches Linux.
 */
#ifndef TENANT_ABI_H
#define TENANT_ABI_H

#define SYS_EXIT	0	/* (code): this thread; the process with its last */
#define SYS_WRITE	1	/* (buf, len): a line to the sandbox's log */
#define SYS_YIELD	2	/* (t0, t3, tags): 1 if no other thread ran meanwhile */
#define SYS_GETPID	3	/* (): the process's id */
#define SYS_MMAP	4	/* (len, prot): zeroed anonymous memory */
#define SYS_MUNMAP	5	/* (addr, len): a whole earlier mmap */
#define SYS_FORK	6	/* (): the child's pid, and 0 in the child */
#define SYS_WAIT	7	/* (pid): that child's exit code, once it has exited */
#define SYS_CLOCK	8	/* (): nanoseconds since the kernel started */
#define SYS_THREAD	9	/* (entry, arg, stack, same_vcpu): a new thread's id */
#define SYS_GETTID	10	/* (): this thread's id */
#define SYS_NOP		11	/* (t0, t3, tags): the timed null calls kept, -1 if none are */

/*
 * Timed calls, for proc's perf.  SYS_YIELD and SYS_NOP take the cycle
 * counter just before the syscall instruction (t0) and just after the
 * previous call returned (t3), and tags: which measurement the call is
 * part of, and the Linux CPU each reading was taken on.  All zero: the
 * call is not timed.
 */
#define TIMED_NOP	1	/* the null call */
#define TIMED_PROCS	2	/* yields between two processes on one vCPU */
#define TIMED_THREADS	3	/* yields between two threads of one process on one vCPU */
#define TIMED_SETS	4
#define TIMED_TAGS(set, cpu0, cpu3) \
	((unsigned long)(set) | (unsigned long)(cpu3) << 16 | (unsigned long)(cpu0) << 32)
#define TIMED_SET(tags)		((unsigned int)(tags) & 0xff)
#define TIMED_CPU3(tags)	((unsigned int)((tags) >> 16) & 0xffff)
#define TIMED_CPU0(tags)	((unsigned int)((tags) >> 32) & 0xffff)

/*
 * Linux's per-CPU segment selector: the limit of its GDT entry is the
 * CPU's number (and node), which lsl reads in user mode; Linux's vDSO
 * reads it the same way for getcpu on processors without RDPID.
 */
#define LINUX_CPUNODE_SEG	0x7b

#define PROT_R		1
#define PROT_W		2

/* Where a tenant's stack ends; each process gets STACK_PAGES below it. */
#define TENANT_STACK_TOP	0x800400000UL
#define TENANT_STACK_PAGES	16

#endif /* TENANT_ABI_H */
