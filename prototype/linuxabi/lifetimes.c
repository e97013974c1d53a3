// SPDX-License-Identifier: GPL-2.0
/*
 * lifetimes: what a system call holds while it sleeps, what address space
 * comes back, and what a new thread or program starts with, checked from an
 * ordinary static C program (glibc) on whatever kernel runs it:
 *
 *  - a thread blocked reading a pipe while another writes it a byte, closes
 *    both ends and fills new pipes: the reader gets its byte and nothing
 *    else, and the new pipes hold only what was written to them;
 *  - the same for a writer blocked on a full pipe: none of its bytes reach
 *    a new pipe;
 *  - a close, or a dup2 over, a descriptor another thread is blocked on:
 *    the blocked call goes on with the file it had;
 *  - mmap and munmap of a page, and mmaps that fail, many times over: the
 *    address space is reused, never used up;
 *  - a TLS (an FS base) outside user space, by arch_prctl or by clone of a
 *    thread or a process: refused with EPERM, and the highest allowed one
 *    taken;
 *  - a program started by execve: every general register zero but the
 *    stack pointer, and the x87, SSE and MXCSR registers as a new process
 *    has them, whatever the old program left in them.  The last is seen at
 *    the program's first instruction: the guest pipeline links it with the
 *    entry point below (the ldflags line).
 *
 * Each case prints ok or FAIL, and it exits 0 only if every case was ok.
 * The suite runs it on Linux first, to check the test, then in the sandbox.
 *
 * ldflags: -Wl,-e,lt_entry
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define TASK_SIZE_MAX	((1UL << 47) - 4096)	/* Linux's, with 4-level paging */
#define KERNEL_VA	0xffff888000000000UL
#define ROUNDS		30
#define BIG		(256 << 10)		/* more than a pipe holds, here or on Linux */
#define SECRET		"secret"

static int failed;

static void report(const char *what, int ok)
{
	printf("lifetimes: %s: %s\n", what, ok ? "ok" : "FAIL");
	failed |= !ok;
}

static void want_err(const char *what, long got, int err)
{
	int ok = got == -1 && errno == err;

	printf("lifetimes: %s: %s (%s)\n", what, ok ? "ok" : "FAIL", strerror(errno));
	failed |= !ok;
}

/* ---- the registers at the first instruction ---- */

/*
 * What the program found at its entry: the general registers in the
 * order of the instruction set (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi,
 * r8..r15), the flags, and the FXSAVE image of the x87 and SSE state.
 */
unsigned long lt_regs[17];
unsigned char lt_fx[512] __attribute__((aligned(16)));

/* Saves them without changing any, then goes on to glibc's own entry. */
asm(".pushsection .text\n"
	".globl lt_entry\n"
	".type lt_entry, @function\n"
	"lt_entry:\n"
	"	mov %rax, lt_regs+0(%rip)\n"
	"	mov %rcx, lt_regs+8(%rip)\n"
	"	mov %rdx, lt_regs+16(%rip)\n"
	"	mov %rbx, lt_regs+24(%rip)\n"
	"	mov %rsp, lt_regs+32(%rip)\n"
	"	mov %rbp, lt_regs+40(%rip)\n"
	"	mov %rsi, lt_regs+48(%rip)\n"
	"	mov %rdi, lt_regs+56(%rip)\n"
	"	mov %r8, lt_regs+64(%rip)\n"
	"	mov %r9, lt_regs+72(%rip)\n"
	"	mov %r10, lt_regs+80(%rip)\n"
	"	mov %r11, lt_regs+88(%rip)\n"
	"	mov %r12, lt_regs+96(%rip)\n"
	"	mov %r13, lt_regs+104(%rip)\n"
	"	mov %r14, lt_regs+112(%rip)\n"
	"	mov %r15, lt_regs+120(%rip)\n"
	"	pushfq\n"
	"	popq lt_regs+128(%rip)\n"
	"	fxsave lt_fx(%rip)\n"
	"	jmp _start\n"
	".popsection\n");

