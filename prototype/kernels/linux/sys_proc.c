// SPDX-License-Identifier: GPL-2.0
/*
 * Process and thread calls: clone, fork and vfork (execve is exec.c's),
 * exit and exit_group, wait4, and a thread's own state (its id, its FS
 * base), on proc's processes and threads (kernels/proc/process.c).
 */
#include "syscalls.h"

#define CLONE_VM		0x00000100
#define CLONE_SIGHAND		0x00000800
#define CLONE_VFORK		0x00004000
#define CLONE_THREAD		0x00010000
#define CLONE_SETTLS		0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_CHILD_SETTID	0x01000000
#define ARCH_SET_GS		0x1001
#define ARCH_SET_FS		0x1002
#define ARCH_GET_FS		0x1003
#define WNOHANG			1
#define WUNTRACED		2
#define WCONTINUED		8

/*
 * An FS or GS base at or past the end of user space is refused with
 * -EPERM, by arch_prctl and by clone alike (Linux's do_arch_prctl_64,
 * which copy_thread calls for CLONE_SETTLS); the endovisor would refuse
 * to load it, and end the thread instead.
 */
#define LX_FS_MAX	LX_USER_END

/* Start c, listed in its process (lx_thread_add); on failure it never ran and is gone. */
static long lx_thread_start(struct thread *c)
{
	long err = thread_start(c);

	if (err < 0) {
		lx_thread_remove(c);
		thread_discard(c);
	}
	return err;
}

/* List c in its process and start it: its id, or -errno and it is gone. */
long lx_thread_run(struct thread *c)
{
	long err = lx_thread_add(c);

	if (err) {
		thread_discard(c);
		return err;
	}
	return lx_thread_start(c);
}

/*
 * clone with CLONE_THREAD: a thread of the caller's process, sharing its
 * memory, files and signal state, on the stack newsp and with the FS base
 * tls (glibc's thread pointer).  Its id goes to ptid before it runs; ctid
 * is zeroed and woken when it ends (CLONE_CHILD_CLEARTID), which is how
 * pthread_join waits.  Linux's rule: a thread shares the handlers, and
 * the handlers the memory.
 */
static long lx_thread(struct thread *t, unsigned long flags, unsigned long newsp,
		      unsigned long ptid, unsigned long ctid, unsigned long tls)
{
	const unsigned long need = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
	struct ev_tenant_ctx ctx = t->ctx;
	struct thread *c;
	long err;
	u32 tid;

	if ((flags & need) != need || (flags & CLONE_VFORK))
		return -EINVAL;
	if (READ_ONCE(t->p->threads) >= LX_THREADS_MAX)
		return -EAGAIN;
	/* After the limits, as Linux's copy_thread comes after its. */
	if ((flags & CLONE_SETTLS) && tls >= LX_FS_MAX)
		return -EPERM;
	ctx.rax = 0;
	if (newsp)
		ctx.rsp = newsp;
	if (flags & CLONE_SETTLS)
		ctx.fs_base = tls;
	c = thread_new(t->p, &ctx, t->fpu, t->vcpu);
	if (!c)
		return -ENOMEM;
	tid = c->tid;
	if (flags & CLONE_CHILD_CLEARTID)
		c->clear_tid = ctid;
	c->sig.mask = t->sig.mask;	/* as Linux's copy_process: the mask, not the pending */
	/*
	 * Before its id is told or it runs, as Linux attaches a pid first:
	 * its end (lx_thread_exit) takes it out again.  Two threads racing
	 * past the count above find the list full here.
	 */
	err = lx_thread_add(c);
	if (err) {
		thread_discard(c);
		return err;
	}
	/* As in Linux, a bad address here goes unreported. */
	if (flags & CLONE_PARENT_SETTID)
		put_user_bytes(t, ptid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_SETTID)
		put_user_bytes(t, ctid, &tid, sizeof(tid));
	return lx_thread_start(c);
}

/*
 * A fork's child's thread: the caller's registers but rax, its mask and
 * alternate stack (Linux's copy_process keeps both), no signal pending.
 */
