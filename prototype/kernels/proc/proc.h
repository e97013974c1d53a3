/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc: a kernel proper with processes.  A process is an address space
 * (a vOSTD vmspace, which is a Linux mm the endovisor writes) and the
 * pages in it; a thread is a kernelet task that runs its tenant's user
 * code on the carrier of its vCPU and handles whatever brings it back.
 */
#ifndef PROC_H
#define PROC_H

#include "kernelet.h"
#include "mm.h"
#include "../../tenants/abi.h"

#define PAGE		VOSTD_PAGE_SIZE
#define PAGE_MASK_LOW	(PAGE - 1)

/* A frame some pages map: fork shares it, copy-on-write unshares it. */
struct frame {
	void *mem;
	u32 refs;
};

/* One page of a process: where, which frame, what the tenant may do. */
struct tpage {
	unsigned long va;
	struct frame *f;
	u8 prot;		/* EV_PROT_*, its area's; 0: PROT_NONE, no entry */
	bool cow;		/* mapped read-only until written: the frame is shared */
	bool shared;		/* a shared area's: every sharer writes the one frame */
};

/*
 * A shared object: the frames every area that maps it shares, by page
 * index, made zeroed at a first touch (MAP_SHARED|MAP_ANONYMOUS, a SysV
 * segment), or a file's own, which its owner installs (shm_install).
 */
struct mem_shared {
	u32 refs;			/* each area's, and a SysV segment's table's */
	vostd_spinlock_t lock;		/* frames; innermost, under a process's lock or none */
	unsigned long sysv_pages;	/* a SysV segment's size, where shmdt stops; 0: none */
	unsigned long n;
	struct frame **frames;
	void *owner;			/* a file's: told by release as the last reference goes */
	void (*release)(void *owner, struct mem_shared *shm);
};

#define SHM_PAGES_MAX	65536UL		/* pages a shared object may index: 256 MiB */

#define VMA_SHARED	0x01	/* its pages are shm's frames */
#define VMA_STACK	0x02	/* the stack exec made: [stack] */
#define VMA_HEAP	0x04	/* brk's: [heap] */
#define VMA_FILE	0x08	/* a file's: ino, pgoff; a copy, or shared its frames */
#define VMA_NOWRITE	0x10	/* never writable: a shared map of a file opened read-only */

/*
 * An area (Linux's VMA): a range the program was given, and what it may
 * do there.  Its pages come when first touched (vma.c).
 */
struct vma {
	unsigned long start, end;
	u8 prot;			/* EV_PROT_* as asked; 0: PROT_NONE */
	u8 flags;			/* VMA_* */
	struct mem_shared *shm;		/* VMA_SHARED: one reference */
	unsigned long ino;		/* VMA_FILE: the file's */
	unsigned long pgoff;		/* start's page in shm or in the file */
};

/* A region mmap gave out, which only munmap of the whole takes back. */
struct area {
	unsigned long va, len;
	struct area *next;
};

/*
 * CPU time, in cycles of vostd_cycles: all of the runs (run: user mode and
 * the kernel proper alike) and, of it, the tenant's runs in user mode.
 */
struct proc_cpu {
	u64 run, user;
};

struct proc {
	u32 refs;			/* the table's, and each holder's across a lock drop */
	long pid;
	const char *name;
	struct vostd_vmspace *vs;
	vostd_spinlock_t lock;		/* pages, areas, vmas, threads; held in a guard */
	struct tpage *pages;		/* sorted by va */
	unsigned int npages, cap;
	struct vma *vmas;		/* sorted, apart; linux's processes only */
	unsigned int nvmas, vcap;
	struct area *areas;
	unsigned long mmap_next;
	u32 threads;			/* live ones */
	u32 killed;			/* set once: every thread leaves at its next trap */
	bool group_exit;		/* killed by its own exit_group, not by a signal */
	/* Under the table's lock. */
	bool exited;
	long code;
	struct proc *parent;		/* NULL: the kernel's own, or an orphan */
	bool kernel_waits;		/* proc_wait will reap it */
	kl_tid_t reaper;		/* a thread waiting for it, 0: none */
	/*
	 * A status a wait takes without reaping (linux's stop and continue),
	 * for a wait that asks for its kind (PROC_REPORT_*); 0: none.
	 */
	u32 report, report_kind;
	struct proc_cpu cpu_gone;	/* its threads' that have left */
	struct proc_cpu cpu_children;	/* its reaped children's, and theirs */
	struct proc *next;		/* in the table */
	void *os;			/* the kernel's own per-process state (linux: files) */
};

