// SPDX-License-Identifier: GPL-2.0
/*
 * Every call of Linux's table is declared (syscalls.h); the ones no file
 * here defines are this file's weak aliases of lx_sys_ni_syscall, which
 * a definition anywhere in the kernel proper replaces at link time, as
 * Linux's kernel/sys_ni.c does for the calls a configuration leaves out.
 */
#include "syscalls.h"

/* Each call this kernel does not have is logged once, by Linux's name. */
static void enosys(struct thread *t, unsigned long nr)
{
	struct lx_globals *g = lx();
	unsigned long bit = min(nr, 512UL);	/* every number past the table shares one */

	if (__atomic_fetch_or(&g->enosys_logged[bit / 8], 1 << (bit % 8),
			      __ATOMIC_RELAXED) & (1 << (bit % 8)))
		return;
	vostd_println("linux: pid %ld: %s (%lu) is not implemented: -ENOSYS", t->p->pid,
		      syscall_name(nr), nr);
}

long lx_sys_ni_syscall(struct thread *t, const struct ev_tenant_ctx *c)
{
	enosys(t, c->syscall_nr);
	return -ENOSYS;
}

/*
 * Linux's table fills its holes with sys_ni_syscall, defined just above;
 * each hole's alias gets a name of its own (lx_sys_ni_hole_N), which no
 * table names, so that no name is defined twice.
 */
#define __LX_PASTE(a, b)	a##b
#define __LX_UNIQUE(a, b)	__LX_PASTE(a, b)
#define sys_ni_syscall		__LX_UNIQUE(sys_ni_hole_, __COUNTER__)

#define __LX_WEAK_ALIAS(sym)						\
	long lx_##sym(struct thread *t, const struct ev_tenant_ctx *c)	\
		__weak __alias(lx_sys_ni_syscall);
/* sym is expanded before it is pasted: a hole's becomes unique. */
#define __SYSCALL(nr, sym)		__LX_WEAK_ALIAS(sym)
#define __SYSCALL_NORETURN(nr, sym)	__LX_WEAK_ALIAS(sym)
#include <asm/syscalls_64.h>
