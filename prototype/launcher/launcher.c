// SPDX-License-Identifier: GPL-2.0
/*
 * launcher: runs one sandbox in the guest.
 *
 *   launcher [-v VCPUS] KERNEL
 *
 * It moves itself into a cgroup v2 group of its own, creates a sandbox of
 * VCPUS vCPUs for the sandbox kernel KERNEL through /dev/endovisor, starts
 * one carrier thread per vCPU (each inherits the group), and copies the
 * sandbox's log to standard output until every vCPU is done.  It exits 0
 * only if every vCPU's kernel returned 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ev_ioctl.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

struct carrier {
	pthread_t thread;
	int fd;
	unsigned int vcpu;
	long exit_code;
	int err;
};

static void die(const char *what)
{
	fprintf(stderr, "launcher: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

/* Moves the calling process into a new cgroup CGROUP_ROOT/ev-KERNEL-PID. */
static void enter_own_cgroup(const char *kernel, char *path, size_t size)
{
	char procs[320];

	snprintf(path, size, CGROUP_ROOT "/ev-%s-%d", kernel, getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	write_file(procs, "0");
}

static void leave_cgroup(const char *path)
{
	write_file(CGROUP_ROOT "/cgroup.procs", "0");
	if (rmdir(path))
		die(path);
}

static void *carry(void *arg)
{
	struct carrier *c = arg;

	c->exit_code = ioctl(c->fd, EV_RUN_VCPU, c->vcpu);
	c->err = c->exit_code < 0 ? errno : 0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct ev_create create = { .nr_vcpus = 1 };
	struct carrier carriers[8];
	char cgroup[256], buf[4096];
	unsigned int i;
	int fd, opt, failed = 0;
	ssize_t n;

	while ((opt = getopt(argc, argv, "v:")) != -1) {
		if (opt != 'v')
			goto usage;
		create.nr_vcpus = strtoul(optarg, NULL, 10);
	}
	if (optind != argc - 1 || create.nr_vcpus < 1 || create.nr_vcpus > 8)
		goto usage;
	if (strlen(argv[optind]) >= sizeof(create.kernel)) {
		fprintf(stderr, "launcher: kernel name too long\n");
		return 2;
	}
	strcpy(create.kernel, argv[optind]);

	enter_own_cgroup(create.kernel, cgroup, sizeof(cgroup));
	fd = open("/dev/endovisor", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/endovisor");
	if (ioctl(fd, EV_CREATE, &create))
		die("EV_CREATE");
	printf("launcher: sandbox for '%s' with %u vCPUs in %s\n",
	       create.kernel, create.nr_vcpus, cgroup);
	fflush(stdout);

	for (i = 0; i < create.nr_vcpus; i++) {
		carriers[i] = (struct carrier){ .fd = fd, .vcpu = i };
		errno = pthread_create(&carriers[i].thread, NULL, carry,
				       &carriers[i]);
		if (errno)
			die("pthread_create");
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			die("stdout");
	if (n < 0)
		die("read log");
	fflush(stdout);
	for (i = 0; i < create.nr_vcpus; i++) {
		pthread_join(carriers[i].thread, NULL);
		printf("launcher: vCPU %u exit %ld%s%s\n", i,
		       carriers[i].exit_code, carriers[i].err ? " " : "",
		       carriers[i].err ? strerror(carriers[i].err) : "");
		failed |= carriers[i].exit_code != 0;
	}
	close(fd);
	leave_cgroup(cgroup);
	printf("launcher: sandbox '%s' %s\n", create.kernel,
	       failed ? "FAILED" : "ok");
	return failed;
usage:
	fprintf(stderr, "usage: launcher [-v VCPUS] KERNEL\n");
	return 2;
}