/*
 * execve(path, argv, envp) with the registers it can reach made dirty
 * first: the general ones that the call does not take, xmm0, xmm8 and
 * xmm15, MXCSR's rounding, x87's precision and a value on its stack.  It
 * returns only if the exec failed, with the registers the C ABI keeps.
 */
long exec_dirty(const char *path, char *const argv[], char *const envp[]);
asm(".pushsection .text\n"
	".globl exec_dirty\n"
	".type exec_dirty, @function\n"
	"exec_dirty:\n"
	"	push %rbx\n"
	"	push %rbp\n"
	"	push %r12\n"
	"	push %r13\n"
	"	push %r14\n"
	"	push %r15\n"
	"	sub $8, %rsp\n"
	"	mov $0x1111111111111111, %rbx\n"
	"	mov %rbx, %rbp\n"
	"	mov %rbx, %r8\n"
	"	mov %rbx, %r9\n"
	"	mov %rbx, %r10\n"
	"	mov %rbx, %r12\n"
	"	mov %rbx, %r13\n"
	"	mov %rbx, %r14\n"
	"	mov %rbx, %r15\n"
	"	movq %rbx, %xmm0\n"
	"	movq %rbx, %xmm8\n"
	"	movq %rbx, %xmm15\n"
	"	movl $0x7f80, (%rsp)\n"		/* MXCSR: round toward zero */
	"	ldmxcsr (%rsp)\n"
	"	movw $0x27f, (%rsp)\n"		/* x87: 53-bit precision */
	"	fldcw (%rsp)\n"
	"	fld1\n"
	"	mov $59, %eax\n"
	"	syscall\n"
	"	fstp %st(0)\n"
	"	movw $0x37f, (%rsp)\n"
	"	fldcw (%rsp)\n"
	"	movl $0x1f80, (%rsp)\n"
	"	ldmxcsr (%rsp)\n"
	"	add $8, %rsp\n"
	"	pop %r15\n"
	"	pop %r14\n"
	"	pop %r13\n"
	"	pop %r12\n"
	"	pop %rbp\n"
	"	pop %rbx\n"
	"	ret\n"
	".popsection\n");

