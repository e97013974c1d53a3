// SPDX-License-Identifier: GPL-2.0
/*
 * FPU contexts: the floating-point and vector registers of tenant threads.
 *
 * Tenant threads share a carrier, and the carrier has one set of user FPU
 * registers, which Linux saves and restores with the carrier thread.  So
 * when the kernel proper switches a carrier from one tenant thread to
 * another it asks, with fpu_switch, for the registers of the first to be
 * saved in its context and those of the second to be loaded.  The contexts
 * are the endovisor's memory, named by handles: register images go straight
 * between a context and Linux's own save area for the carrier, and a tenant
 * can never hand the processor an image that XRSTOR would refuse.
 *
 * To get at the registers, the endovisor first makes Linux put the
 * carrier's user state in memory (a kernel_fpu_begin and end does: Linux
 * saves the user registers and marks them to be loaded again on the way to
 * user mode), then copies images in and out of that memory, fpregs locked.
 * The first tenant_run (or the first switch, if it comes before) keeps the
 * launcher's own image, which the carrier gets back when the vCPU ends,
 * and a carrier's first tenant starts from the initial state.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/fpu/api.h>
#include <asm/fpu/types.h>
#include <asm/fpu/xstate.h>

#include "endovisor.h"

struct ev_fpu {
	unsigned int size;
	union fpregs_state regs;	/* size bytes of it */
};

static struct fpstate *ev_fpstate(void)
{
	return current->thread.fpu.fpstate;
}

/* The carrier's user FPU registers are in Linux's save area after this. */
static void ev_fpu_to_memory(void)
{
	kernel_fpu_begin_mask(0);
	kernel_fpu_end();
}

/*
 * The initial state: the x87 and SSE defaults, every register zero, and
 * for the XSAVE format no component in use, so that XRSTOR loads each from
 * its initial configuration.  The compaction word is taken from the live
 * image, which XRSTORS insists on, and only where there is one: without
 * XSAVE the image is the 512 bytes of FXSAVE, and its header would lie
 * past the end of the task (a KASAN boot found the read).  live may be
 * regs itself: it is read before the clearing.
 */
static void ev_fpu_init_image(union fpregs_state *regs, unsigned int size,
			      const union fpregs_state *live)
{
	u64 xcomp_bv = 0;

	if (cpu_feature_enabled(X86_FEATURE_XSAVE))
		xcomp_bv = live->xsave.header.xcomp_bv;
	memset(regs, 0, size);
	regs->fxsave.cwd = 0x37f;
	regs->fxsave.mxcsr = MXCSR_DEFAULT;
	if (cpu_feature_enabled(X86_FEATURE_XSAVE))
		regs->xsave.header.xcomp_bv = xcomp_bv;
}

static void ev_fpu_init_state(struct ev_fpu *f, const union fpregs_state *live)
{
	ev_fpu_init_image(&f->regs, f->size, live);
}

static struct ev_fpu *ev_fpu_alloc(void)
{
	unsigned int size = ev_fpstate()->size;
	struct ev_fpu *f = kzalloc(offsetof(struct ev_fpu, regs) + max_t(unsigned int, size,
				   sizeof(struct fxregs_state)), GFP_KERNEL);

	if (f)
		f->size = size;
	return f;
}

/*
 * Keep the launcher's registers, the first time a tenant's take the
 * carrier: room for them, and for the carrier's own should it park
 * meanwhile (ev_fpu_park).  -ENOMEM if there is none.
 */
static int ev_fpu_home_alloc(struct ev_vcpu *v)
{
	v->fpu.home = ev_fpu_alloc();
	v->fpu.parked = ev_fpu_alloc();
	if (v->fpu.home && v->fpu.parked)
		return 0;
	kfree(v->fpu.home);
	kfree(v->fpu.parked);
	v->fpu.home = NULL;
	v->fpu.parked = NULL;
	return -ENOMEM;
}

static struct ev_fpu *ev_fpu_lookup(struct ev_sandbox *sb, unsigned long handle)
{
	long i = ev_index(handle, 1, EV_MAX_FPUS);

	return i < 0 ? NULL : READ_ONCE(sb->fpus[i]);
}

