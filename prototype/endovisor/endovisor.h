/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The endovisor's own state: sandboxes, their vCPUs, and the live counts.
 *
 * Layers, each calling only those beneath it (make layers reads who calls
 * whom from the objects and fails on any cycle of more than three files);
 * the files on one line may call each other:
 *
 *   main.c              /dev/endovisor, sysfs, module load and unload
 *   services.c          the service table; calibrate.c and crossing.c,
 *                       the measurements
 *   sandbox.c           a sandbox's life: creation, EV_RUN_VCPU, the end
 *   vcpu.c, tenant.c    the vCPU's run: entering the sandbox kernel and
 *                       what its return means (vcpu.c); a tenant's run on
 *                       the carrier, to its trap and back (tenant.c)
 *   tick.c              the sandbox's tick
 *   kick.c, park.c      interrupting a running vCPU; suspending one whose
 *                       carrier Linux takes (kick.h, with tick.c)
 *   trap.c, regs.c      catching a tenant's traps; its user registers
 *                       (tenant.h, with tenant.c)
 *   vm.c, vm_ops.c,     tenant address spaces (vm.h)
 *   vm_copy.c
 *   fpu.c, census.c     FPU contexts; what Linux sees of a sandbox
 *   owns.c              the pointer gate: is this memory the sandbox's?
 *   registry.c          the registered sandbox kernels and their records
 *   heap.c, pool.c,     the heap and its pool; granted frames (grant.h)
 *   grant.c
 *   log.c, symbols.c,   the log, Linux's unexported functions, the live
 *   live.c              counts
 *
 * Locks, outer first; a lock is never taken while one after it is held:
 *
 *   ev_file.lock        a sandbox's creation; then ev_registry_lock, for
 *                       the kernel the sandbox runs
 *   ev_sandbox.lock     its vCPUs' states, FPU contexts and census
 *   ev_sandbox.vm_lock  its table of address spaces
 *   ev_vm.lock          a space's entries and copies; for vm_share, the
 *                       space in the lower slot's first (vm_ops.c)
 *   mm->mmap_lock       read, for writers of entries, inside ev_vm.lock
 *   ev_grant.lock       the grant set's growth, in a heap read section
 *   ev_heap.lock        a bit spinlock: the heap's table and its pool
 *   ev_log.lock         a spinlock, interrupts off: the log's buffer
 *
 * The heap's read sections are not locks: a reader marks its vCPU and
 * takes no lock, and a free waits for the readers begun before it
 * (heap.c).  Lockdep checks the order of the locks on the debug kernel
 * (make debug-soak).
 */
#ifndef ENDOVISOR_H
#define ENDOVISOR_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/cgroup.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/smp.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <asm/ptrace.h>

#include "ev_abi.h"
#include "ev_ioctl.h"
#include "calibrate.h"
#include "pool.h"

struct ev_sandbox;

enum ev_vcpu_state {
	EV_VCPU_READY,		/* created, no carrier yet */
	EV_VCPU_RUNNING,	/* a carrier is inside EV_RUN_VCPU */
	EV_VCPU_DONE,		/* its kernel returned; exit_code holds the result */
};

/* A range of addresses, [start, end). */
struct ev_range {
	unsigned long start, end;
};

/*
 * A range of sandbox memory an ownership check found (owns.c): the
 * generation of the heap it was found in if it is a heap block (0 if it is
 * memory no free can take), and whether services may write into it.
 */
struct ev_owned {
	struct ev_range range;
	u64 gen;
	bool write;
};

struct ev_vm;

/* The user FS and GS: selectors and bases, which pt_regs does not hold. */
struct ev_user_segs {
	u16 fsindex, gsindex;
	unsigned long fsbase, gsbase;
};

/*
 * A vCPU's part that is kick.c's: the idle wait, and the interrupts sent
 * to its carrier, for upcalls and for the abandon exit.
 */
struct ev_vcpu_kick {
	bool idling;			/* asleep in vcpu_idle */
	bool abandoned;			/* its carrier was sent out of sandbox code to die */
	wait_queue_head_t idle_wq;
	call_single_data_t csd;		/* the kick's interrupt */
	struct hrtimer upcall_timer;	/* takes a kick as soon as the carrier is back */
	atomic_t ipi_queued;		/* csd sent, handler not yet run: ev_kick_interrupt */
	u64 seen;			/* stat.kicks at the last tick: ev_kick_stranded */
};

