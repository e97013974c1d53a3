// SPDX-License-Identifier: GPL-2.0
/*
 * The system calls of proc's tenants (tenants/abi.h).  The hook on entry is
 * the trap vostd_user_run returns; the hook on exit is the next
 * vostd_user_run, which goes back to the instruction after the tenant's
 * syscall with the result in %rax.
 */
#include "proc.h"

#define WRITE_MAX	200

/* write(buf, len): one line to the sandbox's log, marked with the pid. */
static long sys_write(struct thread *t, unsigned long buf, unsigned long len)
{
	char line[WRITE_MAX + 1];
	unsigned long i;

	if (len > WRITE_MAX)
		len = WRITE_MAX;
	if (vostd_copy_from_user(t->p->vs, line, buf, len))
		return -EFAULT;
	/* The log is read by people and by mkbook: nothing unprintable. */
	for (i = 0; i < len; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			line[i] = '?';
	line[len] = 0;
	/* A tenant's own figures go out as they are, for mkbook to read. */
	if (len > 6 && vostd_has_prefix(line, EV_FIG_WORD " "))
		vostd_println("%s", line);
	else
		vostd_println("[pid %ld] %s", t->p->pid, line);
	return len;
}

/*
 * yield(): to the next thread of this vCPU; 1 if none ran meanwhile.  A
 * timed trip goes with the vCPU to whichever thread runs next.
 */
static long sys_yield(struct thread *t)
{
	struct procs *ps = procs();
	unsigned int v = t->vcpu;
	u64 runs = ps->runs[v];

	if (t->trip.set) {
		trip_mark(&t->trip, PART_KERNEL);
		ps->yielding[v] = t->trip;
		t->trip.set = 0;
	}
	kl_yield();
	trip_arrive(t);
	return ps->runs[v] == runs;
}

static long sys_fork(struct thread *t)
{
	struct proc *child = proc_new(t->p);
	struct ev_tenant_ctx ctx = t->ctx;
	long err;

	if (!child)
		return -ENOMEM;
	err = mem_fork(t->p, child);
	if (!err) {
		ctx.rax = 0;
		/* The child's thread starts with the registers, FPU ones too, of this one. */
		err = thread_create(child, &ctx, t->fpu, t->vcpu);
	}
	if (err < 0) {
		proc_abandon(child);
		return err;
	}
	return child->pid;
}

static bool user_addr(unsigned long va)
{
	return va >= EV_TENANT_BASE && va - EV_TENANT_BASE < EV_TENANT_SIZE;
}

/* thread(entry, arg, stack, same_vcpu): a new thread of this process. */
static long sys_thread(struct thread *t, unsigned long entry, unsigned long arg,
		       unsigned long stack, unsigned long same_vcpu)
{
	struct ev_tenant_ctx ctx = { .rip = entry, .rsp = stack, .rdi = arg };
	struct procs *ps = procs();
	unsigned int vcpu = t->vcpu;

	if (!user_addr(entry) || !user_addr(stack))
		return -EFAULT;
	/* Spread from the next vCPU on, so that a second thread is not the first's neighbour. */
	if (!same_vcpu)
		vcpu = (t->vcpu + 1 + __atomic_fetch_add(&ps->next_vcpu, 1, __ATOMIC_RELAXED)) %
		       vostd_nr_cpus();
	return thread_create(t->p, &ctx, NULL, vcpu);
}

void syscall_dispatch(struct thread *t, struct ev_stamp entered)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct proc *p = t->p;
	long ret;

	trip_call(t, c->syscall_nr == SYS_YIELD || c->syscall_nr == SYS_NOP ?
		  TIMED_SET(c->rdx) : 0, entered);
	switch (c->syscall_nr) {
	case SYS_EXIT:
		t->exiting = true;
		t->code = c->rdi;
		return;
	case SYS_WRITE:
		ret = sys_write(t, c->rdi, c->rsi);
		break;
	case SYS_YIELD:
		ret = sys_yield(t);
		break;
	case SYS_GETPID:
		ret = p->pid;
		break;
	case SYS_MMAP:
		ret = mem_mmap(p, c->rdi, c->rsi);
		break;
	case SYS_MUNMAP:
		ret = mem_munmap(p, c->rdi, c->rsi);
		break;
	case SYS_FORK:
		ret = sys_fork(t);
		break;
	case SYS_WAIT:
		ret = proc_wait_child(p, c->rdi);
		break;
	case SYS_CLOCK:
		ret = vostd_cycles_to_ns(vostd_cycles() - procs()->start);
		break;
	case SYS_THREAD:
		ret = sys_thread(t, c->rdi, c->rsi, c->rdx, c->r10);
		break;
	case SYS_GETTID:
		ret = t->tid;
		break;
	case SYS_NOP:
		ret = trip_kept(TIMED_NOP);
		break;
	default:
		proc_kill(p, 128 + 31, "unknown system call %llu at %llx", c->syscall_nr, c->rip);
		return;
	}
	c->rax = ret;
}
