// SPDX-License-Identifier: GPL-2.0
/*
 * signals: glibc's signal handling, unmodified, on whatever kernel runs it.
 * Handlers run with the siginfo and the mask Linux gives them (SA_SIGINFO,
 * SA_NODEFER, SA_RESETHAND, sa_mask), on the alternate stack if asked; a
 * blocked signal waits until it is unblocked; faults reach a handler with
 * their address and code, and siglongjmp leaves it; the x87 and SSE
 * registers a handler changes are the interrupted code's again after it;
 * a call a signal interrupts is restarted with SA_RESTART and fails with
 * EINTR without; sigsuspend and nanosleep end at a signal; a signal to one
 * thread runs its handler on that thread; a write to a pipe no one reads
 * raises SIGPIPE; a child's end sends its parent SIGCHLD; alarm and
 * setitimer send SIGALRM, once or every interval; sigwaitinfo and
 * sigtimedwait take a signal without a handler; real-time signals queue,
 * each with its value, up to RLIMIT_SIGPENDING.  And frames a handler forges: flags it may not have are
 * dropped, a return into the kernel is SIGSEGV, and so is one with an
 * MXCSR the processor refuses (checked with the argument "sandbox": see
 * forged_frames).  It prints "signals: ok" and exits 0 if everything
 * held, and names what did not otherwise.  The suite runs it on Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define UNUSED __attribute__((unused))

static int failed;
static volatile sig_atomic_t hits, last_code, last_pid;
static volatile long handler_tid;
static volatile uintptr_t last_addr, handler_sp;
static sigset_t in_handler;
static sigjmp_buf escape;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("signals: FAIL %s\n", what);
		failed = 1;
	}
}

/* A fault's check, with what came if it was not what was wanted. */
static void check_fault(int sig, int code, uintptr_t addr, const char *what)
{
	if (sig != SIGSEGV || last_code != code || last_addr != addr)
		printf("signals: FAIL %s: signal %d code %d address %#lx\n", what, sig,
		       (int)last_code, (unsigned long)last_addr);
	failed |= sig != SIGSEGV || last_code != code || last_addr != addr;
}

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | flags };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGURG);
	sigaction(sig, &sa, NULL);
}

static void counter(int sig UNUSED, siginfo_t *si,
		    void *uc UNUSED)
{
	int here;

	last_code = si->si_code;
	last_pid = si->si_pid;
	handler_tid = syscall(SYS_gettid);
	handler_sp = (uintptr_t)&here;
	sigprocmask(SIG_BLOCK, NULL, &in_handler);
	/* Last, and a full barrier before it: another thread may wait for it. */
	__atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST);
}

/* The basics: who sent it, with what, and what the handler runs with. */
static void handlers(void)
{
	struct sigaction old;
	sigset_t set, now;

	on(SIGUSR1, counter, 0);
	hits = 0;
	kill(getpid(), SIGUSR1);
	check(hits == 1, "kill to self ran the handler once");
	check(last_code == SI_USER && last_pid == getpid(), "kill's siginfo names the sender");
	check(sigismember(&in_handler, SIGUSR1), "a handler runs with its signal blocked");
	check(sigismember(&in_handler, SIGURG), "a handler runs with sa_mask blocked");
	sigprocmask(SIG_BLOCK, NULL, &now);
	check(!sigismember(&now, SIGUSR1) && !sigismember(&now, SIGURG),
	      "the mask is back after the handler");
	raise(SIGUSR1);
	check(hits == 2 && last_code == SI_TKILL, "raise: tgkill's siginfo");

	on(SIGUSR1, counter, SA_NODEFER);
	raise(SIGUSR1);
	check(!sigismember(&in_handler, SIGUSR1), "SA_NODEFER leaves the signal unblocked");

	on(SIGUSR1, counter, SA_RESETHAND);
	raise(SIGUSR1);
	sigaction(SIGUSR1, NULL, &old);
	check(hits == 4 && old.sa_handler == SIG_DFL, "SA_RESETHAND resets to SIG_DFL");

	/* Blocked, it waits; unblocked, it runs before sigprocmask returns. */
	on(SIGUSR2, counter, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	hits = 0;
	raise(SIGUSR2);
	sigpending(&now);
	check(hits == 0 && sigismember(&now, SIGUSR2), "a blocked signal waits, pending");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	check(hits == 1, "an unblocked signal runs at once");
	sigpending(&now);
	check(!sigismember(&now, SIGUSR2), "and is pending no more");

	/* Ignored, it is dropped even if blocked first. */
	signal(SIGUSR2, SIG_IGN);
	raise(SIGUSR2);
	signal(SIGUSR2, SIG_DFL);
	check(hits == 1, "an ignored signal is dropped");
}

static void altstack(void)
{
	static char stack[65536];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) }, now;

	check(sigaltstack(&ss, NULL) == 0, "sigaltstack");
	on(SIGUSR1, counter, SA_ONSTACK);
	raise(SIGUSR1);
	check(handler_sp > (uintptr_t)stack && handler_sp < (uintptr_t)stack + sizeof(stack),
	      "SA_ONSTACK runs the handler on the alternate stack");
	on(SIGUSR1, counter, 0);
	raise(SIGUSR1);
	check(handler_sp < (uintptr_t)stack || handler_sp > (uintptr_t)stack + sizeof(stack),
	      "without SA_ONSTACK, the thread's own stack");
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, &now);
	check(now.ss_sp == stack && now.ss_flags == 0, "sigaltstack gives the old stack back");
}

