// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: the objects the services hand out, kept for later calls, and what
 * every answer must be.
 *
 * The services that make an object (mem_alloc, frame_grant, vm_create,
 * fpu_create) put it in a slot of the caller's own pool or the shared
 * one; those that destroy one (mem_free, vm_destroy, fpu_destroy) take it
 * out of whichever pool holds it and put it among the dead.  A full pool
 * gives up a slot at random, and its object is destroyed.  In a race
 * phase the other vCPU may destroy an object between its draw and its
 * use, or be given a dead object's address again before this vCPU takes
 * it out of a pool; so the pools are what the fuzzer believes, and each
 * solo phase begins by asking the endovisor which of them still live
 * (fuzz_revalidate).
 *
 * Each answer is checked: an error the service's line in the list does
 * not name fails, in any phase.  In a solo phase an object made must be
 * none the fuzzer holds, and must not take the sandbox past its quota as
 * the fuzzer counts what it holds (a count that can only be low: objects
 * it lost track of are still held).  Frames are never given back, so
 * their count is exact in any phase.
 */
#include "fuzz.h"

/* The service that destroys each kind of object. */
static const unsigned long destroyer[] = {
	[OBJ_BLOCK] = EV_SVC_MEM_FREE, [OBJ_VM] = EV_SVC_VM_DESTROY, [OBJ_FPU] = EV_SVC_FPU_DESTROY,
};

/* The pools (each vCPU's own, then the shared), in the order a solo phase checks them. */
static struct fuzz_objs *pool_of(unsigned int i)
{
	struct fuzz *f = F();

	return i < 2 ? &f->cpu[i].own : &f->shared;
}

static long *slots(struct fuzz_objs *o, enum fuzz_obj what)
{
	return what == OBJ_BLOCK ? o->blocks : what == OBJ_VM ? o->vms : o->fpus;
}

static long *dead_slots(struct fuzz_objs *o, enum fuzz_obj what)
{
	return what == OBJ_BLOCK ? o->dead_blocks : what == OBJ_VM ? o->dead_vms : o->dead_fpus;
}

/*
 * The size a block at addr was given with, newest first in each vCPU's
 * ring (vCPU 0's searched first); -1 if neither knows it.
 */
long fuzz_block_size(long addr)
{
	struct fuzz *f = F();
	unsigned int c, k;

	for (c = 0; c < 2; c++) {
		struct fuzz_sizes *z = &f->cpu[c].sizes;
		unsigned int next = READ_ONCE(z->next);

		for (k = 1; k <= FUZZ_SIZES; k++) {
			unsigned int i = (next - k) % FUZZ_SIZES;

			if (READ_ONCE(z->addr[i]) == addr)
				return READ_ONCE(z->size[i]);
		}
	}
	return -1;
}

/* Whether v is in any pool of its kind. */
bool fuzz_tracked(enum fuzz_obj what, long v)
{
	unsigned int p, i;

	for (p = 0; p < FUZZ_OWNERS; p++)
		for (i = 0; i < FUZZ_POOL; i++)
			if (v && READ_ONCE(slots(pool_of(p), what)[i]) == v)
				return true;
	return false;
}

/*
 * A block of size bytes at b the sandbox still holds: a free of its
 * second byte is refused as inside a block (-EINVAL), not as no block's
 * (-ENOENT).  Of a dead block's address this can be wrong, if a live
 * block now spans it; of a block just made, it cannot.
 */
bool fuzz_block_live(long b, long size)
{
	return size > 1 && vostd_call(EV_SVC_MEM_FREE, b + 1, 0, 0, 0, 0) == -EINVAL;
}

/* Puts v in a free slot of a pool, or a random one; what it held, to destroy. */
static long put(struct fuzz_cpu *c, long *pool, unsigned int n, long v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!READ_ONCE(pool[i]) && !cmpxchg(&pool[i], 0, v))
			return 0;
	return xchg(&pool[fuzz_below(c, n)], v);
}

/* A destroyed object: out of whichever pool held it, among the dead. */
static void destroyed(struct fuzz_cpu *c, enum fuzz_obj what, long v)
{
	unsigned int p, i;

	for (p = 0; p < FUZZ_OWNERS; p++) {
		long *s = slots(pool_of(p), what), *dead = dead_slots(pool_of(p), what);

		for (i = 0; i < FUZZ_POOL; i++)
			if (READ_ONCE(s[i]) == v && cmpxchg(&s[i], v, 0) == v)
				WRITE_ONCE(dead[fuzz_below(c, FUZZ_POOL)], v);
	}
}

