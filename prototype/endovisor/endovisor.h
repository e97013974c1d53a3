/* SPDX-License-Identifier: GPL-2.0 */
/* The endovisor's own state: sandboxes, their vCPUs, and the live counts. */
#ifndef ENDOVISOR_H
#define ENDOVISOR_H

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/wait.h>

#include "ev_abi.h"

struct ev_sandbox;

enum ev_vcpu_state {
	EV_VCPU_READY,		/* created, no carrier yet */
	EV_VCPU_RUNNING,	/* a carrier is inside EV_RUN_VCPU */
	EV_VCPU_DONE,		/* its kernel returned; exit_code holds the result */
};

struct ev_vcpu {
	/* The Linux stack pointer while sandbox code runs: stub/cross.S. */
	unsigned long linux_sp;
	struct ev_sandbox *sb;
	unsigned int id;
	enum ev_vcpu_state state;
	long exit_code;
	struct task_struct *carrier;
	struct preempt_notifier notifier;
	struct ev_stack_base *boot_stack;
	struct ev_vcpu_shared *shared;
};

struct ev_log {
	spinlock_t lock;		/* writers; readers need only 'len' */
	char *buf;
	size_t len, size;
	unsigned long dropped;		/* appends that did not fit */
	bool finished;
	wait_queue_head_t readers;
};

struct ev_sandbox {
	u64 id;
	struct ev_kernel *kernel;
	struct cgroup *cgrp;		/* the creator's cgroup; carriers must be in it */
	struct mutex lock;		/* vCPU state changes */
	unsigned int nr_vcpus;
	unsigned int nr_done;
	struct ev_vcpu *vcpus[EV_MAX_VCPUS];
	struct ev_log log;
};

DECLARE_PER_CPU(struct ev_vcpu *, ev_cur_vcpu);

/* Objects alive now, for the live counts in sysfs and the unload check. */
struct ev_live {
	atomic_t sandboxes;
	atomic_t vcpus;
	atomic_t stacks;
};
extern struct ev_live ev_live;

/* registry.c */
struct ev_kernel *ev_kernel_get(const char *name);
void ev_kernel_put(struct ev_kernel *k);

/* sandbox.c */
struct ev_sandbox *ev_sandbox_create(const char *kernel, unsigned int nr_vcpus);
void ev_sandbox_destroy(struct ev_sandbox *sb);
long ev_sandbox_run_vcpu(struct ev_sandbox *sb, unsigned long idx);
bool ev_sandbox_owns(struct ev_sandbox *sb, const void *p, size_t len);

/* vcpu.c */
struct ev_vcpu *ev_vcpu_create(struct ev_sandbox *sb, unsigned int id);
void ev_vcpu_destroy(struct ev_vcpu *v);
long ev_vcpu_run(struct ev_vcpu *v);
bool ev_vcpu_stack_owns(struct ev_vcpu *v, unsigned long start, unsigned long end);

/* crossing.c */
void ev_crossing_calibrate(struct ev_vcpu *v);

/* log.c */
int ev_log_init(struct ev_log *log, size_t size);
void ev_log_free(struct ev_log *log);
void ev_log_append(struct ev_log *log, const char *s, size_t len);
__printf(2, 3) void ev_log_printf(struct ev_log *log, const char *fmt, ...);
ssize_t ev_log_read(struct ev_log *log, char __user *ubuf, size_t count,
		    loff_t *pos);
void ev_log_finish(struct ev_log *log);

/* services.c */
typedef long (*ev_service_fn)(struct ev_vcpu *v, unsigned long a0,
			      unsigned long a1, unsigned long a2,
			      unsigned long a3, unsigned long a4);
extern const ev_service_fn ev_service_table[EV_NR_SERVICES];

#endif /* ENDOVISOR_H */
