// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: user-mode code of the sandbox kernel's processes, run on the
 * carriers.
 *
 * A carrier is a user thread of the launcher inside EV_RUN_VCPU.  To run a
 * tenant it does what a return from that system call does, with other
 * registers in another address space: tenant_run loads the tenant's
 * registers into the carrier's saved user registers, adopts the tenant's mm
 * (ev_vm_adopt, vm.c), and suspends the sandbox kernel in its crossing
 * (EV_BAIL_SUSPEND); the carrier then returns to user mode, into the tenant.
 *
 * Whatever brings the tenant back into the kernel (a system call, a page
 * fault in the tenant region, a kick's interrupt, any other exception) is
 * turned into a trap by trap.c, the one file that catches user code, and
 * the trap's task work resumes the sandbox kernel's crossing
 * (ev_stub_resume) with the trap as tenant_run's result.  What stays here
 * is the carrier's side of running a tenant: the registers it loads and
 * saves, FS and GS, going home, and the death of a carrier that carried
 * tenants.  The address space it adopts is vm.c's.
 *
 * When the sandbox kernel's entry finally returns on a vCPU whose carrier
 * ran tenants, the carrier takes back the launcher's mm and registers, and
 * returns to the launcher as if EV_RUN_VCPU had returned.
 *
 * Linux writes some per-thread user memory of its own accord on the way to
 * user mode.  The one that matters is the thread's rseq area, registered by
 * the C library in the launcher's address space: with a tenant's mm
 * current, the write would fail and Linux would kill the launcher with
 * SIGSEGV.  So the carrier's rseq registration is parked while it carries
 * tenants and restored when it goes home.
 *
 * FS and GS, selectors and bases, are not in pt_regs: Linux keeps
 * them in the processor while the thread runs and in its thread struct
 * while it does not.  A tenant can change them (a move to %fs, or wrfsbase
 * where the processor lets user code use it), and the launcher's thread-
 * local storage lives at its FS base.  A tenant starts with GS zero and
 * FS zero but for the base its context names (ev_tenant_ctx.fs_base, a
 * user address: a Linux program's thread-local storage); whatever it left
 * there is zeroed at its next trap, before another tenant or the launcher
 * could run with it, the FS base reported in the context, and going home
 * puts back the launcher's.
 *
 * A carrier can die while a tenant runs (SIGKILL to the launcher): then
 * ev_carrier_died ends the vCPU from a work item, and drops the reference
 * to the launcher's mm that the dying thread could not, since it died with
 * a tenant's mm current.  The death is seen in the scheduler, with the run
 * queue locked, where even queueing a work item could deadlock (it may
 * wake a worker on that very run queue); an irq_work, which only raises an
 * interrupt, carries it out of there.
 */
#include <linux/mm.h>
#include <linux/rseq.h>
#include <linux/sched/signal.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/gsseg.h>
#include <asm/msr.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "endovisor.h"
#include "ev_stub.h"

#define EV_USER_FLAGS (X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF | \
		       X86_EFLAGS_SF | X86_EFLAGS_OF | X86_EFLAGS_DF)

static void ev_load_user_regs(struct pt_regs *regs, const struct ev_tenant_ctx *c)
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
static void ev_segs_read(struct ev_user_segs *s)
{
	savesegment(fs, s->fsindex);
	savesegment(gs, s->gsindex);
	rdmsrl(MSR_FS_BASE, s->fsbase);
	rdmsrl(MSR_KERNEL_GS_BASE, s->gsbase);	/* the user's, while in the kernel */
}

/* Preemption off; the thread struct too, which Linux restores them from. */
static void ev_segs_write(const struct ev_user_segs *s)
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

/* vm_activate(vm): the carrier adopts vm's address space, or with 0 its own. */
EV_SERVICE_DEFINE1(vm_activate, unsigned long, handle)
{
	struct ev_vm *vm = NULL;

	if (handle) {
		vm = ev_vm_use(v, handle);
		if (!vm)
			return -EBADF;
	}
	ev_vm_adopt(v, vm);
	return 0;
}

/*
 * tenant_run(vm, ctx, stamps): run the tenant whose registers ctx holds in
 * address space vm until it traps; the trap is the return value, and ctx
 * holds the registers and what trapped, followed by the first stamps
 * readings of the trap path (EV_STAMP_*), if stamps is not 0.  -ENOSPC
 * once the sandbox's page tables have reached EV_PT_QUOTA.
 */
EV_SERVICE_DEFINE3(tenant_run, unsigned long, handle, unsigned long, ctx,
		   unsigned long, stamps)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct ev_tenant_ctx c;
	struct ev_vm *vm;
	bool owns;
	int ret;

	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	if (stamps > EV_STAMPS_MAX)
		return -EINVAL;
	/*
	 * The trap writes the registers back into ctx, and the readings
	 * asked for right after it: all of it must take writes.  This check
	 * covers only the copy in, in its read section; the trap checks ctx
	 * again when it writes (ev_sandbox_write in ev_tenant_trap_work),
	 * since another vCPU may free it while the tenant runs.
	 */
	ev_heap_read_begin(v);
	owns = ev_vcpu_owns(v, (void *)ctx, sizeof(c) + stamps * sizeof(struct ev_stamp), true);
	if (owns)
		memcpy(&c, (void *)ctx, sizeof(c));
	ev_heap_read_end(v);
	if (!owns)
		return -EFAULT;
	if (c.rip >= TASK_SIZE_MAX || c.rsp >= TASK_SIZE_MAX || c.fs_base >= TASK_SIZE_MAX)
		return -EINVAL;
	/* The run's one fault may make Linux allocate tables: see vm.c. */
	if (ev_vm_tables_full(v->sb))
		return -ENOSPC;
	vm = ev_vm_use(v, handle);
	if (!vm)
		return -EBADF;
	if (!v->tenant.home_saved) {
		/* The launcher's FPU registers are kept; the tenant starts clean. */
		ret = ev_fpu_tenant_start(v);
		if (ret) {
			ev_vm_release(v, vm);
			return ret;
		}
	}
	ev_vm_adopt(v, vm);
	if (!v->tenant.home_saved) {
		static const struct ev_user_segs zero;

		preempt_disable();
		ev_segs_read(&v->tenant.home_segs);
		ev_segs_write(&zero);
		preempt_enable();
		v->tenant.home_regs = *regs;
		v->tenant.home_saved = true;
		v->tenant.home_rseq = current->rseq;
		v->tenant.home_rseq_len = current->rseq_len;
		v->tenant.home_rseq_sig = current->rseq_sig;
		current->rseq = NULL;
		current->rseq_len = 0;
	}
	ev_load_user_regs(regs, &c);
	if (c.fs_base) {
		/* The tenant's thread-local storage; its trap scrubs it again. */
		preempt_disable();
		ev_segs_write(&(struct ev_user_segs){ .fsbase = c.fs_base });
		preempt_enable();
	}
	v->tenant.ctx = (struct ev_tenant_ctx *)ctx;
	v->stat.stamps.wanted = stamps;
	v->stat.faults_at_entry = ev_linux_faults();
	v->suspended = true;
	WRITE_ONCE(v->tenant.running, true);
	WRITE_ONCE(v->bail, EV_BAIL_SUSPEND);
	/*
	 * A kick that came during this service found no tenant and waited;
	 * one from now on finds tenant.running set (ev_upcall_divert).  Pairs with
	 * the barrier in vcpu_kick.
	 */
	smp_mb();
	if (READ_ONCE(v->shared->kick_pending))
		ev_tenant_queue_trap(v, EV_TRAP_KICK);
	return 0;
}

