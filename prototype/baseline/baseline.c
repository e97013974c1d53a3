// SPDX-License-Identifier: GPL-2.0
/*
 * baseline: what Linux itself costs, measured in the same boot as the
 * sandbox it is compared with, and the sibling load of the fairness test.
 *
 *   baseline yield N         two processes on CPU 0 calling sched_yield();
 *                            N round trips -> EVFIG linux.sched_yield_rt
 *   baseline syscall N [KEY] N null system calls (getppid) -> EVFIG
 *                            linux.getppid_rt, or KEY
 *   baseline pipe N          a process on CPU 0 waking one on CPU 1 through a
 *                            pipe and waiting for its answer; N round trips,
 *                            timed on CPU 0's clock -> EVFIG linux.pipe_wake_rt
 *   baseline wakelocal N     a SCHED_FIFO process blocked reading a pipe, woken
 *                            by a SCHED_OTHER one on the same CPU writing its
 *                            cycle count into it; N wakes, each until the
 *                            woken one runs -> EVFIG linux.wake_local
 *   baseline sibling LABEL SECS
 *                            two busy loops in the cgroup "sibling" for SECS
 *                            seconds -> EVFIG LABEL.sibling_share, the
 *                            processors the group got
 *   baseline touch N         first touch of each of N pages: populated
 *                            (present), and not (a demand fault) -> EVFIG
 *                            linux.touch_present, touch_fault
 *   baseline mprotect R      mprotect of a populated 2 MiB read-only, R times
 *                            -> EVFIG linux.mprotect_2m
 *   baseline fork R          fork of a process with 64 MiB mapped and
 *                            touched, until fork returns in the parent, R
 *                            times -> EVFIG linux.fork_64m
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
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define WARMUP 100
#define CGROUP_ROOT "/sys/fs/cgroup"

static void die(const char *what)
{
	fprintf(stderr, "baseline: %s: %s\n", what, strerror(errno));
	exit(2);
}

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as vOSTD's vostd_percentile. */
static uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

static void report(const char *key, uint64_t *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_u64);
	printf("EVFIG %s value=%llu stat=median p99=%llu n=%zu unit=cycles\n", key,
	       (unsigned long long)percentile(s, n, 50),
	       (unsigned long long)percentile(s, n, 99), n);
	fflush(stdout);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

/* Into a cgroup of its own, as the launcher puts a sandbox in one. */
static void own_cgroup(char *path, size_t size)
{
	char procs[320];

	snprintf(path, size, CGROUP_ROOT "/ev-baseline-%d", getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	write_file(procs, "0");
}

static void leave_cgroup(const char *path)
{
	int tries;

	write_file(CGROUP_ROOT "/cgroup.procs", "0");
	for (tries = 0; rmdir(path); tries++) {
		if (errno != EBUSY || tries == 200)
			die(path);
		usleep(5000);
	}
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
	report("linux.sched_yield_rt", s, n);
}

static void syscall_rt(size_t n, const char *key)
{
	uint64_t *s = calloc(n, sizeof(*s));
	size_t i;

	if (!s)
		die("memory");
	pin(0);
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		syscall(SYS_getppid);
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	report(key, s, n);
}

static void pipe_rt(size_t n)
{
	int ping[2], pong[2];
	uint64_t *s = calloc(n, sizeof(*s));
	pid_t child;
	char c = 0;
	size_t i;

	if (!s || pipe(ping) || pipe(pong))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(ping[1]);		/* so that the parent's close is our end of file */
		close(pong[0]);
		pin(1);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	pin(0);
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			die("pipe round trip");
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	close(ping[1]);
	waitpid(child, NULL, 0);
	report("linux.pipe_wake_rt", s, n);
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
	report("linux.wake_local", s, n);
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

static void touch(size_t n, int populate, const char *key)
{
	size_t len = n * 4096, i;
	uint64_t *s = calloc(n, sizeof(*s));
	char *p = small_pages(len, populate);
	long f0;

	if (!s)
		die("calloc");
	f0 = faults();
	for (i = 0; i < n; i++)
		s[i] = timed_read(p + i * 4096);
	printf("EVFIG %s_faults value=%ld stat=sum unit=faults\n", key, faults() - f0);
	report(key, s, n);
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
	report("linux.mprotect_2m", s, rounds);
	munmap(p, len);
	free(s);
}

static void fork_64m(size_t rounds)
{
	size_t len = 64 << 20, r, i;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char *p = small_pages(len, 0);

	if (!s)
		die("calloc");
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
	report("linux.fork_64m", s, rounds);
	munmap(p, len);
	free(s);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* usage_usec from a cgroup's cpu.stat. */
static double cgroup_usage(const char *group)
{
	char path[256], line[256];
	double usec = -1;
	FILE *f;

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/cpu.stat", group);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "usage_usec %lf", &usec) == 1)
			break;
	fclose(f);
	return usec;
}

static void sibling(const char *label, int secs)
{
	pid_t kids[2];
	double u0, u1, t0, t1;
	int i;

	write_file(CGROUP_ROOT "/sibling/cgroup.procs", "0");
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (kids[i] == 0)
			for (;;)
				;
	}
	t0 = now();
	u0 = cgroup_usage("sibling");
	sleep(secs);
	u1 = cgroup_usage("sibling");
	t1 = now();
	for (i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	write_file(CGROUP_ROOT "/cgroup.procs", "0");
	printf("EVFIG %s.sibling_share value=%.3f stat=mean n=%d unit=processors\n",
	       label, (u1 - u0) / 1e6 / (t1 - t0), secs);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char cgroup[256];

	if (argc == 3 && !strcmp(argv[1], "yield")) {
		own_cgroup(cgroup, sizeof(cgroup));
		yield_rt(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "syscall")) {
		syscall_rt(strtoul(argv[2], NULL, 10), argc == 4 ? argv[3] : "linux.getppid_rt");
	} else if (argc == 3 && !strcmp(argv[1], "pipe")) {
		own_cgroup(cgroup, sizeof(cgroup));
		pipe_rt(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "wakelocal")) {
		own_cgroup(cgroup, sizeof(cgroup));
		wake_local(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if (argc == 4 && !strcmp(argv[1], "sibling")) {
		sibling(argv[2], atoi(argv[3]));
	} else if (argc == 3 && !strcmp(argv[1], "touch")) {
		own_cgroup(cgroup, sizeof(cgroup));
		touch(strtoul(argv[2], NULL, 10), 1, "linux.touch_present");
		touch(strtoul(argv[2], NULL, 10), 0, "linux.touch_fault");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "mprotect")) {
		own_cgroup(cgroup, sizeof(cgroup));
		mprotect_2m(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "fork")) {
		own_cgroup(cgroup, sizeof(cgroup));
		fork_64m(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else {
		fprintf(stderr, "usage: baseline yield N | syscall N [KEY] | pipe N | wakelocal N | sibling LABEL SECS | touch N | mprotect R | fork R\n");
		return 2;
	}
	return 0;
}
