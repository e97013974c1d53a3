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
	u8 prot;		/* EV_PROT_*, what the tenant was given */
	bool cow;		/* mapped read-only until written: the frame is shared */
};

/* A region mmap gave out, which only munmap of the whole takes back. */
struct area {
	unsigned long va, len;
	struct area *next;
};

struct proc {
	long pid;
	const char *name;
	struct vostd_vmspace *vs;
	vostd_spinlock_t lock;		/* pages, areas, threads; held in a guard */
	struct tpage *pages;		/* sorted by va */
	unsigned int npages, cap;
	struct area *areas;
	unsigned long mmap_next;
	u32 threads;			/* live ones */
	u32 killed;			/* set once: every thread leaves at its next trap */
	/* Under the table's lock. */
	bool exited;
	long code;
	struct proc *parent;		/* NULL: the kernel's own, or an orphan */
	bool kernel_waits;		/* proc_wait will reap it */
	kl_tid_t reaper;		/* a thread waiting for it, 0: none */
	struct proc *next;		/* in the table */
};

struct thread {
	long tid;
	struct proc *p;
	unsigned int vcpu;
	struct ev_tenant_ctx ctx;
	struct vostd_fpu *fpu;
	bool exiting;
	long code;
	u64 left_at;			/* cycles when it last left for user mode */
	unsigned long fault_va;		/* the last fault, to catch one that repeats */
	unsigned int fault_repeats;
};

/* Where the kernel's own time goes, for the perf mode (main.c). */
enum proc_sample {
	PS_HOOK_IN,		/* the tenant's syscall to the kernel proper's code */
	PS_HOOK_OUT,		/* the kernel proper's return to the tenant's next instruction */
	PS_KL_SWITCH,		/* kl_yield in one thread to the next thread's return from it */
	PS_SWITCH_MM,		/* kernelet_switch_mm that switched */
	PS_FPU_SWITCH,		/* vostd_fpu_switch that switched */
	PS_NR
};

#define PROC_SAMPLES	4096

struct proc_perf {
	u64 s[PS_NR][PROC_SAMPLES];
	u32 n[PS_NR];
	u32 on;
};

/* The sandbox's processes (in its globals). */
struct procs {
	vostd_spinlock_t lock;		/* the table, ids, exits; held in a guard */
	struct proc *list;
	long next_id;
	u32 live_procs, live_threads;
	u32 failures;
	unsigned int next_vcpu;
	struct vostd_fpu *loaded[EV_MAX_VCPUS];	/* the context each carrier holds */
	u64 yield_at[EV_MAX_VCPUS];		/* for PS_KL_SWITCH */
	struct proc_perf *perf;
	u64 start;
};

struct procs *procs(void);
void proc_sample(enum proc_sample which, u64 cycles);

/* process.c */
struct proc *proc_spawn(const char *name);	/* a tenant image by name */
long proc_wait(struct proc *p);			/* for the kernel's own */
long proc_wait_child(struct proc *parent, long pid);
void proc_kill(struct proc *p, long code, const char *fmt, ...) __printf(3, 4);
long thread_create(struct proc *p, const struct ev_tenant_ctx *ctx,
		   struct vostd_fpu *from, unsigned int vcpu);
void procs_lock(void);
void procs_unlock(void);
struct proc *proc_new(struct proc *parent);
void proc_abandon(struct proc *p);

/* memory.c */
long mem_load(struct proc *p, const char *image, unsigned long size, unsigned long *entry);
long mem_stack(struct proc *p);
long mem_mmap(struct proc *p, unsigned long len, unsigned int prot);
long mem_munmap(struct proc *p, unsigned long va, unsigned long len);
long mem_fork(struct proc *parent, struct proc *child);
long mem_fault(struct thread *t, unsigned long addr, bool write);
void mem_release(struct proc *p);

/* syscall.c */
void syscall_dispatch(struct thread *t, u64 entered);

/* blobs.S, through main.c's table */
const char *tenant_image(const char *name, unsigned long *size);

static inline void proc_lock(struct proc *p)
{
	kl_guard_begin();
	vostd_spin_lock(&p->lock);
}

static inline void proc_unlock(struct proc *p)
{
	vostd_spin_unlock(&p->lock);
	kl_guard_end();
}

#endif /* PROC_H */
