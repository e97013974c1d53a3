// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and threads.
 *
 * A thread is a kernelet task on one vCPU.  Its loop is the kernel
 * proper's whole contact with the tenant: put the carrier in the thread's
 * address space (kernelet_switch_mm) and FPU registers (vostd_fpu_switch),
 * run the tenant until it traps (vostd_user_run), and handle the trap: a
 * system call (syscall.c), a page fault (memory.c), a kick (the kernelet
 * took it on the way out of the crossing), or an exception, which kills
 * the process.  Linux sees none of this: only the carrier, in a system
 * call of the launcher's, switching address spaces now and then.
 *
 * The table (procs) holds every process until it is reaped, by its parent's
 * wait, or by the kernel's own proc_wait for the processes it started; an
 * orphan leaves it when it exits.  A process is counted (proc_get,
 * proc_put): the table holds one reference, and so does whoever keeps a
 * process found in the table after dropping the table's lock, so that a
 * reap meanwhile unlinks it but does not free it.  A kill marks the
 * process; each of its threads leaves at its next trap, and the kick makes
 * sure that comes.
 */
#include "proc.h"

void procs_lock(void)
{
	kl_spin_lock(&procs()->lock);
}

void procs_unlock(void)
{
	kl_spin_unlock(&procs()->lock);
}

/* A process with an empty address space, in the table. */
struct proc *proc_new(struct proc *parent)
{
	struct procs *ps = procs();
	struct proc *p = vostd_alloc(sizeof(*p), true);

	if (!p)
		return NULL;
	p->vs = vostd_vmspace_new();
	if (!p->vs) {
		vostd_free(p);
		return NULL;
	}
	p->refs = 1;		/* the table's, dropped by whoever unlinks it */
	p->mmap_next = EV_TENANT_BASE + 0x100000000UL;
	p->parent = parent;
	p->name = parent ? parent->name : "?";
	procs_lock();
	p->pid = ++ps->next_id;
	p->next = ps->list;
	ps->list = p;
	ps->live_procs++;
	procs_unlock();
	return p;
}

/*
 * Another reference to p.  The caller holds one already, or the table's
 * lock with p in the table.
 */
