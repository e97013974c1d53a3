/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What crosses between the endovisor and a sandbox kernel.
 *
 * A sandbox kernel is a module that registers an ev_kernel with the
 * endovisor and from then on reaches Linux only through the service table:
 * every service is called as ev_stub_cross(service, a0, ..., a4), the
 * stub's crossing (stub/cross.S), or through that service's own crossing,
 * which the module links against so that the call is a direct one;
 * shared->cross holds ev_stub_cross for a caller that wants a pointer.
 * This header (with ev_services.h) is the whole interface; the build
 * checks that a sandbox kernel's module imports nothing from Linux but
 * ev_register_kernel, ev_unregister_kernel, the crossings and the
 * compiler's runtime.
 */
#ifndef EV_ABI_H
#define EV_ABI_H

#include <linux/const.h>
#include <asm/processor-flags.h>

/*
 * 11: a sandbox may have 128 address spaces (EV_MAX_VMS), which the linux
 * kernel proper's processes need;
 * 10: the upcall entry zeroes upcall_ip once it has read it, and the
 * stats tell a preemption at the entry from one in a masked section;
 * 9: the shared page's timer (timer_at), which the endovisor kicks by;
 * 8: fpu_read and fpu_write, and an exception's si_code in the tenant
 * context, which a kernel with signal handlers needs;
 * 7: the shared page says what the sandbox may write (ev_sfi); 6: the
 * shared page carries the creation flags; 5: the tenant context carries
 * the FS base; 4: the trap path's readings left it for tenant_run's
 * optional trailer
 */
#define EV_ABI_VERSION		11
#define EV_KERNEL_NAME_MAX	32
#define EV_MAX_VCPUS		16

/* Every sandbox stack is this size and aligned to it (see ev_stack_base). */
#define EV_STACK_ORDER		2
#define EV_STACK_SIZE		(_AC(4096, UL) << EV_STACK_ORDER)
#define EV_STACK_MAGIC		0x65767374616b6321ULL	/* "evstakc!" */
/* Offsets the sandbox's assembly uses (vostd/switch.S); checked in vostd/boot.c. */
#define EV_STACK_BASE_SHARED	8
#define EV_SHARED_UPCALL_IP	112

/*
 * The flags of EV_LINUX_FLAGS_MASK that Linux's C may rely on, as
 * SYSCALL's mask sets them for a system call: direction up, no SMAP
 * override, no nested task, I/O privilege 0, interrupts on.  Sandbox code
 * runs at CPL 0, where popf can set any of them, so every crossing into
 * Linux makes them EV_LINUX_FLAGS (stub/cross.S), and a sandbox kernel
 * finds them so when a crossing returns.
 */
#define EV_LINUX_FLAGS_MASK	(X86_EFLAGS_DF | X86_EFLAGS_AC | X86_EFLAGS_NT | \
				 X86_EFLAGS_IOPL | X86_EFLAGS_IF)
#define EV_LINUX_FLAGS		(X86_EFLAGS_FIXED | X86_EFLAGS_IF)

/* The longest line the log service takes; longer is refused (-EINVAL). */
#define EV_LOG_LINE_MAX		256

/*
 * Service numbers: the index into the endovisor's service table, EV_SVC_NAME,
 * from the one list of the services, ev_services.h, where each service's
 * number, name and count of arguments are, with what it takes and returns
 * beside it.  Each returns a value >= 0 on success or -errno; the errors
 * each can return are listed there too, and an unknown number returns
 * -ENOSYS.  Once the sandbox's teardown has begun (vCPU 0's kernel
 * returned, or its creator is dying), the services marked "ending" refuse
 * with -ESHUTDOWN.  -EFAULT means memory named by the call is not the
 * sandbox's: a service that writes into it (frame_grant's out, vm_batch's
 * ops, copy_from_tenant's dst, tenant_run's ctx) wants one of the kernel's own data objects (a
 * variable its module defines, as its symbols name it: not the rest of the
 * module's writable data, where Linux keeps its struct module and symbol
 * tables) or the sandbox's globals, frames, boot stacks or heap; one that
 * only reads it also takes the module's read-only data.  A buffer lies
 * wholly within one of them.
 */