static long lx_fork_thread(struct thread *t, struct proc *child, const struct ev_tenant_ctx *ctx)
{
	struct thread *c = thread_new(child, ctx, t->fpu, t->vcpu);

	if (!c)
		return -ENOMEM;
	c->sig.mask = t->sig.mask;
	c->altstack = t->altstack;
	return lx_thread_run(c);
}

/*
 * A vfork's child has run its exec or ended: its parent's thread, waiting
 * in vfork_wait, goes on.  Once only: the waiter's id is taken as it is
 * woken.
 */
void lx_vfork_done(struct proc *p)
{
	kl_tid_t tid = __atomic_exchange_n(&lxp(p)->vfork_waiter, 0, __ATOMIC_ACQ_REL);

	if (tid)
		kl_wake(tid);
}

/*
 * CLONE_VFORK: the calling thread waits until the child has run its exec
 * or ended, as Linux's wait_for_vfork_done, which only a fatal signal
 * cuts short.  The child is held by a reference meanwhile: another thread
 * of the parent may reap it.  A wake that comes before the block makes
 * the block return at once (kl_block), so none is lost.
 */
static void vfork_wait(struct thread *t, struct proc *child)
{
	lx_sleeping(t);		/* a kill finds it, and wakes it */
	while (READ_ONCE(lxp(child)->vfork_waiter) && !READ_ONCE(t->p->killed))
		kl_block();
	lx_awake(t);
	proc_put(child);
}

/*
 * fork, vfork, and clone without CLONE_VM: a child with a copy-on-write
 * copy of the memory, the descriptors and the signal state.  With
 * CLONE_VFORK (vfork, and glibc's posix_spawn) the caller waits for the
 * child's exec or end, as in Linux; CLONE_VM with it, which in Linux
 * lends the child the parent's memory meanwhile, gets a copy here, so a
 * write of the child's before its exec is not seen by the parent.
 */
static long lx_fork(struct thread *t, unsigned long flags, unsigned long newsp,
		    unsigned long ptid, unsigned long ctid, unsigned long tls)
{
	struct proc *p = t->p, *child;
	struct ev_tenant_ctx ctx = t->ctx;
	u32 pid;
	long err;

	if (flags & CLONE_THREAD)
		return lx_thread(t, flags, newsp, ptid, ctid, tls);
	/* Linux's copy_process: the handlers are shared only with the memory. */
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return -ENOSYS;		/* a process sharing its parent's memory: not here */
	if (READ_ONCE(procs()->live_procs) >= LX_PROCS_MAX) {
		vostd_println("linux: pid %ld: fork refused, %d processes live", p->pid,
			      LX_PROCS_MAX);
		return -EAGAIN;
	}
	if ((flags & CLONE_SETTLS) && tls >= LX_FS_MAX)
		return -EPERM;
	child = proc_new(p);
	if (!child)
		return -ENOMEM;
	pid = child->pid;
	err = lx_proc_init(child, p) ?: mem_fork(p, child);
	if (child->os)
		lx_name(child);		/* from its own copy of the path: the parent may go first */
	if (!err && (flags & CLONE_CHILD_SETTID))
		err = mem_user_copy(child, ctid, &pid, sizeof(pid), MEM_WRITE);
	if (!err && (flags & CLONE_PARENT_SETTID))
		err = put_user_bytes(t, ptid, &pid, sizeof(pid));
	if (!err && (flags & CLONE_VFORK)) {
		lxp(child)->vfork_waiter = kl_self();	/* before it can run, exec or end */
		proc_get(child);
	}
	if (!err) {
		ctx.rax = 0;
		if (newsp)
			ctx.rsp = newsp;
		if (flags & CLONE_SETTLS)
			ctx.fs_base = tls;
		err = lx_fork_thread(t, child, &ctx);
	}
	if (err < 0) {
		if (child->os && lxp(child)->vfork_waiter)
			proc_put(child);
		lx_proc_exit(child);
		proc_abandon(child);
		return err;
	}
	if (flags & CLONE_VFORK)
		vfork_wait(t, child);
	return pid;
}

LX_PARTIAL(clone, "CLONE_VM alone -ENOSYS, with CLONE_VFORK a copy; CLONE_FILES ignored");
LX_SYSCALL_DEFINE5(clone, unsigned long, flags, unsigned long, newsp, unsigned long, ptid,
		   unsigned long, ctid, unsigned long, tls)
{
	return lx_fork(t, flags, newsp, ptid, ctid, tls);
}