void proc_get(struct proc *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

/* The last reference frees p: its memory and threads went before, at its exit. */
void proc_put(struct proc *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (procs()->free_hook)
		procs()->free_hook(p);
	vostd_free(p);
}

/*
 * p's parent's pid, 0 for an orphan.  Under the table's lock: a parent
 * that exits lets go of its children under it, and may be freed after.
 */
long proc_ppid(struct proc *p)
{
	long ppid;

	procs_lock();
	ppid = p->parent ? p->parent->pid : 0;
	procs_unlock();
	return ppid;
}

static void proc_unlink(struct proc *p)
{
	struct proc **pp;

	for (pp = &procs()->list; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	procs()->live_procs--;
}

/* A process that never ran a thread: gone at once. */
void proc_abandon(struct proc *p)
{
	mem_release(p);
	procs_lock();
	proc_unlink(p);
	procs_unlock();
	proc_put(p);
}

/*
 * The last thread has left.  The carrier gives up the space first, so the
 * endovisor can let its mm go now rather than at the carrier's next switch.
 */
static void proc_exit(struct proc *p, long code)
{
	struct procs *ps = procs();
	kl_tid_t reaper;
	struct proc *c, *zombies = NULL;
	bool orphan, autoreap = false;
	int kick = -1;

	kernelet_switch_mm(NULL);
	mem_release(p);
	if (ps->exit_hook)
		ps->exit_hook(p);
	procs_lock();
	p->exited = true;
	p->code = p->killed ? p->code : code;
	/* The parent learns of it now that a wait finds it (linux's SIGCHLD). */
	if (p->parent && ps->exited_hook)
		kick = ps->exited_hook(p, &autoreap);
	if (autoreap)
		p->parent = NULL;	/* no wait is to find it: it goes as an orphan */
	/* Its children are orphans now; the ones already dead go with it. */
	for (c = procs()->list; c; c = c->next)
		if (c->parent == p) {
			c->parent = NULL;
			c->reaper = 0;
		}
	for (c = procs()->list; c;) {
		struct proc *next = c->next;

		if (c->exited && !c->parent && !c->kernel_waits && c != p) {
			proc_unlink(c);
			c->next = zombies;
			zombies = c;
		}
		c = next;
	}
	orphan = !p->parent && !p->kernel_waits;
	if (orphan)
		proc_unlink(p);
	reaper = p->reaper;
	procs_unlock();
	if (kick >= 0)
		vostd_kick(kick);
	while (zombies) {
		c = zombies;
		zombies = c->next;
		proc_put(c);
	}
	if (orphan)
		proc_put(p);
	/* A wait for p looks again: at its other children, or finds none. */
	if (reaper)
		kl_wake(reaper);
}

/*
 * t's FPU context goes.  The carrier may hold it loaded: it forgets it
 * first, so that a later context at the same address is not taken for it.
 */
static void thread_drop_fpu(struct thread *t)
{
	struct procs *ps = procs();

	if (ps->loaded[t->vcpu] == t->fpu)
		ps->loaded[t->vcpu] = NULL;
	if (vostd_fpu_destroy(t->fpu))
		vostd_fail("fpu_destroy", "thread %ld: its FPU context would not go", t->tid);
}

/* t's FPU registers are fpu's from now on (an exec's fresh ones), on t's own vCPU. */
void thread_set_fpu(struct thread *t, struct vostd_fpu *fpu)
{
	thread_drop_fpu(t);
	t->fpu = fpu;
}

static void thread_exit(struct thread *t)
{
	struct procs *ps = procs();
	struct proc *p = t->p;
	bool last;

	thread_drop_fpu(t);
	procs_lock();
	thread_cpu_leave_locked(t);
	procs_unlock();
	if (ps->thread_exit_hook)
		ps->thread_exit_hook(t);
	proc_lock(p);
	last = --p->threads == 0;
	proc_unlock(p);
	procs_lock();
	ps->live_threads--;
	procs_unlock();
	if (last)
		proc_exit(p, t->code);
	vostd_free(t);
}

/*
 * Every thread of p leaves at its next trap, its threads asleep in wait
 * for one of p's children are woken, and so are those asleep elsewhere in
 * the kernel (end_hook).  Returns false if p was ended already: only the
 * first end counts, whether a kill, a fault or exit_group.  p is used after
 * the table's lock drops: the caller is a thread of p, or holds a
 * reference (proc_get).
 */
static bool proc_end(struct proc *p, long code, bool group_exit)
{
	struct procs *ps = procs();
	struct proc *c;
	unsigned int i;

	/* The code is set with the mark, so a last thread that sees one sees both. */
	procs_lock();
	if (p->killed) {
		procs_unlock();
		return false;
	}
	p->code = code;
	p->group_exit = group_exit;
	__atomic_store_n(&p->killed, 1, __ATOMIC_RELEASE);
	for (c = ps->list; c; c = c->next)
		if (c->parent == p && c->reaper)
			kl_wake(c->reaper);
	procs_unlock();
	/* Its threads asleep in the kernel's own waits see the mark now. */
	if (ps->end_hook)
		ps->end_hook(p);
	for (i = 0; i < vostd_nr_cpus(); i++)
		if (i != vostd_cpu_id())
			vostd_kick(i);
	return true;
}

/*
 * Kill p: it ends with code, for the reason logged.  Only the first kill
 * counts.  Its threads on other vCPUs are kicked out of user mode; one
 * asleep in wait is woken.
 */
void proc_kill(struct proc *p, long code, const char *fmt, ...)
{
	char why[120];
	va_list ap;

	va_start(ap, fmt);
	vostd_vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (proc_end(p, code, false))
		vostd_println("proc: killed pid %ld (%s): %s", p->pid, p->name, why);
}

/*
 * p ends as one of its threads asked (Linux's exit_group): every thread
 * leaves, and p's status is the exit code, not a kill's.
 */
void proc_exit_group(struct proc *p, long code)
{
	proc_end(p, code, true);
}

/*
 * The carrier becomes t's: its address space, then its registers.  The
 * parts of a timed trip end where each switch does.
 */
static void thread_enter(struct thread *t)
{
	struct procs *ps = procs();
	struct trip *tr = &t->trip;

	trip_arrive(t);
	trip_mark(tr, PART_KERNEL);
	trip_mark(tr, kernelet_switch_mm(t->p->vs) ? PART_SWITCH_MM : PART_KERNEL);
	if (ps->loaded[t->vcpu] != t->fpu) {
		if (vostd_fpu_switch(t->fpu)) {
			proc_kill(t->p, 128 + 6, "its FPU registers could not be loaded");
			return;
		}
		trip_mark(tr, PART_FPU_SWITCH);
		ps->loaded[t->vcpu] = t->fpu;
	}
	ps->runs[t->vcpu]++;
}

static const char *signal_name(u32 sig)
{
	switch (sig) {
	case 4: return "SIGILL";
	case 5: return "SIGTRAP";
	case 7: return "SIGBUS";
	case 8: return "SIGFPE";
	case 11: return "SIGSEGV";
	}
	return "a signal";
}

#define SEGV_MAPERR	1	/* Linux's si_code: nothing mapped there */
#define SEGV_ACCERR	2	/* not allowed there */

/* A handler takes the trap's signal (the kernel's trap_hook), or the process is killed. */
static bool trap_signal(struct thread *t, u32 sig, int code, unsigned long addr)
{
	return procs()->trap_hook && procs()->trap_hook(t, sig, code, addr);
}

/*
 * A page fault: mem_fault resolves it, or a handler takes its SIGSEGV, or
 * the process dies of it.  No memory to resolve it is the OOM killer's
 * SIGKILL, not a SIGSEGV.
 */
static void fault_trap(struct thread *t)
{
	const char *how = t->ctx.fault_write ? "write" : "read";
	long err = mem_fault(t, t->ctx.fault_addr, t->ctx.fault_write);

	if (!err)
		return;
	if (err == -ENOMEM || err == -ENOSPC) {
		proc_kill(t->p, 128 + 9, "%s of %llx at %llx: no memory to resolve it", how,
			  t->ctx.fault_addr, t->ctx.rip);
		return;
	}
	if (err != -ELOOP &&
	    trap_signal(t, 11, err == -EACCES ? SEGV_ACCERR : SEGV_MAPERR, t->ctx.fault_addr))
		return;
	proc_kill(t->p, 128 + 11, "%s of %llx at %llx: %s", how, t->ctx.fault_addr, t->ctx.rip,
		  err == -EFAULT ? "nothing mapped there" :
		  err == -EACCES ? "the page is read-only" :
		  err == -ELOOP ? "the fault keeps coming back" :
		  "the endovisor would not map it");
}

static void thread_main(void *arg)
{
	struct procs *ps = procs();
	struct thread *t = arg;
	struct proc *p = t->p;
	struct ev_stamp now;
	long trap;
	u64 t0;

	thread_cpu_begin(t);
	while (!t->exiting && !READ_ONCE(p->killed)) {
		thread_enter(t);
		if (ps->user_hook)
			ps->user_hook(t);
		/*
		 * The last look and the entry are one against kicks: a kick
		 * taken as an upcall between them would leave a signal sent
		 * meanwhile to wait for the tenant's next trap, which may never
		 * come.  With upcalls masked a kick stays pending, and tenant_run
		 * returns at once with EV_TRAP_KICK.
		 */
		kl_guard_begin();
		if (READ_ONCE(p->killed) || READ_ONCE(t->sig.wake)) {
			kl_guard_end();
			continue;
		}
		trip_mark(&t->trip, PART_KERNEL);
		t0 = thread_user_begin(t);
		trap = vostd_user_run(p->vs, &t->ctx, EV_STAMPS);
		now = thread_user_end(t, t0);
		kl_guard_end();
		if (trap != EV_TRAP_SYSCALL)
			t->trip.set = 0;	/* a trip is of system calls alone */
		switch (trap) {
		case EV_TRAP_SYSCALL:
			syscall_dispatch(t, now);
			break;
		case EV_TRAP_FAULT:
			fault_trap(t);
			break;
		case EV_TRAP_KICK:
			break;
		case EV_TRAP_EXCEPTION:
			if (trap_signal(t, t->ctx.signal, t->ctx.signal_code, t->ctx.fault_addr))
				break;
			proc_kill(p, 128 + t->ctx.signal, "%s at %llx (address %llx)",
				  signal_name(t->ctx.signal), t->ctx.rip, t->ctx.fault_addr);
			break;
		default:
			proc_kill(p, 128 + 6, "tenant_run failed: %ld", trap);
		}
	}
	thread_exit(t);
}

/*
 * A thread of p with registers ctx and a copy of from's FPU registers (NULL:
 * the initial ones), for vCPU vcpu, not yet running: thread_start runs it.
 * A process's first thread takes the pid as its id, as in Linux.
 */
struct thread *thread_new(struct proc *p, const struct ev_tenant_ctx *ctx,
			  struct vostd_fpu *from, unsigned int vcpu)
{
	struct procs *ps = procs();
	struct thread *t = vostd_alloc(sizeof(*t), true);
	bool first;

	if (!t)
		return NULL;
	t->fpu = vostd_fpu_new(from);
	if (!t->fpu) {
		vostd_free(t);
		return NULL;
	}
	t->p = p;
	t->vcpu = vcpu;
	t->ctx = *ctx;
	proc_lock(p);
	first = p->threads++ == 0;
	proc_unlock(p);
	procs_lock();
	t->tid = first ? p->pid : ++ps->next_id;
	ps->live_threads++;
	procs_unlock();
	return t;
}

/*
 * Run t, made by thread_new: its id, or -ENOMEM, and t has not run: the
 * caller discards it.
 */
long thread_start(struct thread *t)
{
	long tid = t->tid;

	if (kl_spawn("thread", thread_main, t, KL_PRIO_NORMAL, t->vcpu))
		return tid;		/* t may have run and ended by now */
	return -ENOMEM;
}

/* t, made by thread_new, will never run: it goes, as if it had not been. */
void thread_discard(struct thread *t)
{
	struct procs *ps = procs();
	struct proc *p = t->p;

	proc_lock(p);
	p->threads--;
	proc_unlock(p);
	procs_lock();
	ps->live_threads--;
	procs_unlock();
	vostd_fpu_destroy(t->fpu);
	vostd_free(t);
}

/* thread_new and thread_start: the new thread's id, or -errno. */
long thread_create(struct proc *p, const struct ev_tenant_ctx *ctx,
		   struct vostd_fpu *from, unsigned int vcpu)
{
	struct thread *t = thread_new(p, ctx, from, vcpu);
	long ret = t ? thread_start(t) : -ENOMEM;

	if (t && ret < 0)
		thread_discard(t);
	return ret;
}

/* Start the tenant image name as a process of the kernel's own, on vCPU 0. */
struct proc *proc_spawn(const char *name)
{
	struct ev_tenant_ctx ctx = {};
	unsigned long size, entry;
	const char *image = tenant_image(name, &size);
	struct proc *p;
	long err;

	if (!image) {
		vostd_println("proc: no tenant image '%s'", name);
		return NULL;
	}
	p = proc_new(NULL);
	if (!p)
		return NULL;
	p->name = name;
	p->kernel_waits = true;
	err = mem_load(p, image, size, &entry) ?: mem_stack(p);
	if (!err) {
		ctx.rip = entry;
		ctx.rsp = TENANT_STACK_TOP;
		err = thread_create(p, &ctx, NULL, 0);
	}
	if (err < 0) {
		vostd_println("proc: cannot start '%s': %ld", name, err);
		proc_abandon(p);
		return NULL;
	}
	return p;
}

/*
 * Wait for c to exit, then reap it: its exit code.  The caller holds a
 * reference to c, which keeps it across the sleep.
 */
static long reap(struct proc *c, struct proc *waiter)
{
	long code;

	for (;;) {
		procs_lock();
		if (c->exited && waiter && c->parent != waiter) {
			/*
			 * Reaped as it exited (exited_hook's autoreap): the
			 * table let it go then, and only our reference keeps it.
			 */
			procs_unlock();
			return -ECHILD;
		}
		if (c->exited) {
			code = c->code;
			proc_unlink(c);
			procs_unlock();
			proc_put(c);	/* the table's */
			return code;
		}
		if (waiter && READ_ONCE(waiter->killed)) {
			/* c stays a child, reaped by nobody: it goes as an orphan. */
			c->reaper = 0;
			procs_unlock();
			return -EINTR;
		}
		c->reaper = kl_self();
		procs_unlock();
		kl_block();
	}
}

/* p is the kernel's own (kernel_waits): only this reaps it, so the table's reference is ours. */
long proc_wait(struct proc *p)
{
	return reap(p, NULL);
}

/* wait(pid): a child of parent's; -ECHILD for any other, or one already waited for. */
long proc_wait_child(struct proc *parent, long pid)
{
	struct proc *c;
	long code;

	procs_lock();
	for (c = procs()->list; c; c = c->next)
		if (c->pid == pid && c->parent == parent && !c->reaper)
			break;
	if (c) {
		c->reaper = kl_self();
		proc_get(c);
	}
	procs_unlock();
	if (!c)
		return -ECHILD;
	code = reap(c, parent);
	proc_put(c);
	return code;
}

/*
 * p has a status for its parent's wait to take without reaping it, of
 * kind (a stop, a continue), the table's lock held: it replaces any not
 * yet taken, as Linux's last stop or continue does, and wakes the wait.
 */
void proc_report_locked(struct proc *p, u32 kind, u32 status)
{
	p->report = status;
	p->report_kind = kind;
	if (p->reaper)
		kl_wake(p->reaper);
}

/*
 * Linux's wait, by thread t: a child of t's process that has exited
 * (pid > 0: that one), reaped, its pid returned and its code and whether
 * it was killed in *code and *killed, and its CPU time, its reaped
 * children's included, in *cpu, which is added to t's process's
 * children's (Linux's cutime and cstime); or one with a report of a kind in
 * kinds, which the wait takes, its status in *report, and leaves the
 * child be.  *report is 0 unless it was a report.  0 if there is neither
 * and !block; -ECHILD if there is no such child; -ERESTARTSYS if a signal
 * or a kill ends the wait (thread_interrupted).  Every child it waits for
 * names this thread its reaper, so that the first to exit or report
 * wakes it.
 */
long proc_wait_any(struct thread *t, long pid, bool block, u32 kinds, long *code, bool *killed,
		   u32 *report, struct proc_cpu *cpu)
{
	struct proc *parent = t->p;

	*report = 0;
	*cpu = (struct proc_cpu){};
	for (;;) {
		struct proc *c, *found = NULL;
		bool any = false;

		procs_lock();
		for (c = procs()->list; c; c = c->next) {
			if (c->parent != parent || (pid > 0 && c->pid != pid))
				continue;
			any = true;
			if (c->exited) {
				found = c;
				break;
			}
			/* A kill voids a stop: the wait is for its end. */
			if ((c->report_kind & kinds) && !READ_ONCE(c->killed)) {
				*report = c->report;
				c->report_kind = 0;
				pid = c->pid;
				procs_unlock();
				return pid;
			}
		}
		if (found) {
			/* Its threads have all left: its time and its children's are final. */
			cpu->run = found->cpu_gone.run + found->cpu_children.run;
			cpu->user = found->cpu_gone.user + found->cpu_children.user;
			parent->cpu_children.run += cpu->run;
			parent->cpu_children.user += cpu->user;
			proc_unlink(found);
			procs_unlock();
			pid = found->pid;
			*code = found->code;
			*killed = found->killed && !found->group_exit;
			proc_put(found);	/* the table's */
			return pid;
		}
		if (!any || !block || thread_interrupted(t)) {
			procs_unlock();
			return !any ? -ECHILD : block ? -ERESTARTSYS : 0;
		}
		for (c = procs()->list; c; c = c->next)
			if (c->parent == parent && (pid <= 0 || c->pid == pid))
				c->reaper = kl_self();
		procs_unlock();
		kl_block();
	}
}
