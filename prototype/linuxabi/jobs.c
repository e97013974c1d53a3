// SPDX-License-Identifier: GPL-2.0
/*
 * jobs: job control as Linux gives it, on whatever kernel runs it.  A
 * child stopped by SIGSTOP and by its own SIGTSTP makes no progress, is
 * reported to waitpid with WUNTRACED and continued with WCONTINUED, and
 * its parent hears each through SIGCHLD's siginfo unless SA_NOCLDSTOP;
 * both threads of a child stop; a read cut by a stop goes on after the
 * continue; a stopped child dies of SIGKILL, and a wait then reports the
 * kill, not a stop it had not taken; a SIGTSTP in an orphaned
 * process group stops no one, and a stopped group an exit orphans is
 * hung up.  It prints "jobs: ok" and exits 0 if
 * everything held, and names what did not otherwise.  The suite runs it
 * on Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("jobs: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Counters the children advance, in memory shared with the parent. */
static volatile unsigned long *counters;

/*
 * A counter that goes up, with a yield each time round: the kernel
 * proper's scheduler has no time slices, so a loop without a call would
 * keep every other thread of its vCPU, the parent's too, from running.
 */
static void *spin(void *arg)
{
	volatile unsigned long *c = arg;

	for (;;) {
		(*c)++;
		sched_yield();
	}
	return NULL;
}

/* Whether the counters stand still for a while, then move again once continued. */
static int frozen(int n)
{
	unsigned long before[2], i;
	int same = 1;

	for (i = 0; i < (unsigned long)n; i++)
		before[i] = counters[i];
	pause_ms(50);
	for (i = 0; i < (unsigned long)n; i++)
		same &= before[i] == counters[i];
	return same;
}

static int moving(int n)
{
	unsigned long before[2], i;
	int tries, moved = 0;

	for (tries = 0; tries < 100 && !moved; tries++) {
		for (i = 0; i < (unsigned long)n; i++)
			before[i] = counters[i];
		pause_ms(20);
		moved = 1;
		for (i = 0; i < (unsigned long)n; i++)
			moved &= before[i] != counters[i];
	}
	return moved;
}

static volatile sig_atomic_t chld_code, chld_status, chld_count;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	chld_code = si->si_code;
	chld_status = si->si_status;
	chld_count++;
}

static void catch_chld(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | flags;
	sigaction(SIGCHLD, &sa, NULL);
}

/* The SIGCHLD the last stop or continue sent, waited for a while. */
static int heard(int code, int status)
{
	int i;

	for (i = 0; i < 200 && chld_code != code; i++)
		pause_ms(5);
	return chld_code == code && chld_status == status;
}

static pid_t spinner(int threads)
{
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;

		if (threads > 1)
			pthread_create(&th, NULL, spin, (void *)&counters[1]);
		spin((void *)&counters[0]);
	}
	return pid;
}

static void stop_and_continue(void)
{
	pid_t pid;
	int st;

	catch_chld(0);
	counters[0] = counters[1] = 0;
	pid = spinner(2);
	check(pid > 0, "fork");
	check(moving(2), "both threads run");
	check(waitpid(pid, &st, WNOHANG | WUNTRACED) == 0, "nothing to report yet");
	chld_code = 0;
	check(kill(pid, SIGSTOP) == 0, "kill SIGSTOP");
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
	      "waitpid WUNTRACED reports the stop");
	check(heard(CLD_STOPPED, SIGSTOP), "SIGCHLD says CLD_STOPPED, SIGSTOP");
	check(frozen(2), "a stopped child's threads make no progress");
	check(waitpid(pid, &st, WNOHANG | WUNTRACED) == 0, "a stop is reported once");
	check(waitpid(pid, &st, WNOHANG) == 0, "a wait without WUNTRACED sees no stop");
	chld_code = 0;
	check(kill(pid, SIGCONT) == 0, "kill SIGCONT");
	check(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st),
	      "waitpid WCONTINUED reports the continue");
	check(heard(CLD_CONTINUED, SIGCONT), "SIGCHLD says CLD_CONTINUED, SIGCONT");
	check(moving(2), "both threads run again");
	/* SA_NOCLDSTOP: the report stays, the signal goes. */
	catch_chld(SA_NOCLDSTOP);
	chld_count = 0;
	check(kill(pid, SIGSTOP) == 0, "kill SIGSTOP again");
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "stopped again");
	pause_ms(50);
	check(chld_count == 0, "SA_NOCLDSTOP: no SIGCHLD for a stop");
	/* A stopped process dies of SIGKILL. */
	catch_chld(0);
	check(kill(pid, SIGKILL) == 0, "kill SIGKILL");
	check(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "a stopped child dies of SIGKILL");
}