/* Destroys an object a pool gave up: its destruction is an ordinary call. */
static void evict(struct fuzz_cpu *c, enum fuzz_obj what, long v)
{
	const struct fuzz_service *s = &fuzz_services[destroyer[what]];
	unsigned long a[5] = { v };
	long r;

	if (!v)
		return;
	if (what == OBJ_VM && c->active_vm == v) {
		vostd_call(EV_SVC_VM_ACTIVATE, 0, 0, 0, 0, 0);
		c->active_vm = 0;
	}
	r = fuzz_call(s, a);
	fuzz_check_answer(c, s, a, r);
	if (!r) {
		fuzz_record(c, s, a, r);
		WRITE_ONCE(dead_slots(&c->own, what)[fuzz_below(c, FUZZ_POOL)], v);
	}
}

static struct fuzz_objs *home(struct fuzz_cpu *c)
{
	return fuzz_below(c, 3) ? &c->own : &F()->shared;
}

/* What a call that succeeded made or destroyed, into or out of the pools. */
void fuzz_record(struct fuzz_cpu *c, const struct fuzz_service *s,
		 const unsigned long *a, long r)
{
	struct fuzz_sizes *z = &c->sizes;
	long i;

	switch (s->nr) {
	case EV_SVC_MEM_ALLOC:
		WRITE_ONCE(z->addr[z->next % FUZZ_SIZES], r);
		WRITE_ONCE(z->size[z->next % FUZZ_SIZES], a[0]);
		WRITE_ONCE(z->next, z->next + 1);
		evict(c, OBJ_BLOCK, put(c, home(c)->blocks, FUZZ_POOL, r));
		break;
	case EV_SVC_FRAME_GRANT:
		for (i = 0; i < r && i < FUZZ_FRAMES; i++)
			put(c, home(c)->frames, FUZZ_FRAMES, READ_ONCE(((long *)a[1])[i]));
		break;
	case EV_SVC_VM_CREATE:
		evict(c, OBJ_VM, put(c, home(c)->vms, FUZZ_POOL, r));
		break;
	case EV_SVC_FPU_CREATE:
		evict(c, OBJ_FPU, put(c, home(c)->fpus, FUZZ_POOL, r));
		break;
	case EV_SVC_MEM_FREE:
		destroyed(c, OBJ_BLOCK, a[0]);
		break;
	case EV_SVC_VM_DESTROY:
		destroyed(c, OBJ_VM, a[0]);
		break;
	case EV_SVC_FPU_DESTROY:
		destroyed(c, OBJ_FPU, a[0]);
		break;
	case EV_SVC_VM_ACTIVATE:
		c->active_vm = a[0];
		break;
	}
}

static bool documented(const struct fuzz_service *s, long r)
{
	unsigned int i;

	for (i = 0; i < FUZZ_MAX_ERRS && s->errs[i]; i++)
		if (s->errs[i] == r)
			return true;
	return false;
}

/* The distinct handles the pools hold of a kind (exact in a solo phase). */
static unsigned long handles_held(enum fuzz_obj what)
{
	long seen[FUZZ_OWNERS * FUZZ_POOL];
	unsigned int p, i, k, n = 0;

	for (p = 0; p < FUZZ_OWNERS; p++)
		for (i = 0; i < FUZZ_POOL; i++) {
			long v = READ_ONCE(slots(pool_of(p), what)[i]);

			for (k = 0; k < n && seen[k] != v; k++)
				;
			if (v && k == n)
				seen[n++] = v;
		}
	return n;
}

/* A block made in this solo phase, or -1. */
static int fresh_index(struct fuzz_cpu *c, long b)
{
	unsigned int i;

	for (i = 0; i < c->nfresh; i++)
		if (c->fresh[i] == b)
			return i;
	return -1;
}

static unsigned long fresh_bytes(struct fuzz_cpu *c)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < c->nfresh; i++)
		n += c->fresh_size[i];
	return n;
}

/*
 * A solo phase's answer against what the fuzzer knows lives.  The spaces
 * and FPU contexts in the pools are exactly those, once revalidated: a
 * handle names one object while it lives.  Blocks it knows only if made
 * in the phase (a dead block's address may lie inside a live one), so a
 * block handed out twice and the heap's quota are judged on those.
 */
static bool made(struct fuzz_cpu *c, const struct fuzz_service *s,
		 const unsigned long *a, long r)
{
	int i;

	switch (s->nr) {
	case EV_SVC_MEM_ALLOC:
		if (fresh_index(c, r) >= 0 || fresh_bytes(c) + a[0] > EV_MEM_QUOTA ||
		    (a[0] > 1 && !fuzz_block_live(r, a[0])))
			break;
		if (c->nfresh < FUZZ_FRESH) {
			c->fresh[c->nfresh] = r;
			c->fresh_size[c->nfresh++] = a[0];
		}
		return true;
	case EV_SVC_MEM_FREE:
		i = fresh_index(c, a[0]);
		if (i >= 0) {
			c->fresh[i] = c->fresh[--c->nfresh];
			c->fresh_size[i] = c->fresh_size[c->nfresh];
		}
		return true;
	case EV_SVC_VM_CREATE:
		if (fuzz_tracked(OBJ_VM, r) || handles_held(OBJ_VM) + 1 > EV_MAX_VMS)
			break;
		return true;
	case EV_SVC_FPU_CREATE:
		if (fuzz_tracked(OBJ_FPU, r) || handles_held(OBJ_FPU) + 1 > EV_MAX_FPUS)
			break;
		return true;
	default:
		return true;
	}
	fuzz_failed(c, "made_an_object_held_or_past_quota", s, a, r);
	return false;
}

