// SPDX-License-Identifier: GPL-2.0
/*
 * fpu_read and fpu_write, the image of a context's x87 and SSE registers
 * that a kernel proper puts in a signal frame: what comes back for a new
 * context, what a write keeps, and the images and buffers refused.  An
 * MXCSR with a bit the processor lacks would make FXRSTOR fault in the
 * endovisor; a buffer not the sandbox's would make it read or write
 * someone else's memory.
 */
#include "hostile.h"

#define NONCANON	0x8000000000000000UL
#define MXCSR		24		/* its offset in the image */
#define XMM0		160

static const u8 ro_image[VOSTD_FXSAVE_SIZE] __aligned(16);

static u32 word(const u8 *img, unsigned int off)
{
	return *(const u32 *)(img + off);
}

/* busy: a context vCPU 1's carrier has loaded. */
void fpu_image_cases(long busy)
{
	u8 *img = vostd_alloc(2 * VOSTD_FXSAVE_SIZE, true), *back = img + VOSTD_FXSAVE_SIZE;
	char *small = vostd_heap_alloc(64, true);
	long f = call(EV_SVC_FPU_CREATE, 0, 0, 0, 0);

	if (!img || vostd_is_err(f)) {
		expect("fpu_image_setup", 0, img ? f : -ENOMEM);
		goto out;
	}
	expect("fpu_read_initial", 0, call(EV_SVC_FPU_READ, f, (unsigned long)img, 0, 0));
	vostd_test("fpu_read_initial_state", (*(u16 *)img == 0x37f) && word(img, MXCSR) == 0x1f80,
		   "cwd=%x mxcsr=%x", *(u16 *)img, word(img, MXCSR));
	/* A value in xmm0, and a write that keeps it. */
	*(u64 *)(img + XMM0) = 0x1122334455667788ULL;
	expect("fpu_write_ok", 0, call(EV_SVC_FPU_WRITE, f, (unsigned long)img, 0, 0));
	call(EV_SVC_FPU_READ, f, (unsigned long)back, 0, 0);
	vostd_test("fpu_write_kept", *(u64 *)(back + XMM0) == 0x1122334455667788ULL,
		   "xmm0=%llx", *(u64 *)(back + XMM0));
	/* Every MXCSR bit set: reserved ones among them, which FXRSTOR faults on. */
	*(u32 *)(img + MXCSR) = ~0U;
	*(u64 *)(img + XMM0) = 1;
	expect("fpu_write_bad_mxcsr", -EINVAL, call(EV_SVC_FPU_WRITE, f, (unsigned long)img, 0, 0));
	call(EV_SVC_FPU_READ, f, (unsigned long)back, 0, 0);
	vostd_test("fpu_write_bad_mxcsr_changed_nothing",
		   *(u64 *)(back + XMM0) == 0x1122334455667788ULL && word(back, MXCSR) == 0x1f80,
		   "xmm0=%llx mxcsr=%x", *(u64 *)(back + XMM0), word(back, MXCSR));
	expect("fpu_read_bad_handle", -EBADF,
	       call(EV_SVC_FPU_READ, EV_MAX_FPUS + 1, (unsigned long)img, 0, 0));
	expect("fpu_write_zero_handle", -EBADF,
	       call(EV_SVC_FPU_WRITE, 0, (unsigned long)img, 0, 0));
	expect("fpu_read_noncanonical", -EFAULT, call(EV_SVC_FPU_READ, f, NONCANON, 0, 0));
	expect("fpu_write_noncanonical", -EFAULT, call(EV_SVC_FPU_WRITE, f, NONCANON, 0, 0));
	expect("fpu_read_into_rodata", -EFAULT,
	       call(EV_SVC_FPU_READ, f, (unsigned long)ro_image, 0, 0));
	/* The image ends past the block: the last bytes are someone else's. */
	expect("fpu_read_past_block", small ? -EFAULT : -ENOMEM,
	       small ? call(EV_SVC_FPU_READ, f, (unsigned long)small, 0, 0) : -ENOMEM);
	expect("fpu_read_loaded_elsewhere", vostd_is_err(busy) ? busy : -EBUSY,
	       vostd_is_err(busy) ? busy : call(EV_SVC_FPU_READ, busy, (unsigned long)img, 0, 0));
	expect("fpu_write_loaded_elsewhere", vostd_is_err(busy) ? busy : -EBUSY,
	       vostd_is_err(busy) ? busy : call(EV_SVC_FPU_WRITE, busy, (unsigned long)back, 0, 0));
	call(EV_SVC_FPU_DESTROY, f, 0, 0, 0);
	expect("fpu_read_destroyed", -EBADF, call(EV_SVC_FPU_READ, f, (unsigned long)img, 0, 0));
out:
	if (small)
		vostd_heap_free(small);
	vostd_free(img);
}
