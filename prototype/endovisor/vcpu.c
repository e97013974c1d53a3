// SPDX-License-Identifier: GPL-2.0
/*
 * A vCPU and its carrier.  The carrier is the Linux thread that called
 * EV_RUN_VCPU; while it is inside, it runs the sandbox kernel's code on the
 * vCPU's boot stack, leaving it only for services (stub/cross.S).  Linux may
 * preempt or migrate the carrier at any point, so the per-CPU ev_cur_vcpu
 * is kept by a preempt notifier: set when the carrier is switched in,
 * cleared when it is switched out.
 *
 * The run is one loop between this file and tenant.c: the kernel comes
 * back to the frame that entered it (ev_stub_enter, or ev_stub_resume
 * from a tenant's trap), and ev_vcpu_returned says what that means: a
 * park (park.c), a tenant to run (tenant.c), or the end of the vCPU
 * (ev_vcpu_end, then ev_vcpu_done).  Parking, kicks and the tick only
 * interrupt the run; none of them calls back into it.
 */
#include <linux/file.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/tsc.h>

#include "endovisor.h"
#include "ev_stub.h"
#include "tenant.h"
#include "kick.h"

DEFINE_PER_CPU(struct ev_vcpu *, ev_cur_vcpu);

/* Sandbox kernels call the crossing directly: see abi/ev_abi.h. */
EXPORT_SYMBOL_GPL(ev_stub_cross);

static void ev_vcpu_sched_in(struct preempt_notifier *n, int cpu)
{
	struct ev_vcpu *v = container_of(n, struct ev_vcpu, notifier);

	this_cpu_write(ev_cur_vcpu, v);
	ev_kick_sched_in(v, cpu);
}

static void ev_vcpu_sched_out(struct preempt_notifier *n,
			      struct task_struct *next)
{
	struct ev_vcpu *v = container_of(n, struct ev_vcpu, notifier);

	this_cpu_write(ev_cur_vcpu, NULL);
	if (unlikely(READ_ONCE(current->__state) == TASK_DEAD)) {
		ev_tenant_carrier_dead(v);
		return;
	}
	ev_kick_sched_out(v);
}

static struct preempt_ops ev_vcpu_preempt_ops = {
	.sched_in = ev_vcpu_sched_in,
	.sched_out = ev_vcpu_sched_out,
};

static struct ev_stack_base *ev_stack_alloc(struct ev_vcpu_shared *shared,
					    const struct ev_pool *owner)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_ZERO, EV_STACK_ORDER);
	struct ev_stack_base *base;
	unsigned int i;

	if (!page)
		return NULL;
	for (i = 0; i < 1 << EV_STACK_ORDER; i++)
		ev_page_own(nth_page(page, i), owner);
	base = page_address(page);
	base->magic = EV_STACK_MAGIC;
	base->shared = shared;
	atomic_inc(&ev_live.stacks);
	return base;
}

static void ev_stack_free(struct ev_stack_base *base)
{
	unsigned int i;

	for (i = 0; i < 1 << EV_STACK_ORDER; i++)
		ev_page_disown(virt_to_page((char *)base + i * PAGE_SIZE));
	free_pages((unsigned long)base, EV_STACK_ORDER);
	atomic_dec(&ev_live.stacks);
}

/*
 * What the sandbox may write, for vOSTD's store checks (ev_sfi): the tag
 * its pages carry, where Linux keeps its direct map and the struct pages
 * of it, and its kernel's data objects, in the endovisor's own record.
 */
static void ev_vcpu_sfi(struct ev_vcpu_shared *sh, struct ev_sandbox *sb)
{
	sh->sfi = (struct ev_sfi){
		.owner_tag = ev_owner_tag(&sb->heap.pool),
		.direct_base = PAGE_OFFSET,
		.direct_pages = ((unsigned long)high_memory - PAGE_OFFSET) >> PAGE_SHIFT,
		.page_array = (unsigned long)vmemmap,
		.page_size = sizeof(struct page),
		.objects = (unsigned long)sb->kernel->objects,
		.nr_objects = sb->kernel->nr_objects,
	};
	BUILD_BUG_ON(sizeof(struct ev_range) != 2 * sizeof(u64));
}

struct ev_vcpu *ev_vcpu_create(struct ev_sandbox *sb, unsigned int id)
{
	struct ev_vcpu *v;

	BUILD_BUG_ON(offsetof(struct ev_vcpu, linux_sp) != EV_VCPU_LINUX_SP);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, bail) != EV_VCPU_BAIL);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, sandbox_frame) != EV_VCPU_SANDBOX_FRAME);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, sandbox_r12_r15) != EV_VCPU_SANDBOX_R12);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, park_ip) != EV_VCPU_PARK_IP);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, park_ret) != EV_VCPU_PARK_RET);
	BUILD_BUG_ON(offsetof(struct ev_vcpu, parked) != EV_VCPU_PARKED);
	BUILD_BUG_ON(sizeof(struct ev_vcpu_shared) > PAGE_SIZE);
	BUILD_BUG_ON(offsetof(struct ev_vcpu_shared, upcall_ip) != EV_SHARED_UPCALL_IP);
	BUILD_BUG_ON(offsetof(struct ev_stack_base, shared) != EV_STACK_BASE_SHARED);

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	v->shared = (struct ev_vcpu_shared *)get_zeroed_page(GFP_KERNEL);
	if (!v->shared)
		goto fail;
	ev_page_own(virt_to_page(v->shared), &sb->heap.pool);
	v->boot_stack = ev_stack_alloc(v->shared, &sb->heap.pool);
	if (!v->boot_stack)
		goto fail;
	v->sb = sb;
	v->id = id;
	v->state = EV_VCPU_READY;
	v->shared->abi_version = EV_ABI_VERSION;
	v->shared->vcpu = id;
	v->shared->nr_vcpus = sb->nr_vcpus;
	v->shared->sandbox_id = sb->id;
	v->shared->cross = ev_stub_cross;
	v->shared->tsc_khz = tsc_khz;
	v->shared->globals = sb->globals;
	memcpy(v->shared->args, sb->args, sizeof(v->shared->args));
	ev_vcpu_sfi(v->shared, sb);
	v->shared->flags = sb->flags;
	preempt_notifier_init(&v->notifier, &ev_vcpu_preempt_ops);
	ev_kick_init(v);
	ev_tenant_vcpu_init(v);
	atomic_inc(&ev_live.vcpus);
	return v;
