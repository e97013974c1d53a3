// SPDX-License-Identifier: GPL-2.0
/*
 * lxbench: one static C program (glibc), run unmodified in the same boot on
 * Linux, in the sandbox under the linux kernel proper, and under User-Mode
 * Linux, that times with the cycle counter what a process asks of its
 * kernel:
 *
 *   user_64k       no system call at all: a pass of reads and writes over
 *                  64 KiB of the process's own memory, 16 pages
 *   user_1m        the same over 1 MiB, 256 pages: the control rows
 *   getppid_rt     a null system call, each call timed
 *   yield_rt       sched_yield between two processes on one CPU: a round trip
 *   pipe_rt        a byte through a pipe to a child and back through another
 *   mmap_256       mmap of 256 pages of anonymous memory
 *   touch_256      the first write to each of them
 *   munmap_256     munmap of them
 *   fork_32m       fork of a process with 32 MiB touched, and its wait
 *   thread_rt      pthread_create of a thread that returns at once, and
 *                  its pthread_join
 *   cond_rt        a turn passed to another thread of the process and back
 *                  through a condition variable: futex waits and wakes
 *   fork_exec      fork, exec of busybox true, and the wait
 *   sh_true        busybox sh running true, a builtin: the shell's own start
 *   sh_loop        busybox sh running a loop of 1000 rounds in itself
 *   sh_pipe        busybox sh running echo a b c | busybox wc -w
 *
 * One figure line each (prototype/abi/ev_report.h, through the guest's
 * report.h), its key prefixed with argv[1]: median and p99 in cycles.
 * With argv[2], K/N, the run is part K of N that a suite takes turns
 * between (linux-perf: Linux and the sandbox), and each line says so
 * (part=K/N, which figlog's parts.go reads).
 * The sizes fit the sandbox's grant of frames, which maps memory when it
 * is allocated, not at its first touch.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include "report.h"

#define ROUNDS		1000
#define BIG_ROUNDS	10
#define PAGE		4096
#define PAGES		256
#define FORK_MB		32
#define THREAD_ROUNDS	100
#define MAX_PARTS	16	/* as figlog's parts.go reads them */

static uint64_t samples[ROUNDS];
static const char *prefix;
static char part[16];	/* " part=K/N", or empty */

static unsigned long long now(void)
{
	_mm_lfence();
	return __rdtsc();
}

static void report(const char *name, int n)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", prefix, name);
	fig_median_more(key, samples, n, part);
}

static void one_cpu(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* the sandbox's fork keeps the vCPU anyway */
}

/* Passes over the first len bytes of a buffer of 1 MiB, a write each 64 bytes. */
static void user_pass(const char *name, unsigned int len)
{
	static volatile unsigned char buf[1 << 20];
	unsigned int i, j;

	for (i = 0; i < BIG_ROUNDS * 2; i++) {
		unsigned long long a = now();

		for (j = 0; j < len; j += 64)
			buf[j] = buf[j] + 1;
		samples[i] = now() - a;
	}
	report(name, BIG_ROUNDS * 2);
}

static void getppid_rt(void)
{
	int i;

	for (i = 0; i < 100; i++)
		syscall(SYS_getppid);
	for (i = 0; i < ROUNDS; i++) {
		unsigned long long a = now();

		syscall(SYS_getppid);
		samples[i] = now() - a;
	}
	report("getppid_rt", ROUNDS);
}

static void yield_rt(void)
{
	pid_t child = fork();
	int i;

	if (!child)
		for (;;)
			sched_yield();
	for (i = 0; i < 100; i++)
		sched_yield();
	for (i = 0; i < ROUNDS; i++) {
		unsigned long long a = now();

		sched_yield();
		samples[i] = now() - a;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	report("yield_rt", ROUNDS);
}

static void pipe_rt(void)
{
	int there[2], back[2], i;
	pid_t child;
	char c = 'x';

	if (pipe(there) || pipe(back))
		exit(2);
	child = fork();
	if (!child) {
		close(there[1]);
		close(back[0]);
		while (read(there[0], &c, 1) == 1)
			if (write(back[1], &c, 1) != 1)
				_exit(3);
		_exit(0);
	}
	close(there[0]);
	close(back[1]);
	for (i = -100; i < ROUNDS; i++) {
		unsigned long long a = now();

		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			exit(4);
		if (i >= 0)
			samples[i] = now() - a;
	}
	close(there[1]);
	waitpid(child, NULL, 0);
	report("pipe_rt", ROUNDS);
}

static void mmap_touch(void)
{
	unsigned long long m[BIG_ROUNDS * 2], tt[BIG_ROUNDS * 2], u[BIG_ROUNDS * 2];
	int i, j, n = BIG_ROUNDS * 2;

	for (i = 0; i < n; i++) {
		unsigned long long a = now();
		char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		m[i] = now() - a;
		if (p == MAP_FAILED)
			exit(5);
		madvise(p, PAGES * PAGE, MADV_NOHUGEPAGE);
		a = now();
		for (j = 0; j < PAGES; j++)
			p[j * PAGE] = 1;
		tt[i] = now() - a;
		a = now();
		munmap(p, PAGES * PAGE);
		u[i] = now() - a;
	}
	memcpy(samples, m, sizeof(m));
	report("mmap_256", n);
	memcpy(samples, tt, sizeof(tt));
	report("touch_256", n);
	memcpy(samples, u, sizeof(u));
	report("munmap_256", n);
}

static void *nothing(void *arg)
{
	return arg;
}

static void thread_rt(void)
{
	int i;

	for (i = 0; i < THREAD_ROUNDS; i++) {
		unsigned long long a = now();
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL)) {
			fprintf(stderr, "lxbench: pthread_create or pthread_join failed\n");
			exit(1);
		}
		samples[i] = now() - a;
	}
	report("thread_rt", THREAD_ROUNDS);
}

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn;

