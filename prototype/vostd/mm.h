/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vOSTD's memory: frames, tenant address spaces with cursors, copies and
 * user mode, in the manner of OSTD's ostd::mm and ostd::user.
 */
#ifndef VOSTD_MM_H
#define VOSTD_MM_H

#include "vostd.h"

#define VOSTD_PAGE_SIZE		4096UL

/*
 * Frames.  The sandbox's frames come from the endovisor's grant, a batch
 * at a time; vOSTD keeps the ones it is not using in a pool of its own, so
 * freeing a frame gives it back to the sandbox, not to Linux.
 */
void *vostd_frame_alloc(void);		/* a zeroed frame, or NULL */
void vostd_frame_free_at(void *frame, const struct vostd_site *site);
#define vostd_frame_free(frame)	vostd_frame_free_at(frame, VOSTD_SITE)

/* A tenant address space (OSTD's VmSpace). */
struct vostd_vmspace {
	long handle;
};

struct vostd_vmspace *vostd_vmspace_new(void);
long vostd_vmspace_destroy(struct vostd_vmspace *vs);

/* One page at a time, one crossing each. */
long vostd_vm_map(struct vostd_vmspace *vs, unsigned long va, void *frame,
		  unsigned int prot);
long vostd_vm_protect(struct vostd_vmspace *vs, unsigned long va,
		      unsigned long pages, unsigned int prot);
long vostd_vm_unmap(struct vostd_vmspace *vs, unsigned long va,
		    unsigned long pages);
/*
 * What is mapped at va (OSTD's cursor query): the frame and its EV_PROT_*
 * bits; -ENOENT if nothing is.
 */
long vostd_vm_query(struct vostd_vmspace *vs, unsigned long va, void **frame,
		    unsigned int *prot);

/*
 * A cursor over [va, end) of an address space, as OSTD's CursorMut: it
 * maps, protects and unmaps at its position and moves forward.  Its work
 * reaches the endovisor in batches of up to batch operations, one crossing
 * per batch, and one TLB flush for them all when the cursor finishes; a
 * batch of 1 crosses once per page.  Errors stick: the first one is
 * returned by every later call and by the finish.  crossings counts the
 * calls it made.
 */
struct vostd_cursor {
	struct vostd_vmspace *vs;
	unsigned long va, end;
	struct ev_vm_op *ops;
	unsigned int n, batch;
	long err;
	unsigned long crossings;
};

long vostd_cursor_init(struct vostd_cursor *c, struct vostd_vmspace *vs,
		       unsigned long va, unsigned long end, unsigned int batch);
long vostd_cursor_send(struct vostd_cursor *c, bool last);

/*
 * A full batch goes out (deferred) when the next op comes, so the last is
 * always the finish's.  Inline, as the kernels call it once a page: under
 * emulation a call and its return cost a lookup of the emulator's each.
 */
static __always_inline long vostd_cursor_push(struct vostd_cursor *c, u32 op,
					      unsigned long frame, unsigned int prot)
{
	if (c->err)
		return c->err;
	if (c->va >= c->end)
		return c->err = -EINVAL;
	if (c->n == c->batch && vostd_cursor_send(c, false))
		return c->err;
	c->ops[c->n++] = (struct ev_vm_op){ .op = op, .prot = prot, .va = c->va,
					   .frame = frame };
	c->va += VOSTD_PAGE_SIZE;
	return 0;
}

static __always_inline long vostd_cursor_map(struct vostd_cursor *c, void *frame,
					     unsigned int prot)
{
	return vostd_cursor_push(c, EV_VM_OP_MAP, (unsigned long)frame, prot);
}

long vostd_cursor_protect_next(struct vostd_cursor *c, unsigned long len,
			       unsigned int prot);
long vostd_cursor_unmap(struct vostd_cursor *c, unsigned long len);
long vostd_cursor_copy_from(struct vostd_cursor *dst, struct vostd_cursor *src,
			    unsigned long len, unsigned int prot);
long vostd_cursor_jump(struct vostd_cursor *c, unsigned long va);
long vostd_cursor_flush(struct vostd_cursor *c);
long vostd_cursor_finish(struct vostd_cursor *c);

/* Copies between the sandbox kernel's memory and a tenant's. */
long vostd_copy_from_user(struct vostd_vmspace *vs, void *dst,
			  unsigned long src, unsigned long len);
long vostd_copy_to_user(struct vostd_vmspace *vs, unsigned long dst,
			const void *src, unsigned long len);

/*
 * User mode (OSTD's UserMode::execute): run the tenant whose registers ctx
 * holds in vs until it traps; returns EV_TRAP_* and leaves in ctx the
 * registers and what trapped, or -errno.  With stamps, that many readings
 * of the trap path (struct ev_stamp, EV_STAMP_*) follow ctx in memory.
 */
long vostd_user_run(struct vostd_vmspace *vs, struct ev_tenant_ctx *ctx, unsigned int stamps);

/* The carrier adopts vs's address space (NULL: its own). */
long vostd_vm_activate(struct vostd_vmspace *vs);

/*
 * A tenant thread's FPU and vector registers, kept by the endovisor: a
 * context starts in the initial state or as a copy of another's (NULL:
 * initial), and vostd_fpu_switch makes the carrier's registers the
 * context's, saving whichever were loaded.  A context may be destroyed
 * while this vCPU's carrier holds it, as an exiting thread does.
 */
struct vostd_fpu {
	long handle;
};

struct vostd_fpu *vostd_fpu_new(struct vostd_fpu *from);
long vostd_fpu_destroy(struct vostd_fpu *fpu);
long vostd_fpu_switch(struct vostd_fpu *fpu);
/*
 * Its x87 and SSE registers, as FXSAVE's 512 bytes (VOSTD_FXSAVE_SIZE),
 * read or written (a signal frame's): the write refuses an MXCSR the
 * processor would fault on, and leaves AVX and on in their initial state.
 */
#define VOSTD_FXSAVE_SIZE	512
long vostd_fpu_read(struct vostd_fpu *fpu, void *fx);
long vostd_fpu_write(struct vostd_fpu *fpu, const void *fx);

/* string.c */
void vostd_memset(void *p, int c, unsigned long n);
void vostd_memcpy(void *dst, const void *src, unsigned long n);
void vostd_memmove(void *dst, const void *src, unsigned long n);

#endif /* VOSTD_MM_H */