/* Whether r is an answer s may give to a. */
bool fuzz_check_answer(struct fuzz_cpu *c, const struct fuzz_service *s,
		       const unsigned long *a, long r)
{
	long n;

	c->checks++;
	if (vostd_is_err(r)) {
		if (documented(s, r))
			return true;
		fuzz_failed(c, "undocumented_error", s, a, r);
		return false;
	}
	switch (s->nr) {
	case EV_SVC_MEM_ALLOC:
		if (!a[0] || a[0] > EV_MEM_MAX_BLOCK || a[1] & ~EV_MEM_ZERO) {
			fuzz_failed(c, "alloc_of_a_size_or_flags_refused", s, a, r);
			return false;
		}
		break;
	case EV_SVC_FRAME_GRANT:
		n = __atomic_add_fetch(&F()->frames_granted, r, __ATOMIC_RELAXED);
		if (r != a[0] || n > EV_GRANT_QUOTA) {
			fuzz_failed(c, "grant_count_or_quota", s, a, r);
			return false;
		}
		break;
	case EV_SVC_VM_CREATE:
		if (r < 1 || r > EV_MAX_VMS) {
			fuzz_failed(c, "vm_handle_out_of_range", s, a, r);
			return false;
		}
		break;
	case EV_SVC_FPU_CREATE:
		if (r < 1) {
			fuzz_failed(c, "fpu_handle_out_of_range", s, a, r);
			return false;
		}
		break;
	case EV_SVC_TENANT_RUN:
		if (r < EV_TRAP_SYSCALL || r > EV_TRAP_EXCEPTION) {
			fuzz_failed(c, "unknown_trap", s, a, r);
			return false;
		}
		break;
	case EV_SVC_VM_BATCH:
		if (r != a[2]) {
			fuzz_failed(c, "batch_count", s, a, r);
			return false;
		}
		break;
	}
	return !c->strict || made(c, s, a, r);
}

/*
 * The start of a solo phase: every pooled object asked about, and those
 * that no longer live taken out.  A block is asked about with a free of
 * its second byte, which a live block of two bytes or more refuses as
 * inside it (-EINVAL); no block starts at an odd address, so the free
 * frees nothing.  Any other answer is a dead address or a block of one
 * byte, and a free of the address itself then frees the one and is
 * refused of the other, so that no block the pools let go stays held.
 * Of a dead address inside a live block the answer is wrong, as
 * fuzz_block_live says.  The other questions change nothing a check
 * reads: a query reads a space, and an FPU context loaded here only
 * saves the one before it, which the fuzzer's own code never uses.
 */
void fuzz_revalidate(struct fuzz_cpu *c)
{
	unsigned int p, i;

	c->nfresh = 0;
	for (p = 0; p < FUZZ_OWNERS; p++) {
		struct fuzz_objs *o = pool_of(p);

		for (i = 0; i < FUZZ_POOL; i++) {
			long b = o->blocks[i];

			if (b && vostd_call(EV_SVC_MEM_FREE, b + 1, 0, 0, 0, 0) != -EINVAL) {
				if (vostd_call(EV_SVC_MEM_FREE, b, 0, 0, 0, 0) == 0)
					destroyed(c, OBJ_BLOCK, b);
				o->blocks[i] = 0;
			}
			if (o->vms[i] && vostd_call(EV_SVC_VM_QUERY, o->vms[i], EV_TENANT_BASE,
						    0, 0, 0) == -EBADF)
				o->vms[i] = 0;
			if (o->fpus[i] &&
			    vostd_call(EV_SVC_FPU_SWITCH, o->fpus[i], 0, 0, 0, 0) == -EBADF)
				o->fpus[i] = 0;
		}
	}
}

/* At the end: every object in this vCPU's pool destroyed. */
void fuzz_evict_all(struct fuzz_cpu *c)
{
	struct fuzz_objs *o = &c->own;
	unsigned int i;

	if (c->active_vm)
		vostd_call(EV_SVC_VM_ACTIVATE, 0, 0, 0, 0, 0);
	c->active_vm = 0;
	for (i = 0; i < FUZZ_POOL; i++) {
		evict(c, OBJ_BLOCK, xchg(&o->blocks[i], 0));
		evict(c, OBJ_VM, xchg(&o->vms[i], 0));
		evict(c, OBJ_FPU, xchg(&o->fpus[i], 0));
	}
}
