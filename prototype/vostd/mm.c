// SPDX-License-Identifier: GPL-2.0
/*
 * vOSTD's memory layer on the endovisor's services: the frame pool, address
 * spaces and their cursors, copies, and user mode.
 */
#include "mm.h"
#include "sanitize.h"

#define VOSTD_GRANT_BATCH	256

/*
 * The sandbox's pool of granted frames it is not using: a stack of
 * addresses.  It has room for every frame ever granted through it (cap >=
 * total), so a frame given back always finds a slot.
 */
struct vostd_frame_pool {
	vostd_spinlock_t lock;
	unsigned long n, cap;
	unsigned long total;	/* frames granted, and being granted, through it */
	void **free;
};

static struct vostd_frame_pool *vostd_pool(void)
{
	return vostd_global(VOSTD_SLOT_FRAMES, sizeof(struct vostd_frame_pool));
}

static void vostd_pool_lock(struct vostd_frame_pool *pool)
{
	vostd_upcall_disable();
	vostd_spin_lock(&pool->lock);
}

static void vostd_pool_unlock(struct vostd_frame_pool *pool)
{
	vostd_spin_unlock(&pool->lock);
	vostd_upcall_enable();
}

/*
 * Make room in the pool for a batch more than it has granted, and reserve
 * it.  The lock is held on entry and on a true return, not on false: the
 * pool could not grow.  Allocations are made with the lock dropped.
 */
static bool vostd_pool_reserve(struct vostd_frame_pool *pool)
{
	while (pool->cap - pool->total < VOSTD_GRANT_BATCH) {
		unsigned long cap = pool->cap ? pool->cap * 2 : 1024, i;
		void **bigger, **unused;

		while (cap < pool->total + VOSTD_GRANT_BATCH)
			cap *= 2;
		vostd_pool_unlock(pool);
		bigger = vostd_heap_alloc(cap * sizeof(void *), false);
		if (!bigger)
			return false;
		vostd_pool_lock(pool);
		unused = bigger;
		if (cap > pool->cap) {	/* no other vCPU grew it further meanwhile */
			for (i = 0; i < pool->n; i++)
				bigger[i] = pool->free[i];
			unused = pool->free;
			pool->free = bigger;
			pool->cap = cap;
		}
		if (unused) {
			vostd_pool_unlock(pool);
			vostd_heap_free(unused);
			vostd_pool_lock(pool);
		}
	}
	pool->total += VOSTD_GRANT_BATCH;
	return true;
}

/*
 * Refill the pool with a batch from the grant; the pool's lock is not
 * held.  The room is made before the frames are asked for, so no granted
 * frame is ever dropped for want of a slot.  A grant that fails part way
 * has granted the frames it wrote out before it failed: those are kept.
 * True if the pool got a frame.
 */
static bool vostd_pool_refill(struct vostd_frame_pool *pool)
{
	u64 *got;
	long n = 0, i;

	vostd_pool_lock(pool);
	if (!vostd_pool_reserve(pool))
		return false;
	vostd_pool_unlock(pool);
	got = vostd_heap_alloc(VOSTD_GRANT_BATCH * sizeof(u64), true);
	if (got)	/* zeroed: the frames granted are the entries it filled */
		vostd_svc_frame_grant(VOSTD_GRANT_BATCH, (unsigned long)got);
	vostd_pool_lock(pool);
	for (i = 0; got && i < VOSTD_GRANT_BATCH; i++) {
		if (!got[i])
			break;
		pool->free[pool->n++] = (void *)got[i];
		n++;
	}
	pool->total -= VOSTD_GRANT_BATCH - n;	/* the part of the reserve not used */
	vostd_pool_unlock(pool);
	if (got)
		vostd_heap_free(got);
	return n > 0;
}

void *vostd_frame_alloc(void)
{
	struct vostd_frame_pool *pool = vostd_pool();
	void *frame = NULL;

	if (!pool)
		return NULL;
	for (;;) {
		vostd_pool_lock(pool);
		if (pool->n)
			frame = pool->free[--pool->n];
		vostd_pool_unlock(pool);
		if (frame || !vostd_pool_refill(pool))
			break;
	}
	if (frame) {
		if (unlikely(vostd_checking()))
			vostd_san_frame_alloc(frame);
		vostd_memset(frame, 0, VOSTD_PAGE_SIZE);
	}
	return frame;
}

/*
 * In checking mode the frame is poisoned on its way into the pool, and a
 * frame the checking mode refuses (freed already) stays out of it.
 */
