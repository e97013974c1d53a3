// SPDX-License-Identifier: GPL-2.0
/*
 * launcher: runs one sandbox in the guest.
 *
 *   launcher [-kq] [-v VCPUS] [-a ARGS] [-c CPUS] [-g GROUP] [-s LABEL] KERNEL
 *
 * It moves itself into a cgroup v2 group of its own (confined to CPUS with
 * cpuset.cpus, if given), or with -g into the existing group GROUP, which it
 * shares with whatever else is there and leaves in place; it creates a sandbox of VCPUS vCPUs for the sandbox
 * kernel KERNEL through /dev/endovisor, passing it ARGS, and starts one
 * carrier thread per vCPU (each inherits the group).  A child process, the
 * log reader, copies the sandbox's log to standard output until every vCPU
 * is done.  Then the launcher prints what the endovisor saw of the run
 * (EV_STATS).  With -s, every figure of the run is keyed LABEL.*, those in
 * the sandbox's log included, so that one boot can hold several runs'
 * figures apart.  With -q it prints only the figure lines that are parts
 * (part=K/N), of a measurement a suite makes in turns with another
 * (linux-perf's runs of lxbench); the endovisor's, the kernel's and the
 * launcher's own figures are left out, for a suite that keeps them from
 * its first launch.  It exits 0 only if every vCPU's kernel returned 0,
 * every carrier got its own FPU registers back (run_vcpu) and the log holds
 * no report of vOSTD's checking mode.
 *
 * With -k, or with EV_CHECKING=1 in its environment (the guest's init sets
 * it for the functional suites), the kernel runs vOSTD's checking mode
 * (EV_CREATE_CHECKING; vostd/sanitize.c).  Every report line of it that
 * the log reader copies is also appended to the file EV_SANITIZER_LOG
 * names, if set, where the init finds it even when a suite reads no exit
 * status: a report fails the boot.
 *
 * While any vCPU runs, nothing of the launcher but its carriers may be
 * runnable: Linux is to see at most VCPUS runnable threads of the sandbox
 * (the endovisor counts the creator's threads, and the group holds the
 * creator).  So the log reader is a process of its own, forked before the
 * launcher enters the group and staying outside it, and the launcher's
 * main thread sleeps, waiting for the reader to end, from before the first
 * carrier enters its vCPU until the log has ended, which is after the last
 * vCPU is done.  The carriers wait at a gate until the main thread is seen
 * asleep (its state in /proc, and a switch out since it set out to sleep),
 * since a thread that has only said it is about to sleep may still be
 * runnable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ev_ioctl.h"
#include "../guest/cgroup.h"
#include "../guest/report.h"


struct carrier {
	pthread_t thread;
	int fd;
	unsigned int vcpu;
	long exit_code;
	int err;
	int fpu_changed;	/* its FPU registers came back other than it left them */
};

/*
 * A report of the checking mode, also appended to $EV_SANITIZER_LOG for
 * the init.  Returns 1.
 */
static int sanitizer_report(const char *line)
{
	const char *path = getenv("EV_SANITIZER_LOG");
	FILE *f = path && *path ? fopen(path, "a") : NULL;

	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
	return 1;
}

/*
 * A report of the checking mode stopped its vCPU, which will never
 * return: end the sandbox as a kill would, the launcher with it.  The
 * reader dies with the launcher.
 */
static void stop_sandbox(void)
{
	printf("launcher: the checking mode stopped a vCPU: killing the sandbox\n");
	fflush(stdout);
	kill(getppid(), SIGKILL);
	pause();
}

/* -q: leave out every figure but the parts (part=K/N). */
static bool quiet;

/*
 * Does fig, the EVFIG in line, stand where a figure may (figlog's
 * place.go): at the start, or after one "[tag] "?  A mention anywhere
 * else is not a figure, and is copied for the book to refuse.
 */
static bool figure_line(const char *line, const char *fig)
{
	const char *close;

	if (!fig)
		return false;
	if (fig == line)
		return true;
	close = line[0] == '[' ? strchr(line, ']') : NULL;
	return close && close[1] == ' ' && close + 2 == fig;
}

