// SPDX-License-Identifier: GPL-2.0
/*
 * baseline: what Linux itself costs, measured in the same boot as the
 * sandbox it is compared with, and the sibling load of the fairness test.
 *
 *   baseline yield N         two processes on CPU 0 calling sched_yield();
 *                            N round trips -> EVFIG linux.sched_yield_rt
 *   baseline syscall N [KEY] N null system calls (getppid), in five rounds
 *                            -> EVFIG linux.getppid_rt, or KEY, and the
 *                            cheapest and dearest round's median (KEY_round_min,
 *                            KEY_round_max)
 *   baseline pipe N          a process on CPU 0 waking one on CPU 1 through a
 *                            pipe and waiting for its answer, both CPUs idle
 *                            otherwise; N round trips, timed on CPU 0's clock
 *                            -> EVFIG linux.pipe_wake_rt
 *   baseline pipebusy N      the same with both ends real-time and each CPU
 *                            busy with an ordinary spinner, so that each wake
 *                            interrupts and preempts it -> EVFIG
 *                            linux.pipe_wake_busy_rt
 *   baseline wakelocal N     a SCHED_FIFO process blocked reading a pipe, woken
 *                            by a SCHED_OTHER one on the same CPU writing its
 *                            cycle count into it; N wakes, each until the
 *                            woken one runs -> EVFIG linux.wake_local
 *   baseline sibling LABEL SECS [GROUP]
 *                            two busy loops in the cgroup GROUP ("sibling"
 *                            if none is named) for SECS seconds -> EVFIG
 *                            LABEL.sibling_share, the processors the two got
 *   baseline threads LABEL SECS N [GROUP]
 *                            a thread per task: N threads of one process, each
 *                            spinning 0.1 ms and yielding, as the sched
 *                            kernel's fair tasks do, for SECS seconds, in a
 *                            cgroup of its own on CPUs 0-1, or in GROUP; its
 *                            runnable threads counted once a millisecond ->
 *                            EVFIG LABEL.max_runnable_threads,
 *                            LABEL.mean_runnable_threads
 *   baseline touch N         first touch of each of N pages: a read of
 *                            populated pages (present), a read of pages
 *                            never touched (a fault that maps the shared zero
 *                            page), and a write of pages never touched (a
 *                            fault that allocates and zeroes a page) -> EVFIG
 *                            linux.touch_present, touch_fault,
 *                            touch_fault_write
 *   baseline mprotect R      mprotect of a populated 2 MiB read-only, R times
 *                            -> EVFIG linux.mprotect_2m
 *   baseline fork R [MIB]    fork of a process with 64 MiB (or MIB) mapped
 *                            and touched, until fork returns in the parent,
 *                            R times -> EVFIG linux.fork_64m (fork_MIBm)
 *   baseline munmap R [MIB]  munmap of 64 MiB (or MIB) mapped and touched,
 *                            while a forked child still maps the same
 *                            pages, so that none is freed (as the sandbox's
 *                            unmap frees no frame), R times -> EVFIG
 *                            linux.munmap_64m (munmap_MIBm)
 *
 * The memory baselines use 4 KiB pages only, as the sandbox's side does
 * (small_pages): never a transparent huge page.
 * Each timing is taken with the cycle counter, after a warm-up, and
 * reported as the median and the 99th percentile, as the sandbox kernels
 * report theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "../guest/cgroup.h"
#include "../guest/report.h"

#define WARMUP 100
static uint64_t cycles(void)
{
	_mm_lfence();
	return __rdtsc();
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}


/* Into a cgroup of its own (on cpus, if given), as the launcher puts a sandbox in one. */
static void own_cgroup(char *path, size_t size, const char *cpus)
{
	snprintf(path, size, CGROUP_ROOT "/ev-baseline-%d", getpid());
	new_cgroup(path, cpus);
}

/* Into an existing cgroup, shared with others. */
static void join_cgroup(const char *group)
{
	char path[256];

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", group);
	enter_cgroup(path);
}

