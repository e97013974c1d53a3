// SPDX-License-Identifier: GPL-2.0
/*
 * cputime: CPU time as Linux accounts it, on whatever kernel runs it.  The
 * process's and the thread's CPU clocks grow while it computes, not while
 * it sleeps; another thread's and a child's clocks are read by their ids;
 * getrusage, times and wait4's rusage give mostly user time to a loop that
 * makes few calls; a child's time, and its own children's, becomes its parent's
 * once a wait reaps it, and not before, nor if SIGCHLD is ignored;
 * ITIMER_VIRTUAL and ITIMER_PROF fire after the CPU time they count,
 * ITIMER_VIRTUAL not during a sleep, and a fork's child has none; and the
 * errors of calls made wrongly.  It prints "cputime: ok" and exits 0 if
 * everything held, and names what did not otherwise.  The suite runs it on
 * Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS		1000000LL
/* Linux's encoding of CPU clocks (linux/posix-timers_types.h). */
#define CPUCLOCK_PROF	0
#define CPUCLOCK_SCHED	2
#define PROCESS_CLOCK(pid, which)	((clockid_t)(~(unsigned int)(pid) << 3) | (which))
#define THREAD_CLOCK(tid, which)	(PROCESS_CLOCK(tid, which) | 4)

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("cputime: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void check_err(long r, int err, const char *what)
{
	check(r == -1 && errno == err, what);
}

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

/* User and system time together. */
static long long total(const struct rusage *ru)
{
	return tv_ns(ru->ru_utime) + tv_ns(ru->ru_stime);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static volatile unsigned long sink;

/* Computation with no system call in it, a fraction of a millisecond or so. */
static void compute(void)
{
	for (int i = 0; i < 20000; i++)
		sink = sink * 31 + i;
}

/* Compute until the calling thread's CPU clock has grown by ms. */
static void spin_ms(long ms)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ms * MS;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		compute();
}

static volatile int stop_spinner;

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop_spinner)
		compute();
	return NULL;
}

/* Whether clock c, of something that computes while this sleeps, grows. */
static int grows(clockid_t c)
{
	long long t0, t1;

	sleep_ms(30);
	t0 = clock_ns(c);
	sleep_ms(30);
	t1 = clock_ns(c);
	return t0 >= 0 && t1 > t0;
}

/*
 * In a thread not the first: its own id names its process's clock for
 * clock_gettime, as Linux's pid_for_clock allows, but not for clock_getres.
 */
static void *own_id(void *arg)
{
	struct timespec ts;
	pid_t tid = syscall(SYS_gettid);

	(void)arg;
	check(!clock_gettime(PROCESS_CLOCK(tid, CPUCLOCK_SCHED), &ts),
	      "a thread's own id names its process's clock to read");
	check_err(clock_getres(PROCESS_CLOCK(tid, CPUCLOCK_SCHED), &ts), EINVAL,
		  "but not to ask its resolution");
	check(!clock_getres(THREAD_CLOCK(tid, CPUCLOCK_SCHED), &ts), "its own thread clock");
	return NULL;
}

/* The clocks: resolutions, growth while computing and not while asleep, other ids. */
static void clocks(void)
{
	struct timespec res, coarse;
	long long p0, t0, w0, p1, t1, w1;
	clockid_t other, mine;
	pthread_t th;
	pid_t child;

	check(!clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res) && !res.tv_sec && res.tv_nsec == 1,
	      "the process's CPU clock counts nanoseconds");
	check(!clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) && !res.tv_sec && res.tv_nsec == 1,
	      "the thread's CPU clock counts nanoseconds");
	check(!clock_getres(CLOCK_REALTIME_COARSE, &coarse) &&
	      !clock_getres(PROCESS_CLOCK(0, CPUCLOCK_PROF), &res) &&
	      res.tv_sec == coarse.tv_sec && res.tv_nsec == coarse.tv_nsec,
	      "the profiling clock's resolution is a tick, as the coarse clock's");
	check(!clock_getres(CLOCK_MONOTONIC, &res) && !res.tv_sec && res.tv_nsec == 1,
	      "the monotonic clock's resolution is a nanosecond");
	check(clock_getres(CLOCK_MONOTONIC, NULL) == 0, "clock_getres into NULL");

	/*
	 * Each interval inside the one it is bounded by: a pause of the
	 * machine between two readings (the host's, under emulation) then
	 * lengthens the outer one too.
	 */
	w0 = clock_ns(CLOCK_MONOTONIC);
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	spin_ms(50);
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	w1 = clock_ns(CLOCK_MONOTONIC);
	check(t1 - t0 >= 50 * MS, "the thread's clock grows while it computes");
	check(p1 - p0 >= t1 - t0 - MS, "the process's clock grows with its one thread's");
	check(p1 - p0 <= w1 - w0 + MS, "one thread's time is no more than the time passed");
	check(!clock_getcpuclockid(0, &mine) && clock_ns(mine) >= p1,
	      "clock_getcpuclockid(0) is the process's clock");

	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	sleep_ms(50);
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	check(t1 - t0 < 25 * MS, "a thread asleep does not add to its clock");

	/* Another thread's clock, read while it computes and this one sleeps. */
	stop_spinner = 0;
	check(!pthread_create(&th, NULL, spinner, NULL), "pthread_create");
	check(!pthread_getcpuclockid(th, &other), "pthread_getcpuclockid");
	check(grows(other), "another thread's clock grows while it computes");
	stop_spinner = 1;
	pthread_join(th, NULL);
	check(!pthread_create(&th, NULL, own_id, NULL), "pthread_create");
	pthread_join(th, NULL);

	/* A child's, by its pid. */
	child = fork();
	if (!child) {
		for (;;)
			compute();
	}
	check(!clock_getcpuclockid(child, &other), "clock_getcpuclockid of a child");
	check(grows(other), "a child's clock grows while it computes");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	errno = 0;
	check_err(clock_gettime(-1, &res), EINVAL, "clock_gettime of clock -1");
	check_err(clock_gettime(THREAD_CLOCK(0x3ffffff0, CPUCLOCK_SCHED), &res), EINVAL,
		  "the clock of a thread that does not exist");
	check_err(clock_gettime(PROCESS_CLOCK(0x3ffffff0, CPUCLOCK_SCHED), &res), EINVAL,
		  "the clock of a process that does not exist");
	check_err(clock_getres(THREAD_CLOCK(0, 3), &res), EINVAL, "a CPU clock of the fourth kind");
	check_err(clock_getres(PROCESS_CLOCK(0, 3), &res), EINVAL,
		  "a clock device's id, of a file that is no clock");
	check_err(clock_getres(12, &res), EINVAL, "clock_getres of clock 12");
	check_err(syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (void *)8), EFAULT,
		  "clock_gettime of the CPU clock to a bad address");
}

