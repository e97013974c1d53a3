// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's system calls, by Linux's x86-64 numbers: the number in %rax,
 * the arguments in %rdi, %rsi, %rdx, %r10, %r8, %r9, the result in %rax,
 * -errno for an error.  Every call is counted by number; one this kernel
 * does not have is answered -ENOSYS and logged once, by the name Linux's
 * own table gives it (asm/syscalls_64.h of the pinned guest kernel).
 */
#include "linux.h"

/* Linux's names for its calls, from the guest kernel's generated table. */
#define __SYSCALL(nr, sym)	[nr] = #sym,
#define __SYSCALL_NORETURN(nr, sym)	[nr] = #sym,
static const char *const names[] = {
#include <asm/syscalls_64.h>
};

#undef __SYSCALL
#undef __SYSCALL_NORETURN

const char *syscall_name(unsigned long nr)
{
	const char *n = nr < ARRAY_SIZE(names) ? names[nr] : NULL;

	if (!n)
		return "unknown";
	return vostd_has_prefix(n, "sys_") ? n + 4 : n;
}

#define CLONE_VM		0x00000100
#define CLONE_SIGHAND		0x00000800
#define CLONE_VFORK		0x00004000
#define CLONE_THREAD		0x00010000
#define CLONE_SETTLS		0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_CHILD_SETTID	0x01000000
#define MAP_SHARED		0x01
#define MAP_FIXED		0x10
#define MAP_ANONYMOUS		0x20
#define MAP_FIXED_NOREPLACE	0x100000
#define ARCH_SET_GS		0x1001
#define ARCH_SET_FS		0x1002
#define ARCH_GET_FS		0x1003
#define WNOHANG			1
#define LX_SIGKILL			9
#define LX_SIGSTOP			19
#define LX_SIG_IGN		1

static u8 ev_prot(unsigned long prot)
{
	/* PROT_READ, PROT_WRITE and PROT_EXEC are EV_PROT_*'s bits. */
	return prot & (EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC);
}

static long put_user_bytes(struct thread *t, unsigned long ua, const void *v, unsigned long n)
{
	return ua ? mem_user_copy(t->p, ua, (void *)v, n, MEM_WRITE) : 0;
}

/* ---- memory ---- */

static long sys_brk(struct thread *t, unsigned long want)
{
	struct lx_proc *lp = lxp(t->p);
	unsigned long old = (lp->brk + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	unsigned long new = (want + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;

	if (want < lp->brk_start || want - lp->brk_start > LX_BRK_MAX)
		return lp->brk;
	if (new > old && mem_map_anon(t->p, old, new - old, EV_PROT_READ | EV_PROT_WRITE))
		return lp->brk;
	if (new < old && mem_unmap_range(t->p, new, old - new))
		return lp->brk;
	lp->brk = want;
	return want;
}

/*
 * mmap, anonymous or of a file of the image (copied: the file system is
 * read-only, so a private copy is all a map can be), with Linux's checks
 * in Linux's order.  A map goes at the lowest free range (mem_map_free):
 * a range unmapped, or mapped by a map that failed, serves again.
 */
static long sys_mmap(struct thread *t, unsigned long addr, unsigned long len,
		     unsigned long prot, unsigned long flags, long fd, unsigned long off)
{
	const u8 rw = EV_PROT_READ | EV_PROT_WRITE;
	struct proc *p = t->p;
	const struct lx_node *nd = NULL;
	long va, err = 0;

	if (off & PAGE_MASK_LOW)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		struct lx_file *f = fd_get(p, fd);

		if (!f)
			return -EBADF;
		/* Its node lives as long as the sandbox: the copy needs no file. */
		nd = f->kind == LX_NODE ? f->node : NULL;
		fd_put(f);
	}
	if (!len)
		return -EINVAL;
	/* Every page is a frame from the start: more than they all can be is refused now. */
	if (len > LX_MMAP_MAX)
		return -ENOMEM;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
	    ((addr & PAGE_MASK_LOW) || !mem_in_region(addr, len)))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		if ((flags & MAP_SHARED) && (prot & 2))
			return -EACCES;		/* a read-only file system */
		if (!nd || (nd->mode & 0170000) != 0100000)
			return -ENODEV;
	}
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		va = mem_map_fixed(p, addr, len, rw, !(flags & MAP_FIXED_NOREPLACE));
	else
		va = mem_map_free(p, LX_MMAP_BASE, LX_MMAP_END, len, rw);
	if (va < 0)
		return va == -ENOSPC ? -ENOMEM : va;
	if (nd && off < nd->size)
		err = mem_user_copy(p, va, (void *)(nd->data + off), min(len, nd->size - off),
				    MEM_WRITE);
	if (!err && ev_prot(prot) != rw)
		err = mem_protect_range(p, va, len, ev_prot(prot));
	if (err) {
		mem_unmap_range(p, va, len);
		return err == -ENOSPC ? -ENOMEM : err;
	}
	return va;
}

