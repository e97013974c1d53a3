// SPDX-License-Identifier: GPL-2.0
/*
 * baseline: what Linux itself costs, measured in the same boot as the
 * sandbox it is compared with, and the sibling load of the fairness test.
 *
 *   baseline yield N         two processes on CPU 0 calling sched_yield();
 *                            N round trips -> EVFIG linux.sched_yield_rt
 *   baseline syscall N [KEY] N null system calls (getppid), in five rounds
 *                            -> EVFIG linux.getppid_rt, or KEY, and the
 *                            cheapest and dearest round's median (KEY_round_min,
 *                            KEY_round_max)
 *   baseline pipe N          a process on CPU 0 waking one on CPU 1 through a
 *                            pipe and waiting for its answer, both CPUs idle
 *                            otherwise; N round trips, timed on CPU 0's clock
 *                            -> EVFIG linux.pipe_wake_rt
 *   baseline pipebusy N      the same with both ends real-time and each CPU
 *                            busy with an ordinary spinner, so that each wake
 *                            interrupts and preempts it -> EVFIG
 *                            linux.pipe_wake_busy_rt
 *   baseline wakelocal N     a SCHED_FIFO process blocked reading a pipe, woken
 *                            by a SCHED_OTHER one on the same CPU writing its
 *                            cycle count into it; N wakes, each until the
 *                            woken one runs -> EVFIG linux.wake_local
 *   baseline sibling LABEL SECS [GROUP]
 *                            two busy loops in the cgroup GROUP ("sibling"
 *                            if none is named) for SECS seconds -> EVFIG
 *                            LABEL.sibling_share, the processors the two got
 *   baseline threads LABEL SECS N [GROUP]
 *                            a thread per task: N threads of one process, each
 *                            spinning 0.1 ms and yielding, as the sched
 *                            kernel's fair tasks do, for SECS seconds, in a
 *                            cgroup of its own on CPUs 0-1, or in GROUP; its
 *                            runnable threads counted once a millisecond ->
 *                            EVFIG LABEL.max_runnable_threads,
 *                            LABEL.mean_runnable_threads
 *   baseline touch N         first touch of each of N pages: a read of
 *                            populated pages (present), a read of pages
 *                            never touched (a fault that maps the shared zero
 *                            page), and a write of pages never touched (a
 *                            fault that allocates and zeroes a page) -> EVFIG
 *                            linux.touch_present, touch_fault,
 *                            touch_fault_write
 *   baseline mprotect R      mprotect of a populated 2 MiB read-only, R times
 *                            -> EVFIG linux.mprotect_2m
 *   baseline fork R [MIB]    fork of a process with 64 MiB (or MIB) mapped
 *                            and touched, until fork returns in the parent,
 *                            R times -> EVFIG linux.fork_64m (fork_MIBm)
 *   baseline munmap R [MIB]  munmap of 64 MiB (or MIB) mapped and touched,
 *                            while a forked child still maps the same
 *                            pages, so that none is freed (as the sandbox's
 *                            unmap frees no frame), R times -> EVFIG
 *                            linux.munmap_64m (munmap_MIBm)
 *
 * The memory baselines use 4 KiB pages only, as the sandbox's side does
 * (small_pages): never a transparent huge page.
 * Each timing is taken with the cycle counter, after a warm-up, and
 * reported as the median and the 99th percentile, as the sandbox kernels
 * report theirs.
 */
#include "baseline.h"

int main(int argc, char **argv)
{
	char cgroup[256];

	if (argc == 3 && !strcmp(argv[1], "yield")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		yield_rt(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "syscall")) {
		syscall_rt(strtoul(argv[2], NULL, 10), argc == 4 ? argv[3] : "linux.getppid_rt");
	} else if (argc == 3 && !strcmp(argv[1], "pipe")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		pipe_rt(strtoul(argv[2], NULL, 10), 0, "linux.pipe_wake_rt");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "pipebusy")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		pipe_rt(strtoul(argv[2], NULL, 10), 1, "linux.pipe_wake_busy_rt");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "wakelocal")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		wake_local(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sibling")) {
		sibling(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : "sibling");
	} else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "threads")) {
		threads(argv[2], atoi(argv[3]), strtoul(argv[4], NULL, 10),
			argc == 6 ? argv[5] : NULL);
	} else if (argc == 3 && !strcmp(argv[1], "touch")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		touch(strtoul(argv[2], NULL, 10), 1, 0, "linux.touch_present");
		touch(strtoul(argv[2], NULL, 10), 0, 0, "linux.touch_fault");
		touch(strtoul(argv[2], NULL, 10), 0, 1, "linux.touch_fault_write");
		leave_cgroup(cgroup);
	} else if (argc == 3 && !strcmp(argv[1], "mprotect")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		mprotect_2m(strtoul(argv[2], NULL, 10));
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fork")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		fork_mib(strtoul(argv[2], NULL, 10), argc == 4 ? strtoul(argv[3], NULL, 10) : 64);
		leave_cgroup(cgroup);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "munmap")) {
		own_cgroup(cgroup, sizeof(cgroup), NULL);
		munmap_mib(strtoul(argv[2], NULL, 10), argc == 4 ? strtoul(argv[3], NULL, 10) : 64);
		leave_cgroup(cgroup);
	} else {
		fprintf(stderr, "usage: baseline yield N | syscall N [KEY] | pipe N | pipebusy N | wakelocal N | sibling LABEL SECS [GROUP] | threads LABEL SECS N [GROUP] | touch N | mprotect R | fork R [MIB] | munmap R [MIB]\n");
		return 2;
	}
	return 0;
}
