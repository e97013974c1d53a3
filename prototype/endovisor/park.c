// SPDX-License-Identifier: GPL-2.0
/*
 * Parking: how a carrier leaves sandbox code for a while, so that Linux
 * can stop it (SIGSTOP, a stopped process group) or freeze it (the cgroup
 * freezer), and comes back to the same instruction afterwards.
 *
 * Linux acts on a stop or a freeze only on a thread's way back to user
 * mode, and a carrier running sandbox code never goes there of its own
 * accord: a kernel that spins, masked or not, would keep its carriers on
 * the processors of a frozen cgroup for good.  So a carrier with a signal
 * pending that is not fatal (the stop and the freezer both raise one) is
 * parked, much as a fatal one abandons sandbox code (kick.c), but keeping
 * everything the sandbox kernel had:
 *
 *   - in sandbox code, an interrupt (the sandbox's tick on the carrier's
 *     processor, or the kick's interrupt sent from it) points the saved
 *     instruction at ev_stub_park (stub/cross.S), which saves every
 *     register on the sandbox stack and crosses here; the crossing's
 *     return, with EV_BAIL_PARK, suspends it as a tenant_run suspends;
 *   - in a service, the bail word the tick sets parks the crossing's
 *     return, with the service's result kept for the resume; vcpu_idle
 *     wakes for such a signal to let that happen, and the kernel sees an
 *     idle that ended early, which it must take anyway;
 *   - running a tenant, nothing is needed: the tenant is user code, and
 *     Linux stops and freezes it as it would any.
 *
 * A parked carrier goes back to user mode as the launcher's thread, in
 * the launcher's address space with its registers and its FPU state, with
 * EV_RUN_VCPU's result -ERESTARTNOINTR: Linux stops or freezes it there,
 * and when it is continued or thawed it makes the system call again, which
 * finds the vCPU parked by this carrier and resumes the sandbox kernel
 * where it was (ev_vcpu_rerun, vcpu.c, through ev_park_resume).  A park
 * whose signal is gone by the time the carrier would leave (a stop
 * already continued) resumes at once.
 */
#include <asm/irq_regs.h>
#include <linux/sched/signal.h>

#include "endovisor.h"
#include "ev_stub.h"
#include "kick.h"

/*
 * Should v's carrier, current, park?  A signal is pending that is not
 * fatal (a fatal one abandons, kick.c), and the carrier is not in a
 * tenant, where Linux acts on it without help.
 */
static bool ev_park_wanted(struct ev_vcpu *v)
{
	return signal_pending(current) && !fatal_signal_pending(current) &&
	       !READ_ONCE(v->tenant.running) && !READ_ONCE(v->parked);
}

/*
 * In an interrupt that came while v's carrier ran, with regs the
 * interrupted state: if the carrier should park and was in sandbox code,
 * send it to ev_stub_park, which returns to the same instruction once the
 * vCPU is resumed.  Returns whether it did.
 */
bool ev_park_divert(struct ev_vcpu *v, struct pt_regs *regs)
{
	if (!regs || current != v->carrier || user_mode(regs) || !ev_park_wanted(v) ||
	    !ev_in_kernel_text(v->sb, regs->ip))
		return false;
	v->park_ip = regs->ip;
	regs->ip = (unsigned long)ev_stub_park;
	return true;
}

/*
 * From the tick: v's carrier c has a signal pending that is not fatal.
 * Park it at its next crossing's return, and interrupt it in case it is
 * in sandbox code: this processor's through the tick's own registers,
 * another's with the kick's interrupt, whose probe diverts it.
 */
void ev_park_request(struct ev_vcpu *v, struct task_struct *c)
{
	int cpu = READ_ONCE(v->cpu);

	if (READ_ONCE(v->parked) || READ_ONCE(v->tenant.running) || !READ_ONCE(v->carrying))
		return;
	cmpxchg(&v->bail, 0, EV_BAIL_PARK);
	if (c == current)
		ev_park_divert(v, get_irq_regs());
	else if (cpu >= 0 && cpu != smp_processor_id())
		ev_kick_interrupt(v, cpu);
}

/*
 * The crossing ev_stub_park makes: park on its return, unless the carrier
 * is to abandon sandbox code, which goes first.
 */
long ev_vcpu_park(struct ev_vcpu *v)
{
	cmpxchg(&v->bail, 0, EV_BAIL_PARK);
	return 0;
}

/* Resume the parked vCPU in its crossing: what it returns, as ev_stub_resume. */
long ev_park_resume(struct ev_vcpu *v)
{
	WRITE_ONCE(v->parked, 0);
	/* A request that came after the park is met already. */
	cmpxchg(&v->bail, EV_BAIL_PARK, 0);
	ev_fpu_unpark(v);
	return ev_stub_resume(v, v->park_ret);
}
