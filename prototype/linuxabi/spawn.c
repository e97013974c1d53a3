// SPDX-License-Identifier: GPL-2.0
/*
 * spawn: the ways glibc starts another program, on whatever kernel runs
 * it.  posix_spawn (a clone with CLONE_VM and CLONE_VFORK), with file
 * actions that give the child a pipe for its output; popen, which spawns
 * /bin/sh; vfork, whose parent waits until its child has run its exec
 * or ended; and RLIMIT_NOFILE, lowered and met by open, dup2 and
 * F_DUPFD, and not raised past what the kernel allows; and children that
 * nobody waits for, with SIGCHLD ignored or SA_NOCLDWAIT.  It prints
 * "spawn: ok" and exits 0 if everything held, and names what did not
 * otherwise.  The suite runs it on Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("spawn: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static int status_of(pid_t pid)
{
	int st = -1;

	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* posix_spawn of this program, its output through a pipe the file actions give it. */
static void spawns(void)
{
	char *argv[] = { "spawn", "child", NULL }, buf[32] = "";
	posix_spawn_file_actions_t fa;
	int p[2];
	pid_t pid;

	check(!pipe(p), "pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	check(!posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ), "posix_spawn");
	close(p[1]);
	check(read(p[0], buf, sizeof(buf) - 1) == 8 && !strcmp(buf, "spawned\n"),
	      "the spawned child's output");
	close(p[0]);
	check(status_of(pid) == 42, "the spawned child's status");
	posix_spawn_file_actions_destroy(&fa);
}

static void popens(void)
{
	char line[32] = "";
	FILE *f = popen("echo from a shell; exit 3", "r");

	check(f && fgets(line, sizeof(line), f) && !strcmp(line, "from a shell\n"), "popen");
	check(f && pclose(f) == 3 << 8, "pclose's status");
}

static void vforks(void)
{
	pid_t pid = vfork();

	if (!pid) {
		execl("/proc/self/exe", "spawn", "quiet", (char *)NULL);
		_exit(127);
	}
	check(status_of(pid) == 42, "vfork and exec");
	pid = vfork();
	if (!pid)
		_exit(5);
	check(status_of(pid) == 5, "vfork and _exit");
}

static void nofile_limit(void)
{
	struct rlimit old, lim;
	int fd, last = -1;

	/* The soft limit only: raising a hard one back wants a capability. */
	check(!getrlimit(RLIMIT_NOFILE, &old) && old.rlim_max >= 10, "getrlimit");
	lim = (struct rlimit){ 10, old.rlim_max };
	check(!setrlimit(RLIMIT_NOFILE, &lim), "setrlimit of RLIMIT_NOFILE");
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		last = fd;
	check(errno == EMFILE && last == 9, "open up to RLIMIT_NOFILE");
	check(dup2(0, 10) == -1 && errno == EBADF, "dup2 to RLIMIT_NOFILE");
	check(fcntl(0, F_DUPFD, 10) == -1 && errno == EINVAL, "F_DUPFD from RLIMIT_NOFILE");
	lim.rlim_cur = old.rlim_max + 1;
	check(old.rlim_max == RLIM_INFINITY ||
	      (setrlimit(RLIMIT_NOFILE, &lim) == -1 && errno == EINVAL), "a soft limit past the hard");
	lim.rlim_cur = lim.rlim_max = (1 << 20) + 1;
	check(setrlimit(RLIMIT_NOFILE, &lim) == -1 && errno == EPERM, "a limit past nr_open");
	for (fd = 3; fd <= last; fd++)
		close(fd);
	check(!setrlimit(RLIMIT_NOFILE, &old), "setrlimit back");
}

static volatile sig_atomic_t chld_hits;

static void on_chld(int sig)
{
	(void)sig;
	chld_hits++;
}

/*
 * With SIGCHLD as sa has it, two children that nobody reaps: one exits at
 * once, one a little later.  Linux reaps each as it exits, so a wait
 * blocks until the last is gone and then fails with ECHILD, and neither
 * can be waited for by its pid after.
 */
static void unreaped(const struct sigaction *sa, const char *what)
{
	struct sigaction old;
	pid_t quick, slow;
	int status;

	check(!sigaction(SIGCHLD, sa, &old), "sigaction SIGCHLD");
	quick = fork();
	if (!quick)
		_exit(1);
	slow = fork();
	if (!slow) {
		usleep(50000);
		_exit(2);
	}
	errno = 0;
	check(wait(&status) == -1 && errno == ECHILD, what);
	errno = 0;
	check(waitpid(quick, &status, WNOHANG) == -1 && errno == ECHILD,
	      "a child reaped as it exited has no status to wait for");
	errno = 0;
	check(waitpid(slow, &status, 0) == -1 && errno == ECHILD,
	      "nor has the later one");
	check(!sigaction(SIGCHLD, &old, NULL), "sigaction SIGCHLD back");
}

static void autoreaps(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction nowait = { .sa_handler = on_chld, .sa_flags = SA_NOCLDWAIT | SA_RESTART };
	sigset_t block, mask, suspend;
	pid_t pid;
	int status;

	unreaped(&ign, "SIGCHLD ignored: a wait outlives the children, then ECHILD");
	chld_hits = 0;
	unreaped(&nowait, "SA_NOCLDWAIT: a wait outlives the children, then ECHILD");
	check(chld_hits > 0, "SA_NOCLDWAIT still runs the handler");
	/*
	 * A child that exited before SIGCHLD was ignored stays for its wait.
	 * Its SIGCHLD having been handled says it has exited: the kernel
	 * decides whether to reap it as it sends the signal.
	 */
	chld_hits = 0;
	check(!sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = on_chld }, NULL),
	      "sigaction SIGCHLD handler");
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &mask);
	suspend = mask;
	sigdelset(&suspend, SIGCHLD);	/* even if this program was started with it blocked */
	pid = fork();
	if (!pid)
		_exit(3);
	while (!chld_hits)
		sigsuspend(&suspend);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	check(signal(SIGCHLD, SIG_IGN) != SIG_ERR, "signal SIGCHLD SIG_IGN");
	check(waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 3,
	      "a child already exited is not reaped when SIGCHLD is ignored later");
	signal(SIGCHLD, SIG_DFL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		printf("spawned\n");
		return 42;
	}
	if (argc > 1 && !strcmp(argv[1], "quiet"))
		return 42;
	spawns();
	popens();
	vforks();
	nofile_limit();
	autoreaps();
	if (failed)
		return 1;
	printf("spawn: ok\n");
	return 0;
}
