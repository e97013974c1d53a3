// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's system calls, by Linux's x86-64 numbers: the number in %rax,
 * the arguments in %rdi, %rsi, %rdx, %r10, %r8, %r9, the result in %rax,
 * -errno for an error.  The table is built from the pinned guest
 * kernel's own (asm/syscalls_64.h): the entry for Linux's sys_NAME is
 * lx_sys_NAME, defined in the file of what it works on (syscalls.h), or
 * sys_ni.c's -ENOSYS where none is.  Every call is counted by number.
 */
#include "syscalls.h"

/* Linux's names for its calls, from the guest kernel's generated table. */
#define __SYSCALL(nr, sym)	[nr] = #sym,
#define __SYSCALL_NORETURN(nr, sym)	[nr] = #sym,
static const char *const names[] = {
#include <asm/syscalls_64.h>
};

#undef __SYSCALL
#undef __SYSCALL_NORETURN

const char *syscall_name(unsigned long nr)
{
	const char *n = nr < ARRAY_SIZE(names) ? names[nr] : NULL;

	if (!n)
		return "unknown";
	return vostd_has_prefix(n, "sys_") ? n + 4 : n;
}

/*
 * The call, by number.  A switch over the same file, as Linux's own
 * x64_sys_call has been since 6.9, so that no call goes through a
 * pointer; every number Linux does not have is lx_sys_ni_syscall's.
 */
#define __SYSCALL(nr, sym)	case nr: return lx_##sym(t, c);
#define __SYSCALL_NORETURN(nr, sym)	__SYSCALL(nr, sym)
static long lx_sys_call(struct thread *t, const struct ev_tenant_ctx *c, unsigned long nr)
{
	switch (nr) {
#include <asm/syscalls_64.h>
	default:
		return lx_sys_ni_syscall(t, c);
	}
}

#undef __SYSCALL
#undef __SYSCALL_NORETURN

void syscall_dispatch(struct thread *t, struct ev_stamp entered)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct proc *p = t->p;
	unsigned long nr = c->syscall_nr, a0 = c->rdi, a1 = c->rsi, a2 = c->rdx;
	unsigned long a3 = c->r10;
	long ret;

	if (nr < ARRAY_SIZE(lx()->calls))
		__atomic_add_fetch(&lx()->calls[nr], 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&lx()->unknown, 1, __ATOMIC_RELAXED);
	ret = lx_sys_call(t, c, nr);
	if (t->exiting) {
		/* exit or exit_group: the thread ends with no result. */
		if (lx()->trace)
			vostd_println("linux: pid %ld: %s(%lu)", p->pid, syscall_name(nr), a0);
		return;
	}
	if (lx()->trace)
		vostd_println("linux: pid %ld: %s(%lx, %lx, %lx, %lx) = %ld", p->pid,
			      syscall_name(nr), a0, a1, a2, a3, ret);
	c->rax = ret;
	lx_syscall_done(t, nr, ret);
}