/* A stop not yet waited for, then a SIGKILL: the wait sees the kill, not the stop. */
static void kill_voids_stop(void)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(5);
	}
	pause_ms(100);
	check(kill(pid, SIGKILL) == 0, "kill SIGKILL of a stopped child not waited for");
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "a kill voids the stop a wait had not taken");
}

/* A child in a group of its own stops itself with SIGTSTP's default action. */
static void self_stop(void)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		if (setsid() != -1 || errno != EPERM)
			_exit(6);	/* a group's leader makes no session */
		raise(SIGTSTP);
		_exit(7);
	}
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTSTP,
	      "raise(SIGTSTP) stops its caller");
	check(kill(pid, SIGCONT) == 0, "kill SIGCONT after SIGTSTP");
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "the continued child goes on to its exit");
}

/* In a session of its own, its group orphaned, SIGTSTP stops no one. */
static void orphaned(void)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		if (setsid() != getpid() || getsid(0) != getpid() || getpgrp() != getpid())
			_exit(9);
		raise(SIGTSTP);
		_exit(8);
	}
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 8,
	      "SIGTSTP in an orphaned group is discarded");
}

/*
 * A stopped child in a group of its own, whose parent then exits: the
 * exit orphans the group, which gets SIGHUP and SIGCONT, and SIGHUP's
 * default ends the child.  Its end closes a pipe this process reads.
 */
static void orphaned_when_stopped(void)
{
	int fds[2], st;
	struct pollfd pfd;
	pid_t mid;
	char c;

	check(pipe(fds) == 0, "pipe for the orphan");
	mid = fork();
	if (mid == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fds[0]);
			setpgid(0, 0);
			raise(SIGSTOP);
			pause_ms(10000);	/* continued but not hung up: the read times out */
			_exit(0);
		}
		close(fds[1]);
		_exit(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) ? 0 : 1);
	}
	close(fds[1]);
	check(waitpid(mid, &st, 0) == mid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the middle process saw its child stop");
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 5000) == 1 && read(fds[0], &c, 1) == 0,
	      "a stopped group orphaned by an exit is hung up");
	close(fds[0]);
}

/* A read cut short by a stop goes on after the continue, no handler having run. */
static void read_across_stop(void)
{
	int fds[2], st;
	pid_t pid;

	check(pipe(fds) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		char c = 0;

		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 && c == 'x' ? 0 : 1);
	}
	close(fds[0]);
	pause_ms(100);
	check(kill(pid, SIGSTOP) == 0, "kill SIGSTOP of a reader");
	check(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), "the reader stopped");
	check(kill(pid, SIGCONT) == 0, "kill SIGCONT of a reader");
	pause_ms(50);
	check(write(fds[1], "x", 1) == 1, "write to the reader");
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the read restarted and got the byte");
	close(fds[1]);
}

int main(void)
{
	counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(counters != MAP_FAILED, "shared counters");
	if (counters == MAP_FAILED)
		return 1;
	stop_and_continue();
	kill_voids_stop();
	self_stop();
	orphaned();
	orphaned_when_stopped();
	read_across_stop();
	if (!failed)
		printf("jobs: ok\n");
	return failed;
}