/*
 * A timed trip (main.c's perf): from a tenant's timed system call to the
 * next timed call of the thread that ran after it, cut into parts where
 * they happen.  The trip is carried by the thread it is in, and by the
 * vCPU between a yield and the next thread's arrival.
 */
enum proc_part {
	PART_ENTRY,		/* the tenant's syscall to the sys_enter probe */
	PART_SKIP,		/* the probe to the trap's task work: the call Linux skips */
	PART_TRAP,		/* the task work to the kernel proper: the crossing resumed */
	PART_KERNEL,		/* the kernel proper's own code, less the switches */
	PART_KL_SWITCH,		/* kl_yield in one thread to the next one's return from it */
	PART_SWITCH_MM,		/* kernelet_switch_mm that switched */
	PART_FPU_SWITCH,	/* vostd_fpu_switch that switched */
	PART_RUN,		/* tenant_run: the crossing in, the suspend back to Linux */
	PART_EXIT,		/* Linux's return to user mode, to the tenant's next instruction */
	PART_USER,		/* the tenant's own code, to its next timed call */
	PART_NR
};

struct trip {
	u32 set;			/* TIMED_*; 0: none under way */
	bool bad;			/* a part began and ended on two CPUs */
	struct thread *from;		/* the thread whose call began it */
	struct ev_stamp last;		/* where the last part ended */
	u64 part[PART_NR];
};

/*
 * linux: a signal's particulars, the first 32 bytes of Linux's siginfo
 * as x86-64 lays them out; the rest of siginfo is zero.
 */
struct ksiginfo {
	s32 signo, errno_, code, pad;
	u64 f0;			/* by code: pid | uid << 32, or the fault's address */
	u64 f1;			/* then: a child's status, or a queued value */
};

#define PROC_NSIG	64

/*
 * linux: a thread's signals (kernels/linux/signal.c), under the table's
 * lock (procs_lock) but where it says otherwise.
 */
struct thread_sig {
	u64 mask;		/* blocked; written by the thread alone */
	u64 pending;		/* sent to it alone */
	u64 saved_mask;		/* rt_sigsuspend's, until a frame holds it */
	bool restore_mask;	/* saved_mask goes back before user mode; the thread's own */
	bool in_wait;		/* in rt_sigtimedwait, which unblocked what it waits for */
	u64 real_mask;		/* and the mask it had before: Linux's real_blocked */
	bool wake;		/* one it does not block is pending: its sleeps end */
	kl_tid_t sleeper;	/* its task, while it sleeps where a signal ends the sleep */
	long restart;		/* its call's -ERESTART*, settled before user mode; its own */
	struct lx_sigq *queued;	/* real-time ones behind those pending (sigqueue.c) */
	struct ksiginfo info[PROC_NSIG];
};

struct thread {
	long tid;			/* a process's first thread's is its pid */
	struct proc *p;
	unsigned int vcpu;
	struct ev_tenant_ctx ctx;
	/* tenant_run's readings of the trap path, after ctx */
	struct ev_stamp stamps[EV_STAMPS];
	struct vostd_fpu *fpu;
	kl_tid_t task;			/* its kernelet task once it runs; 0 once it has left */
	/*
	 * Its time in its tenant's runs, ended ones (user_cycles) and the one
	 * under way since user_since (0: none), which it alone writes but as
	 * it leaves (thread_exit); thread_cpu_locked reads them, again if
	 * user_seq, odd while a run's end is counted, changed meanwhile.
	 */
	u64 user_cycles, user_since;
	u32 user_seq;
	bool exiting;
	long code;
	struct trip trip;		/* the timed trip it carries, if any */
	unsigned long fault_va;		/* the last fault, to catch one that repeats */
	unsigned int fault_repeats;
	unsigned long clear_tid;	/* linux: the word to zero and wake as it ends */
	unsigned long robust_list;	/* linux: its robust mutexes' list head, 0: none */
	struct {			/* linux: sigaltstack's, none at first */
		unsigned long sp, size;
		u32 flags;
	} altstack;
	struct thread_sig sig;
};

/*
 * Whether t must leave a sleep: its process is ending, or a signal it
 * does not block waits for it.  A sleeper records itself (the kernel's
 * own slots) before it checks, and a sender sets the mark before it
 * looks for sleepers, so one of the two sees the other.
 */
static inline bool thread_interrupted(struct thread *t)
{
	return READ_ONCE(t->p->killed) || READ_ONCE(t->sig.wake);
}

/* tenant_run writes the readings right after the context. */
static_assert(offsetof(struct thread, stamps) ==
	      offsetof(struct thread, ctx) + sizeof(struct ev_tenant_ctx));

