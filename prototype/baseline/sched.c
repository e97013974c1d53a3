// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's scheduling and system-call costs: two processes yielding on
 * one CPU, a null system call, a wake through a pipe across CPUs (idle
 * or busy) and on one CPU.
 */
#include "baseline.h"

void yield_rt(size_t n)
{
	volatile uint32_t *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *s = calloc(n, sizeof(*s));
	pid_t child;
	size_t i;

	if (done == MAP_FAILED || !s)
		die("memory");
	pin(0);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		while (!*done)
			sched_yield();
		_exit(0);
	}
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		sched_yield();
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	*done = 1;
	waitpid(child, NULL, 0);
	fig_median("linux.sched_yield_rt", s, n);
}

/*
 * The null call is cheap enough that a boot's state can move it: what ran
 * just before, what the caches hold.  So the calls come in rounds after a
 * long warm-up, and beside the median of all of them go the medians of the
 * cheapest and the dearest round, the spread a comparison has to beat.
 */
#define SYSCALL_ROUNDS	5
#define SYSCALL_WARMUP	2000

void syscall_rt(size_t n, const char *key)
{
	size_t per = n / SYSCALL_ROUNDS, i, r;
	uint64_t *s = calloc(n, sizeof(*s)), *round = calloc(per, sizeof(*s));
	uint64_t lo = UINT64_MAX, hi = 0;
	char k[128];

	if (!s || !round || per == 0)
		die("memory");
	n = per * SYSCALL_ROUNDS;
	pin(0);
	for (i = 0; i < SYSCALL_WARMUP; i++)
		syscall(SYS_getppid);
	for (r = 0; r < SYSCALL_ROUNDS; r++) {
		for (i = 0; i < per; i++) {
			uint64_t t0 = cycles();

			syscall(SYS_getppid);
			s[r * per + i] = cycles() - t0;
		}
		memcpy(round, s + r * per, per * sizeof(*s));
		qsort(round, per, sizeof(*round), cmp_u64);
		if (percentile(round, per, 50) < lo)
			lo = percentile(round, per, 50);
		if (percentile(round, per, 50) > hi)
			hi = percentile(round, per, 50);
	}
	fig_median(key, s, n);
	snprintf(k, sizeof(k), "%s_round_min", key);
	printf(EV_FIG("%s", "%llu", "min", "cycles") EV_FIELD("n", "%d") "\n", k,
	       (unsigned long long)lo, SYSCALL_ROUNDS);
	snprintf(k, sizeof(k), "%s_round_max", key);
	printf(EV_FIG("%s", "%llu", "max", "cycles") EV_FIELD("n", "%d") "\n", k,
	       (unsigned long long)hi, SYSCALL_ROUNDS);
	fflush(stdout);
	free(round);
	free(s);
}

static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, prio ? SCHED_FIFO : SCHED_OTHER, &sp))
		die("sched_setscheduler");
}

/* An ordinary process spinning on cpu until killed; it says when it spins. */
static pid_t spinner(int cpu, int ready)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* Should the measurement die, the spinners must not outlive it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(1);
		pin(cpu);
		if (write(ready, "", 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	return pid;
}

/*
 * A process on CPU 0 waking one on CPU 1 through a pipe and waiting for
 * its answer through another, timed on CPU 0's clock.  Idle: nothing else
 * runs on either CPU, so each wake finds its target's CPU idle.  Busy, the
 * kernelet's wake of a task on a busy vCPU in Linux: both ends are
 * real-time and each CPU runs an ordinary spinner, so that every wake,
 * there and back, finds its target's CPU busy and must interrupt it and
 * preempt the spinner.
 */
void pipe_rt(size_t n, int busy, const char *key)
{
	int ping[2], pong[2], ready[2];
	uint64_t *s = calloc(n, sizeof(*s));
	pid_t child, spin[2];
	char c = 0;
	size_t i;

	if (!s || pipe(ping) || pipe(pong) || pipe(ready))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(ping[1]);		/* so that the parent's close is our end of file */
		close(pong[0]);
		pin(1);
		if (busy)
			set_fifo(50);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (i = 0; busy && i < 2; i++)
		spin[i] = spinner(i, ready[1]);
	for (i = 0; busy && i < 2; i++)
		if (read(ready[0], &c, 1) != 1)
			die("spinner");
	pin(0);
	if (busy)
		set_fifo(50);
	for (i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = cycles();

		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			die("pipe round trip");
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t0;
	}
	if (busy) {
		set_fifo(0);
		/* The spinners hold ping's write end too: they go before the close. */
		for (i = 0; i < 2; i++) {
			kill(spin[i], SIGKILL);
			waitpid(spin[i], NULL, 0);
		}
	}
	close(ping[1]);
	waitpid(child, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	fig_median(key, s, n);
	free(s);
}

/*
 * The kernelet's priority wake, in Linux: the writer stamps the cycle
 * counter and writes the stamp; the reader, of a real-time class the
 * writer's cannot delay, preempts it at once and takes the difference.
 * Both on CPU 0, so one clock serves.  The writer starts only once the
 * reader has its class (the "go" pipe), and then runs only while the
 * reader is blocked, since a runnable reader keeps CPU 0 from it.
 */
void wake_local(size_t n)
{
	struct sched_param fifo = { .sched_priority = 50 };
	uint64_t *s = calloc(n, sizeof(*s));
	int wake[2], go[2];
	uint64_t t;
	pid_t child;
	size_t i;
	char c = 0;

	if (!s || pipe(wake) || pipe(go))
		die("pipe");
	pin(0);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(wake[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < n + WARMUP; i++) {
			t = cycles();
			if (write(wake[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
		}
		_exit(0);
	}
	close(wake[1]);
	close(go[0]);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		die("sched_setscheduler");
	if (write(go[1], &c, 1) != 1)
		die("go");
	for (i = 0; i < n + WARMUP; i++) {
		if (read(wake[0], &t, sizeof(t)) != sizeof(t))
			die("wake pipe");
		if (i >= WARMUP)
			s[i - WARMUP] = cycles() - t;
	}
	fifo.sched_priority = 0;
	if (sched_setscheduler(0, SCHED_OTHER, &fifo))
		die("sched_setscheduler");
	waitpid(child, NULL, 0);
	fig_median("linux.wake_local", s, n);
	free(s);
}
