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

struct ev_create {
	char kernel[32];	/* a registered sandbox kernel's name */
	__u32 nr_vcpus;		/* 1 .. EV_MAX_VCPUS */
	__u32 flags;		/* must be 0 */
};

#define EV_IOC_MAGIC	0xE7
#define EV_CREATE	_IOW(EV_IOC_MAGIC, 1, struct ev_create)
/* Argument: the vCPU index.  Returns that vCPU's exit code, or -errno. */
#define EV_RUN_VCPU	_IO(EV_IOC_MAGIC, 2)

#endif /* EV_IOCTL_H */
