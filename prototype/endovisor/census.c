// SPDX-License-Identifier: GPL-2.0
/*
 * What Linux sees of a sandbox.  However many tasks the sandbox kernel
 * runs, Linux schedules only the threads of the process that created the
 * sandbox: its carriers, and whatever else that process runs (the launcher's
 * main thread; its log reader is a process of its own).  On every tick
 * (tick.c), once a millisecond while any vCPU runs, the census counts how
 * many of those threads are on a Linux run queue (on_rq, queued or being
 * migrated between queues), and keeps the largest count; with the stolen
 * time the preempt notifier accounts (kick.c), it is what the fairness
 * chapter reports.
 */
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include <linux/slab.h>

#include "endovisor.h"

/* From the tick, in an RCU read section: task structs are safe to look at. */
void ev_census_sample(struct ev_sandbox *sb)
{
	struct ev_census *cs = &sb->census;
	struct task_struct *p;
	u32 threads = 0, carriers = 0;
	unsigned int i;

	for_each_thread(sb->leader, p)
		if (READ_ONCE(p->on_rq))
			threads++;
	for (i = 0; i < sb->nr_vcpus; i++) {
		struct task_struct *c = READ_ONCE(sb->vcpus[i]->carrier);

		if (c && READ_ONCE(c->on_rq))
			carriers++;
	}
	cs->samples++;
	cs->sum += carriers;
	cs->max = max(cs->max, carriers);
	cs->max_threads = max(cs->max_threads, threads);
}

void ev_stats_read(struct ev_sandbox *sb, struct ev_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	mutex_lock(&sb->lock);
	st->nr_vcpus = sb->nr_vcpus;
	st->census_max = sb->census.max;
	st->census_max_threads = sb->census.max_threads;
	st->census_samples = sb->census.samples;
	st->census_sum = sb->census.sum;
	for (i = 0; i < sb->nr_vcpus && i < ARRAY_SIZE(st->vcpu); i++) {
		struct ev_vcpu *v = sb->vcpus[i];

		st->vcpu[i] = v->stat.counts;
		st->vcpu[i].kicks = atomic64_read(&v->stat.kicks);
		st->vcpu[i].ipis = atomic64_read(&v->stat.ipis);
		st->vcpu[i].wakeups = atomic64_read(&v->stat.wakeups);
		st->mem_bytes += ksize(v) + PAGE_SIZE + EV_STACK_SIZE;
	}
	mutex_unlock(&sb->lock);
	st->mem_bytes += ksize(sb) + PAGE_SIZE + sb->log.size + ev_heap_table_bytes(&sb->heap) +
			 ev_grant_set_bytes(&sb->grant);
}
