/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system-call table's entries, declared as Linux declares its own.
 * Linux's sys_NAME, at the number the pinned guest kernel's generated
 * table gives it (asm/syscalls_64.h), is lx_sys_NAME here: it takes the
 * calling thread and its saved registers and returns the result or
 * -errno.  An entry is defined in the file of what it works on, with
 * LX_SYSCALL_DEFINEn(NAME, type, arg, ...), which casts each argument
 * register to its type once, in the entry: an int argument is the low
 * 32 bits of its register, as Linux reads it.  A name that is not
 * Linux's has no declaration here: its definition draws a warning, which
 * fails the build.  A call no file defines is sys_ni.c's
 * lx_sys_ni_syscall: -ENOSYS.
 */
#ifndef LINUX_SYSCALLS_H
#define LINUX_SYSCALLS_H

#include "linux.h"

typedef long (*lx_syscall_fn)(struct thread *t, const struct ev_tenant_ctx *c);

#define __SYSCALL(nr, sym)	long lx_##sym(struct thread *t, const struct ev_tenant_ctx *c);
#define __SYSCALL_NORETURN(nr, sym)	__SYSCALL(nr, sym)
#include <asm/syscalls_64.h>
#undef __SYSCALL
#undef __SYSCALL_NORETURN

/* The entry, and the body it calls with the arguments cast. */
#define __LX_ENTRY(name)						\
	long lx_sys_##name(struct thread *t, const struct ev_tenant_ctx *c)
#define __LX_BODY(name, ...)						\
	static long __lx_do_sys_##name(struct thread *t, ##__VA_ARGS__)

#define LX_SYSCALL_DEFINE0(name)					\
	__LX_BODY(name);						\
	__LX_ENTRY(name) { return __lx_do_sys_##name(t); }		\
	__LX_BODY(name)
#define LX_SYSCALL_DEFINE1(name, t1, a1)				\
	__LX_BODY(name, t1 a1);						\
	__LX_ENTRY(name) { return __lx_do_sys_##name(t, (t1)c->rdi); }	\
	__LX_BODY(name, t1 a1)
#define LX_SYSCALL_DEFINE2(name, t1, a1, t2, a2)			\
	__LX_BODY(name, t1 a1, t2 a2);					\
	__LX_ENTRY(name)						\
	{								\
		return __lx_do_sys_##name(t, (t1)c->rdi, (t2)c->rsi);	\
	}								\
	__LX_BODY(name, t1 a1, t2 a2)
#define LX_SYSCALL_DEFINE3(name, t1, a1, t2, a2, t3, a3)		\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3);				\
	__LX_ENTRY(name)						\
	{								\
		return __lx_do_sys_##name(t, (t1)c->rdi, (t2)c->rsi,	\
					  (t3)c->rdx);			\
	}								\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3)
#define LX_SYSCALL_DEFINE4(name, t1, a1, t2, a2, t3, a3, t4, a4)	\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4);			\
	__LX_ENTRY(name)						\
	{								\
		return __lx_do_sys_##name(t, (t1)c->rdi, (t2)c->rsi,	\
					  (t3)c->rdx, (t4)c->r10);	\
	}								\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4)
#define LX_SYSCALL_DEFINE5(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5);		\
	__LX_ENTRY(name)						\
	{								\
		return __lx_do_sys_##name(t, (t1)c->rdi, (t2)c->rsi,	\
					  (t3)c->rdx, (t4)c->r10,	\
					  (t5)c->r8);			\
	}								\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5)
#define LX_SYSCALL_DEFINE6(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6) \
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6);	\
	__LX_ENTRY(name)						\
	{								\
		return __lx_do_sys_##name(t, (t1)c->rdi, (t2)c->rsi,	\
					  (t3)c->rdx, (t4)c->r10,	\
					  (t5)c->r8, (t6)c->r9);	\
	}								\
	__LX_BODY(name, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6)

/*
 * LX_PARTIAL(NAME, "what it lacks"), just before an entry's definition:
 * the entry does less than Linux's sys_NAME, and the note says what, as
 * a phrase a reader can check against the code beneath it.  An entry
 * without one does what Linux's does for every argument Linux accepts.
 * It compiles to a declaration of the entry, so NAME must be Linux's;
 * the book's table of calls is read from these notes (mkbook's
 * {{syscalls}}).
 */
#define LX_PARTIAL(name, missing)					\
	long lx_sys_##name(struct thread *t, const struct ev_tenant_ctx *c)

/* A user address to copy a value out to; 0 asks for nothing. */
static inline long put_user_bytes(struct thread *t, unsigned long ua, const void *v,
				  unsigned long n)
{
	return ua ? mem_user_copy(t->p, ua, (void *)v, n, MEM_WRITE) : 0;
}

#endif /* LINUX_SYSCALLS_H */