void vostd_frame_free_at(void *frame, const struct vostd_site *site)
{
	struct vostd_frame_pool *pool = vostd_pool();

	if (unlikely(vostd_checking()) && !vostd_san_frame_free(frame, site))
		return;
	vostd_pool_lock(pool);
	if (pool->n < pool->cap)	/* always: cap counts every frame granted */
		pool->free[pool->n++] = frame;
	vostd_pool_unlock(pool);
}

/*
 * The pool's own state given back to the heap, with the slab's, once no
 * vCPU runs sandbox code (vostd_boot, the last vCPU out).  The frames are
 * the grant's, which the endovisor takes back when the sandbox ends.
 */
void vostd_mm_release(void)
{
	struct vostd_frame_pool *pool = vostd_slots()[VOSTD_SLOT_FRAMES];

	vostd_slab_release();
	if (!pool)
		return;
	if (pool->free)
		vostd_heap_free(pool->free);
	vostd_global_release(VOSTD_SLOT_FRAMES);
}

/*
 * An address space and an FPU context are each only an endovisor handle:
 * one object with the handle as its first field, made by the service
 * create(arg) and freed once the service destroy(handle) succeeds.
 */
static long *vostd_handle_new(unsigned long create, unsigned long arg)
{
	long *h = vostd_alloc(sizeof(*h), true);

	if (!h)
		return NULL;
	*h = vostd_call(create, arg, 0, 0, 0, 0);
	if (vostd_is_err(*h)) {
		vostd_free(h);
		return NULL;
	}
	return h;
}

static long vostd_handle_destroy(long *h, unsigned long destroy)
{
	long ret = vostd_call(destroy, *h, 0, 0, 0, 0);

	if (!ret)
		vostd_free(h);
	return ret;
}

static_assert(sizeof(struct vostd_vmspace) == sizeof(long) &&
	      offsetof(struct vostd_vmspace, handle) == 0);
static_assert(sizeof(struct vostd_fpu) == sizeof(long) &&
	      offsetof(struct vostd_fpu, handle) == 0);

struct vostd_vmspace *vostd_vmspace_new(void)
{
	return container_of(vostd_handle_new(EV_SVC_VM_CREATE, 0),
			    struct vostd_vmspace, handle);
}

long vostd_vmspace_destroy(struct vostd_vmspace *vs)
{
	return vostd_handle_destroy(&vs->handle, EV_SVC_VM_DESTROY);
}

long vostd_vm_map(struct vostd_vmspace *vs, unsigned long va, void *frame,
		  unsigned int prot)
{
	return vostd_svc_vm_map(vs->handle, va, (unsigned long)frame, prot);
}

long vostd_vm_protect(struct vostd_vmspace *vs, unsigned long va,
		      unsigned long pages, unsigned int prot)
{
	return vostd_svc_vm_protect(vs->handle, va, pages, prot);
}

long vostd_vm_unmap(struct vostd_vmspace *vs, unsigned long va, unsigned long pages)
{
	return vostd_svc_vm_unmap(vs->handle, va, pages);
}

long vostd_vm_query(struct vostd_vmspace *vs, unsigned long va, void **frame,
		    unsigned int *prot)
{
	long ret = vostd_svc_vm_query(vs->handle, va);

	if (vostd_is_err(ret))
		return ret;
	*frame = (void *)(ret & ~(VOSTD_PAGE_SIZE - 1));
	*prot = ret & (VOSTD_PAGE_SIZE - 1);
	return 0;
}

long vostd_cursor_init(struct vostd_cursor *c, struct vostd_vmspace *vs,
		       unsigned long va, unsigned long end, unsigned int batch)
{
	*c = (struct vostd_cursor){ .vs = vs, .va = va, .end = end,
				    .batch = batch ? batch : 1 };
	if (c->batch > EV_BATCH_MAX)
		c->batch = EV_BATCH_MAX;
	if (va > end || (va | end) & (VOSTD_PAGE_SIZE - 1))
		return c->err = -EINVAL;
	c->ops = vostd_alloc(c->batch * sizeof(*c->ops), false);
	return c->ops ? 0 : (c->err = -ENOMEM);
}

/*
 * Send what is queued: one vm_batch crossing for the lot.  All but a
 * cursor's last batch leave their TLB flush to the last (EV_BATCH_DEFER),
 * so a cursor flushes once, when it is done: what it unmapped or made
 * read-only is not to be relied on before vostd_cursor_finish (or
 * vostd_cursor_flush) returns, as with OSTD's flusher.
 */