/*
 * tenant.c's part: the tenant the carrier runs, and what it keeps of the
 * launcher meanwhile, to go home with.
 */
struct ev_vcpu_tenant {
	bool running;			/* the carrier runs a tenant in user mode */
	struct ev_tenant_ctx *ctx;	/* sandbox memory: where its trap is saved */
	struct ev_vm *vm;		/* its address space, referenced */
	struct mm_struct *home_mm;	/* the launcher's, while a tenant's is current */
	struct pt_regs home_regs;	/* the launcher's registers at EV_RUN_VCPU */
	struct ev_user_segs home_segs;	/* and its FS and GS */
	bool home_saved;
	struct rseq __user *home_rseq;	/* parked while tenants run: see tenant.c */
	u32 home_rseq_len, home_rseq_sig;
	struct work_struct death_work;	/* the carrier died carrying: end the vCPU */
	struct irq_work death_irq;	/* queues death_work from the scheduler */
};

/*
 * trap.c's part: the traps owed at the carrier's next return to user mode,
 * what each found, and the task works that report them.
 */
struct ev_vcpu_trap {
	atomic_long_t owed;		/* BIT(EV_TRAP_*) */
	unsigned long signals;		/* sigmask()s of exceptions' signals to take back */
	u32 signal;			/* the first of them, for the kernel proper */
	unsigned long signal_addr;	/* and its si_addr */
	int signal_code;		/* and its si_code */
	u64 nr;				/* the system call's number */
	unsigned long fault_addr;
	bool fault_write;
	struct callback_head work;
	/* The first tenant's rax, which the ioctl's int result cannot carry. */
	struct callback_head entry_work;
	u64 entry_rax;
	bool entry_rax_owed;
};

/* fpu.c's part: which FPU registers the carrier holds. */
struct ev_vcpu_fpu {
	struct ev_fpu *cur;		/* the context loaded on the carrier */
	struct ev_fpu *home;		/* the launcher's registers, meanwhile */
	struct ev_fpu *parked;		/* the carrier's, while parked with home loaded */
	bool is_parked;			/* parked holds them now */
};

/*
 * The measurements: what the launcher reads as struct ev_vcpu_stats
 * (census.c, ev_stats_read), and the stamps that time the trap path and
 * stolen time.  Nothing decides anything on them but ev_kick_stranded,
 * which compares kicks with the tick before.
 */
struct ev_vcpu_stat {
	struct ev_vcpu_stats counts;	/* the fields its own carrier updates */
	atomic64_t kicks, ipis, wakeups;	/* updated by whoever kicks it */
	u64 preempted_at;		/* local_clock() when Linux preempted it */
	bool preempted_in_sandbox;	/* then, in sandbox code */
	bool preempted_masked;		/* then, in a masked section of sandbox code */
	bool preempted_at_entry;	/* then, diverted to the upcall entry */
	u64 armed_at;			/* local_clock() when the upcall timer was armed */
	struct ev_cal_stamps stamps;	/* the trap path's readings, if asked for (calibrate.h) */
	u64 faults_at_entry;		/* ev_linux_faults() when the tenant started */
};

/*
 * A vCPU.  Its first fields are the stub's, at the offsets its assembly
 * uses (EV_VCPU_* in stub/ev_stub.h, checked in vcpu.c); then what the
 * vCPU is and who carries it; then one part per subsystem, each defined
 * and documented above and written only by its own file, as KVM's
 * struct kvm_vcpu embeds its arch and stat.
 */
struct ev_vcpu {
	/* The Linux stack pointer while sandbox code runs: stub/cross.S. */
	unsigned long linux_sp;
	/* Set to make the stub leave sandbox code: EV_BAIL_*, stub/ev_stub.h. */
	unsigned long bail;
	/* The crossing a suspend left, for ev_stub_resume. */
	unsigned long sandbox_frame;
	/* The sandbox's r12 .. r15 then: the crossing keeps only rbx and rbp. */
	unsigned long sandbox_r12_r15[4];
	/* Where sandbox code was when an interrupt sent it to park (kick.c). */
	unsigned long park_ip;
	/* The result a parked crossing returns when it resumes. */
	unsigned long park_ret;
	/* Set by the stub when a crossing parks the vCPU: see park.c. */
	unsigned long parked;