/*
 * Copies the sandbox's log, prefixing figure keys with label if there is
 * one, and with -q leaving out every figure line but the parts'.
 * Returns the count of the checking mode's reports it copied.
 */
static int copy_log(int fd, const char *label)
{
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	int reports = 0;

	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		char *line = buf, *nl;

		len += n;
		buf[len] = 0;
		while ((nl = memchr(line, '\n', buf + len - line))) {
			char *fig;
			int report;

			*nl = 0;
			fig = strstr(line, EV_FIG_WORD " ");
			report = strstr(line, EV_SANITIZER_WORD) != NULL;
			if (report)
				reports += sanitizer_report(line);
			if (quiet && figure_line(line, fig) && !strstr(fig, " part="))
				;	/* -q: the suite's first launch has these */
			else if (fig && label)
				printf("%.*s" EV_FIG_WORD " %s.%s\n", (int)(fig - line), line,
				       label, fig + strlen(EV_FIG_WORD " "));
			else
				printf("%s\n", line);
			if (report && strstr(line, EV_SANITIZER_STOPS))
				stop_sandbox();
			line = nl + 1;
		}
		/* Line by line, even into a file: a launcher killed loses nothing it read. */
		fflush(stdout);
		len = buf + len - line;
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1) {	/* a line longer than the buffer */
			fwrite(buf, 1, len, stdout);
			len = 0;
		}
	}
	if (n < 0)
		die("read log");
	fwrite(buf, 1, len, stdout);
	fflush(stdout);
	return reports;
}

static const int exception_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };

/* Only the launcher's own faults reach this: a tenant's are taken back. */
static void on_exception(int sig)
{
	static const char msg[] = "launcher: fatal exception in the launcher itself\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

static void catch_exceptions(void)
{
	struct sigaction sa = { .sa_handler = on_exception };
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(exception_signals) / sizeof(exception_signals[0]); i++)
		if (sigaction(exception_signals[i], &sa, NULL))
			die("sigaction");
}

/*
 * Set by the main thread just before it sleeps for the whole run, with
 * the count of its voluntary switches then.
 */
static int main_sleeping;
static unsigned long main_switches;

/* The main thread's /proc/self/task/PID/NAME, read into buf. */
static void main_task_file(const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)getpid(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		die(path);
	buf[n] = 0;
}

/* How many times the main thread has given up the processor of itself. */
static unsigned long main_voluntary_switches(void)
{
	char buf[2048], *at;

	main_task_file("status", buf, sizeof(buf));
	at = strstr(buf, "\nvoluntary_ctxt_switches:");
	return at ? strtoul(at + strlen("\nvoluntary_ctxt_switches:"), NULL, 10) : 0;
}

/*
 * Is the main thread asleep?  Its state in /proc says 'S' from the moment
 * it means to sleep, while it may still be on a run queue; only once it has
 * also switched out since it said so is it off every run queue.
 */
static int main_asleep(void)
{
	char buf[512], *end;

	main_task_file("stat", buf, sizeof(buf));
	/* "pid (comm) S ...": the name may hold anything, so the last ')'. */
	end = strrchr(buf, ')');
	return end && end[1] == ' ' && end[2] == 'S' &&
	       main_voluntary_switches() > __atomic_load_n(&main_switches, __ATOMIC_ACQUIRE);
}

/* The gate: no vCPU starts while the main thread could still be runnable. */
static void wait_main_asleep(void)
{
	while (!__atomic_load_n(&main_sleeping, __ATOMIC_ACQUIRE) || !main_asleep())
		usleep(200);
}

/* FPU registers a carrier holds across EV_RUN_VCPU: see run_vcpu. */
struct fpu_probe {
	unsigned int mxcsr;
	unsigned short fcw;
	unsigned char xmm15[16];
};