static void on_fault(int sig, siginfo_t *si, void *uc UNUSED)
{
	last_code = si->si_code;
	last_addr = (uintptr_t)si->si_addr;
	siglongjmp(escape, sig);
}

/* An address the compiler cannot see is 16, so that it compiles the store. */
static volatile uintptr_t nothing = 16;

static void faults(void)
{
	volatile char *page;
	int sig;

	on(SIGSEGV, on_fault, 0);
	sig = sigsetjmp(escape, 1);
	if (!sig)
		*(volatile int *)nothing = 1;
	check_fault(sig, SEGV_MAPERR, 16, "a write to nothing: SIGSEGV, SEGV_MAPERR, its address");
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sig = sigsetjmp(escape, 1);
	if (!sig)
		page[8] = 1;
	check_fault(sig, SEGV_ACCERR, (uintptr_t)page + 8, "a write to a read-only page: SEGV_ACCERR");
	munmap((void *)page, 4096);
	sig = sigsetjmp(escape, 1);
	if (!sig)
		raise(SIGSEGV);
	check(sig == SIGSEGV && last_code == SI_TKILL, "the handler again after siglongjmp");
	signal(SIGSEGV, SIG_DFL);
}

static volatile uint32_t handler_mxcsr;

/* Clobber xmm0 and the rounding mode, and see what the handler began with. */
static void fpu_clobber(int sig UNUSED, siginfo_t *si UNUSED, void *uc UNUSED)
{
	uint32_t rounding = 0x7f80, m;

	asm volatile("stmxcsr %0" : "=m" (m));
	handler_mxcsr = m;
	asm volatile("ldmxcsr %0\n\tpcmpeqd %%xmm0, %%xmm0" : : "m" (rounding) : "xmm0");
}

static void fpu(void)
{
	uint64_t in = 0x0123456789abcdefULL, out;
	uint32_t mine = 0x3f80, back, dflt = 0x1f80;
	long tid = syscall(SYS_gettid);

	on(SIGUSR1, fpu_clobber, 0);
	/* xmm0 live across the signal: the tgkill is made inside the asm. */
	asm volatile("ldmxcsr %[m]\n\t"
		     "movq %[in], %%xmm0\n\t"
		     "syscall\n\t"
		     "movq %%xmm0, %[out]\n\t"
		     "stmxcsr %[back]\n\t"
		     "ldmxcsr %[d]"
		     : [out] "=r" (out), [back] "=m" (back), "+a" ((long){ SYS_tgkill })
		     : [m] "m" (mine), [in] "r" (in), [d] "m" (dflt),
		       "D" ((long)getpid()), "S" (tid), "d" ((long)SIGUSR1)
		     : "rcx", "r11", "xmm0", "memory");
	check(out == in, "xmm0 is the interrupted code's after the handler");
	check(back == mine, "MXCSR is the interrupted code's after the handler");
	check(handler_mxcsr == 0x1f80, "a handler starts with the initial MXCSR");
}