	/* What it is, who carries it, where: vcpu.c and sandbox.c */
	struct ev_sandbox *sb;
	unsigned int id;
	enum ev_vcpu_state state;
	long exit_code;
	struct task_struct *carrier;
	struct file *file;		/* held while the vCPU runs, tenants or not */
	bool carrying;			/* inside ev_vcpu_run */
	int cpu;			/* where the carrier last ran */
	bool suspended;			/* sandbox code waits in a crossing: tenant_run */
	struct preempt_notifier notifier;
	struct ev_stack_base *boot_stack;
	struct ev_vcpu_shared *shared;
	struct ev_owned owned;		/* owns.c: the last range ev_vcpu_owns found */
	unsigned int heap_reading;	/* heap.c: in a read section (ev_heap_read_begin) */

	struct ev_vcpu_kick kick;
	struct ev_vcpu_tenant tenant;
	struct ev_vcpu_trap trap;
	struct ev_vcpu_fpu fpu;
	struct ev_vcpu_stat stat;
};

struct ev_log {
	spinlock_t lock;		/* writers; readers need only 'len' */
	char *buf;
	size_t len, size;
	unsigned long dropped;		/* appends that did not fit */
	bool finished;
	wait_queue_head_t readers;
};

/* One block in a heap's table (heap.c). */
struct ev_slot {
	unsigned long addr;	/* 0: never used; 1: its block was freed */
	unsigned int size;	/* as asked for: what the sandbox may use */
	unsigned int order;	/* it holds 2^order bytes of slab, or pages */
};

struct ev_heap {
	/* bit 0: the table's adds, frees and rebuilds, and the pool */
	unsigned long lock;
	/*
	 * The sandbox whose vCPUs read the table (NULL for calibrate's private
	 * tables): a free waits until none of them is in a read section that
	 * could have found the block (ev_heap_read_begin, heap.c).
	 */
	struct ev_sandbox *sb;
	struct ev_slots *slots;		/* the table's array */
	unsigned long used;		/* slots live or freed; under lock */
	/* bit k: a block of 2^k bytes was added since the last rebuild */
	unsigned long orders;
	unsigned long added, taken;	/* blocks, under lock */
	unsigned long table_bytes;	/* the array's */
	u64 gen;			/* bumped by every free, under lock */
	struct ev_pool pool;		/* the blocks' memory, under lock */
};

struct ev_pfn_set;

struct ev_grant {
	struct mutex lock;		/* granting */
	struct ev_pfn_set __rcu *set;	/* the sandbox's frames, by pfn (grant.c) */
	unsigned long frames;		/* in set; under lock */
	atomic_t nr;			/* granted and being granted, against EV_GRANT_QUOTA */
};

/*
 * A registered sandbox kernel, as the endovisor recorded it (registry.c):
 * its name, entry and the ranges of its module and of its data objects,
 * taken once from the module loader's own record, so that no check depends
 * on memory the sandbox can write.  Freed only when no sandbox holds it.
 */
struct ev_kernel_rec {
	struct list_head node;
	const struct ev_kernel *decl;	/* only compared, never read */
	struct module *owner;
	ev_kernel_entry entry;
	char name[EV_KERNEL_NAME_MAX];
	unsigned int users;		/* sandboxes holding it; under the registry's lock */
	struct ev_range text;		/* its code: upcall entries, diverts */
	/* its data objects, in its writable data: sorted, disjoint */
	struct ev_range *objects;
	unsigned int nr_objects;
	struct ev_range rodata[2];	/* read-only data, read-only after init */
};

/*
 * What Linux sees of a sandbox, sampled on every tick (census.c): the
 * largest number of its carriers, and of all its creator's threads, on a
 * Linux run queue at once, and the carriers' sum over the samples.
 */
struct ev_census {
	u32 max, max_threads;
	u64 samples, sum;
};