fail:
	if (v->shared)
		ev_page_disown(virt_to_page(v->shared));
	free_page((unsigned long)v->shared);
	kfree(v);
	return NULL;
}

void ev_vcpu_destroy(struct ev_vcpu *v)
{
	ev_stack_free(v->boot_stack);
	ev_page_disown(virt_to_page(v->shared));
	free_page((unsigned long)v->shared);
	kfree(v);
	atomic_dec(&ev_live.vcpus);
}

/*
 * Runs the sandbox kernel's entry on this vCPU, in the calling thread,
 * which becomes the vCPU's carrier until the entry returns.  Returns the
 * entry's result, or with v->suspended set if the kernel sent the carrier
 * to user mode to run a tenant (tenant.c); the vCPU then ends later, in
 * ev_vcpu_end.
 */
long ev_vcpu_run(struct ev_vcpu *v)
{
	unsigned long sp = (unsigned long)v->boot_stack + EV_STACK_SIZE;

	v->shared->carrier_tid = task_pid_vnr(current);
	v->tenant.home_mm = current->mm;

	preempt_disable();
	preempt_notifier_register(&v->notifier);
	this_cpu_write(ev_cur_vcpu, v);
	WRITE_ONCE(v->cpu, smp_processor_id());
	preempt_enable();

	/*
	 * Timed before the vCPU counts as carrying: the tick parks and kicks
	 * only a carrying vCPU, and a park in a timed round would keep a
	 * crossing's frame that the kernel's own run then overwrites.
	 */
	if (v->id == 0)
		ev_crossing_calibrate(v);
	WRITE_ONCE(v->carrying, true);
	v->suspended = false;
	return ev_stub_enter(v, v->sb->kernel->entry, v->shared, sp);
}

/*
 * What EV_RUN_VCPU can return for a kernel's result ret: Linux passes an
 * ioctl's result through an int, and takes -512 to -530 for codes of its
 * own that no system call may return (-ERESTARTSYS would have Linux run
 * the ioctl again, -ENOIOCTLCMD becomes -ENOTTY).  Anything else arrives
 * as -EOVERFLOW.
 */
static long ev_run_result(long ret)
{
	if (ret < INT_MIN || ret > INT_MAX || (ret <= -ERESTARTSYS && ret >= -530))
		return -EOVERFLOW;
	return ret;
}

/* The vCPU's kernel returned ret: the carrier stops carrying. */
static long ev_vcpu_end(struct ev_vcpu *v, long ret)
{
	ret = ev_run_result(ret);
	ev_fpu_vcpu_end(v);
	ret = ev_tenant_finish(v, ret);

	preempt_disable();
	WRITE_ONCE(v->carrying, false);
	this_cpu_write(ev_cur_vcpu, NULL);
	preempt_notifier_unregister(&v->notifier);
	preempt_enable();
	ev_kick_stop(v);

	if (READ_ONCE(v->kick.abandoned))
		pr_info("endovisor: sandbox %llu vCPU %u: its carrier had to die in sandbox code, which was abandoned\n",
			v->sb->id, v->id);
	if (v->boot_stack->magic != EV_STACK_MAGIC) {
		pr_err("endovisor: sandbox %llu vCPU %u overran its boot stack\n",
		       v->sb->id, v->id);
		ret = -EFAULT;
	}
	ev_vcpu_done(v, ret);
	return ret;
}

/* The vCPU's run is over; its file reference is the last thing to go. */
void ev_vcpu_done(struct ev_vcpu *v, long ret)
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
 * The sandbox kernel came back to the frame that entered it, with ret:
 * carry on as what brought it back says.  Its entry returned: the vCPU
 * ends.  A tenant_run suspended it: the carrier goes to the tenant
 * (in_work: it is on its way there already, from a trap's task work).  A
 * park: the carrier goes to user mode as the launcher, with
 * -ERESTARTNOINTR, unless the signal is gone, and then it resumes at once.
 * What EV_RUN_VCPU returns, or, in_work, nothing that matters.
 */
long ev_vcpu_returned(struct ev_vcpu *v, long ret, bool in_work)
{
	while (READ_ONCE(v->parked)) {
		if (signal_pending(current)) {
			ev_tenant_park(v);
			ev_fpu_park(v);
			v->stat.counts.parks++;
			return -ERESTARTNOINTR;
		}
		ret = ev_park_resume(v);
	}
	if (v->suspended)
		return in_work ? 0 : ev_tenant_entered(v);
	return ev_vcpu_end(v, ret);
}

/*
 * EV_RUN_VCPU again, by the carrier of a vCPU it parked: resume it where
 * it was.  -EBUSY for any other thread, or a vCPU not parked.
 */
long ev_vcpu_rerun(struct ev_vcpu *v)
{
	if (v->carrier != current || !READ_ONCE(v->parked))
		return -EBUSY;
	return ev_vcpu_returned(v, ev_park_resume(v), false);
}