static long sys_munmap(struct thread *t, unsigned long va, unsigned long len)
{
	if ((va & PAGE_MASK_LOW) || !len)
		return -EINVAL;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if (!mem_in_region(va, len))
		return -EINVAL;
	return mem_unmap_range(t->p, va, len);
}

static long sys_mprotect(struct thread *t, unsigned long va, unsigned long len,
			 unsigned long prot)
{
	if (va & PAGE_MASK_LOW)
		return -EINVAL;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if (!len)
		return 0;
	if (!mem_in_region(va, len))
		return -ENOMEM;
	return mem_protect_range(t->p, va, len, ev_prot(prot));
}

/* ---- processes ---- */

/*
 * Linux's TASK_SIZE_MAX, with four levels of page table: the end of user
 * space but for its last page.  An FS or GS base at or past it is refused
 * with -EPERM, by arch_prctl and by clone alike (Linux's do_arch_prctl_64,
 * which copy_thread calls for CLONE_SETTLS); the endovisor would refuse
 * to load it, and end the thread instead.
 */
#define LX_FS_MAX	((1UL << 47) - PAGE)

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
	/* As in Linux, a bad address here goes unreported. */
	if (flags & CLONE_PARENT_SETTID)
		put_user_bytes(t, ptid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_SETTID)
		put_user_bytes(t, ctid, &tid, sizeof(tid));
	return thread_start(c);
}

/*
 * fork, vfork, and clone without CLONE_VM: a child with a copy-on-write
 * copy of the memory, the descriptors and the signal state.  vfork's
 * promise that the parent waits for the child's exec is not kept; the
 * parent runs on, which a program cannot tell from a copy.
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
	if (flags & CLONE_VM)
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
	if (!err) {
		ctx.rax = 0;
		if (newsp)
			ctx.rsp = newsp;
		if (flags & CLONE_SETTLS)
			ctx.fs_base = tls;
		err = thread_create(child, &ctx, t->fpu, t->vcpu);
	}
	if (err < 0) {
		lx_proc_exit(child);
		proc_abandon(child);
		return err;
	}
	return pid;
}

static long sys_wait4(struct thread *t, long pid, unsigned long ustatus, long options,
		      unsigned long urusage)
{
	u64 rusage[18] = {};
	bool killed;
	long code, r;
	int status, slot;

	/*
	 * A child names one waiter to wake; with two threads waiting, the slot
	 * lets a kill wake both, and a reap wakes the other, which looks again.
	 */
	slot = lx_sleeping(t->p);
	r = proc_wait_any(t->p, pid, !(options & WNOHANG), &code, &killed);
	lx_awake(t->p, slot);
	if (r > 0 && READ_ONCE(t->p->threads) > 1)
		lx_wake_sleepers(t->p);
	if (r <= 0)
		return r;
	/* Linux's status: the exit code in the second byte, or the signal in the first. */
	status = killed ? (code - 128) & 0x7f : (code & 0xff) << 8;
	if (put_user_bytes(t, ustatus, &status, sizeof(status)) ||
	    put_user_bytes(t, urusage, rusage, sizeof(rusage)))
		return -EFAULT;
	return r;
}

/* The live process pid, with a reference for the caller to put; NULL if none. */
static struct proc *lx_find_proc(long pid)
{
	struct proc *c, *found = NULL;

	procs_lock();
	for (c = procs()->list; c && !found; c = c->next)
		if (c->pid == pid && !c->exited && c->os)
			found = c;
	if (found)
		proc_get(found);
	procs_unlock();
	return found;
}

static long sys_kill(struct thread *t, long pid, long sig)
{
	struct proc *target;
	u64 handler;

	if (sig < 0 || sig > LX_NSIG)
		return -EINVAL;
	if (pid <= 0)
		pid = pid == 0 || pid == -1 ? t->p->pid : -pid;	/* a group is its leader here */
	/* The target may exit and be reaped meanwhile: the reference keeps it. */
	target = lx_find_proc(pid);
	if (!target)
		return -ESRCH;
	handler = sig ? READ_ONCE(lxp(target)->act[sig - 1].handler) : 0;
	/*
	 * Nothing for 0; ignored, or ignored by default: SIGCHLD, SIGURG,
	 * SIGWINCH.  No handler ever runs here: a signal that is not ignored
	 * kills.
	 */
	if (sig && handler != LX_SIG_IGN && sig != 17 && sig != 23 && sig != 28)
		lx_kill(target, sig, "signal", t->p->pid);
	proc_put(target);
	return 0;
}

