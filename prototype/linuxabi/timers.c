// SPDX-License-Identifier: GPL-2.0
/*
 * timers: POSIX timers as Linux gives them, through glibc, on whatever
 * kernel runs it.  A one-shot timer's signal with its siginfo (SI_TIMER,
 * the value, the timer's id); a periodic one whose signal is blocked
 * across several periods, delivered once with the overruns counted; an
 * absolute time; SIGEV_NONE read with timer_gettime; glibc's SIGEV_THREAD,
 * which runs a function in a thread of glibc's; SIGEV_THREAD_ID to one
 * thread; a fork's child without its parent's timers; and the errors of
 * calls made wrongly.  It prints "timers: ok" and exits 0 if everything
 * held, and names what did not otherwise.  The suite runs it on Linux
 * first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("timers: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void check_err(long r, int err, const char *what)
{
	check(r == -1 && errno == err, what);
}

static volatile int got_code, got_value, got_overrun, got_count;
static volatile long got_tid;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_code = si->si_code;
	got_value = si->si_value.sival_int;
	got_overrun = si->si_overrun;
	got_tid = syscall(SYS_gettid);
	got_count++;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static timer_t make(int notify, int sig, int value)
{
	struct sigevent ev = { .sigev_notify = notify, .sigev_signo = sig };
	timer_t id = 0;

	ev.sigev_value.sival_int = value;
	check(!timer_create(CLOCK_MONOTONIC, &ev, &id), "timer_create");
	return id;
}

static int arm(timer_t id, long value_ms, long every_ms, int flags)
{
	struct itimerspec its = {
		.it_value = { value_ms / 1000, value_ms % 1000 * 1000000 },
		.it_interval = { every_ms / 1000, every_ms % 1000 * 1000000 },
	};

	return timer_settime(id, flags, &its, NULL);
}

static volatile int thread_runs;

static void in_thread(union sigval v)
{
	if (v.sival_int == 77)
		thread_runs++;
}

static void *sleeper(void *arg)
{
	long *tid = arg;

	*tid = syscall(SYS_gettid);
	ms_sleep(600);
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on_timer, .sa_flags = SA_SIGINFO };
	struct itimerspec cur;
	struct timespec now;
	sigset_t set;
	timer_t id, none;
	pthread_t th;
	long tid = 0;
	int i, st = -1;
	pid_t pid;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);

	/* One shot: the siginfo Linux gives. */
	id = make(SIGEV_SIGNAL, SIGUSR1, 42);
	check(!arm(id, 50, 0, 0), "timer_settime");
	for (i = 0; i < 100 && !got_count; i++)
		ms_sleep(10);
	check(got_count == 1 && got_code == SI_TIMER && got_value == 42, "a one-shot timer's signal");
	check(!timer_gettime(id, &cur) && !cur.it_value.tv_sec && !cur.it_value.tv_nsec,
	      "an expired one-shot timer reads as disarmed");

	/* Periodic, its signal blocked across periods: one signal, the rest overruns. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	got_count = 0;
	check(!arm(id, 50, 50, 0), "a periodic timer");
	ms_sleep(500);
	sigprocmask(SIG_UNBLOCK, &set, NULL);	/* delivered here */
	sigprocmask(SIG_BLOCK, &set, NULL);	/* and no other until the disarm */
	check(got_count == 1 && got_overrun >= 3, "a blocked periodic timer's overruns counted");
	check(timer_getoverrun(id) == got_overrun, "timer_getoverrun says the same");
	check(!arm(id, 0, 0, 0), "disarmed");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	check(timer_getoverrun(id) == 0, "a timer set again has no overruns");

	/* An absolute time, on the timer's clock. */
	got_count = 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	now.tv_nsec += 30 * 1000000;
	if (now.tv_nsec >= 1000000000) {
		now.tv_sec++;
		now.tv_nsec -= 1000000000;
	}
	cur = (struct itimerspec){ .it_value = now };
	check(!timer_settime(id, TIMER_ABSTIME, &cur, NULL), "TIMER_ABSTIME");
	for (i = 0; i < 100 && !got_count; i++)
		ms_sleep(10);
	check(got_count == 1, "an absolute timer's signal");
	check(!timer_delete(id), "timer_delete");
	check_err(timer_delete(id), EINVAL, "timer_delete twice");

	/* SIGEV_NONE: no signal, but the time runs down. */
	none = make(SIGEV_NONE, 0, 0);
	check(!arm(none, 5000, 0, 0), "a SIGEV_NONE timer");
	ms_sleep(20);
	check(!timer_gettime(none, &cur) && cur.it_value.tv_sec < 5 &&
	      (cur.it_value.tv_sec || cur.it_value.tv_nsec), "SIGEV_NONE's time left");

	/* A fork's child has none of its parent's timers. */
	pid = fork();
	if (!pid)
		_exit(timer_gettime(none, &cur) == -1 && errno == EINVAL ? 0 : 1);
	waitpid(pid, &st, 0);
	check(st == 0, "a fork's child has no timers");
	timer_delete(none);

	/* glibc's SIGEV_THREAD: a function run in a thread glibc makes. */
	{
		struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = in_thread };

		ev.sigev_value.sival_int = 77;
		check(!timer_create(CLOCK_REALTIME, &ev, &id), "a SIGEV_THREAD timer");
		check(!arm(id, 20, 0, 0), "armed");
		for (i = 0; i < 100 && !thread_runs; i++)
			ms_sleep(10);
		check(thread_runs == 1, "its function ran");
		timer_delete(id);
	}

	/* SIGEV_THREAD_ID: to one thread, the one that sleeps. */
	check(!pthread_create(&th, NULL, sleeper, &tid), "pthread_create");
	while (!__atomic_load_n(&tid, __ATOMIC_SEQ_CST))
		ms_sleep(1);
	{
		struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGRTMIN };

		ev._sigev_un._tid = tid;
		got_count = 0;
		check(!timer_create(CLOCK_MONOTONIC, &ev, &id), "a SIGEV_THREAD_ID timer");
		check(!arm(id, 30, 0, 0), "armed");
		for (i = 0; i < 100 && !got_count; i++)
			ms_sleep(10);
		check(got_count == 1 && got_tid == tid, "its signal went to its thread");
		timer_delete(id);
		ev._sigev_un._tid = 999999;
		check_err(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL,
			  "SIGEV_THREAD_ID to no thread of the process");
	}
	pthread_join(th, NULL);

	/* Errors, made as Linux makes them. */
	check_err(syscall(SYS_timer_create, 10, NULL, &id), EINVAL, "timer_create of a retired clock");
	check_err(syscall(SYS_timer_create, CLOCK_MONOTONIC_RAW, NULL, &id), EOPNOTSUPP,
		  "timer_create of CLOCK_MONOTONIC_RAW");
	{
		struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 65 };

		check_err(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL, "a signal past 64");
		ev.sigev_notify = 99;
		check_err(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL, "an unknown sigev_notify");
	}
	id = make(SIGEV_SIGNAL, SIGUSR1, 0);
	check_err(syscall(SYS_timer_settime, id, 0, NULL, NULL), EINVAL, "timer_settime of NULL");
	cur = (struct itimerspec){ .it_value = { 0, 1000000000 } };
	check_err(timer_settime(id, 0, &cur, NULL), EINVAL, "a nanosecond count of a second");
	check_err(syscall(SYS_timer_gettime, 12345, &cur), EINVAL, "timer_gettime of no timer");
	check_err(syscall(SYS_timer_getoverrun, -1), EINVAL, "timer_getoverrun of -1");
	timer_delete(id);
	if (!failed)
		printf("timers: ok\n");
	return failed;
}
