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
 * sandbox's share.
 * Then the close of each, the last reference, which tears the sandbox
 * down, is timed.
 *
 * Prints EVFIG scale.create_N, destroy_N (cycles, median over the N),
 * mem_per_sandbox_N and mem_avail_per_sandbox_N (KiB), share_min_N and share_max_N (of the fair
 * share), and the measuring sandbox's crossing.direct, crossing.stub and
 * kl.yield_rt as scale.crossing_direct_N, crossing_stub_N and
 * kl_yield_N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#define MAX_SANDBOXES	64
#define HEAD_START_MS	100	/* the spinners run this long before the measuring one starts */
#define WINDOW_MS	500	/* the window the shares are taken over, once all run */

struct sandbox {
	pthread_t thread;
	clockid_t cpu_clock;	/* its carrier's CPU time */
	double cpu0;
	int fd;
	long exit_code;
};

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report_median(const char *key, unsigned int n, uint64_t *s, unsigned int count)
{
	qsort(s, count, sizeof(*s), cmp_u64);
	printf("EVFIG scale.%s_%u value=%llu stat=median p99=%llu n=%u unit=cycles\n", key, n,
	       (unsigned long long)s[(count - 1) / 2],
	       (unsigned long long)s[(count * 99 + 99) / 100 - 1], count);
}

/*
 * The measuring sandbox's figures, from its log, renamed for the suite:
 * EVFIG crossing.stub ... becomes EVFIG scale.crossing_stub_N ...
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
		char *fig = strstr(line, "EVFIG ");

		*nl = 0;
		if (strstr(line, "FAIL"))
			printf("scale: the measuring sandbox logged: %s\n", line);
		for (k = 0; fig && k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strncmp(fig + 6, keys[k][0], strlen(keys[k][0])))
				printf("EVFIG scale.%s_%u %s\n", keys[k][1], n,
				       fig + 6 + strlen(keys[k][0]));
	}
}

int main(int argc, char **argv)
{
	static struct sandbox sb[MAX_SANDBOXES];
	uint64_t create[MAX_SANDBOXES], destroy[MAX_SANDBOXES];
	double share_min = 1e9, share_max = 0, fair, wall0, wall;
	unsigned int n, ms, i;
	long avail0, avail1;
	struct ev_stats st;
	char cgroup[64];
	int failed = 0;

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

	for (i = 0; i < n; i++) {
		if (i == n - 1 && n > 1)
			usleep(HEAD_START_MS * 1000);
		errno = pthread_create(&sb[i].thread, NULL, carry, &sb[i]);
		if (errno)
			die("pthread_create");
		errno = pthread_getcpuclockid(sb[i].thread, &sb[i].cpu_clock);
		if (errno)
			die("pthread_getcpuclockid");
	}
	/* The window: all run now, and for MS from their start, which is longer. */
	wall0 = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		sb[i].cpu0 = now_s(sb[i].cpu_clock);
	usleep(WINDOW_MS * 1000);
	wall = now_s(CLOCK_MONOTONIC) - wall0;
	fair = n > 2 ? 2.0 / n : 1.0;
	for (i = 0; i < n; i++) {
		double share = (now_s(sb[i].cpu_clock) - sb[i].cpu0) / wall / fair;

		if (share < share_min)
			share_min = share;
		if (share > share_max)
			share_max = share;
	}
	for (i = 0; i < n; i++) {
		pthread_join(sb[i].thread, NULL);
		if (sb[i].exit_code) {
			printf("scale: sandbox %u FAIL: exit %ld\n", i, sb[i].exit_code);
			failed = 1;
		}
	}
	relabel_log(sb[n - 1].fd, n);
	for (i = 0; i < n; i++) {
		uint64_t t0 = cycles();

		close(sb[i].fd);
		destroy[i] = cycles() - t0;
	}
	leave_cgroup(cgroup);

	report_median("create", n, create, n);
	report_median("destroy", n, destroy, n);
	printf("EVFIG scale.mem_per_sandbox_%u value=%llu stat=mean unit=KiB sandboxes=%u\n", n,
	       (unsigned long long)st.mem_bytes / 1024, n);
	printf("EVFIG scale.mem_avail_per_sandbox_%u value=%ld stat=mean unit=KiB sandboxes=%u\n",
	       n, (avail0 - avail1) / (long)n, n);
	printf("EVFIG scale.share_min_%u value=%.3f stat=min unit=share sandboxes=%u\n", n,
	       share_min, n);
	printf("EVFIG scale.share_max_%u value=%.3f stat=max unit=share sandboxes=%u\n", n,
	       share_max, n);
	fflush(stdout);
	return failed;
}