/* A child computes ms of its own, or has a child of its own do it; it exits once it says so. */
static pid_t child_computing(long ms, int grandchild, int done[2])
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (grandchild) {
		pid_t g = fork();

		if (!g) {
			spin_ms(ms);
			_exit(0);
		}
		waitpid(g, NULL, 0);
	} else {
		spin_ms(ms);
	}
	if (write(done[1], "x", 1) != 1)
		_exit(1);
	_exit(0);
}

/* getrusage, times and wait4: a child's time is its parent's once reaped. */
static void usage(void)
{
	struct rusage self, thread, children, ru;
	struct tms tms;
	int done[2], status;
	clock_t c0, c1;
	char x;
	pid_t pid;

	check(!getrusage(RUSAGE_CHILDREN, &children) && !total(&children),
	      "no child's time before a child");
	spin_ms(40);
	/*
	 * Linux charges each tick to user or system by where it landed, and
	 * the loop reads its clock through a call now and then: most of it,
	 * not all, is user time.
	 */
	check(!getrusage(RUSAGE_SELF, &self) && total(&self) >= 30 * MS &&
	      tv_ns(self.ru_utime) >= total(&self) / 2,
	      "a loop with few calls in it is mostly user time");
	check(!getrusage(RUSAGE_THREAD, &thread) && total(&thread) <= total(&self) + 10 * MS,
	      "a thread's time is within its process's");

	check(!pipe(done), "pipe");
	pid = child_computing(40, 0, done);
	check(read(done[0], &x, 1) == 1, "the child computed");
	sleep_ms(10);
	check(!getrusage(RUSAGE_CHILDREN, &children) && !total(&children),
	      "an exited child's time is not its parent's before a wait");
	check(wait4(pid, &status, 0, &ru) == pid && total(&ru) >= 30 * MS,
	      "wait4's rusage has the child's time");
	check(!getrusage(RUSAGE_CHILDREN, &children) &&
	      total(&children) >= total(&ru) - MS && total(&children) <= total(&ru) + MS,
	      "a reaped child's time is its parent's");
	c0 = times(&tms);
	check(c0 != (clock_t)-1 && tms.tms_cutime + tms.tms_cstime >= 3 &&
	      tms.tms_utime + tms.tms_stime >= 3,
	      "times: the process's and its reaped child's time");

	pid = child_computing(30, 1, done);
	check(read(done[0], &x, 1) == 1, "the grandchild computed");
	check(waitpid(pid, &status, 0) == pid, "waitpid of the grandchild's parent");
	check(!getrusage(RUSAGE_CHILDREN, &ru) && total(&ru) >= total(&children) + 20 * MS,
	      "a child's reaped children's time is its parent's too");

	signal(SIGCHLD, SIG_IGN);
	pid = child_computing(30, 0, done);
	check(read(done[0], &x, 1) == 1, "the ignored child computed");
	errno = 0;
	while (wait(NULL) != -1 || errno != ECHILD)
		;
	check(!getrusage(RUSAGE_CHILDREN, &children) && total(&children) == total(&ru),
	      "a child reaped as it exits adds no time");
	signal(SIGCHLD, SIG_DFL);
	close(done[0]);
	close(done[1]);

	sleep_ms(50);
	c1 = times(NULL);
	check(c1 != (clock_t)-1 && c1 - c0 >= 4, "times' return counts the ticks passed");
	check_err(getrusage(5, &ru), EINVAL, "getrusage of who 5");
	check_err(getrusage(RUSAGE_SELF, (void *)8), EFAULT, "getrusage to a bad address");
	check_err(syscall(SYS_times, (void *)8), EFAULT, "times to a bad address");
}

