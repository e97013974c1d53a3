// SPDX-License-Identifier: GPL-2.0
/*
 * scale: many sandboxes alive at once.
 *
 *   scale N MS
 *
 * In a cgroup of its own on both CPUs, creates N sandboxes of the sched
 * kernel, one vCPU each, from this one process (an open /dev/endovisor
 * each), timing each EV_CREATE; takes what the endovisor holds for a
 * sandbox from its stats (EV_STATS), and reads MemAvailable before and
 * after the creations (blurred by Linux's per-CPU lists of free pages,
 * by some hundreds of KiB).  Then runs them all, each on a thread of its own:
 * N - 1 spin for MS ms from their start (sched's scale mode), and the
 * last, started once the others have run a while, first measures the
 * kernelet's yield round trip; as every sandbox's first vCPU does, it
 * measures the crossing when it starts.  Once all run, each carrier's CPU
 * time over one window of WINDOW_MS, against the window and the fair share
 * of two CPUs among N (at most one CPU: a sandbox has one vCPU), is its
 * sandbox's share.  Before the sandboxes, as many ordinary threads
 * spinning in the same cgroup give Linux's own shares over such a window.  Then the close of
 * each sandbox, the last reference, which tears it down, is timed.
 *
 * Prints EVFIG scale.create_N, destroy_N (cycles, median over the N),
 * mem_per_sandbox_N and mem_avail_per_sandbox_N (KiB), share_min_N and
 * share_max_N (of the fair share), linux_share_min_N and
 * linux_share_max_N, and the measuring sandbox's crossing.direct,
 * crossing.stub and kl.yield_rt as scale.crossing_direct_N,
 * crossing_stub_N and kl_yield_N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "ev_ioctl.h"
#include "../guest/cgroup.h"
#include "../guest/report.h"

#define MAX_SANDBOXES	64
#define HEAD_START_MS	100	/* the spinners run this long before the measuring one starts */
#define WINDOW_MS	500	/* the window the shares are taken over, once all run */

struct sandbox {
	int fd;
	long exit_code;
};

/* The clock's time in seconds; -1 if it has none (a thread's clock, once it has exited). */
static double now_s(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return -1;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t cycles(void)
{
	_mm_lfence();
	return __rdtsc();
}

static void *carry(void *arg)
{
	struct sandbox *s = arg;

	s->exit_code = ioctl(s->fd, EV_RUN_VCPU, 0);
	return NULL;
}

/*
 * Each of n threads' CPU time over one window of WINDOW_MS, as a share of
 * the fair one (two CPUs among n, at most one each): the least into *min,
 * the most into *max.  -1 if a thread's clock went with it: it ended
 * inside the window.
 */
static int window_shares(const char *name, const pthread_t *threads, unsigned int n,
			 double *min, double *max)
{
	static clockid_t clock[MAX_SANDBOXES];
	static double cpu[MAX_SANDBOXES];
	double wall0, wall, fair = n > 2 ? 2.0 / n : 1.0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		errno = pthread_getcpuclockid(threads[i], &clock[i]);
		if (errno)
			die("pthread_getcpuclockid");
	}
	wall0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		cpu[i] = now_s(clock[i]);
	usleep(WINDOW_MS * 1000);
	for (i = 0; i < n; i++) {
		double now = now_s(clock[i]);

		cpu[i] = now < 0 || cpu[i] < 0 ? -1 : now - cpu[i];
	}
	wall = now_s(CLOCK_MONOTONIC) - wall0;
	*min = 1e9;
	*max = 0;
	for (i = 0; i < n; i++) {
		double share = cpu[i] / wall / fair;

		if (cpu[i] < 0) {
			printf(EV_TEST("scale", "%s_%u", EV_TEST_FAIL)
			       " thread %u ended inside the window\n", name, n, i);
			return -1;
		}
		if (share < *min)
			*min = share;
		if (share > *max)
			*max = share;
	}
	printf(EV_TEST("scale", "%s_%u", EV_TEST_OK) "\n", name, n);
	return 0;
}

static volatile int spinners_stop;

static void *spin(void *arg)
{
	while (!spinners_stop)
		;
	return arg;
}

/*
 * Linux's own: n ordinary threads spinning in the same cgroup, their
 * shares over the same window, for the sandboxes' beside.
 */
static int linux_shares(unsigned int n, const pthread_attr_t *attr, double *min, double *max)
{
	static pthread_t threads[MAX_SANDBOXES];
	unsigned int i;
	int ret;

	spinners_stop = 0;
	for (i = 0; i < n; i++) {
		errno = pthread_create(&threads[i], attr, spin, NULL);
		if (errno)
			die("pthread_create");
	}
	usleep(HEAD_START_MS * 1000);
	ret = window_shares("linux_window", threads, n, min, max);
	spinners_stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	return ret;
}

static long mem_available_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void report_median(const char *key, unsigned int n, uint64_t *s)
{
	char k[64];

	snprintf(k, sizeof(k), "scale.%s_%u", key, n);
	fig_median(k, s, n);
}

/*
 * The measuring sandbox's figures, from its log, renamed for the suite:
 * EVFIG crossing.stub ... becomes EVFIG scale.crossing_stub_N ...; and any
 * line of it that failed, as it is.
 */
