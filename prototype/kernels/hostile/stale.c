// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: the ownership check raced against a free, from two vCPUs
 * (stale mode).
 *
 * vCPU 0 allocates a block, shows it to vCPU 1, frees it after a spin of
 * varying length, and waits until vCPU 1 has tried the block once more.
 * Meanwhile vCPU 1 copies out of the block again and again, so that some
 * of its checks of the block run while the free takes it out of the
 * table.  Once mem_free has returned, the block is no longer the
 * sandbox's, and vCPU 1's next copy out of it must be refused.  A copy
 * that passes is a stale pass: a vCPU's cache of the last range it found
 * owned (ev_vcpu_owns) that outlived the block, through which the
 * services would read and write memory Linux may have handed to anyone.
 * Nothing frees between the free and that copy, so a stale cache is not
 * made stale again by a later free before it is tried; and nothing
 * allocates, so the block is not given out again before it either.
 *
 * The copies read the block and write a tenant page: a stale pass reads
 * freed memory, but writes none of Linux's.
 */
#include "hostile.h"

#define VA		(EV_TENANT_BASE + 0x300000)

static struct hostile_stale *S(void)
{
	return &H()->stale;
}

static void await64(u64 *v, u64 want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want)
		asm volatile("pause");
}

/* vCPU 0: allocate, show, free, and wait for vCPU 1's try after the free. */
void stale_cases(u64 rounds)
{
	struct hostile_stale *s = S();
	u64 r, failed = 0, t0 = vostd_cycles();

	while (!__atomic_load_n(&s->ap_ready, __ATOMIC_ACQUIRE))
		asm volatile("pause");
	for (r = 0; r < rounds; r++) {
		long blk = call(EV_SVC_MEM_ALLOC, 64, 0, 0, 0);
		u32 spin;

		if (vostd_is_err(blk)) {
			failed++;
			break;
		}
		WRITE_ONCE(s->blk, (char *)blk);
		__atomic_store_n(&s->seq, 2 * r + 1, __ATOMIC_RELEASE);
		/* No pause: under emulation it leaves the emulator's loop. */
		for (spin = (u32)(r * 2654435761u) >> 22; spin; spin--)
			barrier();
		failed += !!call(EV_SVC_MEM_FREE, blk, 0, 0, 0);
		__atomic_store_n(&s->seq, 2 * r + 2, __ATOMIC_RELEASE);
		await64(&s->ap_seq, 2 * r + 2);
	}
	WRITE_ONCE(s->done, 1);
	vostd_println("hostile: stale %llu ms rounds=%llu racing=%llu found=%llu passes_after_free=%llu other=%llu",
		      vostd_cycles_to_ns(vostd_cycles() - t0) / 1000000, r, s->racing, s->found,
		      s->passes, s->other);
	vostd_println(EV_FIG("rounds", "%llu", "min", "rounds"), r);
	vostd_println(EV_FIG("passes", "%llu", "max", "copies"), s->passes);
	vostd_println(EV_FIG("racing_found", "%llu", "min", "copies"), s->found);
	expect("stale_rounds", rounds, r);
	expect("stale_frees", 0, failed);
	expect("stale_no_pass_after_free", 0, s->passes);
	expect("stale_answers_0_or_efault", 0, s->other);
}

/* vCPU 1: copy out of the live block; once it is freed, once more. */
void stale_ap(void)
{
	struct hostile_stale *s = S();
	u64 tried = 0;
	void *frame;
	long vm = copy_space(&frame);

	if (vostd_is_err(vm)) {
		s->other++;
		vm = 0;
	}
	/*
	 * Only now may vCPU 0 begin: the space and the frame took heap blocks
	 * of vOSTD's, which could be the block vCPU 0 has just freed, and then
	 * the copy after the free would find it live, and rightly.
	 */
	__atomic_store_n(&s->ap_ready, 1, __ATOMIC_RELEASE);
	while (!READ_ONCE(s->done)) {
		u64 seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		unsigned long blk = (unsigned long)READ_ONCE(s->blk);
		long got;

		if (seq == tried) {
			asm volatile("pause");
			continue;
		}
		got = call(EV_SVC_COPY_TO_TENANT, vm, VA, blk, 8);
		s->other += got && got != -EFAULT;
		if (seq & 1) {
			s->racing++;
			s->found += !got;
			continue;
		}
		/* The free has returned: the block is no longer the sandbox's. */
		if (!got && s->passes++ < 4)
			vostd_println("hostile: stale pass after free: block %lx round %llu",
				      blk, seq / 2 - 1);
		tried = seq;
		__atomic_store_n(&s->ap_seq, seq, __ATOMIC_RELEASE);
	}
	if (vm)
		call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	if (frame)
		vostd_frame_free(frame);
}
