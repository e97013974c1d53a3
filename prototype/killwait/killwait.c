// SPDX-License-Identifier: GPL-2.0
/*
 * killwait: how long a kill takes to end a sandbox.
 *
 *   killwait PID KEY
 *
 * Sends SIGKILL to the launcher PID, then polls the endovisor's live counts
 * every millisecond until no sandbox and no vCPU is left: every carrier has
 * left sandbox code and the sandbox is torn down.  Prints the time it took
 * as EVFIG KEY value=MS stat=max unit=ms, or fails after a minute (an
 * EVTEST killwait KEY FAIL line: ev_report.h).  Only
 * one sandbox may be alive when it is used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "ev_report.h"

#define LIVE "/sys/class/misc/endovisor/live"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Are no sandboxes and no vCPUs live? */
static int ended(void)
{
	unsigned int sandboxes = ~0u, vcpus = ~0u;
	char name[32];
	unsigned int n;
	FILE *f = fopen(LIVE, "r");

	if (!f) {
		fprintf(stderr, "killwait: %s: %s\n", LIVE, strerror(errno));
		exit(2);
	}
	while (fscanf(f, "%31s %u", name, &n) == 2) {
		if (!strcmp(name, "sandboxes"))
			sandboxes = n;
		else if (!strcmp(name, "vcpus"))
			vcpus = n;
	}
	fclose(f);
	return sandboxes == 0 && vcpus == 0;
}

int main(int argc, char **argv)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	double t0;

	if (argc != 3) {
		fprintf(stderr, "usage: killwait PID KEY\n");
		return 2;
	}
	t0 = now_ms();
	if (kill(atoi(argv[1]), SIGKILL)) {
		fprintf(stderr, "killwait: kill %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	while (!ended()) {
		if (now_ms() - t0 > 60000) {
			printf(EV_TEST("killwait", "%s", EV_TEST_FAIL)
			       " not ended a minute after the kill\n", argv[2]);
			return 1;
		}
		nanosleep(&ms, NULL);
	}
	printf(EV_FIG("%s", "%.1f", "max", "ms") "\n", argv[2], now_ms() - t0);
	return 0;
}
