// SPDX-License-Identifier: GPL-2.0
/*
 * The kernelet's scheduler.
 *
 * Each vCPU has a kl_cpu: run queues (FIFO per priority), the running task
 * (NULL while the vCPU runs its idle loop on the boot stack), and the note,
 * need_resched, that a wake leaves when the woken task should run before
 * the current one.  Everything in a kl_cpu is changed under its lock, with
 * upcalls masked, so that an upcall never finds the scheduler half-way.
 *
 * Switching happens only in kl_schedule, and only with the upcall depth at
 * exactly one, the scheduler's own: the switched-to task continues where
 * it left off, inside its own kl_schedule, and drops that one level itself.
 * Yielding or blocking inside a guard is refused and counted, as Linux
 * refuses scheduling while atomic.
 */
#include "kernelet.h"
#include "mm.h"

enum kl_state { KL_READY, KL_RUNNING, KL_BLOCKED, KL_DEAD };

struct kl_task {
	unsigned long sp;		/* saved while not running */
	struct ev_stack_base *stack;
	const char *name;
	enum kl_prio prio;
	enum kl_state state;
	unsigned int vcpu;
	bool wake_token;		/* a wake that came before its block */
	struct kl_task *next;		/* run-queue or zombie link */
};

struct kl_queue {
	struct kl_task *head, *tail;
};

struct kl_cpu {
	vostd_spinlock_t lock;
	struct kl_queue rq[KL_NR_PRIOS];
	struct kl_task *curr;		/* NULL: the idle loop */
	struct kl_task *zombies;	/* dead, stacks to free */
	unsigned long idle_sp;
	u32 need_resched;		/* the note */
	u32 sleeping;			/* in or about to enter vcpu_idle */
	struct vostd_vmspace *mm;	/* the address space the carrier holds */
	struct ev_vcpu_shared *shared;
	struct kl_cpu_stats stats;
} ____cacheline_aligned;

/* One per sandbox, in its globals (vostd_global). */
struct kl_sandbox {
	struct kl_cpu cpus[EV_MAX_VCPUS];
	u32 stopping;
};

static struct kl_sandbox *kl(void)
{
	return vostd_global(VOSTD_SLOT_SCHEDULER, sizeof(struct kl_sandbox));
}

static struct kl_cpu *kl_this_cpu(void)
{
	return &kl()->cpus[vostd_cpu_id()];
}

struct kl_task *kl_current(void)
{
	return kl_this_cpu()->curr;
}

const char *kl_task_name(struct kl_task *t)
{
	return t ? t->name : "idle";
}

static void kl_enqueue(struct kl_cpu *c, struct kl_task *t)
{
	struct kl_queue *q = &c->rq[t->prio];

	t->next = NULL;
	if (q->tail)
		q->tail->next = t;
	else
		q->head = t;
	q->tail = t;
}

static struct kl_task *kl_dequeue(struct kl_cpu *c)
{
	int p;

	for (p = KL_NR_PRIOS - 1; p >= 0; p--) {
		struct kl_queue *q = &c->rq[p];
		struct kl_task *t = q->head;

		if (t) {
			q->head = t->next;
			if (!q->head)
				q->tail = NULL;
			return t;
		}
	}
	return NULL;
}

static bool kl_queue_empty(struct kl_cpu *c)
{
	int p;

	for (p = 0; p < KL_NR_PRIOS; p++)
		if (c->rq[p].head)
			return false;
	return true;
}

/*
 * Pick the next task and switch to it.  prev_state is what the running
 * task becomes: READY (yield, preemption), BLOCKED or DEAD.  Upcalls are
 * masked exactly once, by the caller.
 */
static void kl_schedule(struct kl_cpu *c, enum kl_state prev_state)
{
	struct kl_task *prev, *next;
	unsigned long *save;

	vostd_spin_lock(&c->lock);
	prev = c->curr;
	if (prev) {
		if (prev_state == KL_BLOCKED && prev->wake_token) {
			prev->wake_token = false;
			prev_state = KL_RUNNING;
		}
		prev->state = prev_state;
		if (prev_state == KL_READY)
			kl_enqueue(c, prev);
		else if (prev_state == KL_DEAD) {
			prev->next = c->zombies;
			c->zombies = prev;
		}
	}
	if (prev && prev_state == KL_RUNNING) {
		next = prev;		/* a wake beat the block */
	} else {
		next = READ_ONCE(kl()->stopping) ? NULL : kl_dequeue(c);
		if (next) {
			next->state = KL_RUNNING;
			/* Its stack names the vCPU it runs on from its first run. */
			next->stack->shared = c->shared;
		}
	}
	WRITE_ONCE(c->need_resched, 0);
	c->curr = next;
	vostd_spin_unlock(&c->lock);
	if (next == prev)
		return;
	c->stats.switches++;
	save = prev ? &prev->sp : &c->idle_sp;
	vostd_switch(save, next ? &next->sp : &c->idle_sp);
}

