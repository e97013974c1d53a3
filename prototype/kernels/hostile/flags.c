// SPDX-License-Identifier: GPL-2.0
/*
 * Flags that sandbox code may set and Linux's C must not inherit.  At
 * CPL 0, popf sets any flag, and std needs no privilege anywhere: a
 * crossing made with the direction flag set would run a service's memset
 * downward, below its block; one with the nested-task flag set would
 * carry it, through a service that sleeps, to another task's iret; one
 * with interrupts off would sleep with them off.  The crossing puts them
 * as Linux wants them (stub/cross.S), so each case sets one, calls a
 * service that would show it, and looks at the flags it came back with.
 */
#include <asm/processor-flags.h>
#include "hostile.h"

static unsigned long flags_read(void)
{
	unsigned long f;

	asm volatile("pushfq; popq %0" : "=r" (f));
	return f;
}

static void flags_write(unsigned long f)
{
	asm volatile("pushq %0; popfq" : : "r" (f) : "cc", "memory");
}

/*
 * svc(args) with the flags set to f, then back to the saved ones; *after
 * is what the crossing returned with.
 */
static long call_with_flags(unsigned long f, unsigned long *after, unsigned long svc,
			    unsigned long a0, unsigned long a1)
{
	unsigned long saved = flags_read();
	long r;

	flags_write(f);
	r = call(svc, a0, a1, 0, 0);
	*after = flags_read();
	flags_write(saved);
	return r;
}

static void expect_linux_flags(const char *name, unsigned long after)
{
	vostd_test(name, (after & EV_LINUX_FLAGS_MASK) == X86_EFLAGS_IF,
		   "the crossing came back with flags %lx", after);
}

/* A block zeroed with the direction flag set: zero, and nothing below it. */
static void df_zero_case(void)
{
	unsigned long size = 2 * PAGE, after, i, bad = 0;
	long blk = call(EV_SVC_MEM_ALLOC, size, 0, 0, 0);
	unsigned char *p;

	if (vostd_is_err(blk)) {
		expect("flags_df_setup", 0, blk);
		return;
	}
	/* Leave a pattern where the next block of the size is likely to come from. */
	vostd_memset((void *)blk, 0xaa, size);
	call(EV_SVC_MEM_FREE, blk, 0, 0, 0);
	blk = call_with_flags(flags_read() | X86_EFLAGS_DF, &after, EV_SVC_MEM_ALLOC, size,
			      EV_MEM_ZERO);
	if (vostd_is_err(blk)) {
		expect("flags_df_alloc_zero", 0, blk);
		return;
	}
	for (p = (unsigned char *)blk, i = 0; i < size; i++)
		bad += p[i] != 0;
	vostd_test("flags_df_alloc_zero", !bad, "%lu of %lu bytes not zeroed", bad, size);
	expect_linux_flags("flags_df_cleared", after);
	call(EV_SVC_MEM_FREE, blk, 0, 0, 0);
}

/*
 * An idle that sleeps (the timer a few ms ahead), so Linux runs other
 * tasks meanwhile, with a flag that must not reach them.
 */
static void idle_case(const char *idled, const char *cleared, unsigned long f)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();
	unsigned long after;

	WRITE_ONCE(sh->timer_at, vostd_cycles() + vostd_ns_to_cycles(5000000));
	expect(idled, 0, call_with_flags(f, &after, EV_SVC_VCPU_IDLE, 0, 0));
	WRITE_ONCE(sh->timer_at, 0);
	expect_linux_flags(cleared, after);
}

void flags_cases(void)
{
	unsigned long f = flags_read(), after;

	df_zero_case();
	idle_case("flags_nt_idle", "flags_nt_cleared", f | X86_EFLAGS_NT);
	idle_case("flags_irqs_off_idle", "flags_irqs_on", f & ~X86_EFLAGS_IF);
	idle_case("flags_iopl_idle", "flags_iopl_cleared", f | X86_EFLAGS_IOPL);
	expect("flags_ac_log", 0, call_with_flags(f | X86_EFLAGS_AC, &after, EV_SVC_LOG,
						  (unsigned long)"hostile: flags_ac_log\n", 22));
	expect_linux_flags("flags_ac_cleared", after);
}

/*
 * Sandbox code that never crosses again, with every such flag set: the
 * kill's way out (ev_stub_abandon) returns to Linux with its own.
 */
void __noreturn flags_hold(void)
{
	flags_write(flags_read() | (EV_LINUX_FLAGS_MASK & ~X86_EFLAGS_IF));
	for (;;)
		asm volatile("pause");
}
