// SPDX-License-Identifier: GPL-2.0
/*
 * linux: the sandbox kernel that runs unmodified Linux programs, on proc's
 * processes.  Its arguments are a label and a busybox command line:
 *
 *   LABEL APPLET ARG...
 *
 * runs /bin/busybox of its file system with argv "busybox APPLET ARG..."
 * (words split at spaces; single quotes group), waits for it, and logs
 * how it ended and the system calls the whole run made, by name.  The
 * program's exit status is vCPU 0's exit code, which the launcher prints;
 * a kill by a signal is 128 and the signal, as a shell shows it.
 */
#include "linux.h"

struct procs *procs(void)
{
	return vostd_global(VOSTD_SLOT_KERNEL, sizeof(struct lx_globals));
}

/* proc's timed trips are proc's measurements: none here. */
void trip_part(struct trip *tr, enum proc_part part, struct ev_stamp now)
{
}

void trip_arrive(struct thread *t)
{
}

/* proc's images: this kernel's programs come from its file system instead. */
const char *tenant_image(const char *name, unsigned long *size)
{
	return NULL;
}

#define WORDS_MAX	16

/* Split s (a copy) into words at spaces; '...' groups. */
static unsigned int split(char *s, const char **argv)
{
	unsigned int n = 0;

	while (*s && n < WORDS_MAX) {
		char *out;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		argv[n++] = s;
		out = s;
		while (*s && *s != ' ') {
			if (*s == '\'') {
				s++;
				while (*s && *s != '\'')
					*out++ = *s++;
				if (*s)
					s++;
			} else {
				*out++ = *s++;
			}
		}
		if (*s)
			s++;
		*out = 0;
	}
	argv[n] = NULL;
	return n;
}

/*
 * The calls the run made, one figure each, by name (the launcher's -s
 * puts the run's label in front of the key).
 */
static void report_calls(void)
{
	struct lx_globals *g = lx();
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(g->calls); i++) {
		if (!g->calls[i])
			continue;
		total += g->calls[i];
		vostd_println(EV_FIG("calls.%s", "%llu", "count", "calls"),
			      syscall_name(i), g->calls[i]);
	}
	vostd_println(EV_FIG("calls", "%llu", "count", "calls"), total + g->unknown);
}

#define DRAIN_ROUNDS	10000

/*
 * The first process has ended: whatever it left running (a background
 * job, an orphan) is killed, and the kernel waits, yielding, until every
 * thread has left, so that the sandbox ends with an empty table.
 */
static void kill_the_rest(void)
{
	unsigned int round;

	for (round = 0; READ_ONCE(procs()->live_threads) && round < DRAIN_ROUNDS; round++) {
		struct proc *c, *victim = NULL;

		procs_lock();
		for (c = procs()->list; c && !victim; c = c->next)
			if (!c->exited && !READ_ONCE(c->killed) && c->os)
				victim = c;
		/* It may exit and be reaped once the lock drops: hold it. */
		if (victim)
			proc_get(victim);
		procs_unlock();
		if (victim) {
			lx_kill(victim, 9, "the first process has ended: signal", 0);
			proc_put(victim);
		}
		kl_yield();
	}
}

struct run {
	long code;
};

static void coordinator(void *arg)
{
	struct run *r = arg;
	char *cmd = NULL;
	const char *words[WORDS_MAX + 2];
	const char **argv = words + 1;
	unsigned int n, len = 0;
	const char *args = vostd_vcpu()->args;
	struct proc *p;

	procs()->start = vostd_cycles();
	procs()->exit_hook = lx_proc_exit;
	procs()->thread_exit_hook = lx_thread_exit;
	procs()->end_hook = lx_wake_sleepers;
	procs()->free_hook = lx_proc_free;
	procs()->exited_hook = lx_child_exited;
	procs()->user_hook = lx_deliver;
	procs()->trap_hook = lx_trap_signal;
	r->code = fs_init();
	if (r->code) {
		vostd_println("linux: the file system image is bad: %ld", r->code);
		goto out;
	}
	while (args[len])
		len++;
	cmd = vostd_alloc(len + 1, false);
	if (!cmd) {
		r->code = -ENOMEM;
		goto out;
	}
	vostd_memcpy(cmd, args, len + 1);
	n = split(cmd, argv);
	if (n < 2) {
		vostd_println("linux: want LABEL APPLET ARG..., have '%s'", args);
		r->code = -EINVAL;
		goto out;
	}
	lx()->trace = vostd_has_prefix(cmd, "strace");
	/* The label's slot becomes argv[0]. */
	words[1] = "busybox";
	argv = words + 1;
	vostd_println("linux: %s: running busybox %s", cmd, args + (argv[1] - cmd));
	p = lx_spawn("/bin/busybox", argv);
	if (!p) {
		r->code = -ENOEXEC;
		goto out;
	}
	r->code = proc_wait(p);
	vostd_println("linux: %s: exit %ld%s", cmd, r->code,
		      r->code > 128 ? " (killed by a signal)" : "");
	kill_the_rest();
	/* Every timer went with its process: the ticker ends. */
	lx_ticker_stop();
	report_calls();
	if (procs()->live_procs || procs()->live_threads)
		vostd_println("linux: %s: FAIL: %u processes and %u threads left", cmd,
			      procs()->live_procs, procs()->live_threads);
	if (READ_ONCE(lx()->socks_live))
		vostd_println("linux: %s: FAIL: %u sockets left", cmd, READ_ONCE(lx()->socks_live));
out:
	vostd_free(cmd);
	ipc_exit();
	fs_exit();
	kl_stop();
}

static long linux_main(void)
{
	struct run r = { .code = -ENOMEM };

	if (!procs() || !kl_spawn("coordinator", coordinator, &r, KL_PRIO_NORMAL, 0))
		return -ENOMEM;
	kl_run();
	return r.code;
}

static long linux_ap_main(void)
{
	return kl_run();
}

VOSTD_KERNEL(linux, linux_main, linux_ap_main);