/*
 * The vCPU's kernel has returned ret.  If its carrier left the launcher to
 * run tenants, give it back the launcher's mm and registers, with ret as
 * EV_RUN_VCPU's result.
 */
static void ev_tenant_go_home(struct ev_vcpu *v)
{
	WRITE_ONCE(v->tenant.running, false);
	if (v->tenant.home_mm && current->mm != v->tenant.home_mm)
		ev_switch_mm(v, v->tenant.home_mm);
	if (v->tenant.vm) {
		ev_vm_put(v->tenant.vm);
		WRITE_ONCE(v->tenant.vm, NULL);
	}
	if (v->tenant.home_saved) {
		*task_pt_regs(current) = v->tenant.home_regs;
		preempt_disable();
		ev_segs_write(&v->tenant.home_segs);
		preempt_enable();
		v->tenant.home_saved = false;
		current->rseq = v->tenant.home_rseq;
		current->rseq_len = v->tenant.home_rseq_len;
		current->rseq_sig = v->tenant.home_rseq_sig;
		rseq_set_notify_resume(current);
	}
}

long ev_tenant_finish(struct ev_vcpu *v, long ret)
{
	bool from_tenant = v->tenant.home_saved;

	ev_tenant_go_home(v);
	if (from_tenant) {
		struct pt_regs *regs = task_pt_regs(current);

		regs->ax = ret;
		/* Not a system call's return any more: nothing for Linux to restart. */
		regs->orig_ax = -1;
	}
	return ret;
}

