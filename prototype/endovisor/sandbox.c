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
		return ev_park_rerun(v);
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

/* The vCPU's run is over; its file reference is the last thing to go. */
void ev_sandbox_vcpu_done(struct ev_vcpu *v, long ret)
{
	struct ev_sandbox *sb = v->sb;
	struct task_struct *carrier = v->carrier;
	struct file *file = v->file;

	mutex_lock(&sb->lock);
	v->state = EV_VCPU_DONE;
	v->exit_code = ret;
	if (v->id == 0)
		WRITE_ONCE(sb->ending, true);
	v->carrier = NULL;
	v->file = NULL;
	if (--sb->nr_running == 0)
		ev_tick_stop(sb);
	if (++sb->nr_done == sb->nr_vcpus)
		ev_log_finish(&sb->log);
	mutex_unlock(&sb->lock);
	/*
	 * A carrier that died may have been released already, and then this
	 * is the last reference: let a tick that still looks at it end
	 * first.
	 */
	if (carrier->flags & PF_EXITING)
		synchronize_rcu();
	put_task_struct(carrier);
	fput(file);
}

/*
 * Is [start, end) wholly in one of the kernel's data objects, or, to be
 * read, in its module's read-only data?  The rest of the module's
 * writable data is Linux's: its struct module and its symbol tables.  A
 * binary search of a record that does not change while a sandbox holds
 * it: no lock, so safe in hard interrupts.  The range found goes into
 * *found.
 */
static bool ev_kernel_data_owns(const struct ev_kernel_rec *k, unsigned long start,
				unsigned long end, bool write, struct ev_owned *found)
{
	unsigned int lo = 0, hi = k->nr_objects, i;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (k->objects[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* objects[lo - 1] is the last to start at or below start. */
	if (lo && ev_range_holds(&k->objects[lo - 1], start, end)) {
		*found = (struct ev_owned){ .range = k->objects[lo - 1], .write = true };
		return true;
	}
	/* Read-only data may be read; a write there would fault in the service. */
	for (i = 0; !write && i < ARRAY_SIZE(k->rodata); i++) {
		if (ev_range_holds(&k->rodata[i], start, end)) {
			*found = (struct ev_owned){ .range = k->rodata[i] };
			return true;
		}
	}
	return false;
}

/*
 * Does [start, end) lie wholly in memory the sandbox owns, and which
 * range of it: its globals page, one of its boot stacks, one block of its
 * heap, one of its kernel's data objects (or read-only data, to be read),
 * or one of its frames?  In that order: the cheap tests first, then the
 * likely ones.  The caller is in a read section (ev_heap_read_begin): the
 * heap's table is read without a lock.  A heap block's range carries
 * the heap's generation, which the next free changes; the others are the
 * sandbox's for its life.
 *
 * The generation is read before the table, with acquire, and a free
 * bumps it after it marks the block gone, with release (ev_heap_take):
 * so a block found live is cached under a generation no later than its
 * free's, and the cache fails at the first use after that free.  Read
 * after the lookup, as it once was, a free on another vCPU between the
 * two reads left the freed block cached under the new generation, and
 * the cache passed it until the next free.
 */
static bool ev_sandbox_find(struct ev_sandbox *sb, unsigned long start, unsigned long end,
			    bool write, struct ev_owned *found)
{
	unsigned long g = (unsigned long)sb->globals, page = start & PAGE_MASK;
	/* Pairs with the release in ev_heap_take: an older cache is stale. */
	u64 gen = smp_load_acquire(&sb->heap.gen);
	unsigned int i;

	if (end < start)
		return false;
	if (start >= g && end <= g + PAGE_SIZE) {
		*found = (struct ev_owned){ .range = { g, g + PAGE_SIZE }, .write = true };
		return true;
	}
	for (i = 0; i < sb->nr_vcpus; i++) {
		unsigned long lo = (unsigned long)sb->vcpus[i]->boot_stack;

		if (start >= lo && end <= lo + EV_STACK_SIZE) {
			*found = (struct ev_owned){ .range = { lo, lo + EV_STACK_SIZE },
						    .write = true };
			return true;
		}
	}
	if (ev_heap_owns(&sb->heap, start, end, &found->range)) {
		found->write = true;
		found->gen = gen;
		return true;
	}
	if (ev_kernel_data_owns(sb->kernel, start, end, write, found))
		return true;
	if (!ev_grant_owns(&sb->grant, start, end))
		return false;
	/* A range of two frames is not cached: the two need not be neighbours. */
	*found = (struct ev_owned){ .range = { page, page + (end - page <= PAGE_SIZE ?
							     PAGE_SIZE : 0) },
				    .write = true };
	return true;
}

/*
 * Does [p, p + len) lie wholly in memory the sandbox owns: one of its
 * kernel's data objects (or read-only data, to be read), its globals page,
 * its frames, one of its boot stacks, or one block of its heap?  The
 * caller is in a read section (ev_heap_read_begin).
 */
bool ev_sandbox_owns(struct ev_sandbox *sb, const void *p, size_t len, bool write)
{
	unsigned long start = (unsigned long)p;
	struct ev_owned found = {};

	return ev_sandbox_find(sb, start, start + len, write, &found);
}

/*
 * ev_sandbox_owns, for a service of vCPU v, in front of which v keeps the
 * last range it found: a buffer a kernel hands over again and again (a
 * tenant's registers, a copy's destination, a batch of operations) is
 * checked by two compares, and by the heap's generation if it is a heap
 * block, which any free since it was found makes stale.  Only v's carrier
 * uses the cache, in services, in a read section: a free that bumped the
 * generation before the section began is seen, and one after it waits
 * for the section to end before the block goes.
 */
bool ev_vcpu_owns(struct ev_vcpu *v, const void *p, size_t len, bool write)
{
	unsigned long start = (unsigned long)p, end = start + len;
	struct ev_owned *c = &v->owned;
	struct ev_sandbox *sb = v->sb;

	if (end >= start && start >= c->range.start && end <= c->range.end &&
	    (c->write || !write) && (!c->gen || c->gen == READ_ONCE(sb->heap.gen)))
		return true;
	return ev_sandbox_find(sb, start, end, write, c);
}

/*
 * Copies len bytes between sandbox memory at sandbox and dst or src, if all
 * of it is the sandbox's (and takes writes, with write), in a read section,
 * so that the heap does not free it meanwhile:
 * freed memory stays mapped, and a copy after another vCPU's free would
 * read or write whatever Linux had put there since.  -EFAULT if not.
 */
int ev_sandbox_copy(struct ev_vcpu *v, void *dst, const void *src,
		    const void *sandbox, size_t len, bool write)
{
	int ret = -EFAULT;

	ev_heap_read_begin(v);
	if (ev_vcpu_owns(v, sandbox, len, write)) {
		memcpy(dst, src, len);
		ret = 0;
	}
	ev_heap_read_end(v);
	return ret;
}

int ev_sandbox_write(struct ev_vcpu *v, void *dst, const void *src, size_t len)
{
	return ev_sandbox_copy(v, dst, src, dst, len, true);
}

int ev_sandbox_read(struct ev_vcpu *v, void *dst, const void *src, size_t len)
{
	return ev_sandbox_copy(v, dst, src, src, len, false);
}