/* The injected upcall: a kick was taken on this vCPU. */
static void kl_upcall(void)
{
	struct kl_cpu *c = kl_this_cpu();
	u64 t0 = vostd_cycles();

	c->stats.upcalls++;
	if (vostd_upcall_depth() != 1 || !c->curr) {
		/* A guard holds, or this is the idle loop: it looks by itself. */
		return;
	}
	if (!READ_ONCE(c->need_resched) && !READ_ONCE(kl()->stopping)) {
		/* The reschedule window: the note was taken before the kick landed. */
		c->stats.upcall_spurious++;
		c->stats.spurious_cycles += vostd_cycles() - t0;
		return;
	}
	c->stats.upcall_resched++;
	kl_schedule(c, KL_READY);
}

static void kl_task_start(void)
{
	vostd_upcall_enable();
}

/* Its stack is freed by the idle loop once it is off it. */
static void kl_task_exit(void)
{
	vostd_upcall_disable();
	kl_schedule(kl_this_cpu(), KL_DEAD);
	asm volatile("ud2");	/* a dead task is never switched back to */
	__builtin_unreachable();
}

static const struct vostd_sched_ops kl_ops = {
	.upcall = kl_upcall,
	.task_start = kl_task_start,
	.task_exit = kl_task_exit,
};

struct kl_task *kl_spawn(const char *name, void (*fn)(void *), void *arg,
			 enum kl_prio prio, unsigned int vcpu)
{
	struct kl_cpu *c;
	struct kl_task *t;

	if (vcpu >= vostd_nr_cpus() || prio >= KL_NR_PRIOS || !kl())
		return NULL;
	c = &kl()->cpus[vcpu];
	t = vostd_alloc(sizeof(*t), true);
	if (!t)
		return NULL;
	/* The vCPU's shared page is its own; only the kernelet on it knows it yet. */
	t->stack = vostd_stack_alloc(NULL, t);
	if (!t->stack) {
		vostd_free(t);
		return NULL;
	}
	t->name = name;
	t->prio = prio;
	t->vcpu = vcpu;
	t->sp = vostd_stack_frame(t->stack, fn, arg);
	t->state = KL_BLOCKED;
	t->wake_token = false;
	kl_wake(t);
	return t;
}

void kl_yield(void)
{
	struct kl_cpu *c;

	vostd_upcall_disable();
	c = kl_this_cpu();
	if (vostd_upcall_depth() != 1)
		c->stats.refused++;
	else
		kl_schedule(c, KL_READY);
	vostd_upcall_enable();
}

void kl_block(void)
{
	struct kl_cpu *c;

	vostd_upcall_disable();
	c = kl_this_cpu();
	if (vostd_upcall_depth() != 1)
		c->stats.refused++;
	else
		kl_schedule(c, KL_BLOCKED);
	vostd_upcall_enable();
}

/*
 * Make t runnable.  On this vCPU, a task of higher priority than the
 * current one runs at once.  On another, the note is left and the vCPU is
 * kicked, unless it is in its idle loop and not asleep (no current task):
 * then it finds the task by itself before it can sleep, since it looks at
 * its queue under the lock this wake holds, and a kick would only come back
 * as an upcall with nothing to do.
 */
void kl_wake(struct kl_task *t)
{
	struct kl_cpu *me, *c = &kl()->cpus[t->vcpu];
	bool preempt = false, kick = false;

	vostd_upcall_disable();
	me = kl_this_cpu();
	vostd_spin_lock(&c->lock);
	if (t->state == KL_BLOCKED) {
		t->state = KL_READY;
		kl_enqueue(c, t);
		preempt = !c->curr || t->prio > c->curr->prio;
		if (preempt)
			WRITE_ONCE(c->need_resched, 1);
		kick = c != me && (c->sleeping || (preempt && c->curr));
		if (c != me && preempt && !kick)
			me->stats.kicks_saved++;
	} else if (t->state == KL_RUNNING || t->state == KL_READY) {
		t->wake_token = true;
	}
	vostd_spin_unlock(&c->lock);
	if (kick) {
		me->stats.kicks_sent++;
		vostd_kick(t->vcpu);
	} else if (c == me && preempt && c->curr && vostd_upcall_depth() == 1) {
		kl_schedule(c, KL_READY);
	}
	vostd_upcall_enable();
}

