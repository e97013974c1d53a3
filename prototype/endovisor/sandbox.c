// SPDX-License-Identifier: GPL-2.0
/*
 * A sandbox: one sandbox kernel, its vCPUs and its log.  It is created in
 * the creator's cgroup and stays there: only threads of that cgroup may
 * carry its vCPUs, so whatever the sandbox kernel does, Linux accounts and
 * schedules it as that cgroup's.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "endovisor.h"
#include "kick.h"

#define EV_LOG_SIZE	(1 << 20)

static atomic64_t ev_next_sandbox_id = ATOMIC64_INIT(0);

static struct cgroup *ev_current_cgroup(void)
{
	struct cgroup *cgrp;

	rcu_read_lock();
	cgrp = task_dfl_cgroup(current);
	cgroup_get(cgrp);
	rcu_read_unlock();
	return cgrp;
}

static bool ev_in_cgroup(struct cgroup *cgrp)
{
	bool in;

	rcu_read_lock();
	in = task_dfl_cgroup(current) == cgrp;
	rcu_read_unlock();
	return in;
}

struct ev_sandbox *ev_sandbox_create(const char *name, unsigned int nr_vcpus,
				     const char *args, u32 flags)
{
	struct ev_sandbox *sb;
	unsigned int i;

	if (nr_vcpus < 1 || nr_vcpus > EV_MAX_VCPUS)
		return ERR_PTR(-EINVAL);
	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return ERR_PTR(-ENOMEM);
	mutex_init(&sb->lock);
	mutex_init(&sb->vm_lock);
	strscpy(sb->args, args, sizeof(sb->args));
	sb->flags = flags;
	ev_heap_init(&sb->heap, sb);
	ev_grant_init(&sb->grant);
	ev_tick_init(sb);
	sb->leader = get_task_struct(current->group_leader);
	sb->id = atomic64_inc_return(&ev_next_sandbox_id);
	sb->nr_vcpus = nr_vcpus;
	sb->cgrp = ev_current_cgroup();
	if (!cgroup_parent(sb->cgrp)) {
		pr_info("endovisor: refusing a sandbox in the root cgroup\n");
		cgroup_put(sb->cgrp);
		put_task_struct(sb->leader);
		kfree(sb);
		return ERR_PTR(-EPERM);
	}
	sb->kernel = ev_kernel_get(name);
	if (!sb->kernel) {
		cgroup_put(sb->cgrp);
		put_task_struct(sb->leader);
		kfree(sb);
		return ERR_PTR(-ENOENT);
	}
	atomic_inc(&ev_live.sandboxes);
	sb->globals = (void *)get_zeroed_page(GFP_KERNEL);
	if (sb->globals)
		ev_page_own(virt_to_page(sb->globals), &sb->heap.pool);
	if (!sb->globals || ev_log_init(&sb->log, EV_LOG_SIZE))
		goto fail;
	for (i = 0; i < nr_vcpus; i++) {
		sb->vcpus[i] = ev_vcpu_create(sb, i);
		if (!sb->vcpus[i])
			goto fail;
	}
	pr_info("endovisor: sandbox %llu created: kernel '%s', %u vCPUs\n",
		sb->id, name, nr_vcpus);
	return sb;
fail:
	ev_sandbox_destroy(sb);
	return ERR_PTR(-ENOMEM);
}

/* The last reference to the sandbox's file is gone: no carrier is inside. */
void ev_sandbox_destroy(struct ev_sandbox *sb)
{
	unsigned int i;

	/* Address spaces first: their page tables point at granted frames. */
	ev_vm_teardown(sb);
	ev_grant_teardown(&sb->grant);
	ev_fpu_teardown(sb);
	for (i = 0; i < sb->nr_vcpus; i++)
		if (sb->vcpus[i])
			ev_vcpu_destroy(sb->vcpus[i]);
	if (ev_heap_blocks(&sb->heap))
		pr_info("endovisor: sandbox %llu left %lu blocks (%lu bytes charged); freeing them\n",
			sb->id, ev_heap_blocks(&sb->heap), ev_heap_bytes(&sb->heap));
	ev_heap_teardown(&sb->heap);
	if (sb->globals)
		ev_page_disown(virt_to_page(sb->globals));
	free_page((unsigned long)sb->globals);
	ev_log_free(&sb->log);
	ev_kernel_put(sb->kernel);
	cgroup_put(sb->cgrp);
	put_task_struct(sb->leader);
	pr_info("endovisor: sandbox %llu destroyed\n", sb->id);
	kfree(sb);
	atomic_dec(&ev_live.sandboxes);
}

long ev_sandbox_run_vcpu(struct ev_sandbox *sb, struct file *file,
			 unsigned long idx)
{
	long i = ev_index(idx, 0, sb->nr_vcpus);
	struct ev_vcpu *v;
	long ret;

	if (i < 0)
		return -EINVAL;
	if (!ev_in_cgroup(sb->cgrp))
		return -EPERM;
	v = sb->vcpus[i];
	mutex_lock(&sb->lock);
	if (v->state == EV_VCPU_RUNNING) {
		/* Its carrier, back from a stop or the freezer (park.c)? */
		mutex_unlock(&sb->lock);
		return ev_vcpu_rerun(v);
	}
	if (v->state != EV_VCPU_READY) {
		mutex_unlock(&sb->lock);
		return -EBUSY;
	}
	v->state = EV_VCPU_RUNNING;
	/* Referenced: the tick looks at it, and it may die carrying. */
	v->carrier = get_task_struct(current);
	/* The vCPU may outlive this call (tenants): it holds the file itself. */
	v->file = get_file(file);
	if (sb->nr_running++ == 0)
		ev_tick_start(sb);
	mutex_unlock(&sb->lock);

	ret = ev_vcpu_run(v);
	return ev_vcpu_returned(v, ret, false);
}
