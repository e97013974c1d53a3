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
#define SYS_YIELD	2	/* () */
#define SYS_GETPID	3	/* (): the process's id */
#define SYS_MMAP	4	/* (len, prot): zeroed anonymous memory */
#define SYS_MUNMAP	5	/* (addr, len): a whole earlier mmap */
#define SYS_FORK	6	/* (): the child's pid, and 0 in the child */
#define SYS_WAIT	7	/* (pid): that child's exit code, once it has exited */
#define SYS_CLOCK	8	/* (): nanoseconds since the kernel started */
#define SYS_THREAD	9	/* (entry, arg, stack, same_vcpu): a new thread's id */
#define SYS_GETTID	10	/* (): this thread's id */
#define SYS_NOP		11	/* (t0, t3): nothing; times the hooks (see proc's perf) */

#define PROT_R		1
#define PROT_W		2

/* Where a tenant's stack ends; each process gets STACK_PAGES below it. */
#define TENANT_STACK_TOP	0x1800000000UL
#define TENANT_STACK_PAGES	16

#endif /* TENANT_ABI_H */