void kl_guard_begin(void)
{
	vostd_upcall_disable();
}

/*
 * Dropping the guard honours a note left meanwhile, by a wake on this vCPU
 * or by a kick that had to wait; the kick is then spent.
 */
void kl_guard_end(void)
{
	struct kl_cpu *c = kl_this_cpu();

	if (vostd_upcall_depth() == 1 && READ_ONCE(c->need_resched)) {
		__atomic_store_n(&c->shared->kick_pending, 0, __ATOMIC_RELEASE);
		kl_schedule(c, KL_READY);
	}
	vostd_upcall_enable();
}

static void kl_reap(struct kl_cpu *c)
{
	struct kl_task *z;

	vostd_spin_lock(&c->lock);
	z = c->zombies;
	c->zombies = NULL;
	vostd_spin_unlock(&c->lock);
	while (z) {
		struct kl_task *next = z->next;

		vostd_stack_free(z->stack);
		vostd_free(z);
		z = next;
	}
}

/*
 * The idle loop, on the vCPU's boot stack, always masked: it runs tasks
 * while there are any, and otherwise sleeps in vcpu_idle.  'sleeping' is
 * set under the lock after the queue is seen empty, so a wake either sees
 * it and kicks, or enqueues before the check.
 */
long kl_run(void)
{
	struct kl_cpu *c;
	bool empty;

	if (!kl())
		return -ENOMEM;
	c = kl_this_cpu();
	vostd_inject_scheduler(&kl_ops);
	vostd_upcall_disable();
	c->shared = vostd_vcpu();
	while (!READ_ONCE(kl()->stopping)) {
		kl_reap(c);
		kl_schedule(c, KL_READY);
		if (READ_ONCE(kl()->stopping))
			break;
		vostd_spin_lock(&c->lock);
		empty = kl_queue_empty(c);
		if (empty)
			c->sleeping = 1;
		vostd_spin_unlock(&c->lock);
		if (!empty)
			continue;
		c->stats.idles++;
		vostd_idle();
		vostd_spin_lock(&c->lock);
		c->sleeping = 0;
		vostd_spin_unlock(&c->lock);
		__atomic_store_n(&c->shared->kick_pending, 0, __ATOMIC_RELEASE);
	}
	kl_reap(c);
	vostd_upcall_enable();
	return 0;
}

/* Every vCPU leaves kl_run at its next scheduling point; kick them there. */
void kl_stop(void)
{
	unsigned int i, me = vostd_cpu_id();

	WRITE_ONCE(kl()->stopping, 1);
	for (i = 0; i < vostd_nr_cpus(); i++)
		if (i != me)
			vostd_kick(i);
	if (kl_current())
		kl_yield();
}

/* What a vCPU's mm is once the space it held has been forgotten. */
#define KL_MM_UNKNOWN ((struct vostd_vmspace *)-1L)

bool kernelet_switch_mm(struct vostd_vmspace *vs)
{
	struct kl_cpu *c = kl_this_cpu();

	if (READ_ONCE(c->mm) == vs)
		return false;
	if (vostd_vm_activate(vs))
		return false;
	WRITE_ONCE(c->mm, vs);
	return true;
}

void kernelet_forget_mm(struct vostd_vmspace *vs)
{
	unsigned int i;

	for (i = 0; i < vostd_nr_cpus(); i++) {
		struct vostd_vmspace *was = vs;

		__atomic_compare_exchange_n(&kl()->cpus[i].mm, &was, KL_MM_UNKNOWN, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
}

void kl_stats(unsigned int vcpu, struct kl_cpu_stats *out)
{
	*out = kl()->cpus[vcpu].stats;
}

void kl_stats_reset(void)
{
	unsigned int i;

	for (i = 0; i < EV_MAX_VCPUS; i++)
		kl()->cpus[i].stats = (struct kl_cpu_stats){};
}
