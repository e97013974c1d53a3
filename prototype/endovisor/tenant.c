// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: user-mode code of the sandbox kernel's processes, run on the
 * carriers.
 *
 * A carrier is a user thread of the launcher inside EV_RUN_VCPU.  To run a
 * tenant it does what a return from that system call does, with other
 * registers in another address space: tenant_run loads the tenant's
 * registers into the carrier's saved user registers, adopts the tenant's mm
 * (ev_switch_mm), and suspends the sandbox kernel in its crossing
 * (EV_BAIL_SUSPEND); the carrier then returns to user mode, into the tenant.
 *
 * Whatever brings the tenant back into the kernel (a system call, a page
 * fault in the tenant region, a kick's interrupt, any other exception) is
 * turned into a trap:
 * where it is taken, nothing can sleep, so the endovisor only records it and
 * queues a task work, which Linux runs in process context just before the
 * carrier would return to user mode.  Several can come before that return
 * (a kick's interrupt during a system call's entry), so they are kept as a
 * set and the most telling is reported; none hides another.  There the
 * tenant's registers are saved for the sandbox kernel and its crossing is
 * resumed (ev_stub_resume), with the trap as tenant_run's result, unless
 * the carrier is dying: then no more sandbox code runs on it.  Linux runs no
 * system call for a tenant: the sys_enter tracepoint's probe sets the call
 * number to -1, which since Linux 6.9 makes Linux skip it.  Registering
 * that probe makes every thread take the slower system-call path, which is
 * the price of this design.
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
 * An exception other than a page fault in the region (a #GP, an invalid
 * opcode, a fault outside the region) makes Linux send the carrier a signal.
 * The signal_generate tracepoint's probe turns it into a trap, and the task
 * work, which Linux runs before it delivers any signal, takes the signal
 * back: the kernel proper decides what becomes of the tenant, and the
 * launcher never sees it.  (The launcher handles those signals itself, so
 * that Linux does not make them fatal at once.)
 *
 * FS and GS, selectors and bases, are not in pt_regs either: Linux keeps
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
#include <linux/signal.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/gsseg.h>
#include <asm/msr.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "endovisor.h"
#include "ev_stub.h"

/*
 * current adopts next as its mm.  The launcher's own mm is the thread's,
 * whose reference it keeps throughout; any other is referenced while it is
 * current.
 */
void ev_switch_mm(struct ev_vcpu *v, struct mm_struct *next)
{
	struct mm_struct *prev = current->mm;

	if (prev == next)
		return;
	if (next != v->home_mm)
		mmget(next);
	task_lock(current);
	local_irq_disable();
	current->active_mm = next;
	current->mm = next;
	ev_linux.switch_mm_irqs_off(prev, next, current);
	local_irq_enable();
	task_unlock(current);
	if (prev != v->home_mm)
		mmput(prev);
}

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

static void ev_save_user_regs(struct ev_tenant_ctx *c, const struct pt_regs *regs)
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
static u64 ev_segs_scrub(void)
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

static u64 ev_linux_faults(void)
{
	return current->min_flt + current->maj_flt;
}

/*
 * Where the trap is taken, nothing may sleep: note it, finish it at the
 * return.  More than one can come before that return (a kick's interrupt
 * during a system call's entry or an exception's handling, a single-step
 * trap after a call), so the traps owed are a set, and one task work
 * reports them all: none may hide another.  The probes and the interrupt
 * all run on the carrier's own processor, in its context.
 */
static void ev_tenant_queue_trap(struct ev_vcpu *v, u32 trap)
{
	if (atomic_long_fetch_or(BIT(trap), &v->traps))
		return;		/* the work is queued already */
	if (task_work_add(current, &v->trap_work, TWA_RESUME))
		atomic_long_set(&v->traps, 0);	/* the carrier is exiting */
}

/*
 * The cycle counter and the CPU it was read on, for the sandbox kernel's
 * measurements of the trap path: a carrier may move between CPUs, and a
 * difference of two readings means something only on one.
 */
static void ev_stamp(struct ev_stamp *s)
{
	s->cpu = raw_smp_processor_id();
	s->at = rdtsc_ordered();
}

/* The tenant made a system call: Linux is to run none. */
static void ev_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || !READ_ONCE(v->in_tenant) || current != v->carrier)
		return;
	ev_stamp(&v->sys_enter_at);
	v->trap_nr = id;
	regs->orig_ax = -1;
	ev_tenant_queue_trap(v, EV_TRAP_SYSCALL);
}