#ifndef __ASSEMBLY__
enum ev_service {
#define EV_SERVICE(nr, NAME, name, args)	EV_SVC_##NAME = nr,
#include "ev_services.h"
#undef EV_SERVICE
};
#endif
/* as many as ev_services.h lists: checked in endovisor/services.c */
#define EV_NR_SERVICES		26

/* mem_alloc flags, and its limits. */
#define EV_MEM_ZERO		1UL
#define EV_MEM_MAX_BLOCK	(4UL << 20)	/* largest block */
/*
 * All blocks of one sandbox, as Linux holds them: each block counts its
 * slab object (a 1-byte block 8 bytes, a 3 MiB one 4 MiB of pages) and
 * its node in the endovisor's table of blocks.
 */
#define EV_MEM_QUOTA		(64UL << 20)

#define EV_ARGS_MAX		64
/*
 * Flags a sandbox is created with (ev_create), handed to its kernel in
 * every vCPU's shared page.  The endovisor only passes them on.
 */
#define EV_CREATE_CHECKING	1u	/* run vOSTD's checking mode (vostd/sanitize.c) */
#define EV_CREATE_FLAGS		EV_CREATE_CHECKING

/* Frames: page-allocator pages granted to a sandbox, named by their address. */
#define EV_GRANT_QUOTA		16384	/* frames per sandbox: 64 MiB */
#define EV_GRANT_MAX_CALL	512	/* frames per frame_grant call */

/*
 * A tenant address space is a Linux mm whose tenant region is one mapping
 * the endovisor owns; vm_map writes its page-table entries directly.
 */
/* 4 MiB: where x86-64 links non-PIE executables */
#define EV_TENANT_BASE		_AC(0x400000, UL)
#define EV_TENANT_SIZE		_AC(0x1000000000, UL)	/* 64 GiB of it */
#define EV_MAX_VMS		128
/*
 * What a sandbox's spaces may make Linux hold, all of them together: pages
 * mapped (a frame mapped twice counts twice), and pages of page tables as
 * Linux counts them (mm_pgtables_bytes), which stay until the space's mm
 * goes with its last reference.  vm_map past either: -ENOSPC.  The tables
 * Linux's fault path allocates for a tenant's fault count too, but a fault
 * cannot be refused: tenant_run is, once the tables reach EV_PT_QUOTA, and
 * a run ends at its first fault.  So the tables can pass the bound by at
 * most what one fault allocates (a PMD, and a PUD in a space's first
 * fault: 8 KiB) per vCPU.
 */
#define EV_MAP_QUOTA		65536
#define EV_PT_QUOTA		2048
#define EV_MAX_FPUS		256
#define EV_PROT_READ		1
#define EV_PROT_WRITE		2
#define EV_PROT_EXEC		4
#define EV_BATCH_MAX		4096	/* ops per vm_batch call */
/*
 * vm_batch flag: leave the TLB flush of what the batch changed to the
 * space's next vm_batch without the flag, vm_protect, vm_unmap or
 * vm_share (a cursor's last batch).  Until then a stale entry may still
 * reach a frame the batch unmapped or made read-only: the frame is still
 * the sandbox's, and whether that matters is the kernel proper's to say.
 */
#define EV_BATCH_DEFER		1UL

#define EV_VM_OP_MAP		1
#define EV_VM_OP_PROTECT	2
#define EV_VM_OP_UNMAP		3
#define EV_VM_OP_FAILED		0x80000000u	/* set by vm_batch on the op that failed */

/* Why tenant_run returned. */
#define EV_TRAP_SYSCALL		1	/* the tenant made a system call */
#define EV_TRAP_FAULT		2	/* a page fault in the tenant region, at fault_addr */
#define EV_TRAP_KICK		3	/* a kick arrived while it ran */
/* any other fault: fault_addr, and the signal and si_code Linux would have sent */
#define EV_TRAP_EXCEPTION	4

/* calibrate(what, ...) */
/* (): kmalloc and kfree, and the parts of mem_alloc and mem_free */
#define EV_CAL_HEAP		1
/*
 * (vm, va, pages, buf): copy_from_user of 64 B and 4 KiB over that many
 * pages from va, and the parts of copy_from_tenant into buf
 */