static int all_zero(const unsigned char *b, unsigned int n)
{
	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* The program as execve left it to the exec case below: Linux's start. */
static int exec_child(void)
{
	static const char *const names[16] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	unsigned short fcw, fsw;
	unsigned int mxcsr, i;
	int ok = 1;

	for (i = 0; i < 16; i++) {
		if (i == 4 ? !lt_regs[i] || lt_regs[i] % 16 : lt_regs[i] != 0) {
			printf("lifetimes: exec: %s is %#lx at the entry\n", names[i], lt_regs[i]);
			ok = 0;
		}
	}
	if (lt_regs[16] != 0x202) {
		printf("lifetimes: exec: the flags are %#lx at the entry\n", lt_regs[16]);
		ok = 0;
	}
	memcpy(&fcw, lt_fx, 2);
	memcpy(&fsw, lt_fx + 2, 2);
	memcpy(&mxcsr, lt_fx + 24, 4);
	if (fcw != 0x37f || fsw || lt_fx[4] || mxcsr != 0x1f80) {
		printf("lifetimes: exec: x87 control %#x, status %#x, tags %#x, MXCSR %#x"
		       " at the entry\n", fcw, fsw, lt_fx[4], mxcsr);
		ok = 0;
	}
	if (!all_zero(lt_fx + 32, 128) || !all_zero(lt_fx + 160, 256)) {
		printf("lifetimes: exec: an x87 or xmm register is not zero at the entry\n");
		ok = 0;
	}
	return ok ? 0 : 1;
}

/* Exec this program again, dirty, and let the new one judge its start. */
static void exec_state(void)
{
	char *argv[] = { "lifetimes", "exec-child", NULL };
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		exec_dirty("/proc/self/exe", argv, environ);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	report("execve leaves a new program Linux's registers and FPU state",
	       pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- a TLS outside user space ---- */

/*
 * clone of a process (no CLONE_VM) with FS base tls: the child leaves at
 * once, without touching memory, since its TLS may point at nothing.  The
 * pid, or -1 and errno.
 */
static long fork_tls(unsigned long tls)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = tls;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov $231, %%eax\n\t"
		     "xor %%edi, %%edi\n\t"
		     "syscall\n"
		     "1:"
		     : "=a"(ret)
		     : "a"(SYS_clone), "D"(SIGCHLD | CLONE_SETTLS), "S"(0), "d"(0), "r"(r10),
		       "r"(r8)
		     : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* The child of a clone that should have been refused goes, whatever it did. */
static long fork_tls_refused(unsigned long tls)
{
	long pid = fork_tls(tls);
	int e = errno;

	if (pid > 0)
		waitpid(pid, NULL, 0);
	errno = e;
	return pid > 0 ? 0 : pid;
}

static void tls_cases(void)
{
	long pid;
	int status = -1;

	want_err("arch_prctl(ARCH_SET_FS) at the end of user space",
		 syscall(SYS_arch_prctl, ARCH_SET_FS, TASK_SIZE_MAX), EPERM);
	want_err("arch_prctl(ARCH_SET_FS) at a non-canonical address",
		 syscall(SYS_arch_prctl, ARCH_SET_FS, 1UL << 47), EPERM);
	want_err("arch_prctl(ARCH_SET_GS) at a kernel address",
		 syscall(SYS_arch_prctl, ARCH_SET_GS, KERNEL_VA), EPERM);
	want_err("clone of a thread with its TLS at the end of user space",
		 syscall(SYS_clone, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			 CLONE_THREAD | CLONE_SETTLS, NULL, NULL, NULL, TASK_SIZE_MAX), EPERM);
	want_err("clone of a process with its TLS at a kernel address",
		 fork_tls_refused(KERNEL_VA), EPERM);
	want_err("clone of a process with its TLS at the end of user space",
		 fork_tls_refused(TASK_SIZE_MAX), EPERM);
	want_err("clone of a process with its TLS at a non-canonical address",
		 fork_tls_refused(1UL << 47), EPERM);
	pid = fork_tls(TASK_SIZE_MAX - 1);
	if (pid > 0)
		waitpid(pid, &status, 0);
	report("clone of a process with its TLS at the last address allowed",
	       pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- pipes and descriptors under a sleeping call ---- */

static int lt_pipe[2];
static pid_t lt_tid;
static long lt_n;
static int lt_errno;
static char lt_buf[64];
static char big[BIG], drain[BIG / 4];

/*
 * Wait until thread tid sleeps in the kernel.  On Linux its state in /proc
 * says so.  Where /proc has no such file, the sandbox's one vCPU runs the
 * thread at each yield until it sleeps or its time slice ends, and once
 * it sleeps a yield returns at once: a thousand yields give it a thousand
 * slices, far more than its call needs, for little more than one.
 */
static void wait_asleep(void)
{
	char path[64], buf[512];
	int i, fd;
	long n;

	while (!__atomic_load_n(&lt_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)lt_tid);
	for (i = 0; i < 100000; i++) {
		char *s;

		fd = open(path, O_RDONLY);
		if (fd < 0) {
			for (i = 0; i < 1000; i++)
				sched_yield();
			return;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		s = strrchr(buf, ')');
		if (s && s[1] == ' ' && s[2] == 'S')
			return;
		usleep(100);
	}
}

static void *reader(void *arg)
{
	(void)arg;
	__atomic_store_n(&lt_tid, gettid(), __ATOMIC_RELEASE);
	lt_n = read(lt_pipe[0], lt_buf, sizeof(lt_buf));
	lt_errno = errno;
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	__atomic_store_n(&lt_tid, gettid(), __ATOMIC_RELEASE);
	lt_n = write(lt_pipe[1], big, sizeof(big));
	lt_errno = errno;
	return NULL;
}

/* Start fn on lt_pipe and wait until it sleeps in its call. */
static pthread_t start_blocked(void *(*fn)(void *))
{
	pthread_t th;

	lt_tid = 0;
	lt_n = -2;
	memset(lt_buf, 0, sizeof(lt_buf));
	if (pthread_create(&th, NULL, fn, NULL)) {
		perror("lifetimes: pthread_create");
		exit(1);
	}
	wait_asleep();
	return th;
}

/* New pipes, each with the secret in it. */
static void new_pipes(int np[][2], int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pipe(np[i]) || write(np[i][1], SECRET, strlen(SECRET)) != (long)strlen(SECRET))
			np[i][0] = np[i][1] = -1;
}

/* Does each pipe hold the secret, and nothing else?  Closes them. */
static int only_secrets(int np[][2], int n)
{
	char buf[64];
	int i, ok = 1;

	for (i = 0; i < n; i++) {
		long got = 0, r;

		close(np[i][1]);
		while ((r = read(np[i][0], buf + got, sizeof(buf) - got)) > 0 && got < 63)
			got += r;
		ok &= got == (long)strlen(SECRET) && !memcmp(buf, SECRET, got);
		close(np[i][0]);
	}
	return ok;
}

/* A reader sleeps; another thread writes a byte, closes both ends, makes new pipes. */
static int reader_race(void)
{
	int np[4][2];
	pthread_t th;

	if (pipe(lt_pipe))
		return 0;
	th = start_blocked(reader);
	write(lt_pipe[1], "A", 1);
	close(lt_pipe[0]);
	close(lt_pipe[1]);
	new_pipes(np, 4);
	pthread_join(th, NULL);
	return lt_n == 1 && lt_buf[0] == 'A' && only_secrets(np, 4);
}

/* A writer sleeps on a full pipe; another thread closes both ends, makes new pipes. */
static int writer_race(void)
{
	int np[4][2];
	pthread_t th;

	if (pipe(lt_pipe))
		return 0;
	th = start_blocked(writer);
	close(lt_pipe[0]);
	close(lt_pipe[1]);
	new_pipes(np, 4);
	pthread_join(th, NULL);
	return ((lt_n > 0 && lt_n < BIG) || (lt_n == -1 && lt_errno == EPIPE)) &&
	       only_secrets(np, 4);
}

/* A reader sleeps and its descriptor is closed: a write still reaches it. */
static int close_reader(void)
{
	pthread_t th;
	int ok;

	if (pipe(lt_pipe))
		return 0;
	th = start_blocked(reader);
	close(lt_pipe[0]);
	ok = write(lt_pipe[1], "B", 1) == 1;
	pthread_join(th, NULL);
	close(lt_pipe[1]);
	return ok && lt_n == 1 && lt_buf[0] == 'B';
}

/* A writer sleeps and its descriptor is closed: it finishes, then the reader sees the end. */
static int close_writer(void)
{
	long got = 0, r;
	pthread_t th;

	if (pipe(lt_pipe))
		return 0;
	th = start_blocked(writer);
	close(lt_pipe[1]);
	while ((r = read(lt_pipe[0], drain, sizeof(drain))) > 0)
		got += r;
	pthread_join(th, NULL);
	close(lt_pipe[0]);
	return lt_n == BIG && got == BIG && r == 0;
}

/* A reader sleeps and its descriptor becomes another pipe's: it reads its own pipe. */
static int dup2_reader(void)
{
	pthread_t th;
	int q[2], ok;

	if (pipe(lt_pipe))
		return 0;
	if (pipe(q)) {
		close(lt_pipe[0]);
		close(lt_pipe[1]);
		return 0;
	}
	th = start_blocked(reader);
	ok = dup2(q[0], lt_pipe[0]) == lt_pipe[0];
	ok &= write(q[1], "C", 1) == 1;
	ok &= write(lt_pipe[1], "D", 1) == 1;
	pthread_join(th, NULL);
	ok &= lt_n == 1 && lt_buf[0] == 'D';
	ok &= read(lt_pipe[0], lt_buf, sizeof(lt_buf)) == 1 && lt_buf[0] == 'C';
	close(lt_pipe[0]);
	close(lt_pipe[1]);
	close(q[0]);
	close(q[1]);
	return ok;
}

static void rounds(const char *what, int (*fn)(void))
{
	int i, ok = 1;

	for (i = 0; i < ROUNDS && ok; i++)
		ok = fn();
	report(what, ok);
}

/* ---- address space ---- */

/* mmap and munmap of a page, over and over: the same few addresses serve. */
static void map_unmap(void)
{
	unsigned long lo = ~0UL, hi = 0;
	int i, ok = 1;

	for (i = 0; i < 5000 && ok; i++) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			ok = 0;
			break;
		}
		*p = 1;
		lo = (unsigned long)p < lo ? (unsigned long)p : lo;
		hi = (unsigned long)p > hi ? (unsigned long)p : hi;
		ok = !munmap(p, 4096);
	}
	report("5000 mmaps and munmaps of a page reuse their addresses", ok && hi - lo < (1 << 20));
}

/* Many maps, all unmapped, many times: the holes are filled again. */
static void map_many(void)
{
	unsigned long lo = ~0UL, hi = 0;
	char *p[16];
	int i, j, ok = 1;

	for (i = 0; i < 200 && ok; i++) {
		for (j = 0; j < 16; j++) {
			p[j] = mmap(NULL, 16384, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p[j] == MAP_FAILED)
				ok = 0;
			lo = (unsigned long)p[j] < lo ? (unsigned long)p[j] : lo;
			hi = (unsigned long)p[j] > hi ? (unsigned long)p[j] : hi;
		}
		for (j = 0; j < 16; j++)
			if (p[j] != MAP_FAILED)
				ok &= !munmap(p[j], 16384);
	}
	report("200 rounds of 16 mmaps and munmaps stay in a few megabytes",
	       ok && hi - lo < (4 << 20));
}

/*
 * mmaps larger than memory fail, as often as asked, and a page can still
 * be had.  Linux refuses a map larger than its memory and swap (its
 * heuristic overcommit); 3 GiB is, in the guest.
 */
static void map_fail(void)
{
	unsigned long len = 3UL << 30;
	struct sysinfo si;
	int i, ok = 1;
	char *p;

	if (!sysinfo(&si) && (si.totalram + si.totalswap) * si.mem_unit >= len)
		len = 2 * (si.totalram + si.totalswap) * si.mem_unit;
	for (i = 0; i < 1000 && ok; i++) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ok = p == MAP_FAILED && errno == ENOMEM;
	}
	report("1000 mmaps larger than memory fail with ENOMEM", ok);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	report("a page is mapped after them", p != MAP_FAILED);
	if (p != MAP_FAILED) {
		want_err("mmap with MAP_FIXED_NOREPLACE over it",
			 (long)mmap(p, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
				    MAP_FIXED_NOREPLACE, -1, 0), EEXIST);
		munmap(p, 4096);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec-child"))
		return exec_child();
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rounds("a blocked reader gets its byte while its pipe is closed and replaced", reader_race);
	rounds("a blocked writer's bytes reach no new pipe", writer_race);
	rounds("a write reaches a reader whose descriptor was closed", close_reader);
	rounds("a writer whose descriptor was closed finishes, then the pipe ends", close_writer);
	rounds("a reader whose descriptor dup2 replaced reads its own pipe", dup2_reader);
	map_unmap();
	map_many();
	map_fail();
	tls_cases();
	exec_state();
	printf("lifetimes: %s (%s)\n", failed ? "FAIL" : "all ok", argv[0]);
	return failed;
}
