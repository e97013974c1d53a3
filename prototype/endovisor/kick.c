// SPDX-License-Identifier: GPL-2.0
/*
 * Idling, kicks and upcalls.
 *
 * A vCPU with nothing to run sleeps in vcpu_idle, an ordinary Linux wait,
 * so that an idle sandbox costs Linux nothing.  vcpu_kick(t) marks vCPU t's
 * shared page (kick_pending) and then makes sure t notices: if t's carrier
 * sleeps in vcpu_idle it is woken; if it runs, its processor is sent a
 * function-call interrupt.  An interrupt lands wherever the carrier happens
 * to be, and only one place can take it as an upcall: sandbox code with
 * upcalls unmasked.  There the endovisor diverts the carrier to the
 * kernel's upcall entry, much as Linux delivers a signal: it records the
 * interrupted instruction's address in the shared page, raises the upcall
 * mask so that no second upcall can come before the first has saved it, and
 * points the saved instruction pointer at the entry, which saves what the
 * interrupted code had in registers, runs the sandbox kernel's handler and
 * returns to it.  It must not write the sandbox stack: an interrupt from
 * kernel mode leaves its own frame there, just below the interrupted stack
 * pointer.
 *
 * Diverting needs the interrupted registers, and Linux does not record them
 * for a function-call interrupt (get_irq_regs() is only set for timer and
 * device interrupts).  It does pass them, as the only argument, to
 * __sysvec_call_function_single, a static function of arch/x86/kernel/smp.c
 * that is not exported.  The endovisor puts a kprobe on its entry at load
 * (refusing to load if it cannot) and reads the argument there.
 *
 * The same interrupts end a carrier that must die.  A fatal signal takes
 * effect when a thread returns to user mode, and a carrier running sandbox
 * code that never crosses again (a loop, a deadlock) would never return:
 * its process could not be killed.  So an interrupt that finds such a
 * carrier in sandbox code sends it to ev_stub_abandon, which leaves the
 * sandbox stack for good and returns -EINTR from the frame that entered
 * sandbox code, whatever the upcall mask says.  Nothing of Linux's is held
 * there: sandbox code calls Linux only through services, which are not
 * sandbox text and are never diverted.  The sandbox's tick sends these
 * interrupts (tick.c).
 *
 * Anywhere else (in a service, masked, preempted) the kick stays pending:
 * vOSTD checks for it after every crossing and when it unmasks, and when
 * Linux puts a preempted carrier back on a processor, sched_in arms a timer
 * to expire at once, whose interrupt (a timer interrupt, which Linux does
 * record) diverts it.
 */
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <asm/irq_regs.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>

#include "endovisor.h"
#include "ev_stub.h"
#include "tenant.h"
#include "kick.h"

/*
 * In an interrupt that came while v's carrier ran sandbox code, with regs
 * the interrupted state: if the carrier must die, send it out for good.
 */
bool ev_abandon_divert(struct ev_vcpu *v, struct pt_regs *regs)
{
	if (!regs || current != v->carrier || user_mode(regs) ||
	    !fatal_signal_pending(current) || !ev_in_kernel_text(v->sb, regs->ip))
		return false;
	regs->ip = (unsigned long)ev_stub_abandon;
	WRITE_ONCE(v->kick.abandoned, true);
	return true;
}

/* A kick's interrupt found the carrier in the tenant: hand the vCPU back. */
static void ev_tenant_kick(struct ev_vcpu *v)
{
	if (READ_ONCE(v->tenant.running) && current == v->carrier)
		ev_tenant_queue_trap(v, EV_TRAP_KICK);
}

/*
 * In an interrupt that came while v's carrier ran, with regs the
 * interrupted state: take a pending kick there if sandbox code was running
 * unmasked.  Returns whether it did.
 */
