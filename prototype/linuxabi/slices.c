// SPDX-License-Identifier: GPL-2.0
/*
 * slices: a processor shared in time, and sleeps that end on time, as
 * Linux gives them, on whatever kernel runs it (the suite runs it with
 * one vCPU).  Two threads of one process that only compute, one spinning
 * on a flag the other must set, and the same after both have slept to
 * the same time; two processes that hand a token back and
 * forth through shared memory by spinning alone; a computing loop that
 * a timer's signal interrupts with no system call in it; nanosleep and
 * clock_nanosleep, relative and absolute, and their errors.  It prints
 * "slices: ok" and exits 0 if everything held, and names what did not
 * otherwise.  An alarm bounds the whole: a kernel without time slices
 * would spin for ever, and dies of SIGALRM instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	20

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("slices: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static long now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static volatile int flag;

/* It computes a while before it sets the flag, with no system call. */
static void *setter(void *arg)
{
	volatile unsigned long i, sum = 0;

	(void)arg;
	for (i = 0; i < 1000000; i++)
		sum += i;
	flag = 1;
	return NULL;
}

/* The creator spins until the new thread, on the same processor, sets the flag. */
static void threads_share(void)
{
	pthread_t th;

	flag = 0;
	check(pthread_create(&th, NULL, setter, NULL) == 0, "pthread_create");
	while (!flag)
		;
	check(pthread_join(th, NULL) == 0, "pthread_join");
}

static void *sleep_then_set(void *arg)
{
	struct timespec ts = { 0, 20000000 };

	(void)arg;
	nanosleep(&ts, NULL);
	flag = 1;
	return NULL;
}

/*
 * Both threads sleep to about the same time, so both may become ready
 * at once while the processor idles; the first to run spins until the
 * other has set the flag.
 */
static void both_wake(void)
{
	struct timespec ts = { 0, 20000000 };
	pthread_t th;

	flag = 0;
	check(pthread_create(&th, NULL, sleep_then_set, NULL) == 0, "pthread_create");
	nanosleep(&ts, NULL);
	while (!flag)
		;
	check(pthread_join(th, NULL) == 0, "pthread_join");
}

/* Parent and child take turns on a word of shared memory, spinning for theirs. */
static void processes_share(void)
{
	volatile int *turn = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, status;
	pid_t pid;

	check(turn != MAP_FAILED, "mmap shared");
	if (turn == MAP_FAILED)
		return;
	*turn = 0;
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < ROUNDS; i++) {
			while (*turn != 2 * i + 1)
				;
			*turn = 2 * i + 2;
		}
		_exit(0);
	}
	check(pid > 0, "fork");
	for (i = 0; pid > 0 && i < ROUNDS; i++) {
		*turn = 2 * i + 1;
		while (*turn != 2 * i + 2)
			;
	}
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the child took its turns");
	munmap((void *)turn, 4096);
}

static void on_alarm(int sig)
{
	(void)sig;
	flag = 1;
}

/* A loop with no call in it, ended by a timer's signal's handler. */
static void signal_interrupts_loop(void)
{
	struct itimerval it = { .it_value = { 0, 50000 } };
	struct sigaction sa = { .sa_handler = on_alarm };

	flag = 0;
	check(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	check(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	while (!flag)
		;
	signal(SIGALRM, SIG_DFL);
}

/* A sleep lasts at least its time, and ends well within a few seconds of it. */
static void sleeps(void)
{
	struct timespec ts = { 0, 30000000 }, rem;
	long t0, took;

	t0 = now_ms(CLOCK_MONOTONIC);
	check(nanosleep(&ts, &rem) == 0, "nanosleep");
	took = now_ms(CLOCK_MONOTONIC) - t0;
	check(took >= 30 && took < 5000, "nanosleep took its time");

	t0 = now_ms(CLOCK_MONOTONIC);
	check(clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) == 0, "clock_nanosleep");
	took = now_ms(CLOCK_MONOTONIC) - t0;
	check(took >= 30 && took < 5000, "clock_nanosleep took its time");

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	ts.tv_nsec += 30000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	check(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 0,
	      "clock_nanosleep TIMER_ABSTIME");
	took = now_ms(CLOCK_MONOTONIC) - t0;
	check(took >= 29 && took < 5000, "an absolute sleep took its time");

	/* A time already past: at once. */
	check(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 0,
	      "clock_nanosleep TIMER_ABSTIME past");
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	check(nanosleep(&ts, NULL) == 0, "nanosleep of nothing");
}

/*
 * The kernel's answers, by the raw call: glibc's clock_nanosleep answers
 * some clocks itself, and returns its error rather than setting errno.
 */
static void sleep_errors(void)
{
	struct timespec ts = { 0, 1000 }, bad = { 0, 1000000000 }, neg = { -1, 0 };
	static const struct { clockid_t clk; int err; } clocks[] = {
		{ -1, EINVAL }, { 10, EINVAL }, { 12, EINVAL },
		{ CLOCK_THREAD_CPUTIME_ID, EOPNOTSUPP },
		{ CLOCK_MONOTONIC_RAW, EOPNOTSUPP },
		{ CLOCK_REALTIME_COARSE, EOPNOTSUPP },
		{ CLOCK_MONOTONIC_COARSE, EOPNOTSUPP },
		{ CLOCK_REALTIME, 0 }, { CLOCK_BOOTTIME, 0 }, { CLOCK_TAI, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		long r = syscall(SYS_clock_nanosleep, clocks[i].clk, 0, &ts, NULL);

		if (r ? errno != clocks[i].err : clocks[i].err != 0) {
			printf("slices: FAIL clock_nanosleep clock %d: %ld errno %d, want %d\n",
			       (int)clocks[i].clk, r, r ? errno : 0, clocks[i].err);
			failed = 1;
		}
	}
	check(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL) == EINVAL, "a nanosecond too many");
	check(clock_nanosleep(CLOCK_MONOTONIC, 0, &neg, NULL) == EINVAL, "a negative time");
	check(clock_nanosleep(CLOCK_MONOTONIC, 0, (void *)8, NULL) == EFAULT, "a bad pointer");
	errno = 0;
	check(nanosleep(&bad, NULL) == -1 && errno == EINVAL, "nanosleep's nanosecond too many");
	errno = 0;
	check(syscall(SYS_nanosleep, &ts, 8) == 0, "a bad remainder, unused");
}

int main(void)
{
	alarm(60);
	threads_share();
	both_wake();
	processes_share();
	signal_interrupts_loop();
	sleeps();
	sleep_errors();
	if (failed)
		return 1;
	printf("slices: ok\n");
	return 0;
}
