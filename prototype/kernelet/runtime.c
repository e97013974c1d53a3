// SPDX-License-Identifier: GPL-2.0
/*
 * A task's run time, for the tasks that count it (kl_count_runtime): the
 * scheduler adds each run that ends to its task (kl_account_locked, which
 * stays in sched.c's switch and reads the clock only for them), and
 * kl_runtime reads the sum, a run under way included, from any vCPU.
 */
#include "sched.h"

void kl_count_runtime(void)
{
	struct kl_cpu *c;

	vostd_upcall_disable();
	c = kl_this_cpu();
	vostd_spin_lock(&c->lock);
	if (c->curr && !c->curr->counted) {
		c->curr->counted = true;
		c->curr_since = vostd_cycles();
	}
	vostd_spin_unlock(&c->lock);
	vostd_upcall_enable();
}

u64 kl_runtime(kl_tid_t tid, u64 now)
{
	struct kl_task *t;
	struct kl_cpu *c;
	u64 run = 0;

	vostd_upcall_disable();
	t = kl_lock_task(tid, &c);
	if (t) {
		run = t->run_cycles;
		/* The counter is one across processors (tsc=reliable), but take no chance. */
		now = now ?: vostd_cycles();
		if (c->curr == t && t->counted && now > c->curr_since)
			run += now - c->curr_since;
		vostd_spin_unlock(&c->lock);
	}
	vostd_upcall_enable();
	return run;
}