static bool ev_upcall_divert(struct ev_vcpu *v, struct pt_regs *regs)
{
	struct ev_sandbox *sb = v->sb;
	struct ev_vcpu_shared *sh = v->shared;

	if (ev_abandon_divert(v, regs) || ev_park_divert(v, regs))
		return false;
	if (!regs || current != v->carrier || !READ_ONCE(sh->kick_pending))
		return false;
	if (READ_ONCE(v->tenant.running)) {
		/*
		 * A tenant runs, or the carrier is in Linux on its way to or
		 * from one: take the vCPU back at the next return to user mode.
		 */
		ev_tenant_kick(v);
		return false;
	}
	if (READ_ONCE(sh->upcall_mask) || !sb->upcall_entry ||
	    !ev_in_kernel_text(sb, regs->ip)) {
		v->stat.counts.deferred++;
		return false;
	}
	WRITE_ONCE(sh->upcall_ip, regs->ip);
	WRITE_ONCE(sh->upcall_mask, 1);
	regs->ip = sb->upcall_entry;
	v->stat.counts.upcalls++;
	return true;
}

static enum hrtimer_restart ev_upcall_timer(struct hrtimer *t)
{
	struct ev_vcpu *v = container_of(t, struct ev_vcpu, kick.upcall_timer);

	if (ev_upcall_divert(v, get_irq_regs())) {
		v->stat.counts.timer_upcalls++;
		v->stat.counts.arm_to_upcall_ns += local_clock() - v->stat.armed_at;
	}
	return HRTIMER_NORESTART;
}

/*
 * On every function-call interrupt, before Linux runs the queued calls:
 * if this processor carries a vCPU with a kick pending, take it.  di holds
 * __sysvec_call_function_single's argument, the interrupted registers.
 */
static int ev_ipi_probe_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ev_vcpu *v = this_cpu_read(ev_cur_vcpu);

	if (v)
		ev_upcall_divert(v, (struct pt_regs *)regs->di);
	return 0;
}

static struct kprobe ev_ipi_probe = {
	.symbol_name = "__sysvec_call_function_single",
	.pre_handler = ev_ipi_probe_pre,
};

int ev_kick_module_init(void)
{
	int ret = register_kprobe(&ev_ipi_probe);

	if (ret)
		pr_err("endovisor: cannot probe %s (%d): kicks need the interrupted registers it is passed\n",
		       ev_ipi_probe.symbol_name, ret);
	return ret;
}

void ev_kick_module_exit(void)
{
	unregister_kprobe(&ev_ipi_probe);
}