struct ev_sandbox {
	u64 id;
	struct ev_kernel_rec *kernel;
	struct cgroup *cgrp;		/* the creator's cgroup; carriers must be in it */
	struct task_struct *leader;	/* the creating process, whose threads carry */
	struct mutex lock;		/* vCPU state changes */
	unsigned int nr_vcpus;
	unsigned int nr_running;
	unsigned int nr_done;
	struct ev_vcpu *vcpus[EV_MAX_VCPUS];
	struct ev_log log;
	struct ev_heap heap;
	struct ev_grant grant;
	struct mutex vm_lock;		/* creating and destroying address spaces */
	struct ev_vm __rcu *vms[EV_MAX_VMS];
	atomic_long_t vm_pages;		/* mapped in all its spaces, against EV_MAP_QUOTA */
	/* their page tables as Linux counts them, against EV_PT_QUOTA */
	atomic_long_t vm_table_bytes;
	struct ev_fpu *fpus[EV_MAX_FPUS];	/* under lock */
	void *globals;			/* the kernel's per-sandbox page */
	unsigned long upcall_entry;	/* in the kernel's text, or 0 */
	char args[EV_ARGS_MAX];
	u32 flags;			/* EV_CREATE_*, for the kernel */
	/*
	 * Its teardown has begun: vCPU 0's kernel returned, or the creator is
	 * dying.  Services that would take new resources or run tenants
	 * refuse with -ESHUTDOWN; the rest still work, so that the other
	 * vCPUs can give back what they hold and return.
	 */
	bool ending;

	struct hrtimer tick;		/* tick.c: once a millisecond while a vCPU runs */
	struct ev_census census;
};

DECLARE_PER_CPU(struct ev_vcpu *, ev_cur_vcpu);

/* live.c: objects alive now, for the live counts in sysfs and the unload check. */
struct ev_live {
	atomic_t sandboxes;
	atomic_t vcpus;
	atomic_t stacks;
	atomic_t frames;
	atomic_t vms;
	atomic_t fpus;
	atomic_t pool_pages;	/* pages the heaps' pools hold */
};

extern struct ev_live ev_live;
/* Heap blocks alive, and their bytes, counted per CPU by heap.c. */
struct ev_live_blocks {
	long blocks, bytes;
};
DECLARE_PER_CPU(struct ev_live_blocks, ev_live_blocks);
void ev_live_blocks_read(long *blocks, long *bytes);
ssize_t ev_live_show(char *buf);
void ev_live_check_none(void);

/* registry.c */
struct ev_kernel_rec *ev_kernel_get(const char *name);
void ev_kernel_put(struct ev_kernel_rec *k);

/*
 * The index into a table of n that a number from the sandbox (or the
 * launcher) names, or -1 if it names none: a vCPU is named by its index,
 * from 0 (base 0); a space or an FPU context by its handle, from 1 (base
 * 1), so that 0 names none.  The index is clamped under speculation too
 * (array_index_nospec), as the stub clamps a service's number, so that a
 * mispredicted bounds check cannot read past the table.
 */
static __always_inline long ev_index(unsigned long nr, unsigned int base, unsigned long n)
{
	nr -= base;
	if (nr >= n)
		return -1;
	return array_index_nospec(nr, n);
}

/*
 * Whether r holds all of [start, end).  A range that wraps past the top of
 * the address space holds nothing: [~0, ~0 + 1) ends at 0, below any end.
 */
static inline bool ev_range_holds(const struct ev_range *r, unsigned long start,
				  unsigned long end)
{
	return start <= end && start >= r->start && end <= r->end;
}

/* sandbox.c */
struct ev_sandbox *ev_sandbox_create(const char *kernel, unsigned int nr_vcpus,
				     const char *args, u32 flags);
void ev_sandbox_destroy(struct ev_sandbox *sb);
long ev_sandbox_run_vcpu(struct ev_sandbox *sb, struct file *file,
			 unsigned long idx);

/* owns.c: the pointer gate */
bool ev_sandbox_owns(struct ev_sandbox *sb, const void *p, size_t len, bool write);
bool ev_vcpu_owns(struct ev_vcpu *v, const void *p, size_t len, bool write);
int ev_sandbox_copy(struct ev_vcpu *v, void *dst, const void *src,
		    const void *sandbox, size_t len, bool write);
int ev_sandbox_write(struct ev_vcpu *v, void *dst, const void *src, size_t len);
int ev_sandbox_read(struct ev_vcpu *v, void *dst, const void *src, size_t len);
bool ev_in_kernel_text(struct ev_sandbox *sb, unsigned long ip);

static inline bool ev_sandbox_ending(struct ev_sandbox *sb)
{
	return READ_ONCE(sb->ending);
}

/* vcpu.c */
struct ev_vcpu *ev_vcpu_create(struct ev_sandbox *sb, unsigned int id);
void ev_vcpu_destroy(struct ev_vcpu *v);
long ev_vcpu_run(struct ev_vcpu *v);
long ev_vcpu_returned(struct ev_vcpu *v, long ret, bool in_work);
long ev_vcpu_rerun(struct ev_vcpu *v);
void ev_vcpu_done(struct ev_vcpu *v, long ret);

