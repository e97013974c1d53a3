// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's user-mode state on its carrier: the registers Linux keeps in
 * the carrier's pt_regs, and FS and GS, which it keeps in the processor
 * while the thread runs and in its thread struct while it does not.
 * tenant_run loads a tenant's (tenant.c) and its trap's work saves them
 * back; nothing here knows about vCPUs or sandboxes.
 */
#include <linux/sched.h>
#include <asm/fsgsbase.h>
#include <asm/gsseg.h>
#include <asm/msr.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "endovisor.h"
#include "tenant.h"

#define EV_USER_FLAGS (X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF | \
		       X86_EFLAGS_SF | X86_EFLAGS_OF | X86_EFLAGS_DF)

void ev_load_user_regs(struct pt_regs *regs, const struct ev_tenant_ctx *c)
{
	regs->ax = c->rax;
	regs->bx = c->rbx;
	regs->cx = c->rcx;
	regs->dx = c->rdx;
	regs->si = c->rsi;
	regs->di = c->rdi;
	regs->bp = c->rbp;
	regs->sp = c->rsp;
	regs->r8 = c->r8;
	regs->r9 = c->r9;
	regs->r10 = c->r10;
	regs->r11 = c->r11;
	regs->r12 = c->r12;
	regs->r13 = c->r13;
	regs->r14 = c->r14;
	regs->r15 = c->r15;
	regs->ip = c->rip;
	/* Only the arithmetic flags are the tenant's; no privilege, no trap flag. */
	regs->flags = (c->rflags & EV_USER_FLAGS) | X86_EFLAGS_IF | X86_EFLAGS_FIXED;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->orig_ax = -1;
}

void ev_save_user_regs(struct ev_tenant_ctx *c, const struct pt_regs *regs)
{
	c->rax = regs->ax;
	c->rbx = regs->bx;
	c->rcx = regs->cx;
	c->rdx = regs->dx;
	c->rsi = regs->si;
	c->rdi = regs->di;
	c->rbp = regs->bp;
	c->rsp = regs->sp;
	c->r8 = regs->r8;
	c->r9 = regs->r9;
	c->r10 = regs->r10;
	c->r11 = regs->r11;
	c->r12 = regs->r12;
	c->r13 = regs->r13;
	c->r14 = regs->r14;
	c->r15 = regs->r15;
	c->rip = regs->ip;
	c->rflags = regs->flags;
}

/* Preemption off: a switch in between would save half of one, half of the other. */
void ev_segs_read(struct ev_user_segs *s)
{
	savesegment(fs, s->fsindex);
	savesegment(gs, s->gsindex);
	rdmsrl(MSR_FS_BASE, s->fsbase);
	rdmsrl(MSR_KERNEL_GS_BASE, s->gsbase);	/* the user's, while in the kernel */
}

/* Preemption off; the thread struct too, which Linux restores them from. */
void ev_segs_write(const struct ev_user_segs *s)
{
	struct thread_struct *t = &current->thread;

	loadsegment(fs, s->fsindex);
	wrmsrl(MSR_FS_BASE, s->fsbase);
	load_gs_index(s->gsindex);
	wrmsrl(MSR_KERNEL_GS_BASE, s->gsbase);
	t->fsindex = s->fsindex;
	t->gsindex = s->gsindex;
	t->fsbase = s->fsbase;
	t->gsbase = s->gsbase;
}

/*
 * At a tenant's trap: zero what it left in FS or GS, and return its FS
 * base (with a zero selector; a selector's base is the descriptor's).
 * Without FSGSBASE a tenant reaches the bases only through the selectors,
 * so the FS base is the one tenant_run loaded, kept in the thread struct;
 * with it, the bases are read.
 */
u64 ev_segs_scrub(void)
{
	static const struct ev_user_segs zero;
	struct ev_user_segs s = {};

	preempt_disable();
	savesegment(fs, s.fsindex);
	savesegment(gs, s.gsindex);
	if (cpu_feature_enabled(X86_FEATURE_FSGSBASE)) {
		rdmsrl(MSR_FS_BASE, s.fsbase);
		rdmsrl(MSR_KERNEL_GS_BASE, s.gsbase);
	} else {
		s.fsbase = current->thread.fsbase;
	}
	if (s.fsindex || s.gsindex || s.fsbase || s.gsbase)
		ev_segs_write(&zero);
	preempt_enable();
	return s.fsindex ? 0 : s.fsbase;
}