/* Is f loaded on another vCPU's carrier than v's?  sb->lock held. */
static bool ev_fpu_loaded_elsewhere(struct ev_vcpu *v, struct ev_fpu *f)
{
	unsigned int i;

	for (i = 0; i < v->sb->nr_vcpus; i++)
		if (v->sb->vcpus[i] != v && READ_ONCE(v->sb->vcpus[i]->fpu.cur) == f)
			return true;
	return false;
}

/*
 * fpu_create(src): a context in the initial state (src 0), or a copy of
 * src's registers as they are now (a fork's).  src loaded on this vCPU's
 * carrier is copied from the registers; on another's it has no current
 * image here, and is refused with -EBUSY.
 */
EV_SERVICE_DEFINE1(fpu_create, unsigned long, src)
{
	struct ev_sandbox *sb = v->sb;
	struct ev_fpu *f, *from;
	unsigned int i;
	long ret = 0;

	if (ev_sandbox_ending(sb))
		return -ESHUTDOWN;
	f = ev_fpu_alloc();
	if (!f)
		return -ENOMEM;
	mutex_lock(&sb->lock);
	from = ev_fpu_lookup(sb, src);
	if (!src) {
		ev_fpu_init_state(f, &ev_fpstate()->regs);
	} else if (!from) {
		ret = -EBADF;
	} else if (from == v->fpu.cur) {
		ev_fpu_to_memory();
		fpregs_lock();
		memcpy(&f->regs, &ev_fpstate()->regs, min(f->size, ev_fpstate()->size));
		fpregs_unlock();
	} else {
		for (i = 0; i < sb->nr_vcpus; i++)
			if (READ_ONCE(sb->vcpus[i]->fpu.cur) == from)
				ret = -EBUSY;
		if (!ret)
			memcpy(&f->regs, &from->regs, min(f->size, from->size));
	}
	for (i = 0; !ret && i < EV_MAX_FPUS && sb->fpus[i]; i++)
		;
	if (!ret && i == EV_MAX_FPUS)
		ret = -ENOSPC;
	if (!ret)
		sb->fpus[i] = f;
	mutex_unlock(&sb->lock);
	if (ret) {
		kfree(f);
		return ret;
	}
	atomic_inc(&ev_live.fpus);
	return i + 1;
}

/*
 * fpu_destroy(fpu): -EBUSY while it is loaded on another vCPU's carrier.
 * Loaded on the caller's, its registers stay there, owned by nobody, until
 * the next switch loads another context over them (an exiting thread's
 * last act).
 */
EV_SERVICE_DEFINE1(fpu_destroy, unsigned long, handle)
{
	struct ev_sandbox *sb = v->sb;
	struct ev_fpu *f;
	long ret = 0;

	mutex_lock(&sb->lock);
	f = ev_fpu_lookup(sb, handle);
	if (!f)
		ret = -EBADF;
	else if (ev_fpu_loaded_elsewhere(v, f))
		ret = -EBUSY;
	if (!ret) {
		if (v->fpu.cur == f)
			WRITE_ONCE(v->fpu.cur, NULL);
		sb->fpus[ev_index(handle, 1, EV_MAX_FPUS)] = NULL;	/* found: in range */
		kfree(f);
		atomic_dec(&ev_live.fpus);
	}
	mutex_unlock(&sb->lock);
	return ret;
}

/* Save the carrier's user registers into from (may be NULL) and load to's. */
static void ev_fpu_swap(struct ev_fpu *from, const union fpregs_state *to, unsigned int size)
{
	struct fpstate *fps = ev_fpstate();

	ev_fpu_to_memory();
	fpregs_lock();
	if (from)
		memcpy(&from->regs, &fps->regs, min(size, fps->size));
	memcpy(&fps->regs, to, min(size, fps->size));
	fpregs_unlock();
}

/*
 * fpu_switch(fpu): the carrier's user FPU registers become fpu's.  A
 * context loaded on another vCPU's carrier is refused (-EBUSY): its image
 * there is stale, and both carriers would save into it.
 */
