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
 *
 * Tasks are reached from outside only through the task table, by id.  A
 * task's memory goes when the idle loop reaps it after its death, or when
 * its vCPU leaves kl_run; either way its id is retired first, under its
 * vCPU's lock, so that a wake holding an old id finds nothing.
 */
#include "sched.h"
#include "mm.h"

/*
 * The task table: what an id names.  A slot's task, vcpu and generation
 * change only under the lock of the vCPU its task is on, so a task found
 * under that lock with the id's generation is alive until the lock drops.
 * Freeing a task moves its slot to the next generation; the slot then goes
 * back on the free list, under the table's own lock.
 */
#define KL_TID_SLOT_BITS	10
#define KL_TID_GEN_MAX		((1U << (32 - KL_TID_SLOT_BITS)) - 1)

static unsigned int kl_tid_slot(kl_tid_t tid)
{
	return tid & ((1U << KL_TID_SLOT_BITS) - 1);
}

struct kl_slot {
	struct kl_task *task;		/* NULL while free */
	u32 gen;			/* 0 until first used */
	u32 vcpu;
	u32 next_free;			/* free list: slot index + 1, 0 ends it */
};

/* One per sandbox, in its globals (vostd_global). */
struct kl_sandbox {
	struct kl_cpu cpus[EV_MAX_VCPUS];
	vostd_spinlock_t table_lock;
	u32 free_head;			/* slot index + 1, 0: none */
	u32 slots_used;			/* slots above this were never handed out */
	struct kl_slot slots[KL_MAX_TASKS];
	u32 stopping;
	u32 recheck;			/* kl_set_recheck */
	u32 no_slices;			/* kl_set_slices(false) */
	u32 gone;			/* vCPUs that have left kl_run */
};

static struct kl_sandbox *kl(void)
{
	BUILD_BUG_ON(KL_MAX_TASKS > (1 << KL_TID_SLOT_BITS));
	return vostd_global(VOSTD_SLOT_SCHED_STATE, sizeof(struct kl_sandbox));
}

struct kl_cpu *kl_this_cpu(void)
{
	return &kl()->cpus[vostd_cpu_id()];
}

kl_tid_t kl_self(void)
{
	struct kl_task *t = kl_this_cpu()->curr;

	return t ? t->tid : 0;
}