/* A page fault in vm's tenant region: a trap if it is the running tenant's. */
bool ev_tenant_fault(struct ev_vm *vm, unsigned long addr, bool write)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || !READ_ONCE(v->in_tenant) || current != v->carrier ||
	    v->tenant_vm != vm)
		return false;
	v->fault_addr = addr;
	v->fault_write = write;
	ev_tenant_queue_trap(v, EV_TRAP_FAULT);
	return true;
}

#define EV_FAULT_SIGNALS (sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | \
			  sigmask(SIGFPE) | sigmask(SIGTRAP))

/* Linux is sending a signal: if it is a tenant's exception, make it a trap. */
static void ev_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			       struct task_struct *task, int group, int result)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || task != current || current != v->carrier || !READ_ONCE(v->in_tenant) ||
	    sig < 1 || sig > 31 || !(sigmask(sig) & EV_FAULT_SIGNALS) ||
	    info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV || info->si_code <= 0)
		return;
	/* The first is the one reported; every one is taken back. */
	if (!v->trap_signals) {
		v->trap_signal = sig;
		v->signal_addr = (unsigned long)info->si_addr;
	}
	v->trap_signals |= sigmask(sig);
	ev_tenant_queue_trap(v, EV_TRAP_EXCEPTION);
}

/*
 * Take back the signals exceptions of the tenant made Linux send, before
 * Linux delivers any: the launcher must never see a tenant's.
 */
static void ev_take_back_signals(struct ev_vcpu *v)
{
	unsigned long sigs = xchg(&v->trap_signals, 0);
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t others;

	while (sigs) {
		int sig = __ffs(sigs) + 1;

		sigs &= ~sigmask(sig);
		siginitsetinv(&others, sigmask(sig));
		spin_lock_irq(&current->sighand->siglock);
		dequeue_signal(&others, &info, &type);
		spin_unlock_irq(&current->sighand->siglock);
	}
}

/*
 * Which of the traps owed the kernel proper is told of: a system call or a
 * fault over an exception that came with it (its signal still goes in the
 * context's signal field), and any of them over a kick, which stays
 * pending in the shared page for the kernel proper to take anyway.
 */