/* Each trip's parts, and three sums of them, per set of timed calls. */
#define PROC_SAMPLES	4096
#define COL_HOOK_IN	PART_NR		/* entry + skip + trap */
#define COL_HOOK_OUT	(PART_NR + 1)	/* run + exit */
#define COL_TRIP	(PART_NR + 2)	/* all of it */
#define PROC_COLS	(PART_NR + 3)

/* A trip's columns side by side: keeping one touches one or two pages, not thirteen. */
struct proc_perf {
	u32 n;
	u64 s[PROC_SAMPLES][PROC_COLS];
};

/* The sandbox's processes (in its globals). */
struct procs {
	vostd_spinlock_t lock;		/* the table, ids, exits; held in a guard */
	struct proc *list;
	long next_id;
	u32 live_procs, live_threads;
	unsigned int next_vcpu;
	struct vostd_fpu *loaded[EV_MAX_VCPUS];	/* the context each carrier holds */
	u64 runs[EV_MAX_VCPUS];			/* tenant runs begun on each vCPU */
	struct trip yielding[EV_MAX_VCPUS];	/* a trip between a yield and the next thread */
	struct proc_perf *perf[TIMED_SETS];	/* while measuring: the trips kept */
	u32 dropped;				/* trips with a part on two CPUs */
	u64 start;
	void (*exit_hook)(struct proc *p);	/* the last thread has left; NULL: none */
	/*
	 * p has exited, the table's lock held: tell its parent; a vCPU to
	 * kick, or -1.  *autoreap set: the parent will not wait for p, which
	 * goes now, as an orphan does (Linux's SIGCHLD ignored).
	 */
	int (*exited_hook)(struct proc *p, bool *autoreap);
	void (*thread_exit_hook)(struct thread *t);	/* a thread is leaving; NULL: none */
	/* p is ending: wake its sleeping threads; NULL: none */
	void (*end_hook)(struct proc *p);
	void (*free_hook)(struct proc *p);	/* p's last reference has gone; NULL: none */
	/* t returns to user mode: deliver its signals; NULL: none */
	void (*user_hook)(struct thread *t);
	/* t trapped with signal sig: true if a handler will take it, not a kill; NULL: none */
	bool (*trap_hook)(struct thread *t, u32 sig, int code, unsigned long addr);
};

struct procs *procs(void);

/* main.c: the timed trips */
void trip_call(struct thread *t, u32 set, struct ev_stamp entered);
void trip_part(struct trip *tr, enum proc_part part, struct ev_stamp now);
void trip_arrive(struct thread *t);
long trip_kept(u32 set);

/* A part ends now, if a trip is under way: only then is the clock read. */
static inline void trip_mark(struct trip *tr, enum proc_part part)
{
	if (tr->set)
		trip_part(tr, part, vostd_stamp());
}

/* process.c */
struct proc *proc_spawn(const char *name);	/* a tenant image by name */
long proc_wait(struct proc *p);			/* for the kernel's own */
long proc_wait_child(struct proc *parent, long pid);
void proc_kill(struct proc *p, long code, const char *fmt, ...) __printf(3, 4);
void proc_exit_group(struct proc *p, long code);
long thread_create(struct proc *p, const struct ev_tenant_ctx *ctx,
		   struct vostd_fpu *from, unsigned int vcpu);
struct thread *thread_new(struct proc *p, const struct ev_tenant_ctx *ctx,
			  struct vostd_fpu *from, unsigned int vcpu);
long thread_start(struct thread *t);
void thread_discard(struct thread *t);
void thread_set_fpu(struct thread *t, struct vostd_fpu *fpu);
void procs_lock(void);
void procs_unlock(void);
struct proc *proc_new(struct proc *parent);
void proc_get(struct proc *p);
void proc_put(struct proc *p);
long proc_ppid(struct proc *p);
void proc_abandon(struct proc *p);
#define PROC_REPORT_STOPPED	1
#define PROC_REPORT_CONTINUED	2
long proc_wait_any(struct thread *t, long pid, bool block, u32 kinds, long *code, bool *killed,
		   u32 *report, struct proc_cpu *cpu);
void proc_report_locked(struct proc *p, u32 kind, u32 status);

/* cputime.c */
void thread_cpu_begin(struct thread *t);
u64 thread_user_begin(struct thread *t);
struct ev_stamp thread_user_end(struct thread *t, u64 t0);
void thread_cpu_locked(struct thread *t, struct proc_cpu *cpu);
void thread_cpu_leave_locked(struct thread *t);