static volatile int forge;
static int strict;

/* Change the frame the handler returns through, as forge says. */
static void forger(int sig UNUSED, siginfo_t *si UNUSED, void *p)
{
	ucontext_t *uc = p;

	if (forge == 1)
		uc->uc_mcontext.gregs[REG_EFL] |= 0x3000 | 0x200;	/* IOPL 3 */
	if (forge == 2)
		uc->uc_mcontext.gregs[REG_RIP] = 0xffffffff81000000UL;
	if (forge == 3)
		uc->uc_mcontext.fpregs->mxcsr = ~0U;
}

static void forged_frames(void)
{
	unsigned long flags;
	int sig;

	on(SIGUSR1, forger, 0);
	on(SIGSEGV, on_fault, 0);
	forge = 1;
	raise(SIGUSR1);
	asm volatile("pushfq\n\tpopq %0" : "=r" (flags));
	check(!(flags & 0x3000), "a frame cannot raise the I/O privilege level");
	forge = 2;
	sig = sigsetjmp(escape, 1);
	if (!sig)
		raise(SIGUSR1);
	check(sig == SIGSEGV, "a frame that returns into the kernel: SIGSEGV");
	/*
	 * The processor faults on reserved MXCSR bits, and Linux answers with
	 * SIGSEGV; QEMU's emulation of FXRSTOR takes them, so Linux under it
	 * does not.  The endovisor checks them itself: in the sandbox
	 * ("sandbox" on the command line) it must be SIGSEGV.
	 */
	forge = 3;
	sig = sigsetjmp(escape, 1);
	if (!sig)
		raise(SIGUSR1);
	check(sig == SIGSEGV || !strict, "a frame with an MXCSR the processor refuses: SIGSEGV");
	signal(SIGSEGV, SIG_DFL);
}

/* A child that signals its parent after a while, then writes one byte to fd. */
static pid_t poke_later(int sig, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { 0, 30 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		kill(getppid(), sig);
		nanosleep(&ts, NULL);
		if (fd >= 0)
			write(fd, "x", 1);
		_exit(0);
	}
	return pid;
}

