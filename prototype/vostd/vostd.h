/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vOSTD: the framework a sandbox kernel is written against, in the manner
 * of Asterinas's OSTD.  A kernel built on it never calls Linux: everything
 * it needs from outside goes through the endovisor's service table via the
 * stub, and vOSTD is the only code that makes those calls.
 */
#ifndef VOSTD_H
#define VOSTD_H

#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/stdarg.h>
#include <linux/types.h>

#include "ev_abi.h"

/* The vCPU the caller runs on, found from its stack (ev_stack_base). */
static __always_inline struct ev_stack_base *vostd_stack_base(void)
{
	unsigned long sp;

	asm volatile("movq %%rsp, %0" : "=r"(sp));
	return (struct ev_stack_base *)(sp & ~(EV_STACK_SIZE - 1));
}

static __always_inline struct ev_vcpu_shared *vostd_vcpu(void)
{
	return vostd_stack_base()->shared;
}

static inline unsigned int vostd_cpu_id(void)
{
	return vostd_vcpu()->vcpu;
}

static inline unsigned int vostd_nr_cpus(void)
{
	return vostd_vcpu()->nr_vcpus;
}

/* The cycle counter, ordered against earlier loads. */
static __always_inline u64 vostd_cycles(void)
{
	u32 lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((u64)hi << 32) | lo;
}

/* One service call through the stub. */
static inline long vostd_call(unsigned long svc, unsigned long a0,
			      unsigned long a1, unsigned long a2,
			      unsigned long a3, unsigned long a4)
{
	return vostd_vcpu()->cross(svc, a0, a1, a2, a3, a4);
}

/* format.c */
int vostd_vsnprintf(char *buf, size_t size, const char *fmt, va_list args);
__printf(3, 4) int vostd_snprintf(char *buf, size_t size, const char *fmt, ...);

/* log.c: one line to the sandbox's log; returns the service's result. */
__printf(1, 2) long vostd_println(const char *fmt, ...);

/*
 * A kernel: main runs on vCPU 0, ap_main on every other vCPU (either may
 * be NULL).  The value main returns is vCPU 0's exit code.
 */
struct vostd_kernel {
	long (*main)(void);
	long (*ap_main)(void);
};

/* boot.c */
long vostd_boot(const struct vostd_kernel *k, struct ev_vcpu_shared *shared);

/*
 * Declares the module that carries a sandbox kernel: at load it registers
 * the kernel with the endovisor under 'name'.
 */
#define VOSTD_KERNEL(kname, kmain, kap_main)				\
	static const struct vostd_kernel vostd_this_kernel = {		\
		.main = kmain, .ap_main = kap_main,			\
	};								\
	static long vostd_entry(struct ev_vcpu_shared *shared)		\
	{								\
		return vostd_boot(&vostd_this_kernel, shared);		\
	}								\
	static struct ev_kernel vostd_ev_kernel = {			\
		.name = #kname, .owner = THIS_MODULE,			\
		.entry = vostd_entry,					\
	};								\
	static int __init vostd_module_init(void)			\
	{								\
		return ev_register_kernel(&vostd_ev_kernel);		\
	}								\
	static void __exit vostd_module_exit(void)			\
	{								\
		ev_unregister_kernel(&vostd_ev_kernel);			\
	}								\
	module_init(vostd_module_init);					\
	module_exit(vostd_module_exit);					\
	MODULE_LICENSE("GPL");						\
	MODULE_SOFTDEP("pre: endovisor")

#endif /* VOSTD_H */