/* Kill p with sig; proc's end_hook wakes each of its threads asleep. */
void lx_kill(struct proc *p, long sig, const char *why, long from)
{
	proc_kill(p, 128 + sig, "%s %ld from pid %ld", why, sig, from);
}

static long sys_rt_sigaction(struct thread *t, long sig, unsigned long uact,
			     unsigned long uold, unsigned long size)
{
	struct lx_proc *lp = lxp(t->p);
	struct lx_sigaction act;

	if (sig < 1 || sig > LX_NSIG || size != 8)
		return -EINVAL;
	if (uact && (sig == LX_SIGKILL || sig == LX_SIGSTOP))
		return -EINVAL;
	if (uact && mem_user_copy(t->p, uact, &act, sizeof(act), MEM_READ))
		return -EFAULT;
	if (put_user_bytes(t, uold, &lp->act[sig - 1], sizeof(act)))
		return -EFAULT;
	if (uact)
		lp->act[sig - 1] = act;
	return 0;
}

static long sys_rt_sigprocmask(struct thread *t, long how, unsigned long uset,
			       unsigned long uold, unsigned long size)
{
	struct lx_proc *lp = lxp(t->p);
	u64 set;

	if (size != 8)
		return -EINVAL;
	if (uset && mem_user_copy(t->p, uset, &set, 8, MEM_READ))
		return -EFAULT;
	if (put_user_bytes(t, uold, &lp->sigmask, 8))
		return -EFAULT;
	if (!uset)
		return 0;
	set &= ~(1ULL << (LX_SIGKILL - 1) | 1ULL << (LX_SIGSTOP - 1));
	switch (how) {
	case 0:
		lp->sigmask |= set;
		break;
	case 1:
		lp->sigmask &= ~set;
		break;
	case 2:
		lp->sigmask = set;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* ---- the rest ---- */

static long sys_uname(struct thread *t, unsigned long ubuf)
{
	static const char *const fields[6] = {
		"Linux", "endovisor", "6.12.0-endovisor", "#1 the linux kernel proper",
		"x86_64", "(none)",
	};
	char u[6][65] = {};
	unsigned int i, j;

	for (i = 0; i < 6; i++)
		for (j = 0; fields[i][j] && j < 64; j++)
			u[i][j] = fields[i][j];
	return put_user_bytes(t, ubuf, u, sizeof(u));
}

u64 lx_now_ns(void)
{
	return vostd_cycles_to_ns(vostd_cycles() - procs()->start);
}

static long sys_clock_gettime(struct thread *t, long clk, unsigned long uts)
{
	u64 ns = lx_now_ns(), ts[2] = { ns / 1000000000, ns % 1000000000 };

	if (clk < 0 || clk > 11)
		return -EINVAL;
	return put_user_bytes(t, uts, ts, sizeof(ts));
}

/* Sleep by yielding until the time has passed: the kernelet has no timers for tasks. */
static long sleep_ns(struct thread *t, unsigned long ureq)
{
	u64 ts[2], until;

	if (mem_user_copy(t->p, ureq, ts, sizeof(ts), MEM_READ))
		return -EFAULT;
	if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	until = vostd_cycles() + vostd_ns_to_cycles(min(ts[0], 1000ULL) * 1000000000 + ts[1]);
	while (vostd_cycles() < until && !READ_ONCE(t->p->killed))
		kl_yield();
	return 0;
}

static long sys_getrandom(struct thread *t, unsigned long ubuf, unsigned long len)
{
	unsigned long done = 0;

	len = min(len, 1UL << 16);
	while (done < len) {
		u64 r = lx_random();
		unsigned long n = min(len - done, 8UL);

		if (mem_user_copy(t->p, ubuf + done, &r, n, MEM_WRITE))
			return done ?: -EFAULT;
		done += n;
	}
	return done;
}

static long sys_prlimit64(struct thread *t, long pid, long res, unsigned long unew,
			  unsigned long uold)
{
	u64 lim[2] = { ~0ULL, ~0ULL };

	if (res < 0 || res > 15)
		return -EINVAL;
	if (res == 3)			/* RLIMIT_STACK */
		lim[0] = LX_STACK_PAGES * PAGE;
	if (res == 7) {			/* RLIMIT_NOFILE */
		lim[0] = LX_FDS;
		lim[1] = LX_FDS;
	}
	if (res == 6) {			/* RLIMIT_NPROC */
		lim[0] = LX_PROCS_MAX;
		lim[1] = LX_PROCS_MAX;
	}
	return put_user_bytes(t, uold, lim, sizeof(lim));
}

static long sys_arch_prctl(struct thread *t, long code, unsigned long addr)
{
	switch (code) {
	case ARCH_SET_FS:
		if (addr >= LX_FS_MAX)
			return -EPERM;
		t->ctx.fs_base = addr;
		return 0;
	case ARCH_GET_FS:
		return put_user_bytes(t, addr, &t->ctx.fs_base, 8);
	case ARCH_SET_GS:
		/* Refused as Linux refuses it; any other is -EINVAL: GS stays zero here. */
		return addr >= LX_FS_MAX ? -EPERM : addr ? -EINVAL : 0;
	}
	return -EINVAL;
}

static long sys_get_name(struct thread *t, unsigned long ubuf)
{
	char name[16] = {};

	vostd_memcpy(name, lxp(t->p)->comm, sizeof(name) - 1);
	return put_user_bytes(t, ubuf, name, sizeof(name));
}

/* ---- the table ---- */

static void enosys(struct thread *t, unsigned long nr)
{
	struct lx_globals *g = lx();
	unsigned long bit = min(nr, 512UL);	/* every number past the table shares one */

	if (__atomic_fetch_or(&g->enosys_logged[bit / 8], 1 << (bit % 8),
			      __ATOMIC_RELAXED) & (1 << (bit % 8)))
		return;
	vostd_println("linux: pid %ld: %s (%lu) is not implemented: -ENOSYS", t->p->pid,
		      syscall_name(nr), nr);
}

/* An argument Linux declares int: only its low 32 bits are the caller's. */
#define I(x)	((long)(int)(x))

void syscall_dispatch(struct thread *t, struct ev_stamp entered)
{
	struct ev_tenant_ctx *c = &t->ctx;
	struct proc *p = t->p;
	unsigned long nr = c->syscall_nr, a0 = c->rdi, a1 = c->rsi, a2 = c->rdx;
	unsigned long a3 = c->r10, a4 = c->r8, a5 = c->r9;
	long ret;

	if (nr < ARRAY_SIZE(lx()->calls))
		__atomic_add_fetch(&lx()->calls[nr], 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&lx()->unknown, 1, __ATOMIC_RELAXED);
	switch (nr) {
	case 0:
		ret = sys_read(t, I(a0), a1, a2, -1);
		break;
	case 1:
		ret = sys_write(t, I(a0), a1, a2);
		break;
	case 2:
		ret = sys_openat(t, -100, a0, I(a1));
		break;
	case 3:
		ret = sys_close(t, I(a0));
		break;
	case 4:
		ret = sys_fstatat(t, -100, a0, a1, 0);
		break;
	case 5:
		ret = sys_fstat(t, I(a0), a1);
		break;
	case 6:
		ret = sys_fstatat(t, -100, a0, a1, 0x100);
		break;
	case 8:
		ret = sys_lseek(t, I(a0), a1, I(a2));
		break;
	case 9:
		ret = sys_mmap(t, a0, a1, a2, a3, I(a4), a5);
		break;
	case 10:
		ret = sys_mprotect(t, a0, a1, a2);
		break;
	case 11:
		ret = sys_munmap(t, a0, a1);
		break;
	case 12:
		ret = sys_brk(t, a0);
		break;
	case 13:
		ret = sys_rt_sigaction(t, I(a0), a1, a2, a3);
		break;
	case 14:
		ret = sys_rt_sigprocmask(t, I(a0), a1, a2, a3);
		break;
	case 16:
		ret = sys_ioctl(t, I(a0), a1, a2);
		break;
	case 17:
		ret = (long)a3 < 0 ? -EINVAL : sys_read(t, I(a0), a1, a2, a3);
		break;
	case 20:
		ret = sys_writev(t, I(a0), a1, a2);
		break;
	case 21:
		ret = sys_faccessat(t, -100, a0);
		break;
	case 22:
		ret = sys_pipe2(t, a0, 0);
		break;
	case 24:
		kl_yield();
		ret = 0;
		break;
	case 32:
		ret = sys_fcntl(t, I(a0), 0, 0);
		break;
	case 33:
		ret = sys_dup3(t, I(a0), I(a1), 0, true);
		break;
	case 35:
		ret = sleep_ns(t, a0);
		break;
	case 39:
		ret = p->pid;
		break;
	case 56:
		ret = lx_fork(t, a0, a1, a2, a3, a4);
		break;
	case 57:
	case 58:
		ret = lx_fork(t, 0, 0, 0, 0, 0);
		break;
	case 59:
		ret = sys_execve(t, a0, a1, a2);
		break;
	case 60:
	case 231:
		if (lx()->trace)
			vostd_println("linux: pid %ld: %s(%lu)", p->pid, syscall_name(nr), a0);
		/* exit ends the thread; exit_group the process, its other threads too. */
		if (nr == 231 && READ_ONCE(p->threads) > 1)
			proc_exit_group(p, I(a0) & 0xff);
		t->exiting = true;
		t->code = I(a0) & 0xff;
		return;
	case 61:
		ret = sys_wait4(t, I(a0), a1, I(a2), a3);
		break;
	case 62:
		ret = sys_kill(t, I(a0), I(a1));
		break;
	case 63:
		ret = sys_uname(t, a0);
		break;
	case 72:
		ret = sys_fcntl(t, I(a0), I(a1), a2);
		break;
	case 79:
		ret = sys_getcwd(t, a0, a1);
		break;
	case 80:
		ret = sys_chdir(t, a0);
		break;
	case 89:
		ret = sys_readlinkat(t, -100, a0, a1, a2);
		break;
	case 95:
		ret = lxp(p)->umask;
		lxp(p)->umask = a0 & 0777;
		break;
	case 97:
		ret = sys_prlimit64(t, 0, I(a0), 0, a1);
		break;
	case 102: /* getuid */
	case 104: /* getgid */
	case 107: /* geteuid */
	case 108: /* getegid */
		ret = 0;
		break;
	case 109:	/* setpgid: one group */
		ret = 0;
		break;
	case 110:
		ret = proc_ppid(p);
		break;
	case 111: /* getpgrp */
	case 121: /* getpgid */
	case 124: /* getsid */
		ret = lxp(p)->pgid;
		break;
	case 131:	/* sigaltstack: no handler runs anyway */
		ret = 0;
		break;
	case 157:	/* prctl: PR_SET_NAME is taken and ignored, PR_GET_NAME is the program's */
		ret = a0 == 15 ? 0 : a0 == 16 ? sys_get_name(t, a1) : -EINVAL;
		break;
	case 158:
		ret = sys_arch_prctl(t, I(a0), a1);
		break;
	case 186:
		ret = t->tid;
		break;
	case 201: {
		u64 s = lx_now_ns() / 1000000000;

		ret = put_user_bytes(t, a0, &s, 8) ?: (long)s;
		break;
	}
	case 217:
		ret = sys_getdents64(t, I(a0), a1, a2);
		break;
	case 202:
		ret = sys_futex(t, a0, I(a1), a2, a3, a4, a5);
		break;
	case 218:	/* set_tid_address */
		t->clear_tid = a0;
		ret = t->tid;
		break;
	case 228:
		ret = sys_clock_gettime(t, I(a0), a1);
		break;
	case 230:
		ret = a1 ? -EINVAL : sleep_ns(t, a2);
		break;
	case 257:
		ret = sys_openat(t, I(a0), a1, I(a2));
		break;
	case 262:
		ret = sys_fstatat(t, I(a0), a1, a2, I(a3));
		break;
	case 267:
		ret = sys_readlinkat(t, I(a0), a1, a2, a3);
		break;
	case 269:
		ret = sys_faccessat(t, I(a0), a1);
		break;
	case 234:	/* tgkill */
		ret = I(a0) > 0 ? sys_kill(t, I(a0), I(a2)) : -EINVAL;
		break;
	case 273:	/* set_robust_list: robust mutexes are not kept */
		ret = 0;
		break;
	case 292:
		ret = sys_dup3(t, I(a0), I(a1), I(a2), false);
		break;
	case 293:
		ret = sys_pipe2(t, a0, I(a1));
		break;
	case 302:
		ret = sys_prlimit64(t, I(a0), I(a1), a2, a3);
		break;
	case 318:
		ret = sys_getrandom(t, a0, a1);
		break;
	case 439:
		ret = sys_faccessat(t, I(a0), a1);
		break;
	default:
		enosys(t, nr);
		ret = -ENOSYS;
	}
	if (lx()->trace)
		vostd_println("linux: pid %ld: %s(%lx, %lx, %lx, %lx) = %ld", p->pid,
			      syscall_name(nr), a0, a1, a2, a3, ret);
	c->rax = ret;
}