/*
 * EV_RUN_VCPU, with FPU registers no default has (round down, 24-bit x87
 * precision, a pattern in xmm15) loaded just before the system call and
 * read back just after it, with nothing of the C library in between: a
 * tenant that saw them, or a launcher given back a tenant's, shows.
 * Returns the ioctl's result; *changed says whether they came back changed.
 */
static long run_vcpu(int fd, unsigned int vcpu, int *changed)
{
	static const struct fpu_probe before = {
		.mxcsr = 0x3f80, .fcw = 0x7f,
		.xmm15 = { 0x5a, 0xa5, 0x3c, 0xc3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
	};
	static const struct fpu_probe defaults = { .mxcsr = 0x1f80, .fcw = 0x37f };
	struct fpu_probe after;
	long ret;

	asm volatile("ldmxcsr %[bm]\n\tfldcw %[bf]\n\tmovdqu %[bx], %%xmm15\n\t"
		     "syscall\n\t"
		     "stmxcsr %[am]\n\tfnstcw %[af]\n\tmovdqu %%xmm15, %[ax]\n\t"
		     "ldmxcsr %[dm]\n\tfldcw %[df]"
		     : "=a"(ret), [am] "=m"(after.mxcsr), [af] "=m"(after.fcw),
		       [ax] "=m"(after.xmm15)
		     : "a"((long)SYS_ioctl), "D"((long)fd), "S"((long)EV_RUN_VCPU),
		       "d"((long)vcpu), [bm] "m"(before.mxcsr), [bf] "m"(before.fcw),
		       [bx] "m"(before.xmm15), [dm] "m"(defaults.mxcsr), [df] "m"(defaults.fcw)
		     : "rcx", "r11", "xmm15", "memory");
	*changed = after.mxcsr != before.mxcsr || after.fcw != before.fcw ||
		   memcmp(after.xmm15, before.xmm15, sizeof(after.xmm15));
	if (ret < 0 && ret >= -4095) {
		errno = -ret;
		return -1;
	}
	return ret;
}

static void *carry(void *arg)
{
	struct carrier *c = arg;

	wait_main_asleep();
	c->exit_code = run_vcpu(c->fd, c->vcpu, &c->fpu_changed);
	c->err = c->exit_code < 0 ? errno : 0;
	return NULL;
}

/*
 * What the endovisor saw: one line per vCPU, and the figures if labelled
 * and not quiet (-q).
 */
static void print_stats(int fd, const char *label)
{
	struct ev_stats st;
	unsigned long long stolen = 0, preempt = 0, in_sandbox = 0, masked = 0, entry = 0, idle = 0;
	unsigned int i;

	if (ioctl(fd, EV_STATS, &st))
		die("EV_STATS");
	for (i = 0; i < st.nr_vcpus && i < EV_MAX_VCPUS; i++) {
		struct ev_vcpu_stats *v = &st.vcpu[i];

		printf("launcher: vCPU %u stolen_ns=%llu preemptions=%llu kicks=%llu ipis=%llu wakeups=%llu upcalls=%llu timer_upcalls=%llu deferred=%llu idle_ns=%llu arm_to_upcall_ns=%llu stolen_sandbox_ns=%llu stolen_masked_ns=%llu kick_retries=%llu parks=%llu timer_kicks=%llu stolen_entry_ns=%llu\n",
		       i, (unsigned long long)v->stolen_ns,
		       (unsigned long long)v->preemptions,
		       (unsigned long long)v->kicks, (unsigned long long)v->ipis,
		       (unsigned long long)v->wakeups,
		       (unsigned long long)v->upcalls,
		       (unsigned long long)v->timer_upcalls,
		       (unsigned long long)v->deferred,
		       (unsigned long long)v->idle_ns,
		       (unsigned long long)v->arm_to_upcall_ns,
		       (unsigned long long)v->stolen_sandbox_ns,
		       (unsigned long long)v->stolen_masked_ns,
		       (unsigned long long)v->kick_retries,
		       (unsigned long long)v->parks,
		       (unsigned long long)v->timer_kicks,
		       (unsigned long long)v->stolen_entry_ns);
		stolen += v->stolen_ns;
		in_sandbox += v->stolen_sandbox_ns;
		masked += v->stolen_masked_ns;
		entry += v->stolen_entry_ns;
		preempt += v->preemptions;
		idle += v->idle_ns;
	}
	printf("launcher: census samples=%llu max_runnable_carriers=%u mean_runnable_carriers=%.2f max_runnable_threads=%u\n",
	       (unsigned long long)st.census_samples, st.census_max,
	       st.census_samples ? (double)st.census_sum / st.census_samples : 0,
	       st.census_max_threads);
	if (label && !quiet) {
		printf(EV_FIG("%s.max_runnable", "%u", "max", "carriers")
		       EV_FIELD("samples", "%llu") "\n",
		       label, st.census_max, (unsigned long long)st.census_samples);
		printf(EV_FIG("%s.mean_runnable", "%.2f", "mean", "carriers")
		       EV_FIELD("samples", "%llu") "\n",
		       label, st.census_samples ? (double)st.census_sum / st.census_samples : 0,
		       (unsigned long long)st.census_samples);
		printf(EV_FIG("%s.max_runnable_threads", "%u", "max", "threads")
		       EV_FIELD("samples", "%llu") "\n",
		       label, st.census_max_threads, (unsigned long long)st.census_samples);
		printf(EV_FIG("%s.stolen", "%.1f", "sum", "ms") EV_FIELD("preemptions", "%llu") "\n",
		       label, stolen / 1e6, preempt);
		/*
		 * Of that, preempted in sandbox code; and in it, inside a masked
		 * section (a guard, a lock), or diverted to the upcall entry.
		 */
		printf(EV_FIG("%s.stolen_sandbox", "%.1f", "sum", "ms") "\n",
		       label, in_sandbox / 1e6);
		printf(EV_FIG("%s.stolen_masked", "%.1f", "sum", "ms") "\n",
		       label, masked / 1e6);
		printf(EV_FIG("%s.stolen_entry", "%.1f", "sum", "ms") "\n",
		       label, entry / 1e6);
		/* Asleep in vcpu_idle, all vCPUs together: what costs Linux nothing. */
		printf(EV_FIG("%s.idle", "%.1f", "sum", "ms") "\n", label, idle / 1e6);
	}
}

/*
 * The log reader, a child forked before the launcher enters the sandbox's
 * group: it waits for the sandbox to exist (a byte on ready, or end of file
 * if creating it failed), then copies the log until it ends.  It dies with
 * the launcher.  It exits READER_REPORTED if the log held a report of the
 * checking mode.
 */
#define READER_REPORTED	3

static pid_t start_reader(int fd, const char *label, int *ready)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char c;

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid > 0) {
		close(p[0]);
		*ready = p[1];
		return pid;
	}
	close(p[1]);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(2);
	if (read(p[0], &c, 1) != 1)
		_exit(2);
	_exit(copy_log(fd, label) ? READER_REPORTED : 0);
}

