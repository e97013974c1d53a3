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
 * the trap's task work here (ev_tenant_trap_work) resumes the sandbox
 * kernel's crossing (ev_stub_resume) with the trap as tenant_run's result.
 * This file is the carrier's side of running a tenant: the run and its
 * end at a trap, going home, and the death of a carrier that carried
 * tenants.  The registers and FS and GS it loads and saves are regs.c's;
 * the address space it adopts is vm.c's.
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
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "endovisor.h"
#include "ev_stub.h"
#include "tenant.h"
#include "kick.h"

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

/* The carrier's page faults as Linux counts them: a run's go to ev_tenant_ctx. */
static u64 ev_linux_faults(void)
{
	return current->min_flt + current->maj_flt;
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

/* The first tenant's rax, over the ioctl's result: see ev_tenant_entered. */
static void ev_entry_rax(struct ev_vcpu *v)
{
	if (v->trap.entry_rax_owed) {
		task_pt_regs(current)->ax = v->trap.entry_rax;
		v->trap.entry_rax_owed = false;
	}
}

static void ev_tenant_entry_work(struct callback_head *cb)
{
	ev_entry_rax(container_of(cb, struct ev_vcpu, trap.entry_work));
}

/*
 * A vCPU's first tenant_run returns to the tenant through EV_RUN_VCPU's
 * own return, whose result Linux holds in an int (and rewrites, as
 * -ENOIOCTLCMD to -ENOTTY): it cannot carry a 64-bit rax.  So the ioctl
 * returns 0, and a task work, run after Linux has stored that result and
 * before the return to user mode, puts the tenant's rax back.  A trap work
 * that happens to run first does the same before it saves the registers.
 */
long ev_tenant_entered(struct ev_vcpu *v)
{
	v->trap.entry_rax = task_pt_regs(current)->ax;
	v->trap.entry_rax_owed = true;
	if (task_work_add(current, &v->trap.entry_work, TWA_RESUME))
		v->trap.entry_rax_owed = false;	/* exiting: no return to user mode */
	return 0;
}

static void ev_tenant_trap_work(struct callback_head *cb)
{
	struct ev_vcpu *v = container_of(cb, struct ev_vcpu, trap.work);
	unsigned long traps;
	/* The context, and the readings the run asked for right after it. */
	struct {
		struct ev_tenant_ctx c;
		struct ev_stamp at[EV_STAMPS_MAX];
	} out = {};
	struct ev_tenant_ctx *c = &out.c;
	long ret;

	ev_cal_stamp(&v->stat.stamps, EV_STAMP_WORK);
	if (!READ_ONCE(v->tenant.running) || current != v->carrier) {
		atomic_long_set(&v->trap.owed, 0);
		v->trap.signals = 0;
		return;
	}
	/*
	 * Over before its traps are taken: a kick that found it running
	 * after would queue this work again, for the next run to end in.
	 * Traps are queued on this processor: program order is enough.
	 */
	WRITE_ONCE(v->tenant.running, false);
	barrier();
	traps = atomic_long_xchg(&v->trap.owed, 0);
	/*
	 * A dying carrier runs no more sandbox code: from exit_task_work its
	 * mm is gone, and from get_signal it would run on with a fatal
	 * signal pending.  ev_carrier_died ends the vCPU once it is dead.
	 */
	if ((current->flags & PF_EXITING) || fatal_signal_pending(current))
		return;
	ev_entry_rax(v);
	c->fs_base = ev_segs_scrub();
	ev_save_user_regs(c, task_pt_regs(current));
	ev_trap_report(v, traps, c);
	ev_cal_stamps_out(&v->stat.stamps, out.at, c->trap);
	c->linux_faults = ev_linux_faults() - v->stat.faults_at_entry;
	/*
	 * Checked again here, not at tenant_run: the kernel's other vCPUs ran
	 * while the tenant did, and may have freed ctx's block.  The check
	 * and the write are one read section.  Not one conditional
	 * expression: -EFAULT beside the u32 trap would become 0xfffffff2.
	 */
	ret = c->trap;
	if (ev_sandbox_write(v, v->tenant.ctx, &out,
			     sizeof(*c) + v->stat.stamps.wanted * sizeof(out.at[0])))
		ret = -EFAULT;
	v->suspended = false;
	ret = ev_stub_resume(v, ret);
	if (v->suspended) {
		/* tenant_run again: its registers and mm are in place */
		ev_cal_stamp(&v->stat.stamps, EV_STAMP_RESUMED);
		return;
	}
	/* Its entry returned, or it parked for a stop or the freezer. */
	ev_vcpu_returned(v, ret, true);
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
	ev_vcpu_done(v, -EINTR);
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
	init_task_work(&v->trap.work, ev_tenant_trap_work);
	init_task_work(&v->trap.entry_work, ev_tenant_entry_work);
	INIT_WORK(&v->tenant.death_work, ev_carrier_died);
	init_irq_work(&v->tenant.death_irq, ev_carrier_death_irq);
	v->tenant.home_mm = NULL;
}