static void yield_rt(size_t n)
{
	volatile uint32_t *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *s = calloc(n, sizeof(*s));
	pid_t child;
	size_t i;

	if (done == MAP_FAILED || !s)
		die("memory");
	pin(0);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		while (!*done)
			sched_yield();
		_exit(0);
	}
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		sched_yield();
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	*done = 1;
	waitpid(child, NULL, 0);
	fig_median("linux.sched_yield_rt", s, n);
}

/*
 * The null call is cheap enough that a boot's state can move it: what ran
 * just before, what the caches hold.  So the calls come in rounds after a
 * long warm-up, and beside the median of all of them go the medians of the
 * cheapest and the dearest round, the spread a comparison has to beat.
 */
#define SYSCALL_ROUNDS	5
#define SYSCALL_WARMUP	2000

static void syscall_rt(size_t n, const char *key)
{
	size_t per = n / SYSCALL_ROUNDS, i, r;
	uint64_t *s = calloc(n, sizeof(*s)), *round = calloc(per, sizeof(*s));
	uint64_t lo = UINT64_MAX, hi = 0;
	char k[128];

	if (!s || !round || per == 0)
		die("memory");
	n = per * SYSCALL_ROUNDS;
	pin(0);
	for (i = 0; i < SYSCALL_WARMUP; i++)
		syscall(SYS_getppid);
	for (r = 0; r < SYSCALL_ROUNDS; r++) {
		for (i = 0; i < per; i++) {
			uint64_t t0 = cycles();

			syscall(SYS_getppid);
			s[r * per + i] = cycles() - t0;
		}
		memcpy(round, s + r * per, per * sizeof(*s));
		qsort(round, per, sizeof(*round), cmp_u64);
		if (percentile(round, per, 50) < lo)
			lo = percentile(round, per, 50);
		if (percentile(round, per, 50) > hi)
			hi = percentile(round, per, 50);
	}
	fig_median(key, s, n);
	snprintf(k, sizeof(k), "%s_round_min", key);
	printf(EV_FIG("%s", "%llu", "min", "cycles") EV_FIELD("n", "%d") "\n", k,
	       (unsigned long long)lo, SYSCALL_ROUNDS);
	snprintf(k, sizeof(k), "%s_round_max", key);
	printf(EV_FIG("%s", "%llu", "max", "cycles") EV_FIELD("n", "%d") "\n", k,
	       (unsigned long long)hi, SYSCALL_ROUNDS);
	fflush(stdout);
	free(round);
	free(s);
}

static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, prio ? SCHED_FIFO : SCHED_OTHER, &sp))
		die("sched_setscheduler");
}