static u32 ev_trap_reported(unsigned long traps)
{
	static const u32 order[] = {
		EV_TRAP_SYSCALL, EV_TRAP_FAULT, EV_TRAP_EXCEPTION, EV_TRAP_KICK,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (traps & BIT(order[i]))
			return order[i];
	return EV_TRAP_KICK;
}

/* The first tenant's rax, over the ioctl's result: see ev_tenant_entered. */
static void ev_entry_rax(struct ev_vcpu *v)
{
	if (v->entry_rax_owed) {
		task_pt_regs(current)->ax = v->entry_rax;
		v->entry_rax_owed = false;
	}
}

static void ev_tenant_entry_work(struct callback_head *cb)
{
	ev_entry_rax(container_of(cb, struct ev_vcpu, entry_work));
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
	v->entry_rax = task_pt_regs(current)->ax;
	v->entry_rax_owed = true;
	if (task_work_add(current, &v->entry_work, TWA_RESUME))
		v->entry_rax_owed = false;	/* exiting: no return to user mode */
	return 0;
}

/* A kick's interrupt found the carrier in the tenant: hand the vCPU back. */
void ev_tenant_kick(struct ev_vcpu *v)
{
	if (READ_ONCE(v->in_tenant) && current == v->carrier)
		ev_tenant_queue_trap(v, EV_TRAP_KICK);
}

static void ev_tenant_trap_work(struct callback_head *cb)
{
	struct ev_vcpu *v = container_of(cb, struct ev_vcpu, trap_work);
	unsigned long traps = atomic_long_xchg(&v->traps, 0);
	struct ev_tenant_ctx c = {};
	long ret;

	ev_stamp(&c.at_work);
	if (!READ_ONCE(v->in_tenant) || current != v->carrier) {
		v->trap_signals = 0;
		return;
	}
	/*
	 * A dying carrier runs no more sandbox code: from exit_task_work its
	 * mm is gone, and from get_signal it would run on with a fatal
	 * signal pending.  ev_carrier_died ends the vCPU once it is dead.
	 */
	if ((current->flags & PF_EXITING) || fatal_signal_pending(current))
		return;
	ev_entry_rax(v);
	c.fs_base = ev_segs_scrub();
	ev_save_user_regs(&c, task_pt_regs(current));
	c.trap = ev_trap_reported(traps);
	c.at_resumed = v->resumed_at;
	v->resumed_at = (struct ev_stamp){};
	if (c.trap == EV_TRAP_SYSCALL) {
		c.syscall_nr = v->trap_nr;
		c.rax = v->trap_nr;
		c.at_sys_enter = v->sys_enter_at;
	} else if (c.trap == EV_TRAP_FAULT) {
		c.fault_addr = v->fault_addr;
		c.fault_write = v->fault_write;
	} else if (c.trap == EV_TRAP_EXCEPTION) {
		c.fault_addr = v->signal_addr;
	}
	if (traps & BIT(EV_TRAP_EXCEPTION)) {
		c.signal = v->trap_signal;
		ev_take_back_signals(v);
	}
	c.linux_faults = ev_linux_faults() - v->faults_at_entry;
	WRITE_ONCE(v->in_tenant, false);
	ret = ev_sandbox_write(v, v->tenant_ctx, &c, sizeof(c)) ? -EFAULT : c.trap;
	v->suspended = false;
	ret = ev_stub_resume(v, ret);
	if (v->suspended) {
		/* tenant_run again: its registers and mm are in place */
		ev_stamp(&v->resumed_at);
		return;
	}
	ev_vcpu_end(v, ret);
}

/*
 * The carrier adopts vm's mm (its own, for NULL), taking over the
 * reference to vm the caller took with ev_vm_use (none, if it is the
 * carrier's already); kernelet_switch_mm comes here.
 */
static void ev_adopt(struct ev_vcpu *v, struct ev_vm *vm)
{
	if (v->tenant_vm == vm)
		return;		/* the carrier holds it, and took no other reference */
	ev_switch_mm(v, vm ? ev_vm_mm(vm) : v->home_mm);
	if (v->tenant_vm)
		ev_vm_put(v->tenant_vm);
	WRITE_ONCE(v->tenant_vm, vm);
}

/* vm_activate(vm): the carrier adopts vm's address space, or with 0 its own. */
long ev_svc_vm_activate(struct ev_vcpu *v, unsigned long handle, unsigned long a1,
			unsigned long a2, unsigned long a3, unsigned long a4)
{
	struct ev_vm *vm = NULL;

	if (handle) {
		vm = ev_vm_use(v, handle);
		if (!vm)
			return -EBADF;
	}
	ev_adopt(v, vm);
	return 0;
}

/*
 * tenant_run(vm, ctx): run the tenant whose registers ctx holds in
 * address space vm until it traps; the trap is the return value, and ctx
 * holds the registers and what trapped.  -ENOSPC once the sandbox's page
 * tables have reached EV_PT_QUOTA.
 */
long ev_svc_tenant_run(struct ev_vcpu *v, unsigned long handle, unsigned long ctx,
		       unsigned long a2, unsigned long a3, unsigned long a4)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct ev_tenant_ctx c;
	struct ev_vm *vm;
	int ret;

	if (ev_sandbox_ending(v->sb))
		return -ESHUTDOWN;
	/* The trap writes the registers back into ctx: it must take writes. */
	if (ev_sandbox_copy(v, &c, (void *)ctx, (void *)ctx, sizeof(c), true))
		return -EFAULT;
	if (c.rip >= TASK_SIZE_MAX || c.rsp >= TASK_SIZE_MAX || c.fs_base >= TASK_SIZE_MAX)
		return -EINVAL;
	/* The run's one fault may make Linux allocate tables: see vm.c. */
	if (ev_vm_tables_full(v->sb))
		return -ENOSPC;
	vm = ev_vm_use(v, handle);
	if (!vm)
		return -EBADF;
	if (!v->home_saved) {
		/* The launcher's FPU registers are kept; the tenant starts clean. */
		ret = ev_fpu_tenant_start(v);
		if (ret) {
			ev_vm_release(v, vm);
			return ret;
		}
	}
	ev_adopt(v, vm);
	if (!v->home_saved) {
		static const struct ev_user_segs zero;

		preempt_disable();
		ev_segs_read(&v->home_segs);
		ev_segs_write(&zero);
		preempt_enable();
		v->home_regs = *regs;
		v->home_saved = true;
		v->home_rseq = current->rseq;
		v->home_rseq_len = current->rseq_len;
		v->home_rseq_sig = current->rseq_sig;
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
	v->tenant_ctx = (struct ev_tenant_ctx *)ctx;
	v->faults_at_entry = ev_linux_faults();
	v->suspended = true;
	WRITE_ONCE(v->in_tenant, true);
	WRITE_ONCE(v->bail, EV_BAIL_SUSPEND);
	/*
	 * A kick that came during this service found no tenant and waited;
	 * one from now on finds in_tenant set (ev_upcall_divert).  Pairs with
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
long ev_tenant_finish(struct ev_vcpu *v, long ret)
{
	WRITE_ONCE(v->in_tenant, false);
	if (v->home_mm && current->mm != v->home_mm)
		ev_switch_mm(v, v->home_mm);
	if (v->tenant_vm) {
		ev_vm_put(v->tenant_vm);
		WRITE_ONCE(v->tenant_vm, NULL);
	}
	if (v->home_saved) {
		struct pt_regs *regs = task_pt_regs(current);

		*regs = v->home_regs;
		regs->ax = ret;
		/* Not a system call's return any more: nothing for Linux to restart. */
		regs->orig_ax = -1;
		preempt_disable();
		ev_segs_write(&v->home_segs);
		preempt_enable();
		v->home_saved = false;
		current->rseq = v->home_rseq;
		current->rseq_len = v->home_rseq_len;
		current->rseq_sig = v->home_rseq_sig;
		rseq_set_notify_resume(current);
	}
	return ret;
}

