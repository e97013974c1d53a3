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
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/stdarg.h>
#include <linux/types.h>
#include <asm/segment.h>

#include "ev_abi.h"
#include "ev_report.h"

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

/*
 * The cycle counter and the Linux CPU it was read on, for measurements
 * that set the sandbox's readings beside a tenant's and the endovisor's:
 * a carrier may move between CPUs, and a difference of two readings means
 * something only if both came from one.  The CPU is the limit of the GDT's
 * per-CPU segment, which Linux sets to the CPU's number for its vDSO's
 * getcpu; lsl reads it at any privilege, and traps nowhere.
 */
static __always_inline struct ev_stamp vostd_stamp(void)
{
	struct ev_stamp s = {};
	u32 limit = 0;

	asm volatile("lsl %1, %0" : "+r"(limit) : "r"((u32)__CPUNODE_SEG));
	s.cpu = limit & VDSO_CPUNODE_MASK;
	s.at = vostd_cycles();
	return s;
}

void vostd_upcall(void);
void vostd_upcall_entry(void);	/* switch.S: where the endovisor sends an upcall */
void vostd_upcall_taken(void);

/*
 * The crossing of service svc: its own, a direct call with no dispatch,
 * when svc is known at compile time (as it is but in the hostile kernel's
 * calls of unknown numbers); the generic one otherwise.
 */
static __always_inline long vostd_cross(unsigned long svc, unsigned long a0,
					unsigned long a1, unsigned long a2,
					unsigned long a3, unsigned long a4)
{
	if (__builtin_constant_p(svc)) {
		switch (svc) {
#define EV_SERVICE(nr, NAME, name, args)	\
		case nr: return ev_stub_cross_##name(svc, a0, a1, a2, a3, a4);
#include "ev_services.h"
#undef EV_SERVICE
		}
	}
	return ev_stub_cross(svc, a0, a1, a2, a3, a4);
}

/*
 * One service call through the stub, counted in the vCPU's shared page.
 * A kick that arrived while the carrier was in the service could not be
 * taken there; take it now.
 */
static __always_inline long vostd_call(unsigned long svc, unsigned long a0,
				       unsigned long a1, unsigned long a2,
				       unsigned long a3, unsigned long a4)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();
	long ret;

	sh->calls++;
	ret = vostd_cross(svc, a0, a1, a2, a3, a4);

	if (unlikely(READ_ONCE(sh->kick_pending)) && !READ_ONCE(sh->upcall_mask))
		vostd_upcall();
	return ret;
}

/*
 * Each service called with its own arguments and no others, as the list
 * of the services (ev_services.h) counts them: vostd_svc_mem_alloc(size,
 * flags) is vostd_call(EV_SVC_MEM_ALLOC, size, flags, 0, 0, 0).  vOSTD's
 * typed wrappers call these, so that a wrong count fails the build.
 */
