// SPDX-License-Identifier: GPL-2.0
/*
 * Taking a kick.  The endovisor diverts a vCPU to vostd_upcall_entry
 * (switch.S) only when its mask is zero; vostd_call and
 * vostd_upcall_enable come here themselves for a kick that found the mask
 * raised or the carrier inside a service.  Either way the handler runs
 * masked, takes the kick (clearing kick_pending) and gives it to the
 * injected scheduler; a kick that arrived while it ran is taken before
 * returning, so none is lost.  That includes one whose interrupt came just
 * after the last look and before the mask dropped: the endovisor found the
 * mask raised and left it pending, so it is looked for again once the mask
 * is down, and taken with the mask raised again.
 */
#include "vostd.h"

void vostd_inject_scheduler(const struct vostd_sched_ops *ops)
{
	WRITE_ONCE(vostd_slots()[VOSTD_SLOT_SCHED_OPS], (void *)ops);
}

static const struct vostd_sched_ops *vostd_sched(void)
{
	return READ_ONCE(vostd_slots()[VOSTD_SLOT_SCHED_OPS]);
}

/*
 * From the upcall entry (switch.S): the endovisor raised the mask.
 * Tasks never change vCPU, so the vCPU is the same after any switch the
 * handler makes.
 */
void vostd_upcall_taken(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();

	const struct vostd_sched_ops *ops = vostd_sched();

	for (;;) {
		while (__atomic_exchange_n(&sh->kick_pending, 0, __ATOMIC_ACQ_REL))
			if (ops && ops->upcall)
				ops->upcall();
		WRITE_ONCE(sh->upcall_mask, sh->upcall_mask - 1);
		/*
		 * The interrupt lands on this processor, so program order
		 * is enough: it came before the store above (and the kick is
		 * visible below) or after it (and was taken as an upcall).
		 */
		if (READ_ONCE(sh->upcall_mask) || !READ_ONCE(sh->kick_pending))
			return;
		WRITE_ONCE(sh->upcall_mask, sh->upcall_mask + 1);
	}
}

/* A kick found pending after a crossing, or when the mask drops. */
void vostd_upcall(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();

	WRITE_ONCE(sh->upcall_mask, sh->upcall_mask + 1);
	vostd_upcall_taken();
}

/* A new task's first C: it starts inside the scheduler, masked. */
void __noreturn vostd_task_main(void (*fn)(void *), void *arg)
{
	const struct vostd_sched_ops *ops = vostd_sched();

	if (ops->task_start)
		ops->task_start();
	fn(arg);
	ops->task_exit();
	asm volatile("ud2");	/* task_exit does not return */
	__builtin_unreachable();
}