#define EV_CAL_COPY		2
/* (n): cycles, in tenths, of a 64-byte kmalloc and kfree with n more of them live */
#define EV_CAL_KMALLOC		3
/*
 * (buf, len, full): cycles, median of 1,000, of the check that
 * [buf, buf + len) is the sandbox's; full: without the vCPU's cache
 */
#define EV_CAL_OWNS		4
/* (vm): bytes the space makes Linux hold but for its frames (page tables, its record); -EBADF */
#define EV_CAL_VM_BYTES		5
/*
 * How a pair of calls is timed, by calibrate's heap pairs, the mem
 * kernel's and the proc kernel's crossing pair alike: EV_CAL_PAIRS pairs
 * in a round, the cheapest of EV_CAL_ROUNDS rounds, with interrupts on.
 */
#define EV_CAL_ROUNDS		7
#define EV_CAL_PAIRS		1000

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
/*
 * What memory a sandbox kernel may write, as a store check reads it (the
 * store checks of vOSTD's prototype, vostd/sfi.c): every page of Linux's
 * direct map that the sandbox owns (its pool's, its frames, its stacks, its
 * globals and shared pages) carries owner_tag in its struct page's private
 * field, its low bit aside; and its kernel module's data objects, sorted.
 * The endovisor writes it at the vCPU's creation.
 */
struct ev_sfi {
	__u64 owner_tag;
	__u64 direct_base;	/* Linux's direct map: page_offset_base */
	__u64 direct_pages;	/* the pages it maps, at most */
	__u64 page_array;	/* Linux's struct page array: vmemmap_base */
	__u64 page_size;	/* sizeof(struct page) */
	/* the kernel's data objects: const struct { __u64 start, end; }[] */
	__u64 objects;
	__u64 nr_objects;
};