const char *kl_self_name(void)
{
	struct kl_task *t = kl_this_cpu()->curr;

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

/* A free slot's index, or -1 if the table is full.  Upcalls masked. */
static int kl_slot_take(struct kl_sandbox *k)
{
	int idx = -1;

	vostd_spin_lock(&k->table_lock);
	if (k->free_head) {
		idx = k->free_head - 1;
		k->free_head = k->slots[idx].next_free;
	} else if (k->slots_used < KL_MAX_TASKS) {
		idx = k->slots_used++;
	}
	vostd_spin_unlock(&k->table_lock);
	return idx;
}

/* Back on the free list; it left its task under the vCPU's lock before. */
static void kl_slot_give(struct kl_sandbox *k, unsigned int idx)
{
	vostd_spin_lock(&k->table_lock);
	k->slots[idx].next_free = k->free_head;
	k->free_head = idx + 1;
	vostd_spin_unlock(&k->table_lock);
}

/* t's id names nothing from now on.  Its vCPU's lock held. */
static void kl_slot_retire(struct kl_sandbox *k, struct kl_task *t)
{
	struct kl_slot *s = &k->slots[kl_tid_slot(t->tid)];

	WRITE_ONCE(s->task, NULL);
	WRITE_ONCE(s->gen, s->gen == KL_TID_GEN_MAX ? 1 : s->gen + 1);
}

/*
 * The task tid names, with its vCPU's lock held (*cp), or NULL (no lock)
 * if it names none.  Upcalls masked.
 */
struct kl_task *kl_lock_task(kl_tid_t tid, struct kl_cpu **cp)
{
	struct kl_sandbox *k = kl();
	unsigned int idx = kl_tid_slot(tid);
	struct kl_slot *s;
	struct kl_cpu *c;
	struct kl_task *t;

	if (!tid || idx >= KL_MAX_TASKS)
		return NULL;
	s = &k->slots[idx];
	/* Read unlocked: only under that vCPU's lock is it known to be right. */
	c = &k->cpus[READ_ONCE(s->vcpu) % EV_MAX_VCPUS];
	vostd_spin_lock(&c->lock);
	t = s->task;
	if (t && s->gen == tid >> KL_TID_SLOT_BITS && &k->cpus[t->vcpu] == c) {
		*cp = c;
		return t;
	}
	vostd_spin_unlock(&c->lock);
	return NULL;
}

/*
 * A switch on c from prev (NULL: the idle loop) to c->curr: prev's run
 * ends and the next begins.  now is the cycle counter, 0 if not yet read.
 * c's lock held.  Only tasks that count their run time make the switch
 * read the clock: under emulation a read costs more than the rest of a
 * plain switch between two of the kernelet's own tasks.
 */
static void kl_account_locked(struct kl_cpu *c, struct kl_task *prev, u64 now)
{
	struct kl_task *next = c->curr;

	if (!(prev && prev->counted) && !(next && next->counted))
		return;
	now = now ?: vostd_cycles();
	if (prev && prev->counted && now > c->curr_since)
		prev->run_cycles += now - c->curr_since;
	c->curr_since = now;
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
	u64 now = 0;

	vostd_spin_lock(&c->lock);
	prev = c->curr;
	/* The clock is read only for times: a plain switch reads none. */
	if (c->timers || (prev && prev->wake_at))
		now = vostd_cycles();
	if (c->timers)
		kl_timers_expire_locked(c, now);
	if (prev) {
		if (prev_state == KL_BLOCKED &&
		    (prev->wake_token || (prev->wake_at && prev->wake_at <= now))) {
			/*
			 * A wake, or its time, beat the block: the task goes on
			 * running, unless the note says a task it must yield to
			 * is queued.
			 */
			prev->wake_token = false;
			prev->wake_at = 0;
			prev_state = c->need_resched ? KL_READY : KL_RUNNING;
		} else if (prev_state == KL_BLOCKED && prev->wake_at) {
			kl_timer_add_locked(c, prev);
		}
		prev->state = prev_state;
		if (prev_state == KL_READY) {
			kl_enqueue(c, prev);
		} else if (prev_state == KL_DEAD) {
			prev->next = c->zombies;
			c->zombies = prev;
		}
	}
	if (prev && prev_state == KL_RUNNING) {
		next = prev;
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
	if (next != prev) {
		kl_slice_switch_locked(c);
		kl_account_locked(c, prev, now);
	}
	vostd_spin_unlock(&c->lock);
	if (next == prev)
		return;
	c->stats.switches++;
	save = prev ? &prev->sp : &c->idle_sp;
	vostd_switch(save, next ? &next->sp : &c->idle_sp);
}

/*
 * The injected upcall: a kick was taken on this vCPU, a wake's or the
 * timer's (timer.c), which the scheduler tells apart by looking at its
 * note, its sleepers' times and the running task's slice.
 */
static void kl_upcall(void)
{
	struct kl_cpu *c = kl_this_cpu();
	u64 now = vostd_cycles();

	c->stats.upcalls++;
	WRITE_ONCE(c->stats.last_upcall, now);
	if (vostd_upcall_depth() != 1 || !c->curr) {
		/* A guard holds, or this is the idle loop: it looks by itself. */
		return;
	}
	vostd_spin_lock(&c->lock);
	kl_timers_expire_locked(c, now);
	kl_slice_check_locked(c, now);
	kl_timer_arm_locked(c);
	vostd_spin_unlock(&c->lock);
	if (!READ_ONCE(c->need_resched) && !READ_ONCE(kl()->stopping)) {
		/* The reschedule window: the note was taken before the kick landed. */
		c->stats.upcall_spurious++;
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

/*
 * Make t, which is blocked or new, ready on its vCPU c, whose lock is held.
 * On this vCPU (me), a task of higher priority than the current one runs
 * at once.  On another, the note is left and the vCPU is kicked, unless it
 * is in its idle loop and not asleep (no current task): then it finds the
 * task by itself before it can sleep, since it looks at its queue under
 * the lock this wake holds, and a kick would only come back as an upcall
 * with nothing to do.
 */
enum kl_after kl_ready_locked(struct kl_cpu *c, struct kl_cpu *me, struct kl_task *t)
{
	bool preempt;

	if (t->wake_at)
		kl_timer_del_locked(c, t);
	t->state = KL_READY;
	kl_enqueue(c, t);
	kl_timer_arm_locked(c);	/* a slice, if t must share the vCPU */
	preempt = !c->curr || t->prio > c->curr->prio;
	if (preempt)
		WRITE_ONCE(c->need_resched, 1);
	if (c != me) {
		if (c->sleeping || (preempt && c->curr))
			return KL_AFTER_KICK;
		if (preempt)
			me->stats.kicks_saved++;
		return KL_AFTER_NOTHING;
	}
	return preempt && c->curr ? KL_AFTER_PREEMPT : KL_AFTER_NOTHING;
}

/*
 * After the lock is dropped.  With the recheck on, a kick is not sent if
 * the note is gone by now: only the target's kl_schedule clears it, and
 * that, under the lock this wake held, saw the woken task in its queue.
 */
static void kl_after_wake(struct kl_cpu *c, struct kl_cpu *me,
			  unsigned int vcpu, enum kl_after what)
{
	if (what == KL_AFTER_KICK) {
		if (READ_ONCE(kl()->recheck) && !READ_ONCE(c->need_resched)) {
			me->stats.kicks_rechecked++;
			return;
		}
		me->stats.kicks_sent++;
		vostd_kick(vcpu);
	} else if (what == KL_AFTER_PREEMPT && vostd_upcall_depth() == 1) {
		kl_schedule(me, KL_READY);
	}
}

kl_tid_t kl_spawn(const char *name, void (*fn)(void *), void *arg,
		  enum kl_prio prio, unsigned int vcpu)
{
	struct kl_sandbox *k = kl();
	struct kl_cpu *c, *me;
	struct kl_task *t;
	enum kl_after what = KL_AFTER_NOTHING;
	struct kl_slot *s;
	kl_tid_t tid = 0;
	int idx;

	if (!k || vcpu >= vostd_nr_cpus() || prio >= KL_NR_PRIOS)
		return 0;
	c = &k->cpus[vcpu];
	t = vostd_alloc(sizeof(*t), true);
	if (!t)
		return 0;
	/* The vCPU's shared page is its own; only the kernelet on it knows it yet. */
	t->stack = vostd_stack_alloc(NULL, t);
	if (!t->stack) {
		vostd_free(t);
		return 0;
	}
	t->name = name;
	t->prio = prio;
	t->vcpu = vcpu;
	t->sp = vostd_stack_frame(t->stack, fn, arg);
	t->state = KL_BLOCKED;
	vostd_upcall_disable();
	me = kl_this_cpu();
	idx = kl_slot_take(k);
	if (idx >= 0) {
		s = &k->slots[idx];
		vostd_spin_lock(&c->lock);
		if (!c->gone) {
			if (!s->gen)
				s->gen = 1;
			WRITE_ONCE(s->vcpu, vcpu);
			WRITE_ONCE(s->task, t);
			tid = s->gen << KL_TID_SLOT_BITS | idx;
			t->tid = tid;
			what = kl_ready_locked(c, me, t);
		}
		vostd_spin_unlock(&c->lock);
		if (tid)
			kl_after_wake(c, me, vcpu, what);
		else
			kl_slot_give(k, idx);
	}
	vostd_upcall_enable();
	if (!tid) {
		vostd_stack_free(t->stack);
		vostd_free(t);
	}
	return tid;
}

/*
 * The running task gives up its vCPU and becomes state (ready or blocked):
 * only at the scheduler's own upcall depth, one.  Inside a guard it is
 * refused and counted.
 */
static void kl_relinquish(enum kl_state state, u64 until)
{
	struct kl_cpu *c;

	vostd_upcall_disable();
	c = kl_this_cpu();
	if (vostd_upcall_depth() != 1) {
		c->stats.refused++;
	} else {
		/* Its own field: a wake reads it only once the task is blocked. */
		if (c->curr)
			c->curr->wake_at = until;
		kl_schedule(c, state);
	}
	vostd_upcall_enable();
}

void kl_yield(void)
{
	kl_relinquish(KL_READY, 0);
}

void kl_block(void)
{
	kl_relinquish(KL_BLOCKED, 0);
}

void kl_block_until(u64 at)
{
	kl_relinquish(KL_BLOCKED, at);
}

int kl_wake(kl_tid_t tid)
{
	enum kl_after what = KL_AFTER_NOTHING;
	struct kl_cpu *me, *c;
	struct kl_task *t;
	unsigned int vcpu;
	int ret = 0;

	vostd_upcall_disable();
	me = kl_this_cpu();
	t = kl_lock_task(tid, &c);
	if (!t) {
		vostd_upcall_enable();
		return -ESRCH;
	}
	vcpu = t->vcpu;
	if (t->state == KL_BLOCKED)
		what = kl_ready_locked(c, me, t);
	else if (t->state == KL_RUNNING || t->state == KL_READY)
		t->wake_token = true;
	else
		ret = -ESRCH;		/* dead, not yet freed */
	vostd_spin_unlock(&c->lock);
	kl_after_wake(c, me, vcpu, what);
	vostd_upcall_enable();
	return ret;
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

/* Free a list of tasks, linked by next, none of them running. */
static void kl_free_tasks(struct kl_sandbox *k, struct kl_task *t)
{
	while (t) {
		struct kl_task *next = t->next;

		kl_slot_give(k, kl_tid_slot(t->tid));
		vostd_stack_free(t->stack);
		vostd_free(t);
		t = next;
	}
}

static void kl_reap(struct kl_cpu *c)
{
	struct kl_sandbox *k = kl();
	struct kl_task *z;

	vostd_spin_lock(&c->lock);
	for (z = c->zombies; z; z = z->next)
		kl_slot_retire(k, z);
	z = c->zombies;
	c->zombies = NULL;
	vostd_spin_unlock(&c->lock);
	kl_free_tasks(k, z);
}

/*
 * The vCPU leaves kl_run, on its boot stack: every task of its own, ended
 * or not, is freed, and no task can be spawned for it any more.  A wake
 * from another vCPU for one of them finds its id retired.
 */
static void kl_drain(struct kl_cpu *c)
{
	struct kl_sandbox *k = kl();
	struct kl_task *list = NULL;
	unsigned int i;

	vostd_spin_lock(&c->lock);
	c->gone = 1;
	/* A spawn for this vCPU took its slot before the lock it held. */
	for (i = 0; i < READ_ONCE(k->slots_used); i++) {
		struct kl_task *t = k->slots[i].task;

		if (t && &k->cpus[t->vcpu] == c) {
			kl_slot_retire(k, t);
			t->next = list;
			list = t;
		}
	}
	c->zombies = NULL;
	c->timers = NULL;
	if (c->shared)
		WRITE_ONCE(c->shared->timer_at, 0);
	for (i = 0; i < KL_NR_PRIOS; i++)
		c->rq[i] = (struct kl_queue){};
	vostd_spin_unlock(&c->lock);
	kl_free_tasks(k, list);
}

/*
 * The idle loop, on the vCPU's boot stack, always masked: it runs tasks
 * while there are any, and otherwise sleeps in vcpu_idle.  'sleeping' is
 * set under the lock after the queue is seen empty, so a wake either sees
 * it and kicks, or enqueues before the check.
 */
long kl_run(void)
{
	struct kl_sandbox *k = kl();
	struct kl_cpu *c;
	bool empty;
	u64 t0;
	long ret;

	if (!k)
		return -ENOMEM;
	c = kl_this_cpu();
	vostd_inject_scheduler(&kl_ops);
	vostd_upcall_disable();
	kl_slice_init(c);
	c->shared = vostd_vcpu();
	while (!READ_ONCE(k->stopping)) {
		kl_schedule(c, KL_READY);
		/* Back on the boot stack: the dead are off theirs. */
		kl_reap(c);
		if (READ_ONCE(k->stopping))
			break;
		vostd_spin_lock(&c->lock);
		empty = kl_queue_empty(c);
		if (empty) {
			c->sleeping = 1;
			kl_timer_arm_locked(c);	/* no slice: idle until a sleeper's time */
		}
		vostd_spin_unlock(&c->lock);
		if (!empty)
			continue;
		WRITE_ONCE(c->stats.idles, c->stats.idles + 1);
		t0 = vostd_cycles();
		ret = vostd_idle();
		WRITE_ONCE(c->stats.idle_last, vostd_cycles() - t0);
		if (!ret)	/* 0: a kick, or a park (endovisor/park.c) */
			WRITE_ONCE(c->stats.idle_wakes, c->stats.idle_wakes + 1);
		WRITE_ONCE(c->stats.idles_done, c->stats.idles_done + 1);
		vostd_spin_lock(&c->lock);
		c->sleeping = 0;
		vostd_spin_unlock(&c->lock);
		__atomic_store_n(&c->shared->kick_pending, 0, __ATOMIC_RELEASE);
	}
	kl_drain(c);
	/* The last vCPU out frees the state; nobody touches it after. */
	if (__atomic_add_fetch(&k->gone, 1, __ATOMIC_ACQ_REL) == vostd_nr_cpus()) {
		vostd_inject_scheduler(NULL);
		vostd_global_release(VOSTD_SLOT_SCHED_STATE);
	}
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
	if (kl_this_cpu()->curr)
		kl_yield();
}

void kl_set_recheck(bool on)
{
	WRITE_ONCE(kl()->recheck, on);
}

void kl_set_slices(bool on)
{
	WRITE_ONCE(kl()->no_slices, !on);
}

bool kl_slices_on(void)
{
	return !READ_ONCE(kl()->no_slices);
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
