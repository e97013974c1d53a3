// SPDX-License-Identifier: GPL-2.0
/*
 * Traps: catching the sandbox's user code when it comes back into the
 * kernel, kept apart from the rest as gVisor keeps its platform (what
 * catches the application's system calls and faults) apart from its
 * kernel.  Every way back from a tenant is caught here: the two
 * tracepoint probes and the tenant region's fault handler (ev_vm_fault);
 * a kick's interrupt queues its trap from kick.c.  What was caught goes
 * to the sandbox kernel from the trap's task work, in tenant.c, which
 * runs tenants, ends their runs and takes the carrier home;
 * ev_trap_report is what it asks of this file.
 *
 * Whatever brings the tenant back into the kernel (a system call, a page
 * fault in the tenant region, a kick's interrupt, any other exception) is
 * turned into a trap: where it is taken, nothing can sleep, so the
 * endovisor only records it and queues a task work, which Linux runs in
 * process context just before the carrier would return to user mode.
 * Several can come before that return (a kick's interrupt during a system
 * call's entry), so they are kept as a set and the most telling is
 * reported; none hides another.  There the tenant's registers are saved
 * for the sandbox kernel and its crossing is resumed (ev_stub_resume), with
 * the trap as tenant_run's result, unless the carrier is dying: then no
 * more sandbox code runs on it.  Linux runs no system call for a tenant:
 * the sys_enter tracepoint's probe sets the call number to -1, which since
 * Linux 6.9 makes Linux skip it.  Registering that probe makes every
 * thread take the slower system-call path, which is the price of this
 * design.
 *
 * An exception other than a page fault in the region (a #GP, an invalid
 * opcode, a fault outside the region) makes Linux send the carrier a signal.
 * The signal_generate tracepoint's probe turns it into a trap, and the task
 * work, which Linux runs before it delivers any signal, takes the signal
 * back: the kernel proper decides what becomes of the tenant, and the
 * launcher never sees it.  (The launcher handles those signals itself, so
 * that Linux does not make them fatal at once.)
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/ptrace.h>

#include "endovisor.h"
#include "vm.h"
#include "tenant.h"

/*
 * Where the trap is taken, nothing may sleep: note it, finish it at the
 * return.  More than one can come before that return (a kick's interrupt
 * during a system call's entry or an exception's handling, a single-step
 * trap after a call), so the traps owed are a set, and one task work
 * reports them all: none may hide another.  The probes and the interrupt
 * all run on the carrier's own processor, in its context.
 */
void ev_tenant_queue_trap(struct ev_vcpu *v, u32 trap)
{
	if (atomic_long_fetch_or(BIT(trap), &v->trap.owed))
		return;		/* the work is queued already */
	if (task_work_add(current, &v->trap.work, TWA_RESUME))
		atomic_long_set(&v->trap.owed, 0);	/* the carrier is exiting */
}

/* The tenant made a system call: Linux is to run none. */
static void ev_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || !READ_ONCE(v->tenant.running) || current != v->carrier)
		return;
	ev_cal_stamp(&v->stat.stamps, EV_STAMP_SYS_ENTER);
	v->trap.nr = id;
	regs->orig_ax = -1;
	ev_tenant_queue_trap(v, EV_TRAP_SYSCALL);
}

/* A page fault in vm's tenant region: a trap if it is the running tenant's. */
static bool ev_tenant_fault(struct ev_vm *vm, unsigned long addr, bool write)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || !READ_ONCE(v->tenant.running) || current != v->carrier ||
	    v->tenant.vm != vm)
		return false;
	v->trap.fault_addr = addr;
	v->trap.fault_write = write;
	ev_tenant_queue_trap(v, EV_TRAP_FAULT);
	return true;
}

/*
 * A tenant's fault becomes a trap for the kernel proper; Linux is told the
 * page is there, so that it retries once the tenant resumes.  A fault from
 * kernel mode (a signal frame, a copy to user on a tenant's behalf) is no
 * tenant's trap, and the trap would only come at the return to user mode:
 * retrying would loop for ever, so the access fails as a bad user address.
 */
