/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/endovisor, as the launcher sees it.  One open file is one sandbox:
 * EV_CREATE names its kernel and vCPU count, each carrier thread then calls
 * EV_RUN_VCPU with its vCPU index and stays inside until that vCPU's kernel
 * returns, read() streams the sandbox's log until every vCPU is done, and
 * the last close tears the sandbox down.
 */
#ifndef EV_IOCTL_H
#define EV_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "ev_abi.h"	/* EV_MAX_VCPUS */

struct ev_create {
	char kernel[32];	/* a registered sandbox kernel's name */
	__u32 nr_vcpus;		/* 1 .. EV_MAX_VCPUS */
	__u32 flags;		/* EV_CREATE_*, for the kernel (ev_abi.h) */
	char args[64];		/* for the kernel, NUL-terminated */
};

/* Per vCPU, what the endovisor saw of it. */
struct ev_vcpu_stats {
	__u64 stolen_ns;	/* runnable but not running, while carrying the vCPU */
	__u64 preemptions;	/* times Linux switched the carrier out while runnable */
	__u64 kicks;		/* kicks aimed at this vCPU */
	__u64 ipis;		/* of those, sent as an interrupt */
	__u64 wakeups;		/* of those, waking it from vcpu_idle */
	__u64 upcalls;		/* upcalls delivered */
	__u64 timer_upcalls;	/* of those, by the timer sched_in arms */
	__u64 deferred;		/* upcall attempts that found it masked or outside its text */
	__u64 idle_ns;		/* time asleep in vcpu_idle */
	__u64 arm_to_upcall_ns;	/* summed over timer upcalls: from arming to diverting */
	__u64 stolen_sandbox_ns;	/* of stolen_ns, preempted in sandbox code */
	__u64 stolen_masked_ns;	/* of that, inside a masked section: a guard or a lock */
	__u64 kick_retries;	/* kicks the census found stranded and sent again */
	__u64 parks;		/* times its carrier parked for a stop or the freezer */
	__u64 timer_kicks;	/* kicks its timer (timer_at) asked the tick for */
	__u64 stolen_entry_ns;	/* of stolen_sandbox_ns, diverted to the upcall entry, not in it */
};

struct ev_stats {
	__u32 nr_vcpus;
	__u32 census_max;	/* most carriers Linux had runnable at once */
	__u32 census_max_threads;	/* the same for all the creator's threads */
	__u32 pad;
	__u64 census_samples;	/* ticks the census sampled, one a millisecond */
	__u64 census_sum;	/* sum of runnable carriers over the ticks */
	/*
	 * What the endovisor holds for the sandbox itself: its structures, its
	 * vCPUs' (stacks and shared pages), its log, its globals page, its
	 * heap's table and its grant's set.  Not its heap blocks, frames,
	 * tenant spaces or FPU contexts, which its quotas bound.
	 */
	__u64 mem_bytes;
	struct ev_vcpu_stats vcpu[EV_MAX_VCPUS];
};

#define EV_IOC_MAGIC	0xE7
#define EV_CREATE	_IOW(EV_IOC_MAGIC, 1, struct ev_create)
/*
 * Argument: the vCPU index.  Returns that vCPU's exit code, or -errno.  An
 * exit code an int cannot hold, or one of Linux's own codes -512 to -530
 * (which no system call may return), arrives as -EOVERFLOW.
 */
#define EV_RUN_VCPU	_IO(EV_IOC_MAGIC, 2)
#define EV_STATS	_IOR(EV_IOC_MAGIC, 3, struct ev_stats)

#endif /* EV_IOCTL_H */