#define __VOSTD_ARGS0	void
#define __VOSTD_ARGS1	unsigned long a0
#define __VOSTD_ARGS2	__VOSTD_ARGS1, unsigned long a1
#define __VOSTD_ARGS3	__VOSTD_ARGS2, unsigned long a2
#define __VOSTD_ARGS4	__VOSTD_ARGS3, unsigned long a3
#define __VOSTD_ARGS5	__VOSTD_ARGS4, unsigned long a4
#define __VOSTD_PASS0	0, 0, 0, 0, 0
#define __VOSTD_PASS1	a0, 0, 0, 0, 0
#define __VOSTD_PASS2	a0, a1, 0, 0, 0
#define __VOSTD_PASS3	a0, a1, a2, 0, 0
#define __VOSTD_PASS4	a0, a1, a2, a3, 0
#define __VOSTD_PASS5	a0, a1, a2, a3, a4
#define EV_SERVICE(nr, NAME, name, args)					\
	static __always_inline long vostd_svc_##name(__VOSTD_ARGS##args)	\
	{									\
		return vostd_call(EV_SVC_##NAME, __VOSTD_PASS##args);		\
	}
#include "ev_services.h"
#undef EV_SERVICE

/* Is a service's return value an error (-4095 .. -1)? */
static inline bool vostd_is_err(long ret)
{
	return (unsigned long)ret >= (unsigned long)-4095;
}

/*
 * Cycles to nanoseconds, by the rate the endovisor reported, in two parts
 * so that no product overflows: cycles * 10^6 would at about 2.4 hours of
 * a 2 GHz counter, which a process's CPU time summed over its threads and
 * its children reaches sooner.
 */
static inline u64 vostd_cycles_to_ns(u64 cycles)
{
	u64 khz = vostd_vcpu()->tsc_khz;

	return cycles / khz * 1000000ULL + cycles % khz * 1000000ULL / khz;
}

static inline u64 vostd_ns_to_cycles(u64 ns)
{
	u64 khz = vostd_vcpu()->tsc_khz;

	return ns / 1000000ULL * khz + ns % 1000000ULL * khz / 1000000ULL;
}

/*
 * Upcalls.  While a vCPU's mask is nonzero no kick diverts it; the last
 * vostd_upcall_enable takes a kick that came meanwhile.  Every lock a
 * sandbox kernel shares with upcall handlers is held with upcalls masked.
 */
static __always_inline void vostd_upcall_disable(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();

	WRITE_ONCE(sh->upcall_mask, sh->upcall_mask + 1);
	barrier();
}

static __always_inline void vostd_upcall_enable(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();

	barrier();
	WRITE_ONCE(sh->upcall_mask, sh->upcall_mask - 1);
	if (!sh->upcall_mask && unlikely(READ_ONCE(sh->kick_pending)))
		vostd_upcall();
}

static __always_inline unsigned int vostd_upcall_depth(void)
{
	return READ_ONCE(vostd_vcpu()->upcall_mask);
}

/*
 * Per-sandbox state.  A module's static data is shared by every sandbox
 * of its kernel, so state of one sandbox hangs off its globals page, one
 * pointer per slot, each set once by whichever vCPU gets there first.
 */
enum vostd_slot {
	VOSTD_SLOT_SCHED_OPS,	/* the injected scheduler's ops */
	VOSTD_SLOT_SCHED_STATE,	/* the scheduler's own state */
	VOSTD_SLOT_FRAMES,	/* the frame pool (mm.c) */
	VOSTD_SLOT_SLAB,	/* the slab (slab.c) */
	VOSTD_SLOT_KERNEL,	/* the kernel's */
	VOSTD_SLOT_SAN,		/* the checking mode's (sanitize.c) */
	VOSTD_NR_SLOTS
};

/* A sandbox's count of its test cases, and of those that failed (report.c). */
struct vostd_tests {
	u32 cases, failed;
};

/* The globals page: vOSTD's slots, then its count of the tests. */
struct vostd_globals {
	void *slots[VOSTD_NR_SLOTS];
	struct vostd_tests tests;
	u32 gone;		/* vCPUs that have left vostd_boot */
	u32 san_reports;	/* the checking mode's reports (sanitize.c) */
	u32 sfi_expected;	/* a test's wild store is on purpose (sfi.c) */
};

static __always_inline struct vostd_globals *vostd_globals(void)
{
	return vostd_vcpu()->globals;
}

static __always_inline void **vostd_slots(void)
{
	return vostd_globals()->slots;
}

/* The slot's object: size zeroed bytes from the heap on first use. */
void *vostd_global(enum vostd_slot slot, size_t size);
void vostd_global_release(enum vostd_slot slot);

/*
 * The scheduler is not vOSTD's: a kernel injects one, as with OSTD's
 * inject_scheduler.  vOSTD calls upcall() when a kick is taken, with
 * upcalls masked, and exit() when a task's function returns.
 */
struct vostd_sched_ops {
	void (*upcall)(void);
	void (*task_start)(void);
	void (*task_exit)(void);	/* does not return */
};

void vostd_inject_scheduler(const struct vostd_sched_ops *ops);

/* A spinlock of the sandbox's own; hold it with upcalls masked. */
typedef struct {
	u32 locked;
} vostd_spinlock_t;

bool vostd_lock_spoiled(vostd_spinlock_t *l, u32 word);

/*
 * A lock word is 0 or 1: another lies in freed memory, or was overwritten,
 * which the checking mode reports (sanitize.c).
 */
static __always_inline void vostd_spin_lock(vostd_spinlock_t *l)
{
	u32 word;

	while ((word = __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))) {
		if (unlikely(word != 1) && vostd_lock_spoiled(l, word))
			break;
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			asm volatile("pause");
	}
}