/*
 * The vCPU parks (park.c): the carrier goes to user mode as the launcher,
 * in its mm, and makes EV_RUN_VCPU again once Linux has let it go.  From
 * a tenant's trap, the launcher's registers come back with the ioctl's
 * result -ERESTARTNOINTR, which Linux's own restart turns into the system
 * call again; the next tenant_run keeps them anew.  The carrier lets go
 * of the tenant's space, which tenant_run adopts again.
 */
void ev_tenant_park(struct ev_vcpu *v)
{
	bool from_tenant = v->tenant.home_saved;

	ev_tenant_go_home(v);
	if (from_tenant)
		task_pt_regs(current)->ax = -ERESTARTNOINTR;
}

/* From a work item: the carrier is gone, and so is everything it held but this. */
static void ev_carrier_died(struct work_struct *work)
{
	struct ev_vcpu *v = container_of(work, struct ev_vcpu, tenant.death_work);

	irq_work_sync(&v->tenant.death_irq);	/* v must not be touched by it once freed */
	pr_info("endovisor: sandbox %llu vCPU %u: its carrier died carrying; ending the vCPU\n",
		v->sb->id, v->id);
	if (v->tenant.vm) {
		/* It died with the tenant's mm, whose reference exit_mm dropped. */
		mmput(v->tenant.home_mm);
		ev_vm_put(v->tenant.vm);
		WRITE_ONCE(v->tenant.vm, NULL);
	}
	WRITE_ONCE(v->tenant.running, false);
	WRITE_ONCE(v->carrying, false);
	ev_kick_stop(v);
	ev_fpu_vcpu_end(v);
	ev_sandbox_vcpu_done(v, -EINTR);
}

static void ev_carrier_death_irq(struct irq_work *w)
{
	schedule_work(&container_of(w, struct ev_vcpu, tenant.death_irq)->tenant.death_work);
}

/*
 * The carrier's last switch out, from the preempt notifier: the thread is
 * dead and the vCPU never ended.  Nothing can be done here (the run queue
 * is locked): the irq_work queues the work item that does it.
 */
void ev_tenant_carrier_dead(struct ev_vcpu *v)
{
	irq_work_queue(&v->tenant.death_irq);
}

void ev_tenant_vcpu_init(struct ev_vcpu *v)
{
	INIT_WORK(&v->tenant.death_work, ev_carrier_died);
	init_irq_work(&v->tenant.death_irq, ev_carrier_death_irq);
	v->tenant.home_mm = NULL;
}