EV_SERVICE_DEFINE1(fpu_switch, unsigned long, handle)
{
	struct ev_fpu *f, *from;

	mutex_lock(&v->sb->lock);	/* against fpu_destroy */
	f = ev_fpu_lookup(v->sb, handle);
	if (!f || (f != v->fpu.cur && ev_fpu_loaded_elsewhere(v, f))) {
		mutex_unlock(&v->sb->lock);
		return f ? -EBUSY : -EBADF;
	}
	if (f != v->fpu.cur) {
		/* The first switch keeps the launcher's; later, no context is an orphan's. */
		from = v->fpu.cur;
		if (!v->fpu.home) {
			if (ev_fpu_home_alloc(v)) {
				mutex_unlock(&v->sb->lock);
				return -ENOMEM;
			}
			from = v->fpu.home;
		}
		ev_fpu_swap(from, &f->regs, f->size);
		WRITE_ONCE(v->fpu.cur, f);
	}
	mutex_unlock(&v->sb->lock);
	return 0;
}

/*
 * The bits of MXCSR this processor has: FXSAVE reports them in its
 * mxcsr_mask field, 0 meaning the old default without DAZ.  Read once, in
 * a kernel FPU section of its own; two first readers write the same value.
 */
static u32 ev_mxcsr_mask(void)
{
	static u32 mask;
	struct fxregs_state fx __aligned(16) = {};

	if (READ_ONCE(mask))
		return mask;
	kernel_fpu_begin_mask(0);
	asm volatile("fxsaveq %0" : "=m" (fx));
	kernel_fpu_end();
	WRITE_ONCE(mask, fx.mxcsr_mask ?: 0xffbf);
	return mask;
}

/* What FXRSTOR reads of an image: the registers, not the bytes after them. */
#define EV_FPU_LEGACY	offsetof(struct fxregs_state, padding)

/*
 * The x87 and SSE part of regs, as the registers are: an XSAVE image
 * leaves a component it found in its initial state unwritten, and its
 * header says so, so such a component is given as its initial state.
 */
static void ev_fpu_legacy_get(struct fxregs_state *fx, const union fpregs_state *regs)
{
	u64 in_use = XFEATURE_MASK_FPSSE;

	memcpy(fx, &regs->fxsave, EV_FPU_LEGACY);
	if (cpu_feature_enabled(X86_FEATURE_XSAVE))
		in_use = regs->xsave.header.xfeatures;
	if (!(in_use & XFEATURE_MASK_FP)) {
		fx->cwd = 0x37f;
		fx->swd = 0;
		fx->twd = 0;
		fx->fop = 0;
		fx->rip = 0;
		fx->rdp = 0;
		memset(fx->st_space, 0, sizeof(fx->st_space));
	}
	if (!(in_use & XFEATURE_MASK_SSE))
		memset(fx->xmm_space, 0, sizeof(fx->xmm_space));
}

/*
 * The x87 and SSE part of regs becomes fx's, and every later component
 * (AVX and on) its initial state, as Linux restores a signal frame that
 * holds FXSAVE's image alone.
 */
static void ev_fpu_legacy_set(union fpregs_state *regs, const struct fxregs_state *fx)
{
	memcpy(&regs->fxsave, fx, EV_FPU_LEGACY);
	/* The supervisor components (CET's, PASID) are Linux's: kept as they are. */
	if (cpu_feature_enabled(X86_FEATURE_XSAVE))
		regs->xsave.header.xfeatures = (regs->xsave.header.xfeatures &
						~XFEATURE_MASK_USER_SUPPORTED) |
					       XFEATURE_MASK_FPSSE;
}

/*
 * fpu_read(fpu, buf) and fpu_write(fpu, buf): a context's x87 and SSE
 * registers as FXSAVE lays them out, 512 bytes to or from the sandbox's
 * buf: what a kernel proper puts in a signal frame and takes back at
 * sigreturn.  A context loaded on another vCPU's carrier has no current
 * image here (-EBUSY).  fpu_write refuses what FXRSTOR would fault on,
 * MXCSR bits the processor lacks (-EINVAL), and changes nothing then; the
 * bytes after the registers are the kernel's to use and are not kept.
 */
