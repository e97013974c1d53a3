/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's own programs, the launcher and the baseline, share: a
 * fatal error, a write to a control file, and moving in and out of cgroup
 * v2 groups.  Each program includes it after defining _GNU_SOURCE.
 */
#ifndef EV_GUEST_CGROUP_H
#define EV_GUEST_CGROUP_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

/* Exits 2, saying what failed and why, after the program's name. */
static inline __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(2);
}

static inline void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

/* Moves the calling process into the group at path (CGROUP_ROOT: the root). */
static inline void enter_cgroup(const char *path)
{
	char file[320];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	write_file(file, "0");
}

/* Makes the group at path, confined to cpus if given, and moves in. */
static inline void new_cgroup(const char *path, const char *cpus)
{
	char file[320];

	if (mkdir(path, 0755) && errno != EEXIST)
		die(path);
	if (cpus) {
		snprintf(file, sizeof(file), "%s/cpuset.cpus", path);
		write_file(file, cpus);
	}
	enter_cgroup(path);
}

/*
 * Moves back to the root group and removes the group at path.  Threads
 * that have just exited may keep it populated for a moment, so EBUSY is
 * retried.
 */
static inline void leave_cgroup(const char *path)
{
	int tries;

	enter_cgroup(CGROUP_ROOT);
	for (tries = 0; rmdir(path); tries++) {
		if (errno != EBUSY || tries == 200)
			die(path);
		usleep(5000);
	}
}

#endif /* EV_GUEST_CGROUP_H */