static __always_inline void vostd_spin_unlock(vostd_spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/*
 * A call site of the heap or the frame pool, recorded at compile time for
 * the checking mode's reports: the sandbox cannot read Linux's symbols to
 * name a return address, and a record costs a call only an argument.
 */
struct vostd_site {
	const char *file;
	const char *func;
	unsigned int line;
};

#define VOSTD_SITE ({							\
	static const struct vostd_site __vostd_site = {		\
		__FILE__, __func__, __LINE__				\
	};								\
	&__vostd_site;							\
})

/*
 * Does the sandbox run vOSTD's checking mode (sanitize.c)?  The launcher
 * asks for it when it creates the sandbox; it never changes after.
 */
static __always_inline bool vostd_checking(void)
{
	return vostd_vcpu()->flags & EV_CREATE_CHECKING;
}

/*
 * heap.c: the sandbox heap.  vostd_alloc gives an object of up to
 * VOSTD_SLAB_MAX bytes from the slab, a larger one (or one the slab could
 * not give) from the endovisor; either way aligned to its size rounded up
 * to a power of two (at most a page, for the slab's and in checking mode),
 * and zeroed if asked.  vostd_free takes either: 0, or -EINVAL for a
 * pointer inside an object, -ENOENT for one it never gave out or gave back
 * already.  Both pass their call site on, for the checking mode.
 */
void *vostd_alloc_at(size_t size, bool zero, const struct vostd_site *site);
long vostd_free_at(void *p, const struct vostd_site *site);
#define vostd_alloc(size, zero)	vostd_alloc_at(size, zero, VOSTD_SITE)
#define vostd_free(p)		vostd_free_at(p, VOSTD_SITE)

/* The same, never checked: the checking mode's own, and timed beside them. */
void *vostd_alloc_unchecked(size_t size, bool zero);
long vostd_free_unchecked(void *p);

/* The endovisor's mem_alloc and mem_free themselves, one crossing each. */
void *vostd_heap_alloc(size_t size, bool zero);
long vostd_heap_free(void *p);

/*
 * slab.c: objects of 32 to VOSTD_SLAB_MAX bytes in power-of-two classes,
 * carved out of frames of the sandbox's pool.  vostd_slab_free returns
 * VOSTD_SLAB_NOT_MINE for a pointer in no frame of the slab.
 */
#define VOSTD_SLAB_MIN_SHIFT	5
#define VOSTD_SLAB_CLASSES	6
#define VOSTD_SLAB_MAX		(1UL << (VOSTD_SLAB_MIN_SHIFT + VOSTD_SLAB_CLASSES - 1))
#define VOSTD_SLAB_NOT_MINE	1
void *vostd_slab_alloc(size_t size, bool zero);
long vostd_slab_free(void *p);
bool vostd_slab_owns(const void *p);
unsigned long vostd_slab_frames(void);
/* What the slab and the frame pool hold of the heap, given back: see mm.c. */
void vostd_slab_release(void);
void vostd_mm_release(void);