static long ev_fpu_legacy(struct ev_vcpu *v, unsigned long handle, unsigned long buf,
			  bool write)
{
	struct fxregs_state fx;
	union fpregs_state *regs;
	struct ev_fpu *f;
	bool live;
	long ret = 0;

	if (write && ev_sandbox_read(v, &fx, (const void *)buf, sizeof(fx)))
		return -EFAULT;
	mutex_lock(&v->sb->lock);	/* against fpu_destroy and a switch */
	f = ev_fpu_lookup(v->sb, handle);
	live = f && f == v->fpu.cur;
	if (!f)
		ret = -EBADF;
	else if (!live && ev_fpu_loaded_elsewhere(v, f))
		ret = -EBUSY;
	else if (write && (fx.mxcsr & ~ev_mxcsr_mask()))
		ret = -EINVAL;
	if (!ret) {
		if (live) {
			ev_fpu_to_memory();
			fpregs_lock();
		}
		regs = live ? &ev_fpstate()->regs : &f->regs;
		if (write) {
			ev_fpu_legacy_set(regs, &fx);
		} else {
			memset(&fx, 0, sizeof(fx));
			ev_fpu_legacy_get(&fx, regs);
		}
		if (live)
			fpregs_unlock();
	}
	mutex_unlock(&v->sb->lock);
	if (!ret && !write && ev_sandbox_write(v, (void *)buf, &fx, sizeof(fx)))
		ret = -EFAULT;
	return ret;
}

EV_SERVICE_DEFINE2(fpu_read, unsigned long, handle, unsigned long, buf)
{
	return ev_fpu_legacy(v, handle, buf, false);
}

EV_SERVICE_DEFINE2(fpu_write, unsigned long, handle, unsigned long, buf)
{
	return ev_fpu_legacy(v, handle, buf, true);
}

/*
 * The carrier's first tenant: keep the launcher's registers, unless a
 * switch has kept them already, and give the tenant the initial state.
 * Whether the kernel proper ever switches contexts or not, no tenant sees
 * the launcher's registers and the launcher gets its own back.
 */
int ev_fpu_tenant_start(struct ev_vcpu *v)
{
	struct fpstate *fps;

	if (v->fpu.home)
		return 0;
	if (ev_fpu_home_alloc(v))
		return -ENOMEM;
	ev_fpu_to_memory();
	fps = ev_fpstate();
	fpregs_lock();
	memcpy(&v->fpu.home->regs, &fps->regs, min(v->fpu.home->size, fps->size));
	ev_fpu_init_image(&fps->regs, fps->size, &fps->regs);
	fpregs_unlock();
	return 0;
}

/* The vCPU ends: the carrier gets the launcher's registers back. */
void ev_fpu_vcpu_end(struct ev_vcpu *v)
{
	if (v->fpu.home && v->carrier == current) {
		mutex_lock(&v->sb->lock);
		ev_fpu_swap(v->fpu.cur, &v->fpu.home->regs, v->fpu.home->size);
		mutex_unlock(&v->sb->lock);
	}
	WRITE_ONCE(v->fpu.cur, NULL);
	kfree(v->fpu.home);
	kfree(v->fpu.parked);
	v->fpu.home = NULL;
	v->fpu.parked = NULL;
	v->fpu.is_parked = false;
}

/*
 * The vCPU parks, and its carrier goes to user mode as the launcher: it
 * takes the launcher's registers back, and its own wait in the parked
 * image for ev_fpu_unpark.  Nothing to do if no tenant's ever took it.
 */
void ev_fpu_park(struct ev_vcpu *v)
{
	if (!v->fpu.home)
		return;
	mutex_lock(&v->sb->lock);
	ev_fpu_swap(v->fpu.parked, &v->fpu.home->regs, v->fpu.home->size);
	v->fpu.is_parked = true;
	mutex_unlock(&v->sb->lock);
}

/* The parked vCPU resumes: the carrier's own registers back, the launcher's kept. */
void ev_fpu_unpark(struct ev_vcpu *v)
{
	if (!v->fpu.is_parked)
		return;
	mutex_lock(&v->sb->lock);
	ev_fpu_swap(v->fpu.home, &v->fpu.parked->regs, v->fpu.parked->size);
	v->fpu.is_parked = false;
	mutex_unlock(&v->sb->lock);
}

void ev_fpu_teardown(struct ev_sandbox *sb)
{
	unsigned int i;

	for (i = 0; i < EV_MAX_FPUS; i++) {
		if (sb->fpus[i]) {
			kfree(sb->fpus[i]);
			sb->fpus[i] = NULL;
			atomic_dec(&ev_live.fpus);
		}
	}
}
