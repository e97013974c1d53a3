// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: the values each kind of argument is drawn from.
 *
 * A kind mixes the values a careful kernel would pass (its live objects),
 * those a buggy or hostile one would (dead objects, objects of the other
 * vCPU's in the middle of their destruction, another sandbox's block and
 * frame, Linux's memory, addresses just past an object's end) and the
 * boundaries of every integer (0, 1, a page and one either side of it,
 * sign bits, all ones).  One draw in sixteen, of any kind, is a boundary
 * or a value of another kind.
 *
 * No value is one the fuzzer itself depends on: a pointer is into its
 * scratch buffers, a block or a frame it holds for the services and never
 * reads, or memory that is not the sandbox's; an upcall entry is vOSTD's
 * own or one the endovisor must refuse.  So a service that wrongly obeys
 * a call shows up as a failed check, not as a fuzzer that corrupted
 * itself.  The address just past a block's end is the one that needs a
 * question (past_end): what follows a block may be the sandbox's own
 * memory, a vCPU's stack or the globals page, which the services rightly
 * write.
 */
#include "fuzz.h"

#define NONCANON	0x8000000000000000UL
#define LINUX_DIRECT	0xffff888000000000UL	/* Linux's direct map */
#define LINUX_TEXT	0xffffffff81000000UL

/* Readable by the sandbox (its module's read-only data), writable by none. */
static const u64 fuzz_rodata[8] = { 0xcc, 0xcc };

static const unsigned long boundaries[] = {
	0, 1, 2, 7, 8, 63, 64, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE,
	EV_LOG_LINE_MAX, EV_LOG_LINE_MAX + 1, EV_GRANT_MAX_CALL, EV_GRANT_MAX_CALL + 1,
	EV_BATCH_MAX, EV_BATCH_MAX + 1, EV_MEM_MAX_BLOCK, EV_MEM_MAX_BLOCK + 1,
	EV_MAX_VMS, EV_MAX_VMS + 1, EV_MAX_FPUS, EV_MAX_FPUS + 1, EV_STAMPS_MAX + 1,
	0x7fffffffUL, 0x80000000UL, 0xffffffffUL, 0x100000000UL,
	0x7fffffffffffffffUL, NONCANON, ~0UL, ~0UL - 1, -PAGE,
};

/*
 * p, the first byte after a block of the fuzzer's, if it is no one's: a
 * service must refuse it.  If the sandbox owns it, it is the start of
 * something else of the sandbox's, perhaps vOSTD's stack header, and a
 * service may write there; the fuzzer passes a non-canonical address
 * instead.  (Found on the debug kernel: frame_grant wrote frames over the
 * stack's header, through a block's end, and the next upcall read them
 * as the vCPU's shared page.)
 */
static unsigned long past_end(unsigned long p)
{
	return vostd_call(EV_SVC_CALIBRATE, EV_CAL_OWNS, p, 1, 0, 0) == -EFAULT ? p : NONCANON;
}

static unsigned long boundary(struct fuzz_cpu *c)
{
	return boundaries[fuzz_below(c, ARRAY_SIZE(boundaries))];
}

/* Its own five times in eight, the shared two, the other vCPU's own one. */
static struct fuzz_objs *owner(struct fuzz_cpu *c)
{
	struct fuzz *f = F();

	switch (fuzz_below(c, 8)) {
	case 0:
	case 1:
		return &f->shared;
	case 2:
		return &f->cpu[!c->id].own;
	default:
		return &c->own;
	}
}

/* A slot's value, read once: the other vCPU may be changing it. */
static long slot(struct fuzz_cpu *c, const long *v, unsigned int n)
{
	return READ_ONCE(v[fuzz_below(c, n)]);
}

static unsigned long handle(struct fuzz_cpu *c, bool fpu)
{
	struct fuzz_objs *o = owner(c);
	unsigned long max = fpu ? EV_MAX_FPUS : EV_MAX_VMS;

	switch (fuzz_below(c, 8)) {
	case 0:
		return slot(c, fpu ? o->dead_fpus : o->dead_vms, FUZZ_POOL);
	case 1:
		/* a handle no one has shown this vCPU, perhaps the next one given */
		return fuzz_below(c, max + 2);
	case 2:
		return boundary(c);
	default:
		return slot(c, fpu ? o->fpus : o->vms, FUZZ_POOL);
	}
}

/* A heap block's address: its start mostly, else an edge or inside it. */
static unsigned long block(struct fuzz_cpu *c)
{
	struct fuzz_objs *o = owner(c);
	unsigned int i = fuzz_below(c, FUZZ_POOL);
	long b = READ_ONCE(o->blocks[i]), size;

	if (!b || fuzz_below(c, 8) == 0)
		return READ_ONCE(o->dead_blocks[i]);
	size = fuzz_block_size(b);
	switch (fuzz_below(c, 8)) {
	case 0:
		return size > 0 ? past_end(b + size) : b + 1;
	case 1:
		return size > 0 ? b + size - 1 : b;
	case 2:
		/* inside it, or past the end of a small one */
		return size > 8 ? b + 8 : past_end(b + 8);
	default:
		return b;
	}
}