/* memory.c */
long mem_load(struct proc *p, const char *image, unsigned long size, unsigned long *entry);
long mem_stack(struct proc *p);
long mem_mmap(struct proc *p, unsigned long len, unsigned int prot);
long mem_munmap(struct proc *p, unsigned long va, unsigned long len);
long mem_fork(struct proc *parent, struct proc *child);
long mem_fault(struct thread *t, unsigned long addr, bool write);
void mem_release(struct proc *p);
/* For a kernel with Linux's calls: ranges of pages, and copies that honour copy-on-write. */
#define MEM_READ	0	/* from the process, as the tenant may read */
#define MEM_WRITE	1	/* into the process, as the tenant may write */
#define MEM_POKE	2	/* into the process whatever the protection: the loader's */
long mem_user_copy(struct proc *p, unsigned long va, void *buf, unsigned long len, int how);
long mem_map_anon(struct proc *p, unsigned long va, unsigned long len, u8 prot);
long mem_map_frames(struct proc *p, unsigned long va, struct frame **frames,
		    unsigned long n, u8 prot);
struct frame *frame_new(void);
void frame_put(struct frame *f);
bool mem_in_region(unsigned long va, unsigned long len);
void mem_take(struct proc *p, struct proc *from);
/* memory.c's pages, for vma.c; p's lock held */
struct tpage *page_find(struct proc *p, unsigned long va);
unsigned int tpage_index(struct proc *p, unsigned long va);
long map_fresh(struct proc *p, unsigned long va, unsigned long len, u8 prot);
long page_set_prot(struct proc *p, struct tpage *pg, u8 prot);
long pages_drop(struct proc *p, unsigned long va, unsigned long end);
long pages_move(struct proc *p, unsigned long from, unsigned long len, unsigned long to);
long page_map_shared(struct proc *p, unsigned long va, struct frame *f, u8 prot);
static inline u8 pte_prot(const struct tpage *pg)
{
	/* x86 reads whatever it may write or run; a shared copy is read-only until written. */
	if (!pg->prot)
		return 0;
	return (pg->prot | EV_PROT_READ) & ~(pg->cow ? EV_PROT_WRITE : 0);
}

/* vma.c: a linux process's areas */
#define AREA_FREE	0	/* at the lowest free range (at va if it is free) */
#define AREA_FIXED	1	/* at va, what was there gone first (MAP_FIXED) */
#define AREA_NOREPLACE	2	/* at va, -EEXIST if anything is there */
long mem_map_area(struct proc *p, const struct vma *want, unsigned long lo, unsigned long hi,
		  int how, bool populate);
long mem_unmap_area(struct proc *p, unsigned long va, unsigned long len);
long mem_detach_area(struct proc *p, unsigned long va, const struct mem_shared **gone);
bool mem_shared_key(struct proc *p, unsigned long va, const void **obj, unsigned long *off);
long mem_protect_area(struct proc *p, unsigned long va, unsigned long len, u8 prot);
long mem_remap(struct proc *p, unsigned long old, unsigned long old_len, unsigned long new_len,
	       bool may_move, unsigned long to, unsigned long lo, unsigned long hi);
#define ADVISE_LOOK	0
#define ADVISE_DROP	1
#define ADVISE_FILL	2
long mem_advise(struct proc *p, unsigned long va, unsigned long len, int what);
struct mem_count {
	unsigned long all, priv, data;	/* pages; private but the stack's; writable of those */
};

void mem_count_pages(struct proc *p, unsigned long lo, unsigned long hi, struct mem_count *n);
struct mem_shared *shm_new(void);
bool shm_get_unless_zero(struct mem_shared *shm);
void shm_put(struct mem_shared *shm);
long shm_install(struct mem_shared *shm, unsigned long idx, struct frame *f);
/* p's lock held */
struct vma *area_find(struct proc *p, unsigned long va);
long area_fault_locked(struct proc *p, unsigned long va, bool write, bool poke);
long area_cover_locked(struct proc *p, unsigned long va, unsigned long end, u8 prot);
long areas_fork_locked(struct proc *parent, struct proc *child);
void areas_release(struct proc *p);

/* syscall.c */
void syscall_dispatch(struct thread *t, struct ev_stamp entered);

/* One round of the crossing pair, and in proc_sfi the same without the checks (crossing.c). */
u64 crossing_round(void);
u64 crossing_round_unchecked(void);

/* blobs.S, through main.c's table */
const char *tenant_image(const char *name, unsigned long *size);

static inline void proc_lock(struct proc *p)
{
	kl_spin_lock(&p->lock);
}

static inline void proc_unlock(struct proc *p)
{
	kl_spin_unlock(&p->lock);
}

#endif /* PROC_H */