LX_SYSCALL_DEFINE0(fork)
{
	return lx_fork(t, 0, 0, 0, 0, 0);
}

LX_PARTIAL(vfork, "the child's memory is a copy-on-write one, not the parent's");
LX_SYSCALL_DEFINE0(vfork)
{
	return lx_fork(t, CLONE_VFORK, 0, 0, 0, 0);
}

/*
 * exit ends the thread, exit_group the process, its other threads too.
 * The thread ends once the call returns (syscall_dispatch), with no
 * result.
 */
LX_SYSCALL_DEFINE1(exit, int, code)
{
	t->exiting = true;
	t->code = code & 0xff;
	return 0;
}

LX_SYSCALL_DEFINE1(exit_group, int, code)
{
	if (READ_ONCE(t->p->threads) > 1)
		proc_exit_group(t->p, code & 0xff);
	t->exiting = true;
	t->code = code & 0xff;
	return 0;
}

/* wait4's options Linux knows: WNOHANG, WUNTRACED, WCONTINUED, __WNOTHREAD, __WALL, __WCLONE. */
#define LX_WAIT4_OPTIONS	(WNOHANG | WUNTRACED | WCONTINUED | \
				 0x20000000 | 0x40000000 | 0x80000000)

LX_PARTIAL(wait4, "a stop's or continue's rusage is zero; pid < -1 waits for any child");
LX_SYSCALL_DEFINE4(wait4, int, pid, unsigned long, ustatus, int, options,
		   unsigned long, urusage)
{
	u32 kinds = (options & WUNTRACED ? PROC_REPORT_STOPPED : 0) |
		    (options & WCONTINUED ? PROC_REPORT_CONTINUED : 0);
	u64 rusage[LX_RUSAGE_WORDS];
	struct proc_cpu cpu;
	bool killed;
	long code, r;
	u32 report;
	int status;

	if (options & ~LX_WAIT4_OPTIONS)
		return -EINVAL;
	if (pid == INT_MIN)	/* as Linux's: -INT_MIN is not defined */
		return -ESRCH;
	/*
	 * A child names one waiter to wake; with two threads waiting, the mark
	 * lets a kill wake both, and a reap wakes the other, which looks again.
	 */
	lx_sleeping(t);
	r = proc_wait_any(t, pid, !(options & WNOHANG), kinds, &code, &killed, &report, &cpu);
	lx_awake(t);
	if (r > 0 && READ_ONCE(t->p->threads) > 1)
		lx_wake_sleepers(t->p);
	if (r <= 0)
		return r;
	/*
	 * Linux's status: the exit code in the second byte, or the signal in
	 * the first; or a stop or a continue, as the report has it.
	 */
	status = report ? (int)report : killed ? (code - 128) & 0x7f : (code & 0xff) << 8;
	lx_rusage(&cpu, rusage);
	if (put_user_bytes(t, ustatus, &status, sizeof(status)) ||
	    put_user_bytes(t, urusage, rusage, sizeof(rusage)))
		return -EFAULT;
	return r;
}

LX_SYSCALL_DEFINE0(gettid)
{
	return t->tid;
}

LX_SYSCALL_DEFINE1(set_tid_address, unsigned long, tidptr)
{
	t->clear_tid = tidptr;
	return t->tid;
}

LX_PARTIAL(arch_prctl, "ARCH_SET_GS only to 0; ARCH_GET_GS and the CPUID, XCOMP codes -EINVAL");
LX_SYSCALL_DEFINE2(arch_prctl, int, code, unsigned long, addr)
{
	switch (code) {
	case ARCH_SET_FS:
		if (addr >= LX_FS_MAX)
			return -EPERM;
		t->ctx.fs_base = addr;
		return 0;
	case ARCH_GET_FS:
		return mem_user_copy(t->p, addr, &t->ctx.fs_base, 8, MEM_WRITE);
	case ARCH_SET_GS:
		/* Refused as Linux refuses it; any other is -EINVAL: GS stays zero here. */
		return addr >= LX_FS_MAX ? -EPERM : addr ? -EINVAL : 0;
	}
	return -EINVAL;
}