/* From a work item: the carrier is gone, and so is everything it held but this. */
static void ev_carrier_died(struct work_struct *work)
{
	struct ev_vcpu *v = container_of(work, struct ev_vcpu, death_work);

	irq_work_sync(&v->death_irq);	/* v must not be touched by it once freed */
	pr_info("endovisor: sandbox %llu vCPU %u: its carrier died carrying; ending the vCPU\n",
		v->sb->id, v->id);
	if (v->tenant_vm) {
		/* It died with the tenant's mm, whose reference exit_mm dropped. */
		mmput(v->home_mm);
		ev_vm_put(v->tenant_vm);
		WRITE_ONCE(v->tenant_vm, NULL);
	}
	WRITE_ONCE(v->in_tenant, false);
	WRITE_ONCE(v->carrying, false);
	ev_kick_stop(v);
	ev_fpu_vcpu_end(v);
	ev_sandbox_vcpu_done(v, -EINTR);
}

static void ev_carrier_death_irq(struct irq_work *w)
{
	schedule_work(&container_of(w, struct ev_vcpu, death_irq)->death_work);
}

/*
 * The carrier's last switch out, from the preempt notifier: the thread is
 * dead and the vCPU never ended.  Nothing can be done here (the run queue
 * is locked): the irq_work queues the work item that does it.
 */
void ev_tenant_carrier_dead(struct ev_vcpu *v)
{
	irq_work_queue(&v->death_irq);
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} ev_probes[] = {
	{ "sys_enter", ev_sys_enter },
	{ "signal_generate", ev_signal_generate },
};

static void ev_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ev_probes); i++)
		if (!strcmp(tp->name, ev_probes[i].name))
			ev_probes[i].tp = tp;
}

static void ev_tenant_unprobe(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(ev_probes[n].tp, ev_probes[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

int ev_tenant_module_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(ev_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(ev_probes); i++) {
		ret = ev_probes[i].tp ? tracepoint_probe_register(ev_probes[i].tp,
								  ev_probes[i].probe, NULL) : -ENOENT;
		if (ret) {
			pr_err("endovisor: cannot probe the %s tracepoint (%d); tenants need it\n",
			       ev_probes[i].name, ret);
			ev_tenant_unprobe(i);
			return ret;
		}
	}
	return 0;
}

void ev_tenant_module_exit(void)
{
	ev_tenant_unprobe(ARRAY_SIZE(ev_probes));
}

void ev_tenant_vcpu_init(struct ev_vcpu *v)
{
	init_task_work(&v->trap_work, ev_tenant_trap_work);
	init_task_work(&v->entry_work, ev_tenant_entry_work);
	INIT_WORK(&v->death_work, ev_carrier_died);
	init_irq_work(&v->death_irq, ev_carrier_death_irq);
	v->home_mm = NULL;
}