/*
 * task.c: a task's stack and its first frame.  The stack is EV_STACK_SIZE,
 * aligned to it, with an ev_stack_base naming vCPU shared and owner.
 */
struct ev_stack_base *vostd_stack_alloc(struct ev_vcpu_shared *shared, void *owner);
void vostd_stack_free(struct ev_stack_base *stack);
unsigned long vostd_stack_frame(struct ev_stack_base *stack,
				void (*fn)(void *), void *arg);
bool vostd_stack_intact(struct ev_stack_base *stack);
void vostd_switch(unsigned long *save_sp, const unsigned long *next_sp);
void __noreturn vostd_task_main(void (*fn)(void *), void *arg);

/* cpu.c: the vCPU services. */
long vostd_idle(void);
void __noreturn vostd_halt(void);
long vostd_kick(unsigned int vcpu);

/* stats.c: order statistics over samples. */
void vostd_sort_u64(u64 *v, size_t n);
u64 vostd_percentile(const u64 *sorted, size_t n, unsigned int pct);

/* format.c */
int vostd_vsnprintf(char *buf, size_t size, const char *fmt, va_list args);
__printf(3, 4) int vostd_snprintf(char *buf, size_t size, const char *fmt, ...);
bool vostd_has_prefix(const char *s, const char *prefix);
unsigned long vostd_parse_ulong(const char **s, unsigned int base);

/* log.c: one line to the sandbox's log; returns the service's result. */
__printf(1, 2) long vostd_println(const char *fmt, ...);

/*
 * report.c: figures and tests, in the lines of ev_report.h.  A test case
 * is one EVTEST line under the kernel's name, counted in the sandbox's
 * globals page; a sandbox with a failed case ends with -EIO on every vCPU
 * whose kernel returned 0 (vostd_boot), so a FAIL always fails its run.
 */
__printf(3, 4) bool vostd_test(const char *name, bool ok, const char *fmt, ...);
#define vostd_fail(name, ...)	vostd_test(name, false, __VA_ARGS__)
long vostd_tests_end(void);
u32 vostd_tests_failed(void);
u64 vostd_fig_median(const char *key, u64 *s, unsigned int n, const char *unit,
		     const char *baseline);

/*
 * A kernel built with vOSTD's store checks (VOSTD_SFI, sfi.c) registers
 * under its name with _sfi after it, so that both builds of one kernel can
 * be loaded in one boot.  VOSTD_KERNEL makes the name a string first: a
 * name passed on unquoted would be expanded, and linux is a macro of GCC's.
 */
#ifdef VOSTD_SFI
#define VOSTD_KERNEL_NAME(name)	name "_sfi"
#else
#define VOSTD_KERNEL_NAME(name)	name
#endif

/* The kernel's name, as VOSTD_KERNEL declared it: its test lines' SUITE. */
extern const char vostd_kernel_name[];

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
	const char vostd_kernel_name[] = VOSTD_KERNEL_NAME(#kname);	\
	static long vostd_entry(struct ev_vcpu_shared *shared)		\
	{								\
		return vostd_boot(&vostd_this_kernel, shared);		\
	}								\
	static struct ev_kernel vostd_ev_kernel = {			\
		.name = VOSTD_KERNEL_NAME(#kname), .owner = THIS_MODULE,	\
		.entry = vostd_entry,					\
	};								\
	static int __init vostd_module_init(void)			\
	{								\
		return ev_register_kernel(&vostd_ev_kernel);		\
	}								\
	/* Cannot fail here: a sandbox pins the module it runs. */	\
	static void __exit vostd_module_exit(void)			\
	{								\
		ev_unregister_kernel(&vostd_ev_kernel);			\
	}								\
	module_init(vostd_module_init);					\
	module_exit(vostd_module_exit);					\
	MODULE_LICENSE("GPL");						\
	MODULE_SOFTDEP("pre: endovisor")

#endif /* VOSTD_H */