static unsigned long frame(struct fuzz_cpu *c)
{
	struct fuzz_objs *o = owner(c);
	unsigned long f = slot(c, o->frames, FUZZ_FRAMES);

	switch (fuzz_below(c, 8)) {
	case 0:
		return F()->other_frame;
	case 1:
		return f ? f + PAGE - 8 : 0;
	case 2:
		return f ? f + 1 : 0;
	default:
		return f;
	}
}

/* Memory that is not the sandbox's, or not the sandbox's to write. */
static unsigned long foreign(struct fuzz_cpu *c)
{
	const unsigned long addrs[] = {
		0, 0x1000, EV_TENANT_BASE, LINUX_DIRECT, LINUX_DIRECT + 0x100000,
		LINUX_TEXT, NONCANON, (unsigned long)THIS_MODULE,
		(unsigned long)fuzz_rodata, (unsigned long)fuzz_rodata + sizeof(fuzz_rodata) - 8,
		F()->other_block, F()->other_block + 8,
	};

	return addrs[fuzz_below(c, ARRAY_SIZE(addrs))];
}

/* A pointer for a service to read or write through. */
static unsigned long pointer(struct fuzz_cpu *c)
{
	const unsigned long offsets[] = { 0, 0, 0, 8, 64, PAGE - 8, PAGE, FUZZ_SCRATCH - 64,
					  FUZZ_SCRATCH - 8, FUZZ_SCRATCH - 1 };

	switch (fuzz_below(c, 9)) {
	case 0:
	case 1:
		return block(c);
	case 2:
		return frame(c);
	case 3:
		return foreign(c);
	case 4:
		return past_end((unsigned long)c->scratch + FUZZ_SCRATCH);
	default:
		return (unsigned long)c->scratch + offsets[fuzz_below(c, ARRAY_SIZE(offsets))];
	}
}

/* A tenant address: a few pages that maps will collide on, and the edges. */
static unsigned long tenant_va(struct fuzz_cpu *c)
{
	switch (fuzz_below(c, 8)) {
	case 0:
		return EV_TENANT_BASE + EV_TENANT_SIZE - PAGE * fuzz_below(c, 3);
	case 1:
		return EV_TENANT_BASE - PAGE;
	case 2:
		return EV_TENANT_BASE + fuzz_below(c, 16) * PAGE + fuzz_below(c, PAGE);
	case 3:
		return foreign(c);
	default:
		return EV_TENANT_BASE + fuzz_below(c, 16) * PAGE;
	}
}

/* A count, a length or a size: small mostly, else a boundary. */
static unsigned long number(struct fuzz_cpu *c)
{
	switch (fuzz_below(c, 4)) {
	case 0:
		return boundary(c);
	case 1:
		return fuzz_below(c, 4 * PAGE + 2);
	default:
		return fuzz_below(c, 17);
	}
}

static unsigned long bits(struct fuzz_cpu *c)
{
	return fuzz_below(c, 4) ? fuzz_below(c, 9) : boundary(c);
}

/* Anything: an argument whose meaning depends on another (dst, src, a0). */
static unsigned long anything(struct fuzz_cpu *c)
{
	switch (fuzz_below(c, 5)) {
	case 0:
		return handle(c, false);
	case 1:
		return tenant_va(c);
	case 2:
		return number(c);
	default:
		return pointer(c);
	}
}

unsigned long fuzz_draw(struct fuzz_cpu *c, enum fuzz_kind k)
{
	if (!fuzz_below(c, 16))
		return fuzz_below(c, 2) ? boundary(c) : anything(c);
	switch (k) {
	case K_vm:
		return handle(c, false);
	case K_fpu:
		return handle(c, true);
	case K_address:
		return fuzz_below(c, 8) ? block(c) : foreign(c);
	case K_buf:
	case K_out:
	case K_ops:
	case K_ctx:
		return pointer(c);
	case K_frame:
		return fuzz_below(c, 8) ? frame(c) : pointer(c);
	case K_va:
		return tenant_va(c);
	case K_len:
	case K_size:
	case K_count:
	case K_pages:
		return number(c);
	case K_stamps:
		return fuzz_below(c, EV_STAMPS_MAX + 2);
	case K_prot:
	case K_flags:
		return bits(c);
	case K_what:
		return fuzz_below(c, 8) ? fuzz_below(c, EV_CAL_VM_BYTES + 2) : boundary(c);
	case K_vcpu:
		return fuzz_below(c, 4) ? fuzz_below(c, vostd_nr_cpus() + 1) : boundary(c);
	case K_entry:
		/* vOSTD's own entry, or one set_upcall must refuse */
		return fuzz_below(c, 4) ? pointer(c) : (unsigned long)vostd_upcall_entry;
	case K_dst:
	case K_src:
	case K_a0:
	case K_a1:
	case K_a2:
	case K_a3:
		return anything(c);
	}
	return boundary(c);
}