static void relabel_log(int fd, unsigned int n)
{
	static const char *const keys[][2] = {
		{ "crossing.direct ", "crossing_direct" },
		{ "crossing.stub ", "crossing_stub" },
		{ "kl.yield_rt ", "kl_yield" },
	};
	static char buf[1 << 16];
	size_t len = 0, k;
	ssize_t got;
	char *line, *nl;

	while ((got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += got;
	buf[len] = 0;
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		char *fig = strstr(line, EV_FIG_WORD " ");

		*nl = 0;
		if (strstr(line, EV_TEST_FAIL))
			printf("scale: the measuring sandbox logged: %s\n", line);
		for (k = 0; fig && k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *key = fig + strlen(EV_FIG_WORD " ");

			if (!strncmp(key, keys[k][0], strlen(keys[k][0])))
				printf(EV_FIG_WORD " scale.%s_%u %s\n", keys[k][1], n,
				       key + strlen(keys[k][0]));
		}
	}
}

int main(int argc, char **argv)
{
	static struct sandbox sb[MAX_SANDBOXES];
	static pthread_t carriers[MAX_SANDBOXES];
	uint64_t create[MAX_SANDBOXES], destroy[MAX_SANDBOXES];
	double share_min, share_max, linux_min, linux_max;
	unsigned int n, ms, i;
	long avail0, avail1;
	struct ev_stats st;
	pthread_attr_t attr;
	char cgroup[64];
	int failed = 0, exits_failed = 0;

	if (argc != 3 || !(n = strtoul(argv[1], NULL, 10)) || n > MAX_SANDBOXES ||
	    (ms = strtoul(argv[2], NULL, 10)) < HEAD_START_MS + WINDOW_MS + 500) {
		fprintf(stderr, "usage: scale N MS (N at most %d, MS at least %d)\n",
			MAX_SANDBOXES, HEAD_START_MS + WINDOW_MS + 500);
		return 2;
	}
	snprintf(cgroup, sizeof(cgroup), CGROUP_ROOT "/ev-scale-%d", (int)getpid());
	new_cgroup(cgroup, NULL);

	avail0 = mem_available_kib();
	for (i = 0; i < n; i++) {
		struct ev_create c = { .kernel = "sched", .nr_vcpus = 1 };
		uint64_t t0;

		snprintf(c.args, sizeof(c.args), "scale %u%s", ms, i == n - 1 ? " measure" : "");
		sb[i].fd = open("/dev/endovisor", O_RDWR | O_CLOEXEC);
		if (sb[i].fd < 0)
			die("/dev/endovisor");
		t0 = cycles();
		if (ioctl(sb[i].fd, EV_CREATE, &c))
			die("EV_CREATE");
		create[i] = cycles() - t0;
	}
	avail1 = mem_available_kib();
	if (ioctl(sb[0].fd, EV_STATS, &st))
		die("EV_STATS");

	/*
	 * This thread starts the carriers and reads their clocks as a
	 * real-time thread, so that the spinners started first delay neither
	 * (the carriers themselves are ordinary threads, explicitly): else the
	 * first would have spun their time out before the last had started.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 }))
		die("sched_setscheduler");
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &(struct sched_param){ .sched_priority = 0 });
	if (linux_shares(n, &attr, &linux_min, &linux_max))
		failed = 1;
	for (i = 0; i < n; i++) {
		if (i == n - 1 && n > 1)
			usleep(HEAD_START_MS * 1000);
		errno = pthread_create(&carriers[i], &attr, carry, &sb[i]);
		if (errno)
			die("pthread_create");
	}
	/* The window: all run now, and for MS from their start, which is longer. */
	if (window_shares("window", carriers, n, &share_min, &share_max))
		failed = 1;
	for (i = 0; i < n; i++) {
		pthread_join(carriers[i], NULL);
		if (sb[i].exit_code) {
			printf(EV_TEST("scale", "exits_%u", EV_TEST_FAIL) " sandbox %u exit=%ld\n", n, i,
			       sb[i].exit_code);
			exits_failed = 1;
		}
	}
	if (!exits_failed)
		printf(EV_TEST("scale", "exits_%u", EV_TEST_OK) "\n", n);
	failed |= exits_failed;
	relabel_log(sb[n - 1].fd, n);
	for (i = 0; i < n; i++) {
		uint64_t t0 = cycles();

		close(sb[i].fd);
		destroy[i] = cycles() - t0;
	}
	leave_cgroup(cgroup);

	report_median("create", n, create);
	report_median("destroy", n, destroy);
	printf(EV_FIG("scale.mem_per_sandbox_%u", "%llu", "mean", "KiB")
	       EV_FIELD("sandboxes", "%u") "\n", n, (unsigned long long)st.mem_bytes / 1024, n);
	printf(EV_FIG("scale.mem_avail_per_sandbox_%u", "%ld", "mean", "KiB")
	       EV_FIELD("sandboxes", "%u") "\n", n, (avail0 - avail1) / (long)n, n);
	printf(EV_FIG("scale.share_min_%u", "%.3f", "min", "share") EV_FIELD("sandboxes", "%u") "\n",
	       n, share_min, n);
	printf(EV_FIG("scale.share_max_%u", "%.3f", "max", "share") EV_FIELD("sandboxes", "%u") "\n",
	       n, share_max, n);
	printf(EV_FIG("scale.linux_share_min_%u", "%.3f", "min", "share") EV_FIELD("threads", "%u") "\n",
	       n, linux_min, n);
	printf(EV_FIG("scale.linux_share_max_%u", "%.3f", "max", "share") EV_FIELD("threads", "%u") "\n",
	       n, linux_max, n);
	fflush(stdout);
	return failed;
}