/*
 * A service's reads and writes of sandbox memory it checked: from
 * ev_heap_read_begin to ev_heap_read_end, no heap block it found is given
 * back to Linux, nor the heap's table replaced under it (heap.c,
 * ev_heap_wait_readers).  Ownership checks are made inside one.  Only v's
 * carrier marks v, one section at a time; a section may sleep.
 */
static inline void ev_heap_read_begin(struct ev_vcpu *v)
{
	WRITE_ONCE(v->heap_reading, 1);
	smp_mb();	/* before the table is read; pairs with ev_heap_wait_readers */
}

static inline void ev_heap_read_end(struct ev_vcpu *v)
{
	/* the section's reads of the table before the end; pairs with ev_heap_wait_readers */
	smp_store_release(&v->heap_reading, 0);
}

/* heap.c */
void ev_heap_init(struct ev_heap *h, struct ev_sandbox *sb);
void ev_heap_teardown(struct ev_heap *h);
bool ev_heap_owns(struct ev_heap *h, unsigned long start, unsigned long end,
		  struct ev_range *block);
unsigned long ev_heap_blocks(const struct ev_heap *h);
unsigned long ev_heap_bytes(const struct ev_heap *h);
unsigned long ev_heap_table_bytes(const struct ev_heap *h);

/* symbols.c: what Linux does not export, resolved at load */
struct ev_linux {
	struct mm_struct *(*mm_alloc)(void);
	void (*flush_tlb_mm_range)(struct mm_struct *mm, unsigned long start,
				   unsigned long end, unsigned int stride_shift,
				   bool freed_tables);
	void (*switch_mm_irqs_off)(struct mm_struct *prev, struct mm_struct *next,
				   struct task_struct *tsk);
	struct module *(*module_address)(unsigned long addr);	/* __module_address */
};

extern struct ev_linux ev_linux;
int ev_symbols_init(void);

/* grant.c */
void ev_grant_init(struct ev_grant *g);
void ev_grant_teardown(struct ev_grant *g);
struct page *ev_grant_page(struct ev_grant *g, unsigned long frame);
bool ev_grant_owns(struct ev_grant *g, unsigned long start, unsigned long end);
unsigned long ev_grant_set_bytes(struct ev_grant *g);

/* vm.c, vm_ops.c, vm_copy.c; what only they share is in vm.h */
void ev_vm_module_init(void);
struct ev_vm *ev_vm_get(struct ev_sandbox *sb, unsigned long handle);
struct ev_vm *ev_vm_use(struct ev_vcpu *v, unsigned long handle);
void ev_vm_release(struct ev_vcpu *v, struct ev_vm *vm);
void ev_vm_put(struct ev_vm *vm);
struct mm_struct *ev_vm_mm(struct ev_vm *vm);
void ev_vm_teardown(struct ev_sandbox *sb);
bool ev_vm_tables_full(struct ev_sandbox *sb);
long ev_vm_bytes(struct ev_vcpu *v, unsigned long handle);
void ev_switch_mm(struct ev_vcpu *v, struct mm_struct *next);
void ev_vm_adopt(struct ev_vcpu *v, struct ev_vm *vm);

/* fpu.c */
int ev_fpu_tenant_start(struct ev_vcpu *v);
void ev_fpu_vcpu_end(struct ev_vcpu *v);
void ev_fpu_park(struct ev_vcpu *v);
void ev_fpu_unpark(struct ev_vcpu *v);
void ev_fpu_teardown(struct ev_sandbox *sb);

/* census.c */
void ev_census_sample(struct ev_sandbox *sb);
void ev_stats_read(struct ev_sandbox *sb, struct ev_stats *st);

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
/*
 * Every service, as the table and the crossings call it: ev_svc_NAME(v,
 * a0, ..., a4), of which a service reads as many arguments as the list
 * (ev_services.h) gives it, and each defines with EV_SERVICE_DEFINEn.
 */
#define EV_SERVICE(nr, NAME, name, args)					\
	long ev_svc_##name(struct ev_vcpu *v, unsigned long a0, unsigned long a1, \
			   unsigned long a2, unsigned long a3, unsigned long a4);
#include "ev_services.h"
#undef EV_SERVICE
enum {
#define EV_SERVICE(nr, NAME, name, args)	ev_svc_args_##name = args,
#include "ev_services.h"
#undef EV_SERVICE
};