static volatile int vtalrms, profs, alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_vtalrm(int sig)
{
	(void)sig;
	vtalrms++;
}

static void on_prof(int sig)
{
	(void)sig;
	profs++;
}

/* Compute until *count reaches n, or the thread's clock has grown by limit ms. */
static int compute_until(volatile int *count, int n, long limit)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + limit * MS;

	while (*count < n) {
		compute();
		if (clock_ns(CLOCK_THREAD_CPUTIME_ID) > end)
			return 0;
	}
	return 1;
}

/* The CPU-time interval timers. */
static void itimers(void)
{
	struct itimerval it = { .it_value = { 0, 20000 } }, old, cur;
	long long t0, t1;
	int status;
	pid_t pid;

	signal(SIGVTALRM, on_vtalrm);
	signal(SIGPROF, on_prof);
	signal(SIGALRM, on_alarm);
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	check(!setitimer(ITIMER_VIRTUAL, &it, NULL), "setitimer ITIMER_VIRTUAL");
	alarm(10);	/* were it never to fire */
	while (!vtalrms && !alarms)
		compute();
	alarm(0);
	check(vtalrms == 1, "ITIMER_VIRTUAL fires in a loop with no call");
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	check(t1 - t0 >= 19 * MS, "ITIMER_VIRTUAL fires after its time, not before");
	check(!getitimer(ITIMER_VIRTUAL, &cur) && !cur.it_value.tv_sec && !cur.it_value.tv_usec,
	      "a one-shot ITIMER_VIRTUAL is spent");

	it = (struct itimerval){ .it_value = { 1, 0 } };
	check(!setitimer(ITIMER_VIRTUAL, &it, NULL) && !getitimer(ITIMER_VIRTUAL, &cur) &&
	      cur.it_value.tv_sec * 1000000LL + cur.it_value.tv_usec > 900000 &&
	      cur.it_value.tv_sec * 1000000LL + cur.it_value.tv_usec <= 1010000,
	      "getitimer: ITIMER_VIRTUAL's time left");
	pid = fork();
	if (!pid)
		_exit(getitimer(ITIMER_VIRTUAL, &cur) || cur.it_value.tv_sec || cur.it_value.tv_usec);
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "a fork's child has no ITIMER_VIRTUAL");

	vtalrms = 0;
	it = (struct itimerval){ .it_value = { 0, 10000 } };
	check(!setitimer(ITIMER_VIRTUAL, &it, &old) &&
	      old.it_value.tv_sec * 1000000LL + old.it_value.tv_usec > 0 &&
	      old.it_value.tv_sec * 1000000LL + old.it_value.tv_usec <= 1010000,
	      "setitimer gives back the time the old one had left");
	sleep_ms(60);
	check(!vtalrms, "ITIMER_VIRTUAL does not fire while the process sleeps");
	it = (struct itimerval){};
	check(!setitimer(ITIMER_VIRTUAL, &it, NULL), "ITIMER_VIRTUAL disarmed");

	it = (struct itimerval){ .it_value = { 0, 10000 }, .it_interval = { 0, 10000 } };
	check(!setitimer(ITIMER_PROF, &it, NULL), "setitimer ITIMER_PROF");
	check(compute_until(&profs, 3, 2000), "ITIMER_PROF fires again by its interval");
	it = (struct itimerval){};
	check(!setitimer(ITIMER_PROF, &it, &old) && old.it_interval.tv_usec == 10000,
	      "ITIMER_PROF's interval comes back");
	check(!getitimer(ITIMER_PROF, &cur) && !cur.it_value.tv_usec && !cur.it_interval.tv_usec,
	      "ITIMER_PROF disarmed");

	it = (struct itimerval){ .it_value = { 0, 1000000 } };
	check_err(setitimer(ITIMER_VIRTUAL, &it, NULL), EINVAL, "setitimer of a million microseconds");
	check_err(setitimer(3, &it, NULL), EINVAL, "setitimer of timer 3");
	check_err(getitimer(3, &cur), EINVAL, "getitimer of timer 3");
	check_err(getitimer(ITIMER_PROF, (void *)8), EFAULT, "getitimer to a bad address");
	signal(SIGVTALRM, SIG_DFL);
	signal(SIGPROF, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
}

int main(void)
{
	usage();
	clocks();
	itimers();
	if (failed)
		return 1;
	printf("cputime: ok\n");
	return 0;
}