static vm_fault_t ev_vm_fault(struct vm_fault *vmf)
{
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	struct ev_vm *vm = vmf->vma->vm_private_data;

	/* Linux's fault path allocated the tables on the way here. */
	ev_vm_sync_tables(vm);
	/* The byte the tenant touched, as a signal's si_addr says it; address is its page. */
	if (!(vmf->flags & FAULT_FLAG_USER) || !ev_tenant_fault(vm, vmf->real_address, write))
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

const struct vm_operations_struct ev_tenant_vm_ops = {
	.fault = ev_vm_fault,
	/* A write to a page mapped read-only: without this Linux would make it writable. */
	.pfn_mkwrite = ev_vm_fault,
};

#define EV_FAULT_SIGNALS (sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | \
			  sigmask(SIGFPE) | sigmask(SIGTRAP))

/* Linux is sending a signal: if it is a tenant's exception, make it a trap. */
static void ev_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			       struct task_struct *task, int group, int result)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (!v || task != current || current != v->carrier || !READ_ONCE(v->tenant.running) ||
	    sig < 1 || sig > 31 || !(sigmask(sig) & EV_FAULT_SIGNALS) ||
	    info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV || info->si_code <= 0)
		return;
	/* The first is the one reported; every one is taken back. */
	if (!v->trap.signals) {
		v->trap.signal = sig;
		v->trap.signal_addr = (unsigned long)info->si_addr;
		v->trap.signal_code = info->si_code;
	}
	v->trap.signals |= sigmask(sig);
	ev_tenant_queue_trap(v, EV_TRAP_EXCEPTION);
}

/*
 * Take back the signals exceptions of the tenant made Linux send, before
 * Linux delivers any: the launcher must never see a tenant's.
 */
static void ev_take_back_signals(struct ev_vcpu *v)
{
	unsigned long sigs = xchg(&v->trap.signals, 0);
	/*
	 * A task's sighand is replaced only by the task itself (exec's
	 * unshare_sighand), so current's cannot change under this read.
	 */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, true);
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t others;

	while (sigs) {
		int sig = __ffs(sigs) + 1;

		sigs &= ~sigmask(sig);
		siginitsetinv(&others, sigmask(sig));
		spin_lock_irq(&sighand->siglock);
		dequeue_signal(&others, &info, &type);
		spin_unlock_irq(&sighand->siglock);
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

/*
 * The traps owed, as the kernel proper is told of them in c: the one
 * reported, what it needs, and the signal an exception came with, which
 * is taken back from Linux here.  From the trap's task work (tenant.c).
 */
void ev_trap_report(struct ev_vcpu *v, unsigned long traps, struct ev_tenant_ctx *c)
{
	c->trap = ev_trap_reported(traps);
	if (c->trap == EV_TRAP_SYSCALL) {
		c->syscall_nr = v->trap.nr;
		c->rax = v->trap.nr;
	} else if (c->trap == EV_TRAP_FAULT) {
		c->fault_addr = v->trap.fault_addr;
		c->fault_write = v->trap.fault_write;
	} else if (c->trap == EV_TRAP_EXCEPTION) {
		c->fault_addr = v->trap.signal_addr;
	}
	if (traps & BIT(EV_TRAP_EXCEPTION)) {
		c->signal = v->trap.signal;
		c->signal_code = v->trap.signal_code;
		ev_take_back_signals(v);
	}
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

static void ev_trap_unprobe(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(ev_probes[n].tp, ev_probes[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

int ev_trap_module_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(ev_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(ev_probes); i++) {
		ret = ev_probes[i].tp ? tracepoint_probe_register(ev_probes[i].tp,
								  ev_probes[i].probe, NULL) :
			-ENOENT;
		if (ret) {
			pr_err("endovisor: cannot probe the %s tracepoint (%d); tenants need it\n",
			       ev_probes[i].name, ret);
			ev_trap_unprobe(i);
			return ret;
		}
	}
	return 0;
}

void ev_trap_module_exit(void)
{
	ev_trap_unprobe(ARRAY_SIZE(ev_probes));
}
