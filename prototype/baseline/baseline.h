/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What baseline's files share: the cycle counter, pinning to a CPU, and
 * each measurement's entry, which main (baseline.c) calls.
 */
#ifndef BASELINE_H
#define BASELINE_H

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
static inline uint64_t cycles(void)
{
	_mm_lfence();
	return __rdtsc();
}

static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* Into a cgroup of its own (on cpus, if given), as the launcher puts a sandbox in one. */
static inline void own_cgroup(char *path, size_t size, const char *cpus)
{
	snprintf(path, size, CGROUP_ROOT "/ev-baseline-%d", getpid());
	new_cgroup(path, cpus);
}

/* Into an existing cgroup, shared with others. */
static inline void join_cgroup(const char *group)
{
	char path[256];

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", group);
	enter_cgroup(path);
}

/* sched.c: yields, null system calls, wakes through a pipe */
void yield_rt(size_t n);
void syscall_rt(size_t n, const char *key);
void pipe_rt(size_t n, int busy, const char *key);
void wake_local(size_t n);

/* mem.c: first touches, mprotect, fork, munmap */
void touch(size_t n, int populate, int write, const char *key);
void mprotect_2m(size_t rounds);
void fork_mib(size_t rounds, size_t mib);
void munmap_mib(size_t rounds, size_t mib);

/* load.c: the fairness test's loads */
void sibling(const char *label, int secs, const char *group);
void threads(const char *label, int secs, unsigned int n, const char *group);

#endif /* BASELINE_H */