static void interrupted_calls(void)
{
	struct timespec ts = { 5, 0 }, rem = { 0, 0 };
	int fds[2], status;
	sigset_t set, none;
	char c;
	long r;
	pid_t pid;

	pipe(fds);
	on(SIGUSR1, counter, SA_RESTART);
	hits = 0;
	pid = poke_later(SIGUSR1, fds[1]);
	r = read(fds[0], &c, 1);
	check(r == 1 && hits == 1, "SA_RESTART: the read goes on after the handler");
	waitpid(pid, &status, 0);

	on(SIGUSR1, counter, 0);
	hits = 0;
	pid = poke_later(SIGUSR1, fds[1]);
	r = read(fds[0], &c, 1);
	check(r == -1 && errno == EINTR && hits == 1, "without SA_RESTART: EINTR");
	waitpid(pid, &status, 0);
	read(fds[0], &c, 1);

	hits = 0;
	pid = poke_later(SIGUSR1, -1);
	r = nanosleep(&ts, &rem);
	check(r == -1 && errno == EINTR && rem.tv_sec > 0, "nanosleep: EINTR, time left");
	waitpid(pid, &status, 0);

	/* sigsuspend: the blocked signal comes in its window, and the mask goes back. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	hits = 0;
	pid = poke_later(SIGUSR1, -1);
	sigemptyset(&none);
	r = sigsuspend(&none);
	check(r == -1 && errno == EINTR && hits == 1, "sigsuspend: the handler, then EINTR");
	sigprocmask(SIG_BLOCK, NULL, &set);
	check(sigismember(&set, SIGUSR1), "sigsuspend puts the mask back");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	waitpid(pid, &status, 0);
	close(fds[0]);
	close(fds[1]);
}

static volatile int target_ready, target_done;
static volatile long target_tid;

static void *target(void *arg UNUSED)
{
	target_tid = syscall(SYS_gettid);
	target_ready = 1;
	while (!target_done)
		sched_yield();
	return NULL;
}

static void pipes_and_threads(void)
{
	pthread_t th;
	int fds[2], status;
	pid_t pid;

	on(SIGUSR2, counter, 0);
	pthread_create(&th, NULL, target, NULL);
	while (!target_ready)
		sched_yield();
	hits = 0;
	pthread_kill(th, SIGUSR2);
	while (!hits)
		sched_yield();
	check(handler_tid == target_tid, "pthread_kill runs the handler on its thread");
	target_done = 1;
	pthread_join(th, NULL);

	pipe(fds);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	check(write(fds[1], "x", 1) == -1 && errno == EPIPE, "SIGPIPE ignored: EPIPE");
	signal(SIGPIPE, SIG_DFL);
	pid = fork();
	if (pid == 0) {
		write(fds[1], "x", 1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
	      "a write no one reads: killed by SIGPIPE");
	close(fds[1]);
}

static volatile pid_t child_reaped;
static volatile int child_status;

/* SIGCHLD: what the siginfo says, and a wait in the handler finds the child. */
static void on_child(int sig UNUSED, siginfo_t *si, void *uc UNUSED)
{
	int status;

	last_code = si->si_code;
	last_pid = si->si_pid;
	child_status = si->si_status;
	child_reaped = waitpid(si->si_pid, &status, WNOHANG);
}

static void children(void)
{
	sigset_t set, none;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &set, NULL);
	on(SIGCHLD, on_child, 0);
	pid = fork();
	if (pid == 0)
		_exit(7);
	child_reaped = 0;
	while (!child_reaped)
		sigsuspend(&none);
	check(last_code == CLD_EXITED && last_pid == pid && child_status == 7,
	      "SIGCHLD of a child's exit: CLD_EXITED, its pid and status");
	check(child_reaped == pid, "the handler's waitpid finds the child");
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	kill(pid, SIGKILL);
	child_reaped = 0;
	while (!child_reaped)
		sigsuspend(&none);
	check(last_code == CLD_KILLED && child_status == SIGKILL,
	      "SIGCHLD of a child killed: CLD_KILLED and the signal");
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* alarm and the real-time interval timer: SIGALRM, once and every interval. */
static void alarms(void)
{
	struct itimerval every = { { 0, 50000 }, { 0, 50000 } }, now, off = {};
	int i;

	on(SIGALRM, counter, 0);
	check(alarm(2) == 0, "alarm with none armed returns 0");
	check(alarm(5) == 2, "alarm returns the seconds the old one had left");
	check(alarm(0) == 5, "alarm(0) disarms, and returns what was left");
	hits = 0;
	check(setitimer(ITIMER_REAL, &every, NULL) == 0, "setitimer ITIMER_REAL");
	for (i = 0; i < 3; i++)
		check(pause() == -1 && errno == EINTR, "pause ends with EINTR at SIGALRM");
	check(hits == 3 && last_code == SI_KERNEL, "an interval timer fires again and again");
	getitimer(ITIMER_REAL, &now);
	check(now.it_interval.tv_usec == 50000 && !now.it_interval.tv_sec,
	      "getitimer gives the interval back");
	/* A loop of calls that never sleep gets it too. */
	hits = 0;
	while (hits < 2)
		getppid();
	setitimer(ITIMER_REAL, &off, &now);
	check(now.it_interval.tv_usec == 50000, "setitimer gives the old timer back");
	getitimer(ITIMER_REAL, &now);
	check(!now.it_value.tv_sec && !now.it_value.tv_usec, "a disarmed timer reads as zero");
	signal(SIGALRM, SIG_DFL);
}

/* sigwaitinfo and sigtimedwait: a signal taken without a handler. */
static void waits(void)
{
	struct timespec none = { 0, 0 }, short_wait = { 0, 50 * 1000 * 1000 };
	sigset_t set;
	siginfo_t si;
	pid_t pid;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	check(sigwaitinfo(&set, &si) == SIGUSR1 && si.si_signo == SIGUSR1,
	      "sigwaitinfo takes a pending signal, with its siginfo");
	check(sigtimedwait(&set, &si, &none) == -1 && errno == EAGAIN,
	      "sigtimedwait with no time and nothing pending: EAGAIN");
	check(sigtimedwait(&set, &si, &short_wait) == -1 && errno == EAGAIN,
	      "sigtimedwait that times out: EAGAIN");
	/* SIGTERM would kill; waited for, it is taken instead. */
	pid = poke_later(SIGTERM, -1);
	check(sigwaitinfo(&set, &si) == SIGTERM && si.si_pid == pid,
	      "sigwaitinfo takes a signal sent while it waits, a fatal one too");
	waitpid(pid, &status, 0);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static volatile sig_atomic_t rt_hits;
static volatile int rt_ready, rt_sent;

static void rt_counter(int sig UNUSED, siginfo_t *si UNUSED, void *uc UNUSED)
{
	rt_hits++;
}

/* A thread that takes, once it unblocks it, every SIGRTMIN sent while it blocked it. */
static void *rt_target(void *arg UNUSED)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rt_ready = 1;
	while (!rt_sent)
		;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return NULL;
}

/*
 * Real-time signals queue: each one sent while one of its number is
 * pending comes, with its own value, in the order sent, lowest number
 * first; a standard one sent three times comes once.  Past
 * RLIMIT_SIGPENDING sigqueue is EAGAIN and kill's is dropped.  A thread
 * sent one a hundred times while it blocks it runs its handler a hundred
 * times (libc-test's raise-race hung on their loss).
 */
static void queued(void)
{
	struct timespec none = { 0, 0 };
	int lo = SIGRTMIN, hi = SIGRTMIN + 1, i, ok;
	struct rlimit old, lim;
	pthread_t th;
	sigset_t set;
	siginfo_t si;

	sigemptyset(&set);
	sigaddset(&set, lo);
	sigaddset(&set, hi);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < 3; i++) {
		sigqueue(getpid(), hi, (union sigval){ .sival_int = 10 + i });
		sigqueue(getpid(), lo, (union sigval){ .sival_int = i });
		raise(SIGUSR2);
	}
	check(sigwaitinfo(&set, &si) == SIGUSR2, "a standard signal before real-time ones");
	for (ok = 1, i = 0; i < 3; i++)
		ok &= sigwaitinfo(&set, &si) == lo && si.si_value.sival_int == i &&
		      si.si_code == SI_QUEUE;
	check(ok, "SIGRTMIN three times, in order, each with its value");
	for (ok = 1, i = 0; i < 3; i++)
		ok &= sigwaitinfo(&set, &si) == hi && si.si_value.sival_int == 10 + i;
	check(ok, "then SIGRTMIN+1 three times, in order");
	check(sigtimedwait(&set, &si, &none) == -1 && errno == EAGAIN,
	      "a standard signal sent three times is pending once");

	getrlimit(RLIMIT_SIGPENDING, &old);
	lim = old;
	lim.rlim_cur = 4;
	setrlimit(RLIMIT_SIGPENDING, &lim);
	for (i = 0; i < 8 && !sigqueue(getpid(), lo, (union sigval){ 0 }); i++)
		;
	check(i == 4 && errno == EAGAIN, "RLIMIT_SIGPENDING 4: the fifth sigqueue is EAGAIN");
	check(kill(getpid(), lo) == 0, "kill past RLIMIT_SIGPENDING succeeds");
	for (i = 0; sigtimedwait(&set, &si, &none) == lo; i++)
		;
	check(i == 4, "and what it sent is dropped: four come");
	setrlimit(RLIMIT_SIGPENDING, &old);

	for (i = 0; i < 50; i++)
		sigqueue(getpid(), lo, (union sigval){ .sival_int = i });
	on(lo, rt_counter, 0);
	rt_hits = 0;
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	check(rt_hits == 50, "fifty queued run the handler fifty times when unblocked");

	rt_hits = 0;
	pthread_create(&th, NULL, rt_target, NULL);
	while (!rt_ready)
		sched_yield();
	for (i = 0; i < 100; i++)
		pthread_kill(th, lo);
	rt_sent = 1;
	pthread_join(th, NULL);
	check(rt_hits == 100, "a hundred sent to a thread run its handler a hundred times");
	signal(lo, SIG_DFL);
}

int main(int argc, char **argv)
{
	strict = argc > 1 && !strcmp(argv[1], "sandbox");
	handlers();
	altstack();
	faults();
	fpu();
	forged_frames();
	interrupted_calls();
	pipes_and_threads();
	children();
	alarms();
	waits();
	queued();
	if (failed)
		return 1;
	printf("signals: ok\n");
	return 0;
}
