/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What crosses between the endovisor and a sandbox kernel.
 *
 * A sandbox kernel is a module that registers an ev_kernel with the
 * endovisor and from then on reaches Linux only through the service table:
 * every service is called as shared->cross(service, a0, ..., a4), which is
 * the stub's crossing (stub/cross.S).  This header is the whole interface;
 * the build checks that a sandbox kernel's module imports nothing from Linux
 * but ev_register_kernel, ev_unregister_kernel and the compiler's runtime.
 */
#ifndef EV_ABI_H
#define EV_ABI_H

#define EV_ABI_VERSION		1
#define EV_KERNEL_NAME_MAX	32
#define EV_MAX_VCPUS		8

/* Every sandbox stack is this size and aligned to it (see ev_stack_base). */
#define EV_STACK_ORDER		2
#define EV_STACK_SIZE		(4096UL << EV_STACK_ORDER)
#define EV_STACK_MAGIC		0x65767374616b6321ULL	/* "evstakc!" */

/* The longest line the log service takes; longer is refused (-EINVAL). */
#define EV_LOG_LINE_MAX		256

/* Service numbers: the index into the endovisor's service table. */
#define EV_SVC_NOP		0	/* (): nothing; the crossing is timed with it */
#define EV_SVC_LOG		1	/* (const char *buf, size_t len) */
#define EV_NR_SERVICES		2

#ifndef __ASSEMBLY__
#include <linux/types.h>

typedef long (*ev_cross_fn)(unsigned long svc, unsigned long a0,
			    unsigned long a1, unsigned long a2,
			    unsigned long a3, unsigned long a4);

/*
 * Per-vCPU page shared by the endovisor and the sandbox kernel.  The
 * endovisor writes the fields above 'kernel_owned' before entry and never
 * trusts anything the sandbox writes below it.
 */
struct ev_vcpu_shared {
	__u32 abi_version;
	__u32 vcpu;		/* this vCPU's index, 0 .. nr_vcpus - 1 */
	__u32 nr_vcpus;
	__u32 carrier_tid;	/* the Linux thread carrying this vCPU */
	__u64 sandbox_id;
	ev_cross_fn cross;	/* the stub's crossing */
	/* Written by the sandbox kernel, read by nobody but it. */
	void *kernel_owned;
};

/*
 * The lowest bytes of every sandbox stack.  Stacks are EV_STACK_SIZE
 * aligned, so code running on one finds its header from its stack pointer
 * alone, the way Linux once found thread_info.  'magic' is checked to catch
 * an overflow that ran off the bottom.
 */
struct ev_stack_base {
	__u64 magic;
	struct ev_vcpu_shared *shared;
	void *owner;		/* sandbox kernel's own: its task, for example */
};

/* A sandbox kernel's entry: runs on every vCPU, on that vCPU's boot stack. */
typedef long (*ev_kernel_entry)(struct ev_vcpu_shared *shared);

struct module;

struct ev_kernel {
	const char *name;
	struct module *owner;
	ev_kernel_entry entry;
	/* Endovisor's own, for its registry. */
	struct ev_kernel *next;
};

int ev_register_kernel(struct ev_kernel *k);
void ev_unregister_kernel(struct ev_kernel *k);

#endif /* __ASSEMBLY__ */
#endif /* EV_ABI_H */
