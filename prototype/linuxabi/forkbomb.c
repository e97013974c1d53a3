// SPDX-License-Identifier: GPL-2.0
/*
 * forkbomb: forks until the kernel refuses, as a fork bomb would, and
 * checks that the refusal is Linux's (-1 with EAGAIN, the bound that
 * RLIMIT_NPROC reports), that nothing else broke on the way, and that the
 * sandbox forks again once the children are gone.  Each child blocks
 * reading a pipe nobody writes, so it holds its place until the parent
 * closes the pipe; then every child reads end of file and exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHILDREN	4096

int main(void)
{
	struct rlimit lim;
	int fd[2], n = 0, reaped = 0, status, err;
	char c;
	pid_t pid;

	if (getrlimit(RLIMIT_NPROC, &lim) || pipe(fd)) {
		perror("forkbomb: setup");
		return 1;
	}
	for (;;) {
		pid = fork();
		if (pid == 0) {
			close(fd[1]);
			_exit(read(fd[0], &c, 1) == 0 ? 0 : 2);
		}
		if (pid < 0)
			break;
		if (++n == MAX_CHILDREN) {
			printf("forkbomb: %d children and no refusal\n", n);
			return 1;
		}
	}
	err = errno;
	close(fd[1]);
	while ((pid = wait(&status)) > 0)
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			reaped++;
	if (err != EAGAIN || reaped != n) {
		printf("forkbomb: refused with %s after %d children, %d of them exited cleanly\n",
		       strerror(err), n, reaped);
		return 1;
	}
	/* The bound is on live processes: with the children gone, fork works. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
		printf("forkbomb: no fork after the children exited\n");
		return 1;
	}
	printf("forkbomb: refused with EAGAIN after %d children (RLIMIT_NPROC %llu), all reaped, forks again\n",
	       n, (unsigned long long)lim.rlim_cur);
	return 0;
}