long vostd_cursor_send(struct vostd_cursor *c, bool last)
{
	long ret;

	if (c->err || !c->n)
		return c->err;
	ret = vostd_svc_vm_batch(c->vs->handle, (unsigned long)c->ops, c->n,
				 last ? 0 : EV_BATCH_DEFER);
	c->n = 0;
	c->crossings++;
	if (vostd_is_err(ret))
		c->err = ret;
	return c->err;
}

long vostd_cursor_flush(struct vostd_cursor *c)
{
	return vostd_cursor_send(c, true);
}

long vostd_cursor_protect_next(struct vostd_cursor *c, unsigned long len,
			       unsigned int prot)
{
	unsigned long pages = len / VOSTD_PAGE_SIZE;

	while (pages-- && !c->err)
		vostd_cursor_push(c, EV_VM_OP_PROTECT, 0, prot);
	return c->err;
}

long vostd_cursor_unmap(struct vostd_cursor *c, unsigned long len)
{
	unsigned long pages = len / VOSTD_PAGE_SIZE;

	while (pages-- && !c->err)
		vostd_cursor_push(c, EV_VM_OP_UNMAP, 0, 0);
	return c->err;
}

/*
 * Share len bytes from src's position with dst (OSTD's CursorMut::copy_from):
 * every page mapped there in src's space is set to prot in it and mapped
 * with prot at the same address in dst's, whose pages there must be
 * unmapped; both move on by len.  What a fork does, in one vm_share
 * crossing, after what either cursor has queued.
 */
long vostd_cursor_copy_from(struct vostd_cursor *dst, struct vostd_cursor *src,
			    unsigned long len, unsigned int prot)
{
	long ret;

	if (dst->err)
		return dst->err;
	if (src->err)
		return dst->err = src->err;
	if (dst->va != src->va || len & (VOSTD_PAGE_SIZE - 1) ||
	    len > dst->end - dst->va || len > src->end - src->va)
		return dst->err = -EINVAL;
	if (!len)
		return 0;
	if (vostd_cursor_flush(src) || vostd_cursor_flush(dst))
		return dst->err = src->err ? src->err : dst->err;
	ret = vostd_svc_vm_share(dst->vs->handle, src->vs->handle, dst->va,
				 len / VOSTD_PAGE_SIZE, prot);
	dst->crossings++;
	if (vostd_is_err(ret))
		return dst->err = ret;
	dst->va += len;
	src->va += len;
	return 0;
}

long vostd_cursor_jump(struct vostd_cursor *c, unsigned long va)
{
	if (!c->err && (va & (VOSTD_PAGE_SIZE - 1) || va > c->end))
		c->err = -EINVAL;
	if (!c->err)
		c->va = va;
	return c->err;
}

long vostd_cursor_finish(struct vostd_cursor *c)
{
	long ret = vostd_cursor_flush(c);

	if (c->ops)
		vostd_free(c->ops);
	c->ops = NULL;
	return ret;
}

long vostd_copy_from_user(struct vostd_vmspace *vs, void *dst,
			  unsigned long src, unsigned long len)
{
	return vostd_svc_copy_from_tenant(vs->handle, (unsigned long)dst, src, len);
}

long vostd_copy_to_user(struct vostd_vmspace *vs, unsigned long dst,
			const void *src, unsigned long len)
{
	return vostd_svc_copy_to_tenant(vs->handle, dst, (unsigned long)src, len);
}

long vostd_user_run(struct vostd_vmspace *vs, struct ev_tenant_ctx *ctx, unsigned int stamps)
{
	return vostd_svc_tenant_run(vs->handle, (unsigned long)ctx, stamps);
}

long vostd_vm_activate(struct vostd_vmspace *vs)
{
	return vostd_svc_vm_activate(vs ? vs->handle : 0);
}

struct vostd_fpu *vostd_fpu_new(struct vostd_fpu *from)
{
	return container_of(vostd_handle_new(EV_SVC_FPU_CREATE, from ? from->handle : 0),
			    struct vostd_fpu, handle);
}

long vostd_fpu_destroy(struct vostd_fpu *f)
{
	return vostd_handle_destroy(&f->handle, EV_SVC_FPU_DESTROY);
}

long vostd_fpu_switch(struct vostd_fpu *f)
{
	return vostd_svc_fpu_switch(f->handle);
}

long vostd_fpu_read(struct vostd_fpu *f, void *fx)
{
	return vostd_svc_fpu_read(f->handle, (unsigned long)fx);
}

long vostd_fpu_write(struct vostd_fpu *f, const void *fx)
{
	return vostd_svc_fpu_write(f->handle, (unsigned long)fx);
}
