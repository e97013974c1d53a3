// SPDX-License-Identifier: GPL-2.0
/*
 * stopwait: how long a stop, or a freeze of its cgroup, takes to take a
 * launcher's carriers off the processors, and that they stay off.
 *
 *   stopwait stop PID KEY
 *   stopwait freeze PID KEY
 *
 * stop sends SIGSTOP to the launcher PID and polls every thread of it in
 * /proc every millisecond until each is stopped (state T); freeze writes 1
 * to the cgroup.freeze of PID's cgroup and polls its cgroup.events until
 * it says frozen 1.  Prints the time that took as EVFIG KEY value=MS
 * stat=max unit=ms; then the processor time PID's threads took in the
 * half second after, as EVFIG KEY_cpu, which must be none; then lets them
 * go again (SIGCONT, or 0 to cgroup.freeze).  Fails, with an EVTEST
 * stopwait KEY FAIL line (ev_report.h), if ten seconds are not enough or
 * a thread ran while it should not have.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "ev_report.h"

#define TIMEOUT_MS	10000
#define QUIET_MS	500

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static void die(const char *what)
{
	fprintf(stderr, "stopwait: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * Every thread of pid: how many are stopped (state T), how many there are,
 * and their user and system time summed, in clock ticks.
 */
static void threads(int pid, int *stopped, int *all, unsigned long long *ticks)
{
	char path[PATH_MAX], line[1024];
	struct dirent *d;
	DIR *dir;

	*stopped = *all = 0;
	*ticks = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		die(path);
	while ((d = readdir(dir))) {
		unsigned long long ut, st;
		char state, *p;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			     d->d_name) >= (int)sizeof(path))
			continue;
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread is gone */
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		/* After the name: state, then ten fields, then utime and stime. */
		if (!p || sscanf(p + 2, "%c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu",
				 &state, &ut, &st) != 3)
			continue;
		(*all)++;
		*stopped += state == 'T';
		*ticks += ut + st;
	}
	closedir(dir);
}

/* The path of pid's cgroup's file name, in the cgroup2 hierarchy. */
static void cgroup_file(int pid, const char *name, char *path, size_t size)
{
	char proc[64], line[512];
	FILE *f;

	snprintf(proc, sizeof(proc), "/proc/%d/cgroup", pid);
	f = fopen(proc, "r");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::", 3))
		die(proc);
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (snprintf(path, size, "/sys/fs/cgroup%s/%s", line + 3, name) >= (int)size) {
		errno = ENAMETOOLONG;
		die(proc);
	}
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(s, f) < 0 || fclose(f))
		die(path);
}

static int frozen(const char *events)
{
	char line[128];
	int yes = 0;
	FILE *f = fopen(events, "r");

	if (!f)
		die(events);
	while (fgets(line, sizeof(line), f))
		yes |= !strcmp(line, "frozen 1\n");
	fclose(f);
	return yes;
}

int main(int argc, char **argv)
{
	char freeze[512], events[512];
	unsigned long long before, after;
	int pid, stopped, all, freezing;
	const char *key;
	double t0, took;

	if (argc != 4 || (strcmp(argv[1], "stop") && strcmp(argv[1], "freeze"))) {
		fprintf(stderr, "usage: stopwait stop|freeze PID KEY\n");
		return 2;
	}
	freezing = !strcmp(argv[1], "freeze");
	pid = atoi(argv[2]);
	key = argv[3];
	if (freezing) {
		cgroup_file(pid, "cgroup.freeze", freeze, sizeof(freeze));
		cgroup_file(pid, "cgroup.events", events, sizeof(events));
	}
	t0 = now_ms();
	if (freezing)
		write_file(freeze, "1");
	else if (kill(pid, SIGSTOP))
		die("kill");
	for (;;) {
		threads(pid, &stopped, &all, &before);
		if (freezing ? frozen(events) : all && stopped == all)
			break;
		if (now_ms() - t0 > TIMEOUT_MS) {
			printf(EV_TEST("stopwait", "%s", EV_TEST_FAIL)
			       " %d of %d threads stopped, not frozen, ten seconds after the %s\n",
			       key, stopped, all, argv[1]);
			return 1;
		}
		sleep_ms(1);
	}
	took = now_ms() - t0;
	/*
	 * The times again, now that it is frozen or stopped: the loop read
	 * them before it read the state, and a thread may have run a tick in
	 * between.
	 */
	threads(pid, &stopped, &all, &before);
	sleep_ms(QUIET_MS);
	threads(pid, &stopped, &all, &after);
	printf(EV_FIG("%s", "%.1f", "max", "ms") " threads=%d\n", key, took, all);
	printf(EV_FIG("%s_cpu", "%llu", "max", "ms") " over=%d\n", key,
	       (after - before) * 1000 / sysconf(_SC_CLK_TCK), QUIET_MS);
	if (freezing)
		write_file(freeze, "0");
	else if (kill(pid, SIGCONT))
		die("kill");
	if (after != before) {
		printf(EV_TEST("stopwait", "%s", EV_TEST_FAIL) " its threads ran %llu ticks while %s\n",
		       key, after - before, freezing ? "frozen" : "stopped");
		return 1;
	}
	return 0;
}