/*
 * A service's definition, as Linux's SYSCALL_DEFINEn defines a system
 * call: each argument the service takes is written once, a type and a
 * name, and the rest of the five are not there at all.
 *
 *	EV_SERVICE_DEFINE2(mem_alloc, unsigned long, size, unsigned long, flags)
 *	{
 *		...
 *	}
 *
 * makes ev_svc_mem_alloc(v, a0, ..., a4), which the table and the
 * crossings call, and the service's body, __ev_svc_mem_alloc(v, size,
 * flags), inlined into it.  Each argument's type must be as wide as a
 * register, so that no value the sandbox passes is cut short before the
 * service checks it; and n must be the count the list gives the service.
 */
#define EV_SERVICE_DEFINE0(name)						\
	static_assert(ev_svc_args_##name == 0,					\
		      "ev_services.h lists " #name " with arguments");		\
	long ev_svc_##name(struct ev_vcpu *v, unsigned long __a0, unsigned long __a1, \
			   unsigned long __a2, unsigned long __a3, unsigned long __a4)
#define EV_SERVICE_DEFINE1(name, ...)	__EV_SERVICE_DEFINEx(1, name, __VA_ARGS__)
#define EV_SERVICE_DEFINE2(name, ...)	__EV_SERVICE_DEFINEx(2, name, __VA_ARGS__)
#define EV_SERVICE_DEFINE3(name, ...)	__EV_SERVICE_DEFINEx(3, name, __VA_ARGS__)
#define EV_SERVICE_DEFINE4(name, ...)	__EV_SERVICE_DEFINEx(4, name, __VA_ARGS__)
#define EV_SERVICE_DEFINE5(name, ...)	__EV_SERVICE_DEFINEx(5, name, __VA_ARGS__)

#define __EV_MAP1(m, t, a)		m(t, a)
#define __EV_MAP2(m, t, a, ...)		m(t, a), __EV_MAP1(m, __VA_ARGS__)
#define __EV_MAP3(m, t, a, ...)		m(t, a), __EV_MAP2(m, __VA_ARGS__)
#define __EV_MAP4(m, t, a, ...)		m(t, a), __EV_MAP3(m, __VA_ARGS__)
#define __EV_MAP5(m, t, a, ...)		m(t, a), __EV_MAP4(m, __VA_ARGS__)
#define __EV_MAP(n, ...)		__EV_MAP##n(__VA_ARGS__)
#define __EV_DECL(t, a)			t a
#define __EV_LONG(t, a)			unsigned long a
#define __EV_CAST(t, a)			(__force t)a
#define __EV_TEST(t, a)			(void)BUILD_BUG_ON_ZERO(sizeof(t) != sizeof(unsigned long))
#define __EV_PAD1	, unsigned long __a1, unsigned long __a2, unsigned long __a3,	\
			unsigned long __a4
#define __EV_PAD2	, unsigned long __a2, unsigned long __a3, unsigned long __a4
#define __EV_PAD3	, unsigned long __a3, unsigned long __a4
#define __EV_PAD4	, unsigned long __a4
#define __EV_PAD5

#define __EV_SERVICE_DEFINEx(n, name, ...)					\
	static_assert(ev_svc_args_##name == (n),				\
		      "ev_services.h lists " #name " with another count of arguments"); \
	static __always_inline long __ev_svc_##name(struct ev_vcpu *v,		\
						    __EV_MAP(n, __EV_DECL, __VA_ARGS__)); \
	long ev_svc_##name(struct ev_vcpu *v, __EV_MAP(n, __EV_LONG, __VA_ARGS__) __EV_PAD##n) \
	{									\
		__EV_MAP(n, __EV_TEST, __VA_ARGS__);				\
		return __ev_svc_##name(v, __EV_MAP(n, __EV_CAST, __VA_ARGS__));	\
	}									\
	static __always_inline long __ev_svc_##name(struct ev_vcpu *v,		\
						    __EV_MAP(n, __EV_DECL, __VA_ARGS__))

typedef long (*ev_service_fn)(struct ev_vcpu *v, unsigned long a0,
			      unsigned long a1, unsigned long a2,
			      unsigned long a3, unsigned long a4);
extern const ev_service_fn ev_service_table[EV_NR_SERVICES];
long ev_service_call(struct ev_vcpu *v, unsigned long a0, unsigned long a1,
		     unsigned long a2, unsigned long a3, unsigned long a4,
		     unsigned long svc);

#endif /* ENDOVISOR_H */