static void ev_upcall_arm(struct ev_vcpu *v)
{
	v->stat.armed_at = local_clock();
	hrtimer_start(&v->kick.upcall_timer, 0, HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * The kick's interrupt has arrived; the probe above has already taken the
 * kick if it could.  This only tells teardown the interrupt is done.
 */
static void ev_kick_ipi(void *info)
{
	struct ev_vcpu *v = info;

	/*
	 * Linux unlocked the csd before calling this, so the next kick may
	 * send it again.  The last touch of v: teardown waits for this.
	 */
	atomic_set_release(&v->kick.ipi_queued, 0);
}

void ev_kick_init(struct ev_vcpu *v)
{
	init_waitqueue_head(&v->kick.idle_wq);
	INIT_CSD(&v->kick.csd, ev_kick_ipi, v);
	hrtimer_init(&v->kick.upcall_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	v->kick.upcall_timer.function = ev_upcall_timer;
	v->cpu = -1;
}

/*
 * From the tick: v has a kick pending that no interrupt is coming to
 * take, a stranded one or the timer's.  Send one: divert v's carrier if
 * it is what the tick interrupted (regs are the tick's own), interrupt
 * its processor if it runs elsewhere; a carrier Linux has preempted
 * takes the kick when it is put back (ev_kick_sched_in).
 */
static void ev_kick_reach(struct ev_vcpu *v, struct pt_regs *regs)
{
	int cpu = READ_ONCE(v->cpu);

	if (v->carrier == current)
		ev_upcall_divert(v, regs);
	else if (cpu >= 0 && cpu != smp_processor_id())
		ev_kick_interrupt(v, cpu);
}

/*
 * A kick still pending a tick later, with no kick since and nothing that
 * would take it by itself (a masked vCPU takes it when it unmasks, an idle
 * one when it wakes), was stranded, its interrupt having landed in the
 * window before the kick was set or an earlier one having still been in
 * flight when it was sent: send it again.
 */
void ev_kick_stranded(struct ev_vcpu *v, struct pt_regs *regs)
{
	u64 kicks = atomic64_read(&v->stat.kicks);
	bool stranded = READ_ONCE(v->carrying) && !READ_ONCE(v->kick.idling) &&
			READ_ONCE(v->shared->kick_pending) &&
			(READ_ONCE(v->tenant.running) || !READ_ONCE(v->shared->upcall_mask)) &&
			kicks == v->kick.seen;

	v->kick.seen = kicks;
	if (stranded) {
		v->stat.counts.kick_retries++;
		ev_kick_reach(v, regs);
	}
}

/*
 * The tick: v's timer (shared->timer_at) has passed and no kick is
 * pending, so kick v as vcpu_kick would.  A kick already pending is the
 * timer's too: the kernel looks at its timers whenever it takes one, and
 * ev_kick_stranded sends it again if it was lost.
 */
void ev_kick_timer(struct ev_vcpu *v, struct pt_regs *regs)
{
	u64 at = READ_ONCE(v->shared->timer_at);

	if (!at || rdtsc() < at || READ_ONCE(v->shared->kick_pending) ||
	    !READ_ONCE(v->carrying))
		return;
	v->stat.counts.timer_kicks++;
	atomic64_inc(&v->stat.kicks);
	WRITE_ONCE(v->shared->kick_pending, 1);
	/* As in vcpu_kick: we see idling, or vcpu_idle sees kick_pending. */
	smp_mb();
	if (READ_ONCE(v->kick.idling))
		wake_up(&v->kick.idle_wq);
	else
		ev_kick_reach(v, regs);
}

/*
 * How long vcpu_idle may sleep for the kernel's timer: 0 if it has
 * passed; KTIME_MAX, no limit, if there is none or it is more than an
 * hour away (the tick kicks it then).
 */
static ktime_t ev_idle_timeout(struct ev_vcpu *v)
{
	u64 at = READ_ONCE(v->shared->timer_at), now = rdtsc();

	if (at && at <= now)
		return 0;
	if (!at || !tsc_khz || at - now > (u64)tsc_khz * 1000 * 3600)
		return KTIME_MAX;
	return ns_to_ktime(mul_u64_u32_div(at - now, NSEC_PER_MSEC, tsc_khz));
}

/* Linux has put the carrier on cpu: account the time it waited, take a kick. */
void ev_kick_sched_in(struct ev_vcpu *v, int cpu)
{
	WRITE_ONCE(v->cpu, cpu);
	if (v->stat.preempted_at) {
		u64 waited = local_clock() - v->stat.preempted_at;

		v->stat.counts.stolen_ns += waited;
		if (v->stat.preempted_in_sandbox)
			v->stat.counts.stolen_sandbox_ns += waited;
		if (v->stat.preempted_masked)
			v->stat.counts.stolen_masked_ns += waited;
		if (v->stat.preempted_at_entry)
			v->stat.counts.stolen_entry_ns += waited;
		v->stat.preempted_at = 0;
	}
	/* Pairs with the barrier in vcpu_kick: it sees the new cpu, or we the kick. */
	smp_mb();
	if (READ_ONCE(v->shared->kick_pending) && !v->kick.idling)
		ev_upcall_arm(v);
}

void ev_kick_sched_out(struct ev_vcpu *v)
{
	if (v->carrying && task_is_running(current)) {
		/*
		 * An interrupt from sandbox code stays on the sandbox's stack,
		 * and so does the preemption that follows it; a service, a
		 * tenant's system call or interrupt runs on the carrier's own.
		 */
		bool in_sandbox = !object_is_on_stack((void *)current_stack_pointer);
		bool masked = in_sandbox && READ_ONCE(v->shared->upcall_mask);
		/*
		 * A divert raises the mask before the vCPU runs a single
		 * instruction of the entry, and the interrupt that diverted it
		 * may be the one Linux preempts it at (both come with a tick).
		 * There it holds no lock: not a masked section.  Only a
		 * statistic trusts upcall_ip, which the sandbox writes too.
		 */
		bool at_entry = masked && READ_ONCE(v->shared->upcall_ip);

		v->stat.preempted_in_sandbox = in_sandbox;
		v->stat.preempted_masked = masked && !at_entry;
		v->stat.preempted_at_entry = at_entry;
		v->stat.preempted_at = local_clock();
		v->stat.counts.preemptions++;
	}
}

/* The vCPU's run is over: no timer or interrupt may touch it any more. */
void ev_kick_stop(struct ev_vcpu *v)
{
	while (atomic_read_acquire(&v->kick.ipi_queued))
		cpu_relax();
	hrtimer_cancel(&v->kick.upcall_timer);
}

/*
 * vcpu_idle(): sleep until kicked, or until the kernel's timer (timer_at)
 * passes; 0 either way, and at once if it has passed.  -EINTR if a fatal signal came instead.
 * Any other signal (a stop, the freezer's) ends the sleep too, and the
 * crossing's return parks the vCPU, so that Linux can stop or freeze its
 * carrier in user mode (park.c); the kernel sees an idle that ended early
 * when it resumes.  An interruptible sleep does not count as load, as an
 * idle processor does not.
 */
EV_SERVICE_DEFINE0(vcpu_idle)
{
	u64 t0 = local_clock();
	ktime_t timeout = ev_idle_timeout(v);
	int ret;

	if (!timeout)
		return 0;	/* the kernel's timer has passed */
	WRITE_ONCE(v->kick.idling, true);
	/* Pairs with vcpu_kick: it sees idling, or we see kick_pending. */
	smp_mb();
	ret = wait_event_interruptible_hrtimeout(v->kick.idle_wq,
						 READ_ONCE(v->shared->kick_pending), timeout);
	WRITE_ONCE(v->kick.idling, false);
	v->stat.counts.idle_ns += local_clock() - t0;
	if (ret == -ETIME)
		ret = 0;	/* the timer: the kernel looks at its clock */
	if (ret && fatal_signal_pending(current)) {
		WRITE_ONCE(v->bail, EV_BAIL_ABANDON);
		return -EINTR;
	}
	if (ret)
		cmpxchg(&v->bail, 0, EV_BAIL_PARK);
	return 0;
}

/* vcpu_kick(target): make vCPU target take an upcall soon. */
EV_SERVICE_DEFINE1(vcpu_kick, unsigned long, target)
{
	long i = ev_index(target, 0, v->sb->nr_vcpus);
	struct ev_vcpu *t;
	int cpu;

	if (i < 0)
		return -EINVAL;
	t = v->sb->vcpus[i];
	atomic64_inc(&t->stat.kicks);
	WRITE_ONCE(t->shared->kick_pending, 1);
	/*
	 * Pairs with vcpu_idle's barrier (we see idling, or it sees
	 * kick_pending) and ev_kick_sched_in's (we see the new cpu, or it
	 * sees the kick).
	 */
	smp_mb();
	if (t == v)
		return 0;	/* vOSTD takes it when this crossing returns */
	if (READ_ONCE(t->kick.idling)) {
		atomic64_inc(&t->stat.wakeups);
		wake_up(&t->kick.idle_wq);
		return 0;
	}
	cpu = READ_ONCE(t->cpu);
	if (!READ_ONCE(t->carrying) || cpu < 0)
		return 0;	/* not running yet: it looks when it starts */
	atomic64_inc(&t->stat.ipis);
	ev_kick_interrupt(t, cpu);
	return 0;
}

/*
 * Interrupt cpu, where t's carrier runs; safe in hard interrupts.  Any
 * vCPU's kick and the tick's retry may send t's one csd at once, and
 * smp_call_function_single_async's test for a csd still in flight is a
 * plain read followed by a plain store: its callers must serialize.  So
 * the sender is whoever sets ipi_queued, and a kick that finds it set
 * leaves the interrupt on its way to take it, as Linux's -EBUSY would.
 */
void ev_kick_interrupt(struct ev_vcpu *t, int cpu)
{
	if (atomic_cmpxchg(&t->kick.ipi_queued, 0, 1))
		return;
	if (smp_call_function_single_async(cpu, &t->kick.csd))
		atomic_set(&t->kick.ipi_queued, 0);
}

/* set_upcall(entry): where upcalls enter; it must be the kernel's own code. */
EV_SERVICE_DEFINE1(set_upcall, unsigned long, entry)
{
	if (!ev_in_kernel_text(v->sb, entry))
		return -EFAULT;
	WRITE_ONCE(v->sb->upcall_entry, entry);
	return 0;
}