struct ev_vcpu_shared {
	__u32 abi_version;
	__u32 vcpu;		/* this vCPU's index, 0 .. nr_vcpus - 1 */
	__u32 nr_vcpus;
	__u32 carrier_tid;	/* the Linux thread carrying this vCPU */
	__u64 sandbox_id;
	ev_cross_fn cross;	/* the stub's crossing */
	__u32 tsc_khz;		/* the cycle counter's rate */
	char args[EV_ARGS_MAX];	/* the launcher's arguments for the kernel */
	/*
	 * Set by vcpu_kick, cleared by the sandbox kernel when it takes the
	 * kick.  While it is set and upcall_mask is zero, the endovisor may
	 * divert the vCPU to the upcall entry at any instruction of the
	 * sandbox kernel's text.
	 */
	__u32 kick_pending;
	/*
	 * Nonzero while upcalls must wait.  The sandbox kernel raises and
	 * lowers it; the endovisor raises it by one when it diverts the vCPU,
	 * and the upcall handler lowers it when it is done.
	 */
	__u32 upcall_mask;
	/*
	 * Where the diverted vCPU was: the upcall entry returns there, and
	 * zeroes this once it has read it.  Nonzero with the mask raised, the
	 * vCPU is at the entry's door: diverted, holding nothing yet.
	 */
	__u64 upcall_ip;
	/*
	 * One zeroed page per sandbox, the same for every vCPU, for the
	 * sandbox kernel's own state.  Its module's static data is shared by
	 * every sandbox of that kernel; this page is not.
	 */
	void *globals;
	__u32 flags;		/* the sandbox's EV_CREATE_* flags */
	/* Written by the sandbox kernel, read by nobody but it. */
	void *kernel_owned;
	__u64 calls;		/* vOSTD's count of the services it called on this vCPU */
	struct ev_sfi sfi;
	/*
	 * The sandbox kernel's timer: a reading of the cycle counter (rdtsc,
	 * at tsc_khz) after which the endovisor kicks this vCPU, once until
	 * the kick is taken: at the sandbox's next tick while the vCPU runs,
	 * at that time while it sleeps in vcpu_idle.  0: no timer.  The
	 * kernel writes it; the endovisor only reads it, and any value is
	 * harmless: at worst a kick a tick, which vcpu_kick could ask for.
	 */
	__u64 timer_at;
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

/* One page-table operation of vm_batch. */
struct ev_vm_op {
	__u32 op;		/* EV_VM_OP_* */
	__u32 prot;		/* EV_PROT_*, for map and protect */
	__u64 va;
	__u64 frame;		/* for map */
};

/*
 * A tenant thread's user registers, which tenant_run loads and the trap
 * that ends the run saves, and what ended it.
 */
struct ev_tenant_ctx {
	__u64 rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	__u64 r8, r9, r10, r11, r12, r13, r14, r15;
	__u64 rip, rflags;
	/* Out. */
	__u32 trap;		/* EV_TRAP_* */
	__u32 fault_write;	/* the fault was a write */
	__u64 fault_addr;
	__u64 syscall_nr;
	__u64 linux_faults;	/* faults Linux counted for the carrier in the run */
	__u32 signal;		/* EV_TRAP_EXCEPTION: SIGSEGV, SIGILL, ... */
	__s32 signal_code;	/* and Linux's si_code for it (SEGV_MAPERR, ...) */
	/*
	 * In and out: the tenant thread's FS base (its thread-local storage),
	 * a user address; tenant_run loads it with a zero selector, and the
	 * trap reports what the tenant had.  GS is always zero.
	 */
	__u64 fs_base;
};

/*
 * For the sandbox kernel's measurements, and only if it asks: the cycle
 * counter at points of the trap path, each with the Linux CPU it was read
 * on (0 where the path did not pass the point).  tenant_run's third
 * argument, n, asks for the first n points, which the trap writes as an
 * array of struct ev_stamp right after the context, indexed by the
 * points' numbers; 0 asks for none and leaves the context alone.  New
 * points take new numbers, so that a kernel built for fewer gets what it
 * asked for, and one built for more gets zeros for those this endovisor
 * does not know: measurement never changes the context.
 */
struct ev_stamp {
	__u64 at;
	__u32 cpu, pad;
};

#define EV_STAMP_SYS_ENTER	0	/* the sys_enter probe saw the system call */
#define EV_STAMP_WORK		1	/* the trap's task work began */
/*
 * the run this trap ended began: its tenant_run had returned through a
 * task work's resume to Linux
 */
#define EV_STAMP_RESUMED	2
#define EV_STAMPS		3	/* the points this header knows */
#define EV_STAMPS_MAX		8	/* the most tenant_run takes; more: -EINVAL */

/*
 * The crossing: service svc with its arguments, from sandbox code on a
 * sandbox stack of a vCPU's carrier (-EPERM anywhere else, -ENOSYS for an
 * unknown service).  Exported by the endovisor, with one crossing more for
 * each service, ev_stub_cross_NAME (names in ev_services.h), which takes
 * the same arguments and calls that service whatever svc is: a kernel that
 * knows the service when it is compiled calls that one, which picks no
 * service at run time.
 */
long ev_stub_cross(unsigned long svc, unsigned long a0, unsigned long a1,
		   unsigned long a2, unsigned long a3, unsigned long a4);
#define EV_SERVICE(nr, NAME, name, args)				\
	long ev_stub_cross_##name(unsigned long svc, unsigned long a0,	\
				  unsigned long a1, unsigned long a2,	\
				  unsigned long a3, unsigned long a4);
#include "ev_services.h"
#undef EV_SERVICE

/* A sandbox kernel's entry: runs on every vCPU, on that vCPU's boot stack. */
typedef long (*ev_kernel_entry)(struct ev_vcpu_shared *shared);

struct module;

/*
 * What a sandbox kernel's module declares.  The endovisor copies it at
 * registration and never reads it again: it lies in the module's data,
 * which services may write on the sandbox's behalf.
 */
struct ev_kernel {
	const char *name;
	struct module *owner;
	ev_kernel_entry entry;
};

/*
 * From the owner's init, one kernel per module: -EINVAL if k is not that
 * module's own (k in owner's memory, entry in its text, owner in its
 * init), -EEXIST for a second name or kernel, -ENOMEM, and -EPERM from
 * sandbox code.
 */
int ev_register_kernel(struct ev_kernel *k);
/*
 * From the owner's exit: -EBUSY while a sandbox of the kernel lives, or
 * from sandbox code; -ENOENT if k is not registered.
 */
int ev_unregister_kernel(struct ev_kernel *k);

#endif /* __ASSEMBLY__ */
#endif /* EV_ABI_H */