/* Takes the turn and gives it back, ROUNDS times and the warm-up's. */
static void *turn_taker(void *arg)
{
	int i;

	for (i = 0; i < ROUNDS + 10; i++) {
		pthread_mutex_lock(&turn_lock);
		while (turn != 1)
			pthread_cond_wait(&turn_cond, &turn_lock);
		turn = 0;
		pthread_cond_signal(&turn_cond);
		pthread_mutex_unlock(&turn_lock);
	}
	return arg;
}

static void cond_rt(void)
{
	pthread_t t;
	int i;

	if (pthread_create(&t, NULL, turn_taker, NULL)) {
		fprintf(stderr, "lxbench: pthread_create failed\n");
		exit(1);
	}
	for (i = -10; i < ROUNDS; i++) {
		unsigned long long a = now();

		pthread_mutex_lock(&turn_lock);
		turn = 1;
		pthread_cond_signal(&turn_cond);
		while (turn != 0)
			pthread_cond_wait(&turn_cond, &turn_lock);
		pthread_mutex_unlock(&turn_lock);
		if (i >= 0)
			samples[i] = now() - a;
	}
	pthread_join(t, NULL);
	report("cond_rt", ROUNDS);
}

static void fork_big(void)
{
	size_t len = (size_t)FORK_MB << 20, off;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		exit(6);
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += PAGE)
		p[off] = 1;
	for (i = 0; i < BIG_ROUNDS; i++) {
		unsigned long long a = now();
		pid_t child = fork();

		if (!child)
			_exit(0);
		waitpid(child, NULL, 0);
		samples[i] = now() - a;
	}
	munmap(p, len);
	report("fork_32m", BIG_ROUNDS);
}

static void fork_exec(void)
{
	char *argv[] = { "busybox", "true", NULL }, *envp[] = { NULL };
	int i;

	for (i = 0; i < BIG_ROUNDS; i++) {
		unsigned long long a = now();
		pid_t child = fork();

		if (!child) {
			execve("/bin/busybox", argv, envp);
			_exit(127);
		}
		waitpid(child, NULL, 0);
		samples[i] = now() - a;
	}
	report("fork_exec", BIG_ROUNDS);
}

/*
 * sh: busybox sh -c script, run BIG_ROUNDS times from fork to wait, its
 * output read through a pipe and checked against want: a row times only
 * a shell that did what it was asked.
 */
static void sh(const char *name, const char *script, const char *want)
{
	char *argv[] = { "busybox", "sh", "-c", (char *)script, NULL }, *envp[] = { NULL };
	char out[64];
	int i, fd[2], status;

	for (i = 0; i < BIG_ROUNDS; i++) {
		unsigned long long a = now();
		ssize_t n, got = 0;
		pid_t child;

		if (pipe(fd))
			exit(7);
		child = fork();
		if (!child) {
			dup2(fd[1], 1);
			close(fd[0]);
			close(fd[1]);
			execve("/bin/busybox", argv, envp);
			_exit(127);
		}
		close(fd[1]);
		while ((n = read(fd[0], out + got, sizeof(out) - 1 - got)) > 0)
			got += n;
		close(fd[0]);
		waitpid(child, &status, 0);
		samples[i] = now() - a;
		out[got] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) || strcmp(out, want)) {
			printf("lxbench: %s: exit status %#x, output \"%s\", want \"%s\"\n",
			       name, status, out, want);
			exit(8);
		}
	}
	report(name, BIG_ROUNDS);
}

/* Is s a part "K/N", 1 <= K <= N, 2 <= N <= MAX_PARTS, digits only? */
static int valid_part(const char *s)
{
	unsigned int k, n;
	char end;

	if (strspn(s, "0123456789/") != strlen(s) || strlen(s) > 5)
		return 0;
	return sscanf(s, "%u/%u%c", &k, &n, &end) == 2 && k >= 1 && k <= n &&
	       n >= 2 && n <= MAX_PARTS;
}

int main(int argc, char **argv)
{
	prefix = argc > 1 ? argv[1] : "lxbench";
	if (argc > 2) {
		if (!valid_part(argv[2])) {
			fprintf(stderr, "lxbench: part %s: want K/N, 1 <= K <= N, 2 <= N <= %d\n",
				argv[2], MAX_PARTS);
			return 2;
		}
		snprintf(part, sizeof(part), " part=%s", argv[2]);
	}
	one_cpu();
	user_pass("user_64k", 64 << 10);
	user_pass("user_1m", 1 << 20);
	getppid_rt();
	yield_rt();
	pipe_rt();
	mmap_touch();
	thread_rt();
	cond_rt();
	fork_big();
	fork_exec();
	sh("sh_true", "true", "");
	sh("sh_loop", "i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done; echo $i", "1000\n");
	sh("sh_pipe", "echo a b c | busybox wc -w", "3\n");
	return 0;
}