int main(int argc, char **argv)
{
	struct ev_create create = { .nr_vcpus = 1 };
	struct carrier carriers[EV_MAX_VCPUS];
	const char *cpus = NULL, *label = NULL, *group = NULL, *checking;
	sigset_t all, old;
	char cgroup[256];
	unsigned int i;
	int fd, opt, ready, status, failed = 0;
	pid_t reader;

	checking = getenv("EV_CHECKING");
	if (checking && !strcmp(checking, "1"))
		create.flags |= EV_CREATE_CHECKING;
	while ((opt = getopt(argc, argv, "kqv:a:c:g:s:")) != -1) {
		switch (opt) {
		case 'k':
			create.flags |= EV_CREATE_CHECKING;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			create.nr_vcpus = strtoul(optarg, NULL, 10);
			break;
		case 'a':
			if (strlen(optarg) >= sizeof(create.args)) {
				fprintf(stderr, "launcher: arguments too long\n");
				return 2;
			}
			strcpy(create.args, optarg);
			break;
		case 'c':
			cpus = optarg;
			break;
		case 'g':
			group = optarg;
			break;
		case 's':
			label = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || create.nr_vcpus < 1 || create.nr_vcpus > EV_MAX_VCPUS)
		goto usage;
	if (strlen(argv[optind]) >= sizeof(create.kernel)) {
		fprintf(stderr, "launcher: kernel name too long\n");
		return 2;
	}
	strcpy(create.kernel, argv[optind]);

	fd = open("/dev/endovisor", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/endovisor");
	reader = start_reader(fd, label, &ready);
	/* A group of its own, CGROUP_ROOT/ev-KERNEL-PID, or the one named. */
	if (group) {
		snprintf(cgroup, sizeof(cgroup), CGROUP_ROOT "/%s", group);
		enter_cgroup(cgroup);
	} else {
		snprintf(cgroup, sizeof(cgroup), CGROUP_ROOT "/ev-%s-%d", create.kernel,
			 (int)getpid());
		new_cgroup(cgroup, cpus);
	}
	if (ioctl(fd, EV_CREATE, &create))
		die("EV_CREATE");
	printf("launcher: sandbox for '%s' with %u vCPUs in %s%s\n",
	       create.kernel, create.nr_vcpus, cgroup,
	       create.flags & EV_CREATE_CHECKING ? ", checking mode" : "");
	fflush(stdout);
	if (write(ready, "", 1) != 1)
		die("starting the log reader");
	close(ready);

	/*
	 * Carriers block every signal they can: a carrier running a tenant is
	 * in the tenant's address space, where no handler of ours can run.
	 * All but the signals of exceptions, which the endovisor turns into
	 * the tenant's traps and takes back before Linux delivers them; for
	 * those Linux needs a handler, or it would make them fatal at once.
	 * The carriers inherit the mask; this thread then takes its own back.
	 */
	catch_exceptions();
	sigfillset(&all);
	for (i = 0; i < sizeof(exception_signals) / sizeof(exception_signals[0]); i++)
		sigdelset(&all, exception_signals[i]);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < create.nr_vcpus; i++) {
		carriers[i] = (struct carrier){ .fd = fd, .vcpu = i };
		errno = pthread_create(&carriers[i].thread, NULL, carry,
				       &carriers[i]);
		if (errno)
			die("pthread_create");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Asleep until the log has ended: the carriers wait for this. */
	__atomic_store_n(&main_switches, main_voluntary_switches(), __ATOMIC_RELEASE);
	__atomic_store_n(&main_sleeping, 1, __ATOMIC_RELEASE);
	if (waitpid(reader, &status, 0) != reader)
		die("waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == READER_REPORTED) {
		printf("launcher: the checking mode reported a problem in the sandbox's log\n");
		failed = 1;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "launcher: the log reader failed\n");
		failed = 1;
	}
	for (i = 0; i < create.nr_vcpus; i++) {
		pthread_join(carriers[i].thread, NULL);
		printf("launcher: vCPU %u exit %ld%s%s\n", i,
		       carriers[i].exit_code, carriers[i].err ? " " : "",
		       carriers[i].err ? strerror(carriers[i].err) : "");
		failed |= carriers[i].exit_code != 0;
		printf(EV_TEST("launcher", "vcpu%u_fpu_kept", "%s") "%s\n", i,
		       carriers[i].fpu_changed ? EV_TEST_FAIL : EV_TEST_OK,
		       carriers[i].fpu_changed ? " its FPU registers came back changed" : "");
		failed |= carriers[i].fpu_changed;
	}
	print_stats(fd, label);
	close(fd);
	if (group)
		enter_cgroup(CGROUP_ROOT);
	else
		leave_cgroup(cgroup);
	printf("launcher: sandbox '%s' %s\n", create.kernel,
	       failed ? "FAILED" : "ok");
	return failed;
usage:
	fprintf(stderr, "usage: launcher [-kq] [-v VCPUS] [-a ARGS] [-c CPUS] [-g GROUP] [-s LABEL] KERNEL\n");
	return 2;
}
