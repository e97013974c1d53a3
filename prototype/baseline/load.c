// SPDX-License-Identifier: GPL-2.0
/*
 * The loads of the fairness test: two busy loops in a cgroup, and a
 * process of N threads that spin and yield, whose runnable threads are
 * counted once a millisecond.
 */
#include "baseline.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A process's CPU time so far, in seconds. */
static double cpu_time(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) || clock_gettime(clk, &ts))
		die("the sibling's CPU clock");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Two busy loops in group for secs seconds: the processors they got
 * between them, from their own CPU clocks, so that the figure is theirs
 * alone even in a group they share with others.
 */
void sibling(const char *label, int secs, const char *group)
{
	pid_t kids[2];
	double u0 = 0, u1 = 0, t0, t1;
	int i;

	join_cgroup(group);
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (kids[i] == 0)
			for (;;)
				;
	}
	t0 = now();
	for (i = 0; i < 2; i++)
		u0 += cpu_time(kids[i]);
	sleep(secs);
	for (i = 0; i < 2; i++)
		u1 += cpu_time(kids[i]);
	t1 = now();
	for (i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	enter_cgroup(CGROUP_ROOT);
	printf(EV_FIG("%s.sibling_share", "%.3f", "mean", "processors") EV_FIELD("n", "%d") "\n",
	       label, (u1 - u0) / (t1 - t0), secs);
	fflush(stdout);
}

/*
 * A thread per task: the sched kernel's fair tasks as Linux threads of one
 * process.  Each spins for 0.1 ms and yields until the deadline, as
 * fair_busy does; a sampler thread counts, once a millisecond, how many
 * of the workers are runnable ('R' in /proc/self/task/TID/stat), as the
 * endovisor's census counts a launcher's threads.  The main thread sleeps
 * in pthread_join throughout.
 */
#define MAX_WORKERS 200

struct workers {
	double deadline;
	unsigned int n;
	int started;			/* workers that have opened their stat */
	int fds[MAX_WORKERS];		/* each worker's /proc/self/task/TID/stat */
	volatile int stop;
	/* The sampler's findings. */
	unsigned long long samples, sum;
	unsigned int max;
};

static void *worker(void *arg)
{
	struct workers *w = arg;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)syscall(SYS_gettid));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	w->fds[__atomic_fetch_add(&w->started, 1, __ATOMIC_ACQ_REL)] = fd;
	while (now() < w->deadline) {
		double until = now() + 0.0001;

		while (now() < until)
			;
		sched_yield();
	}
	return NULL;
}

/* Is the thread whose stat is open on fd runnable? */
static int runnable(int fd)
{
	char buf[512], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;	/* it has ended */
	buf[n] = 0;
	/* "tid (comm) S ...": the name may hold anything, so the last ')'. */
	end = strrchr(buf, ')');
	return end && end[1] == ' ' && end[2] == 'R';
}

static void *sampler(void *arg)
{
	struct workers *w = arg;
	unsigned int i, k;

	while (__atomic_load_n(&w->started, __ATOMIC_ACQUIRE) < (int)w->n)
		usleep(1000);
	while (!w->stop) {
		for (i = k = 0; i < w->n; i++)
			k += runnable(w->fds[i]);
		w->samples++;
		w->sum += k;
		if (k > w->max)
			w->max = k;
		usleep(1000);
	}
	return NULL;
}

void threads(const char *label, int secs, unsigned int n, const char *group)
{
	static struct workers w;
	pthread_t t[MAX_WORKERS], samp;
	char cgroup[256];
	unsigned int i;

	if (n == 0 || n > MAX_WORKERS) {
		fprintf(stderr, "baseline: threads: want 1 to %d threads\n", MAX_WORKERS);
		exit(2);
	}
	if (group)
		join_cgroup(group);
	else
		own_cgroup(cgroup, sizeof(cgroup), "0-1");
	w.n = n;
	w.deadline = now() + secs;
	for (i = 0; i < n; i++)
		if ((errno = pthread_create(&t[i], NULL, worker, &w)))
			die("pthread_create");
	if ((errno = pthread_create(&samp, NULL, sampler, &w)))
		die("pthread_create");
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	w.stop = 1;
	pthread_join(samp, NULL);
	for (i = 0; i < n; i++)
		close(w.fds[i]);
	if (group)
		enter_cgroup(CGROUP_ROOT);
	else
		leave_cgroup(cgroup);
	printf("threads done label=%s secs=%d threads=%u\n", label, secs, n);
	printf(EV_FIG("%s.max_runnable_threads", "%u", "max", "threads")
	       EV_FIELD("samples", "%llu") "\n", label, w.max, w.samples);
	printf(EV_FIG("%s.mean_runnable_threads", "%.2f", "mean", "threads")
	       EV_FIELD("samples", "%llu") "\n",
	       label, w.samples ? (double)w.sum / w.samples : 0, w.samples);
	fflush(stdout);
}