/* An ordinary process spinning on cpu until killed; it says when it spins. */
static pid_t spinner(int cpu, int ready)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* Should the measurement die, the spinners must not outlive it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(1);
		pin(cpu);
		if (write(ready, "", 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	return pid;
}

/*
 * A process on CPU 0 waking one on CPU 1 through a pipe and waiting for
 * its answer through another, timed on CPU 0's clock.  Idle: nothing else
 * runs on either CPU, so each wake finds its target's CPU idle.  Busy, the
 * kernelet's wake of a task on a busy vCPU in Linux: both ends are
 * real-time and each CPU runs an ordinary spinner, so that every wake,
 * there and back, finds its target's CPU busy and must interrupt it and
 * preempt the spinner.
 */
static void pipe_rt(size_t n, int busy, const char *key)
{
	int ping[2], pong[2], ready[2];
	uint64_t *s = calloc(n, sizeof(*s));
	pid_t child, spin[2];
	char c = 0;
	size_t i;

	if (!s || pipe(ping) || pipe(pong) || pipe(ready))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(ping[1]);		/* so that the parent's close is our end of file */
		close(pong[0]);
		pin(1);
		if (busy)
			set_fifo(50);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (i = 0; busy && i < 2; i++)
		spin[i] = spinner(i, ready[1]);
	for (i = 0; busy && i < 2; i++)
		if (read(ready[0], &c, 1) != 1)
			die("spinner");
	pin(0);
	if (busy)
		set_fifo(50);
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			die("pipe round trip");
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	if (busy) {
		set_fifo(0);
		/* The spinners hold ping's write end too: they go before the close. */
		for (i = 0; i < 2; i++) {
			kill(spin[i], SIGKILL);
			waitpid(spin[i], NULL, 0);
		}
	}
	close(ping[1]);
	waitpid(child, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	fig_median(key, s, n);
	free(s);
}

/*
 * The kernelet's priority wake, in Linux: the writer stamps the cycle
 * counter and writes the stamp; the reader, of a real-time class the
 * writer's cannot delay, preempts it at once and takes the difference.
 * Both on CPU 0, so one clock serves.  The writer starts only once the
 * reader has its class (the "go" pipe), and then runs only while the
 * reader is blocked, since a runnable reader keeps CPU 0 from it.
 */
static void wake_local(size_t n)
{
	struct sched_param fifo = { .sched_priority = 50 };
	uint64_t *s = calloc(n, sizeof(*s));
	int wake[2], go[2];
	uint64_t t;
	pid_t child;
	size_t i;
	char c = 0;

	if (!s || pipe(wake) || pipe(go))
		die("pipe");
	pin(0);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(wake[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < n + WARMUP; i++) {
			t = cycles();
			if (write(wake[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
		}
		_exit(0);
	}
	close(wake[1]);
	close(go[0]);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		die("sched_setscheduler");
	if (write(go[1], &c, 1) != 1)
		die("go");
	for (i = 0; i < n + WARMUP; i++) {
		if (read(wake[0], &t, sizeof(t)) != sizeof(t))
			die("wake pipe");
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t;
	}
	fifo.sched_priority = 0;
	if (sched_setscheduler(0, SCHED_OTHER, &fifo))
		die("sched_setscheduler");
	waitpid(child, NULL, 0);
	fig_median("linux.wake_local", s, n);
	free(s);
}

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* One timed read of a byte: the same lfence; rdtsc bracket as tenants/touch.S. */
static uint64_t timed_read(volatile const char *p)
{
	uint64_t t0 = cycles();

	(void)*p;
	_mm_lfence();
	return __rdtsc() - t0;
}

/*
 * Private anonymous memory of len bytes in 4 KiB pages, populated (written,
 * as MAP_POPULATE does for such a mapping) if asked.  The guest's
 * transparent huge pages are "always", which would otherwise back an
 * aligned 2 MiB with one huge page where the sandbox's side maps 512 small
 * ones; so the mapping is marked first and populated after.
 */
static char *small_pages(size_t len, int populate)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	if (populate && madvise(p, len, MADV_POPULATE_WRITE))
		die("madvise(MADV_POPULATE_WRITE)");
	return p;
}

/* The same for a write of a byte, as touch.S's write pass. */
static uint64_t timed_write(volatile char *p)
{
	uint64_t t0 = cycles();

	*p = 0x5a;
	_mm_lfence();
	return __rdtsc() - t0;
}

/*
 * A read of a page never touched maps the shared zero page: the cheapest
 * fault there is.  A write allocates a page and zeroes it, as a page the
 * sandbox maps is allocated and zeroed (vostd_frame_alloc) before vm_map.
 */
static void touch(size_t n, int populate, int write, const char *key)
{
	size_t len = n * 4096, i;
	uint64_t *s = calloc(n, sizeof(*s));
	char *p = small_pages(len, populate);
	long f0;

	if (!s)
		die("calloc");
	f0 = faults();
	for (i = 0; i < n; i++)
		s[i] = write ? timed_write(p + i * 4096) : timed_read(p + i * 4096);
	printf(EV_FIG("%s_faults", "%ld", "sum", "faults") "\n", key, faults() - f0);
	fig_median(key, s, n);
	munmap(p, len);
	free(s);
}

static void mprotect_2m(size_t rounds)
{
	size_t len = 2 << 20, r;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char *p = small_pages(len, 1);

	if (!s)
		die("calloc");
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = cycles();

		if (mprotect(p, len, PROT_READ))
			die("mprotect");
		s[r] = cycles() - t0;
		if (mprotect(p, len, PROT_READ | PROT_WRITE))
			die("mprotect");
	}
	fig_median("linux.mprotect_2m", s, rounds);
	munmap(p, len);
	free(s);
}

static void fork_mib(size_t rounds, size_t mib)
{
	size_t len = mib << 20, r, i;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char *p = small_pages(len, 0), key[32];

	if (!s)
		die("calloc");
	snprintf(key, sizeof(key), "linux.fork_%zum", mib);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = cycles();
		pid_t child = fork();

		if (child < 0)
			die("fork");
		if (child == 0)
			_exit(0);
		s[r] = cycles() - t0;
		waitpid(child, NULL, 0);
	}
	fig_median(key, s, rounds);
	munmap(p, len);
	free(s);
}

/*
 * munmap of mib MiB of touched 4 KiB pages that a child forked just before
 * still maps: Linux takes each page out of this process's page table and
 * drops its count and reverse mapping, and frees none, as the sandbox's
 * unmap of a forked child's range frees no frame.  The child waits on a
 * pipe until the munmap is done.
 */
static void munmap_mib(size_t rounds, size_t mib)
{
	size_t len = mib << 20, r, i;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char key[32];

	if (!s)
		die("calloc");
	snprintf(key, sizeof(key), "linux.munmap_%zum", mib);
	for (r = 0; r < rounds; r++) {
		char *p = small_pages(len, 0), c = 0;
		int fds[2];
		pid_t child;
		uint64_t t0;

		for (i = 0; i < len; i += 4096)
			p[i] = 1;
		if (pipe(fds))
			die("pipe");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			close(fds[1]);
			if (read(fds[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[0]);
		t0 = cycles();
		if (munmap(p, len))
			die("munmap");
		s[r] = cycles() - t0;
		if (write(fds[1], &c, 1) != 1)
			die("write");
		close(fds[1]);
		waitpid(child, NULL, 0);
	}
	fig_median(key, s, rounds);
	free(s);
}

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
static void sibling(const char *label, int secs, const char *group)
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

static void threads(const char *label, int secs, unsigned int n, const char *group)
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

int main(int argc, char **argv)
{
	char cgroup[256];

	if (argc == 3 && !strcmp(argv[1], "yield")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		yield_rt(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "syscall")) {
		syscall_rt(strtoul(argv[2], NULL, 10), argc == 4 ? argv[3] : "linux.getppid_rt");
	} else if (argc == 3 && !strcmp(argv[1], "pipe")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		pipe_rt(strtoul(argv[2], NULL, 10), 0, "linux.pipe_wake_rt");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "pipebusy")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		pipe_rt(strtoul(argv[2], NULL, 10), 1, "linux.pipe_wake_busy_rt");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "wakelocal")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		wake_local(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sibling")) {
		sibling(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : "sibling");
	} else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "threads")) {
		threads(argv[2], atoi(argv[3]), strtoul(argv[4], NULL, 10),
			argc == 6 ? argv[5] : NULL);
	} else if (argc == 3 && !strcmp(argv[1], "touch")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		touch(strtoul(argv[2], NULL, 10), 1, 0, "linux.touch_present");
		touch(strtoul(argv[2], NULL, 10), 0, 0, "linux.touch_fault");
		touch(strtoul(argv[2], NULL, 10), 0, 1, "linux.touch_fault_write");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "mprotect")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		mprotect_2m(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fork")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		fork_mib(strtoul(argv[2], NULL, 10), argc == 4 ? strtoul(argv[3], NULL, 10) : 64);
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "munmap")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		munmap_mib(strtoul(argv[2], NULL, 10), argc == 4 ? strtoul(argv[3], NULL, 10) : 64);
		leave_cgroup(cgroup);
	} else {
		fprintf(stderr, "usage: baseline yield N | syscall N [KEY] | pipe N | pipebusy N | wakelocal N | sibling LABEL SECS [GROUP] | threads LABEL SECS N [GROUP] | touch N | mprotect R | fork R [MIB] | munmap R [MIB]\n");
		return 2;
	}
	return 0;
}
