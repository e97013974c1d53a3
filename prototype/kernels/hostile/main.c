// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a sandbox kernel that calls every service with arguments it has
 * no right to, and checks that each is refused with the error ev_abi.h
 * documents.  It uses the crossing directly (vostd_call), not vOSTD's
 * wrappers, which would refuse some of these calls themselves.
 *
 *   test            every case on vCPU 0, one EVTEST line each; on vCPU 1,
 *                   once vCPU 0's kernel has returned, the calls a sandbox
 *                   whose teardown has begun may and may not make
 *   stale           a block freed on vCPU 0 while vCPU 1 copies out of it,
 *                   hundreds of thousands of times: once the free has
 *                   returned, no copy may pass (stale.c)
 *   uaf, victim     writes after free, till the quota, on two vCPUs, and a
 *                   sandbox beside that checks its own blocks (contain.c)
 *   park            a masked spin on vCPU 0 and an idle vCPU 1 while the
 *                   suite stops and freezes the launcher (parking.c)
 *   hold            a heap block, a frame and an address space of its own,
 *                   named in a "hostile: hold" line; then it spins in sandbox
 *                   code, masked, never crossing again, until it is killed
 *   attack B F      the calls another sandbox could make on the block B and
 *                   the frame F of the one holding them
 *   race, racekill, firstrun, calloop, ctxfree
 *                   tenants' traps under kicks, kills, first entries and
 *                   a context freed mid-run (traps.c)
 *   fill WHAT       as much of a quota as it will give, held until killed
 *                   (memory.c)
 *
 * A case line reads: EVTEST hostile NAME ok|FAIL want=CODE got=CODE.
 */
#include "hostile.h"
#include "traps.h"

#define NONCANON	0x8000000000000000UL
#define KERNEL_VA	0xffff888000000000UL	/* Linux's direct map: not the sandbox's */
#define KERNEL_TEXT	0xffffffff81000000UL
#define VA		(EV_TENANT_BASE + 0x200000)

/* An errno's name, or the number itself in buf. */
static const char *code_name(long e, char *buf, size_t size)
{
	static const struct {
		long code;
		const char *name;
	} names[] = {
		{ 0, "0" }, { -EPERM, "-EPERM" }, { -ENOENT, "-ENOENT" },
		{ -EINTR, "-EINTR" }, { -EBADF, "-EBADF" }, { -ENOMEM, "-ENOMEM" },
		{ -EACCES, "-EACCES" }, { -EFAULT, "-EFAULT" }, { -EBUSY, "-EBUSY" },
		{ -EEXIST, "-EEXIST" }, { -EINVAL, "-EINVAL" }, { -ENOSPC, "-ENOSPC" },
		{ -ENOSYS, "-ENOSYS" }, { -ESHUTDOWN, "-ESHUTDOWN" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].code == e)
			return names[i].name;
	vostd_snprintf(buf, size, "%ld", e);
	return buf;
}

void expect(const char *name, long want, long got)
{
	char wbuf[24], gbuf[24];

	vostd_test(name, got == want, "want=%s got=%s", code_name(want, wbuf, sizeof(wbuf)),
		   code_name(got, gbuf, sizeof(gbuf)));
}

static int a_static;
/* Read-only data: the sandbox's to read, no service's to write. */
static const u64 a_const[2] = { 1, 2 };
static const struct ev_vm_op ro_ops[1] = { { .op = 99 } };
static const struct ev_tenant_ctx ro_ctx = { .rip = VA, .rsp = VA + PAGE };

static long some_function(void)
{
	return 0;
}

/* ---- the heap and the log ---- */

static void heap_cases(void)
{
	char *blk = (char *)call(EV_SVC_MEM_ALLOC, 16, 0, 0, 0);
	long big[EV_MEM_QUOTA / EV_MEM_MAX_BLOCK + 2], r = 0;
	char *freed = (char *)call(EV_SVC_MEM_ALLOC, 64, 0, 0, 0);
	unsigned int i, n = 0;
	char stack_buf[8] = "x";

	call(EV_SVC_MEM_FREE, (unsigned long)freed, 0, 0, 0);
	expect("log_null", -EFAULT, call(EV_SVC_LOG, 0, 8, 0, 0));
	expect("log_zero_length", -EINVAL, call(EV_SVC_LOG, (unsigned long)blk, 0, 0, 0));
	expect("log_too_long", -EINVAL,
	       call(EV_SVC_LOG, (unsigned long)blk, EV_LOG_LINE_MAX + 1, 0, 0));
	expect("log_from_kernel_text", -EFAULT,
	       call(EV_SVC_LOG, (unsigned long)some_function, 8, 0, 0));
	expect("log_from_linux_memory", -EFAULT, call(EV_SVC_LOG, KERNEL_VA, 8, 0, 0));
	expect("log_noncanonical", -EFAULT, call(EV_SVC_LOG, NONCANON, 8, 0, 0));
	expect("log_user_address", -EFAULT, call(EV_SVC_LOG, 0x1000, 8, 0, 0));
	expect("log_past_block_end", -EFAULT, call(EV_SVC_LOG, (unsigned long)blk + 8, 16, 0, 0));
	expect("log_freed_block", -EFAULT, call(EV_SVC_LOG, (unsigned long)freed, 8, 0, 0));
	expect("log_own_stack", 0, call(EV_SVC_LOG, (unsigned long)stack_buf, 1, 0, 0));
	expect("log_from_rodata", 0, call(EV_SVC_LOG, (unsigned long)a_const, 8, 0, 0));
	expect("log_from_own_module_struct", -EFAULT, call(EV_SVC_LOG, (unsigned long)THIS_MODULE, 8, 0, 0));

	expect("alloc_zero", -EINVAL, call(EV_SVC_MEM_ALLOC, 0, 0, 0, 0));
	expect("alloc_over_block_max", -EINVAL,
	       call(EV_SVC_MEM_ALLOC, EV_MEM_MAX_BLOCK + 1, 0, 0, 0));
	expect("alloc_huge", -EINVAL, call(EV_SVC_MEM_ALLOC, ~0UL, 0, 0, 0));
	expect("alloc_unknown_flags", -EINVAL, call(EV_SVC_MEM_ALLOC, 64, 0x100, 0, 0));
	/* Largest blocks until the quota (or Linux) says no. */
	for (i = 0; i < ARRAY_SIZE(big); i++) {
		r = call(EV_SVC_MEM_ALLOC, EV_MEM_MAX_BLOCK, 0, 0, 0);
		if (vostd_is_err(r))
			break;
		big[n++] = r;
	}
	expect("alloc_past_quota", -ENOMEM, r);
	for (i = 0; i < n; i++)
		call(EV_SVC_MEM_FREE, big[i], 0, 0, 0);

	expect("free_null", -ENOENT, call(EV_SVC_MEM_FREE, 0, 0, 0, 0));
	expect("free_static", -ENOENT, call(EV_SVC_MEM_FREE, (unsigned long)&a_static, 0, 0, 0));
	expect("free_interior", -EINVAL, call(EV_SVC_MEM_FREE, (unsigned long)blk + 8, 0, 0, 0));
	expect("free_noncanonical", -ENOENT, call(EV_SVC_MEM_FREE, NONCANON, 0, 0, 0));
	expect("free_linux_memory", -ENOENT, call(EV_SVC_MEM_FREE, KERNEL_VA, 0, 0, 0));
	expect("free", 0, call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0));
	expect("free_double", -ENOENT, call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0));
}

/* ---- vCPUs and upcalls ---- */

static void vcpu_cases(void)
{
	char *blk = vostd_alloc(64, false);
	int local;

	expect("kick_no_such_vcpu", -EINVAL, call(EV_SVC_VCPU_KICK, vostd_nr_cpus(), 0, 0, 0));
	expect("kick_minus_one", -EINVAL, call(EV_SVC_VCPU_KICK, -1UL, 0, 0, 0));
	expect("kick_past_max_vcpus", -EINVAL, call(EV_SVC_VCPU_KICK, EV_MAX_VCPUS, 0, 0, 0));
	expect("set_upcall_null", -EFAULT, call(EV_SVC_SET_UPCALL, 0, 0, 0, 0));
	expect("set_upcall_heap", -EFAULT, call(EV_SVC_SET_UPCALL, (unsigned long)blk, 0, 0, 0));
	expect("set_upcall_stack", -EFAULT,
	       call(EV_SVC_SET_UPCALL, (unsigned long)&local, 0, 0, 0));
	expect("set_upcall_data", -EFAULT,
	       call(EV_SVC_SET_UPCALL, (unsigned long)&a_static, 0, 0, 0));
	expect("set_upcall_linux_text", -EFAULT, call(EV_SVC_SET_UPCALL, KERNEL_TEXT, 0, 0, 0));
	/* [~0, ~0 + 1) wraps to end at 0: found by the fuzzer, once accepted */
	expect("set_upcall_all_ones", -EFAULT, call(EV_SVC_SET_UPCALL, ~0UL, 0, 0, 0));
	expect("service_past_table", -ENOSYS, call(EV_NR_SERVICES, 0, 0, 0, 0));
	expect("service_huge", -ENOSYS, call(~0UL, 0, 0, 0, 0));
	expect("service_1000", -ENOSYS, call(1000, 0, 0, 0, 0));
	expect("calibrate_unknown", -EINVAL, call(EV_SVC_CALIBRATE, 999, 0, 0, 0));
	expect("calibrate_copy_bad_space", -EBADF, call(EV_SVC_CALIBRATE, EV_CAL_COPY, 0, 0, 0));
	expect("calibrate_kmalloc_too_many", -EINVAL,
	       call(EV_SVC_CALIBRATE, EV_CAL_KMALLOC, ~0UL, 0, 0));
	expect("calibrate_owns_linux_memory", -EFAULT,
	       call(EV_SVC_CALIBRATE, EV_CAL_OWNS, KERNEL_VA, 8, 1));
	expect("calibrate_owns_huge", -EINVAL,
	       call(EV_SVC_CALIBRATE, EV_CAL_OWNS, (unsigned long)blk, ~0UL, 0));
	vostd_free(blk);
}

/*
 * The timer (timer_at) is the sandbox's to write and any value must be
 * harmless: a time long past kicks at every tick and ends an idle at
 * once; a time never reached leaves idling to kicks; a near time ends an
 * idle no sooner than itself.  Kicks that the tick sends while this vCPU
 * spins unmasked are taken by vOSTD's upcall handler, with no scheduler.
 */
static void timer_cases(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();
	u64 at, end;

	WRITE_ONCE(sh->timer_at, 1);
	expect("idle_timer_past", 0, call(EV_SVC_VCPU_IDLE, 0, 0, 0, 0));
	end = vostd_cycles() + vostd_ns_to_cycles(20000000);
	while (vostd_cycles() < end)
		asm volatile("pause");	/* kicked at each tick meanwhile */
	WRITE_ONCE(sh->timer_at, ~0ULL);
	expect("kick_timer_never", 0, call(EV_SVC_VCPU_KICK, 0, 0, 0, 0));
	at = vostd_cycles() + vostd_ns_to_cycles(20000000);
	WRITE_ONCE(sh->timer_at, at);
	expect("idle_timer_near", 0, call(EV_SVC_VCPU_IDLE, 0, 0, 0, 0));
	end = vostd_cycles();
	vostd_test("idle_timer_not_early", end >= at, "woke %lld cycles after its time",
		   (long long)(end - at));
	WRITE_ONCE(sh->timer_at, 0);
}

/* ---- address spaces, page tables and copies ---- */

static void vm_cases(void)
{
	u64 *out = vostd_heap_alloc(8, false);
	char *page_blk = vostd_alloc(PAGE, false);
	char *buf = vostd_heap_alloc(64, true);
	struct ev_vm_op *ops = vostd_heap_alloc(2 * sizeof(*ops), true);
	/* An endovisor block, not a slab object: its end is where owning ends. */
	struct ev_tenant_ctx *ctx = vostd_heap_alloc(sizeof(*ctx), true);
	long vms[EV_MAX_VMS + 1], vm, gone, r = 0;
	void *frame = vostd_frame_alloc(), *ro = vostd_frame_alloc();
	unsigned int i, n = 0;

	if (!out || !page_blk || !buf || !ops || !ctx || !frame || !ro) {
		expect("setup", 0, -ENOMEM);
		return;
	}
	expect("grant_zero", -EINVAL, call(EV_SVC_FRAME_GRANT, 0, (unsigned long)out, 0, 0));
	expect("grant_over_call_max", -EINVAL,
	       call(EV_SVC_FRAME_GRANT, EV_GRANT_MAX_CALL + 1, (unsigned long)out, 0, 0));
	expect("grant_out_null", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, 0, 0, 0));
	expect("grant_out_kernel_text", -EFAULT,
	       call(EV_SVC_FRAME_GRANT, 1, (unsigned long)some_function, 0, 0));
	expect("grant_out_too_small", -EFAULT,
	       call(EV_SVC_FRAME_GRANT, 2, (unsigned long)out, 0, 0));
	expect("grant_out_linux_memory", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, KERNEL_VA, 0, 0));
	expect("grant_out_rodata", -EFAULT,
	       call(EV_SVC_FRAME_GRANT, 1, (unsigned long)a_const, 0, 0));
	/* Linux's struct module lies in the module's data, and is Linux's. */
	expect("grant_out_own_module_struct", -EFAULT,
	       call(EV_SVC_FRAME_GRANT, 1, (unsigned long)THIS_MODULE, 0, 0));

	for (i = 0; i < ARRAY_SIZE(vms); i++) {
		r = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);
		if (vostd_is_err(r))
			break;
		vms[n++] = r;
	}
	expect("vm_create_past_max", -ENOSPC, r);
	for (i = 1; i < n; i++)
		call(EV_SVC_VM_DESTROY, vms[i], 0, 0, 0);
	vm = n ? vms[0] : 0;
	gone = n > 1 ? vms[1] : EV_MAX_VMS;
	expect("vm_destroy_zero", -EBADF, call(EV_SVC_VM_DESTROY, 0, 0, 0, 0));
	expect("vm_destroy_past_max", -EBADF, call(EV_SVC_VM_DESTROY, EV_MAX_VMS + 1, 0, 0, 0));
	expect("vm_destroy_huge", -EBADF, call(EV_SVC_VM_DESTROY, ~0UL, 0, 0, 0));
	expect("vm_destroy_twice", -EBADF, call(EV_SVC_VM_DESTROY, gone, 0, 0, 0));

	expect("map_bad_handle", -EBADF, call(EV_SVC_VM_MAP, 0, VA, (unsigned long)frame, RW));
	expect("map_destroyed_space", -EBADF,
	       call(EV_SVC_VM_MAP, gone, VA, (unsigned long)frame, RW));
	expect("map_unaligned_va", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, VA + 1, (unsigned long)frame, RW));
	expect("map_below_region", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, EV_TENANT_BASE - PAGE, (unsigned long)frame, RW));
	expect("map_region_end", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, EV_TENANT_BASE + EV_TENANT_SIZE, (unsigned long)frame, RW));
	expect("map_noncanonical_va", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, NONCANON, (unsigned long)frame, RW));
	expect("map_kernel_va", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, KERNEL_VA, (unsigned long)frame, RW));
	expect("map_heap_page", -EACCES, call(EV_SVC_VM_MAP, vm, VA, (unsigned long)page_blk, RW));
	expect("map_unaligned_frame", -EACCES,
	       call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame + 8, RW));
	expect("map_kernel_text", -EACCES,
	       call(EV_SVC_VM_MAP, vm, VA, (unsigned long)some_function & ~(PAGE - 1), RW));
	expect("map_linux_page", -EACCES, call(EV_SVC_VM_MAP, vm, VA, KERNEL_VA, RW));
	expect("map_null_frame", -EACCES, call(EV_SVC_VM_MAP, vm, VA, 0, RW));
	expect("map_prot_none", -EINVAL, call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, 0));
	expect("map_prot_write_only", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, EV_PROT_WRITE));
	expect("map_prot_unknown_bits", -EINVAL,
	       call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, 0x11));
	expect("map", 0, call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, RW));
	expect("map_over_mapping", -EEXIST, call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, RW));

	expect("query_bad_handle", -EBADF, call(EV_SVC_VM_QUERY, 0, VA, 0, 0));
	expect("query_noncanonical", -EINVAL, call(EV_SVC_VM_QUERY, vm, NONCANON, 0, 0));
	expect("query_kernel_va", -EINVAL, call(EV_SVC_VM_QUERY, vm, KERNEL_VA, 0, 0));
	expect("query_below_region", -EINVAL,
	       call(EV_SVC_VM_QUERY, vm, EV_TENANT_BASE - PAGE, 0, 0));
	expect("query_unmapped", -ENOENT, call(EV_SVC_VM_QUERY, vm, VA + 16 * PAGE, 0, 0));
	/* The one that succeeds names the frame and its protection, nothing else. */
	expect("query_mapped", (long)((unsigned long)frame | RW),
	       call(EV_SVC_VM_QUERY, vm, VA, 0, 0));

	expect("protect_unmapped", -ENOENT,
	       call(EV_SVC_VM_PROTECT, vm, VA + 16 * PAGE, 1, EV_PROT_READ));
	expect("protect_zero_pages", -EINVAL, call(EV_SVC_VM_PROTECT, vm, VA, 0, EV_PROT_READ));
	expect("protect_huge_count", -EINVAL,
	       call(EV_SVC_VM_PROTECT, vm, VA, 1UL << 40, EV_PROT_READ));
	expect("protect_past_region_end", -EINVAL,
	       call(EV_SVC_VM_PROTECT, vm, EV_TENANT_BASE + EV_TENANT_SIZE - PAGE, 2,
		    EV_PROT_READ));
	expect("protect_unknown_prot", -EINVAL, call(EV_SVC_VM_PROTECT, vm, VA, 1, 0x40));
	expect("protect_half_mapped", -ENOENT, call(EV_SVC_VM_PROTECT, vm, VA, 2, EV_PROT_READ));
	/* The refused protect changed nothing: the mapped page is still writable. */
	expect("protect_half_mapped_left_it", 0,
	       call(EV_SVC_COPY_TO_TENANT, vm, VA, (unsigned long)buf, 8));
	expect("unmap_unmapped", -ENOENT, call(EV_SVC_VM_UNMAP, vm, VA + 16 * PAGE, 1, 0));
	expect("unmap_unaligned", -EINVAL, call(EV_SVC_VM_UNMAP, vm, VA + 8, 1, 0));
	expect("unmap_bad_handle", -EBADF, call(EV_SVC_VM_UNMAP, 0, VA, 1, 0));

	expect("batch_ops_null", -EFAULT, call(EV_SVC_VM_BATCH, vm, 0, 1, 0));
	expect("batch_zero_ops", -EINVAL, call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, 0, 0));
	expect("batch_over_max", -EINVAL,
	       call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, EV_BATCH_MAX + 1, 0));
	expect("batch_ops_past_block", -EFAULT,
	       call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, 3, 0));
	expect("batch_ops_kernel_text", -EFAULT,
	       call(EV_SVC_VM_BATCH, vm, (unsigned long)some_function, 1, 0));
	/* Its failed op would be marked in place: read-only data is refused. */
	expect("batch_ops_rodata", -EFAULT, call(EV_SVC_VM_BATCH, vm, (unsigned long)ro_ops, 1, 0));
	ops[0] = (struct ev_vm_op){ .op = 99, .va = VA + PAGE };
	expect("batch_unknown_op", -EINVAL, call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, 1, 0));
	expect("batch_marks_failed_op", 99 | EV_VM_OP_FAILED, ops[0].op);
	ops[0] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RW, .va = VA + PAGE,
				    .frame = (unsigned long)ro };
	ops[1] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RW, .va = VA,
				    .frame = (unsigned long)frame };
	expect("batch_second_op_fails", -EEXIST,
	       call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, 2, 0));
	expect("batch_first_op_stays_done", 0,
	       call(EV_SVC_VM_PROTECT, vm, VA + PAGE, 1, EV_PROT_READ));

	expect("copy_from_unmapped", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf, VA + 16 * PAGE, 8));
	expect("copy_from_kernel_address", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf, KERNEL_VA, 8));
	expect("copy_from_into_kernel_text", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)some_function, VA, 8));
	expect("copy_from_into_linux_memory", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, KERNEL_VA, VA, 8));
	expect("copy_from_into_rodata", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)a_const, VA, 8));
	expect("copy_from_into_own_module_struct", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)THIS_MODULE, VA, 8));
	expect("copy_to_from_rodata", 0,
	       call(EV_SVC_COPY_TO_TENANT, vm, VA, (unsigned long)a_const, 8));
	expect("copy_from_zero_length", -EINVAL,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf, VA, 0));
	expect("copy_from_too_long", -EINVAL,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf, VA, 2UL << 20));
	expect("copy_from_past_region_end", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf,
		    EV_TENANT_BASE + EV_TENANT_SIZE - 8, 16));
	expect("copy_from_past_buffer_end", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)buf, VA, 128));
	expect("copy_to_read_only_page", -EFAULT,
	       call(EV_SVC_COPY_TO_TENANT, vm, VA + PAGE, (unsigned long)buf, 8));
	expect("copy_to_from_linux_memory", -EFAULT,
	       call(EV_SVC_COPY_TO_TENANT, vm, VA, KERNEL_VA, 8));
	expect("copy_bad_handle", -EBADF,
	       call(EV_SVC_COPY_TO_TENANT, 0, VA, (unsigned long)buf, 8));

	ctx->rip = VA;
	ctx->rsp = VA + PAGE;
	expect("run_bad_handle", -EBADF, call(EV_SVC_TENANT_RUN, 0, (unsigned long)ctx, 0, 0));
	expect("run_ctx_null", -EFAULT, call(EV_SVC_TENANT_RUN, vm, 0, 0, 0));
	expect("run_ctx_kernel_text", -EFAULT,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)some_function, 0, 0));
	expect("run_ctx_past_block", -EFAULT,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)buf, 0, 0));
	/* The trap writes the context back: it must be writable from the start. */
	expect("run_ctx_rodata", -EFAULT,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)&ro_ctx, 0, 0));
	/* The readings of the trap path go after the context: the same checks. */
	expect("run_too_many_stamps", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, EV_STAMPS_MAX + 1, 0));
	expect("run_stamps_huge", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, ~0UL, 0));
	expect("run_stamps_past_block", -EFAULT,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, 1, 0));
	ctx->rip = KERNEL_TEXT;
	expect("run_kernel_rip", -EINVAL, call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, 0, 0));
	ctx->rip = VA;
	ctx->rsp = NONCANON;
	expect("run_noncanonical_rsp", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, 0, 0));
	/* A kernel or non-canonical FS base would make the endovisor's own wrmsr fault. */
	ctx->rsp = VA + PAGE;
	ctx->fs_base = KERNEL_VA;
	expect("run_kernel_fs_base", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, 0, 0));
	ctx->fs_base = NONCANON;
	expect("run_noncanonical_fs_base", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)ctx, 0, 0));
	ctx->fs_base = 0;
	fs_base_cases();
	expect("activate_bad_handle", -EBADF, call(EV_SVC_VM_ACTIVATE, EV_MAX_VMS + 5, 0, 0, 0));
	expect("activate_destroyed_space", -EBADF, call(EV_SVC_VM_ACTIVATE, gone, 0, 0, 0));

	call(EV_SVC_VM_UNMAP, vm, VA, 2, 0);
	call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	vostd_frame_free(frame);
	vostd_frame_free(ro);
	vostd_free(out);
	vostd_free(page_blk);
	vostd_free(buf);
	vostd_free(ops);
	vostd_free(ctx);
}

/* ---- FPU contexts ---- */

static void fpu_cases(void)
{
	long *fpus = vostd_alloc((EV_MAX_FPUS + 1) * sizeof(long), false), r = 0, f;
	unsigned int i, n = 0;

	if (!fpus) {
		expect("setup", 0, -ENOMEM);
		return;
	}
	expect("fpu_create_bad_source", -EBADF, call(EV_SVC_FPU_CREATE, 999, 0, 0, 0));
	expect("fpu_destroy_zero", -EBADF, call(EV_SVC_FPU_DESTROY, 0, 0, 0, 0));
	expect("fpu_switch_bad_handle", -EBADF, call(EV_SVC_FPU_SWITCH, EV_MAX_FPUS + 1, 0, 0, 0));
	f = call(EV_SVC_FPU_CREATE, 0, 0, 0, 0);
	call(EV_SVC_FPU_DESTROY, f, 0, 0, 0);
	expect("fpu_destroy_twice", -EBADF, call(EV_SVC_FPU_DESTROY, f, 0, 0, 0));
	expect("fpu_switch_destroyed", -EBADF, call(EV_SVC_FPU_SWITCH, f, 0, 0, 0));
	/* One context, one set of registers: not loaded on two carriers at once. */
	while (!READ_ONCE(H()->busy_fpu))
		vostd_idle();
	f = READ_ONCE(H()->busy_fpu);
	expect("fpu_switch_loaded_elsewhere", vostd_is_err(f) ? f : -EBUSY,
	       vostd_is_err(f) ? f : call(EV_SVC_FPU_SWITCH, f, 0, 0, 0));
	expect("fpu_destroy_loaded_elsewhere", vostd_is_err(f) ? f : -EBUSY,
	       vostd_is_err(f) ? f : call(EV_SVC_FPU_DESTROY, f, 0, 0, 0));
	fpu_image_cases(f);
	for (i = 0; i <= EV_MAX_FPUS; i++) {
		r = call(EV_SVC_FPU_CREATE, 0, 0, 0, 0);
		if (vostd_is_err(r))
			break;
		fpus[n++] = r;
	}
	expect("fpu_create_past_max", -ENOSPC, r);
	for (i = 0; i < n; i++)
		call(EV_SVC_FPU_DESTROY, fpus[i], 0, 0, 0);
	vostd_free(fpus);
}

/* Frames until the grant's quota says no; they stay the sandbox's until teardown. */
static void grant_quota_case(void)
{
	u64 *out = vostd_alloc(EV_GRANT_MAX_CALL * sizeof(u64), false);
	long r = -ENOMEM;
	unsigned int i;

	for (i = 0; out && i <= EV_GRANT_QUOTA / EV_GRANT_MAX_CALL; i++) {
		r = call(EV_SVC_FRAME_GRANT, EV_GRANT_MAX_CALL, (unsigned long)out, 0, 0);
		if (vostd_is_err(r))
			break;
	}
	expect("grant_past_quota", -ENOMEM, r);
	vostd_free(out);
}

/* vCPU 1: the calls made after vCPU 0's kernel has returned. */
static long after_teardown_began(void)
{
	struct hostile *h = H();
	struct ev_tenant_ctx *ctx;
	long r = 0, f;
	u64 deadline;
	char *blk;
	u64 out;

	/* Not before: this vCPU's blocks could reuse the one log_freed_block frees. */
	while (!READ_ONCE(h->heap_done))
		vostd_idle();
	blk = vostd_heap_alloc(64, false);
	ctx = vostd_alloc(sizeof(*ctx), true);

	/* A context loaded here, for vCPU 0 to try (fpu_cases). */
	f = call(EV_SVC_FPU_CREATE, 0, 0, 0, 0);
	if (!vostd_is_err(f)) {
		long sw = call(EV_SVC_FPU_SWITCH, f, 0, 0, 0);

		if (vostd_is_err(sw))
			f = sw;
	}
	WRITE_ONCE(h->busy_fpu, f);
	call(EV_SVC_VCPU_KICK, 0, 0, 0, 0);
	memory_race_ap(&h->mem);
	racing_ap();
	while (!READ_ONCE(h->vcpu0_done))
		vostd_idle();
	/* vCPU 0 is on its way out: the sandbox ends when its entry returns. */
	deadline = vostd_cycles() + vostd_ns_to_cycles(5000000000ULL);
	while (vostd_cycles() < deadline) {
		r = call(EV_SVC_MEM_ALLOC, 64, 0, 0, 0);
		if (vostd_is_err(r))
			break;
		call(EV_SVC_MEM_FREE, r, 0, 0, 0);
	}
	expect("after_teardown_alloc", -ESHUTDOWN, r);
	expect("after_teardown_grant", -ESHUTDOWN,
	       call(EV_SVC_FRAME_GRANT, 1, (unsigned long)&out, 0, 0));
	expect("after_teardown_vm_create", -ESHUTDOWN, call(EV_SVC_VM_CREATE, 0, 0, 0, 0));
	expect("after_teardown_fpu_create", -ESHUTDOWN, call(EV_SVC_FPU_CREATE, 0, 0, 0, 0));
	expect("after_teardown_tenant_run", -ESHUTDOWN,
	       call(EV_SVC_TENANT_RUN, 1, (unsigned long)ctx, 0, 0));
	expect("after_teardown_free_still_works", 0,
	       call(EV_SVC_MEM_FREE, (unsigned long)blk, 0, 0, 0));
	vostd_free(ctx);
	return vostd_tests_end();
}

/* ---- two sandboxes ---- */

static void hold(void)
{
	char *blk = vostd_heap_alloc(64, true);
	void *frame = vostd_frame_alloc();
	long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

	if (!blk || !frame || vostd_is_err(vm) ||
	    call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, RW)) {
		vostd_fail("hold", "setup failed");
		return;
	}
	vostd_println("hostile: hold block=%lx frame=%lx vm=%ld", (unsigned long)blk,
		      (unsigned long)frame, vm);
	/* Sandbox code that never crosses again: only a kill ends it. */
	vostd_upcall_disable();
	flags_hold();
}

static void attack(const char *args)
{
	unsigned long blk = vostd_parse_ulong(&args, 16), frame = vostd_parse_ulong(&args, 16);
	struct ev_tenant_ctx *ctx = vostd_alloc(sizeof(*ctx), true);
	char *buf = vostd_alloc(64, true);
	long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

	vostd_println("hostile: %s block=%lx frame=%lx", __func__, blk, frame);
	expect("other_free_block", -ENOENT, call(EV_SVC_MEM_FREE, blk, 0, 0, 0));
	expect("other_log_block", -EFAULT, call(EV_SVC_LOG, blk, 8, 0, 0));
	expect("other_grant_into_block", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, blk, 0, 0));
	expect("other_map_frame", -EACCES, call(EV_SVC_VM_MAP, vm, VA, frame, RW));
	expect("other_copy_into_block", -EFAULT, call(EV_SVC_COPY_FROM_TENANT, vm, blk, VA, 8));
	expect("other_copy_from_frame", -EFAULT, call(EV_SVC_COPY_TO_TENANT, vm, VA, frame, 8));
	expect("other_batch_ops_in_block", -EFAULT, call(EV_SVC_VM_BATCH, vm, blk, 1, 0));
	expect("other_ctx_in_block", -EFAULT, call(EV_SVC_TENANT_RUN, vm, blk, 0, 0));
	/* Handles name this sandbox's own objects: its vm 2 is none of the other's. */
	expect("other_vm_handle", -EBADF, call(EV_SVC_VM_MAP, vm + 1, VA, frame, RW));
	vostd_tests_end();
	call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	vostd_free(ctx);
	vostd_free(buf);
}

static long hostile_main(void)
{
	const char *args = vostd_vcpu()->args;
	struct hostile *h = H();

	if (!h)
		return -ENOMEM;
	if (traps_mode(args))
		return traps_main(args);
	if (vostd_has_prefix(args, "test")) {
		if (vostd_nr_cpus() < 2) {
			vostd_println("hostile: test needs two vCPUs");
			return -EINVAL;
		}
		heap_cases();
		WRITE_ONCE(h->heap_done, 1);
		call(EV_SVC_VCPU_KICK, 1, 0, 0, 0);
		vcpu_cases();
		timer_cases();
		flags_cases();
		vm_cases();
		fpu_cases();
		hostile_registry_cases();
		memory_cases(&h->mem);
		racing_cases();
		grant_quota_case();
		vostd_println("hostile: vCPU 0's cases done, %u failed", vostd_tests_failed());
		WRITE_ONCE(h->vcpu0_done, 1);
		call(EV_SVC_VCPU_KICK, 1, 0, 0, 0);
	} else if (vostd_has_prefix(args, "stale")) {
		const char *rounds = args + 5;

		if (vostd_nr_cpus() < 2) {
			vostd_println("hostile: stale needs two vCPUs");
			return -EINVAL;
		}
		stale_cases(*rounds == ' ' ? vostd_parse_ulong(&rounds, 10) : STALE_ROUNDS);
	} else if (vostd_has_prefix(args, "uaf")) {
		if (vostd_nr_cpus() < 2) {
			vostd_println("hostile: uaf needs two vCPUs");
			return -EINVAL;
		}
		uaf_cases();
	} else if (vostd_has_prefix(args, "victim")) {
		victim_cases();
	} else if (vostd_has_prefix(args, "park")) {
		if (vostd_nr_cpus() < 2) {
			vostd_println("hostile: park needs two vCPUs");
			return -EINVAL;
		}
		park_cases();
	} else if (vostd_has_prefix(args, "hold")) {
		hold();
	} else if (vostd_has_prefix(args, "attack")) {
		attack(args + 6);
	} else if (vostd_has_prefix(args, "fill")) {
		memory_fill(args + 4);
	} else {
		vostd_println("hostile: unknown mode '%s' (want test, stale, uaf, victim, park, hold, attack, race, racekill, firstrun, calloop, ctxfree or fill)",
			      args);
		return -EINVAL;
	}
	/* A failed case fails the run (vostd_boot). */
	return 0;
}

static long hostile_ap_main(void)
{
	if (traps_mode(vostd_vcpu()->args))
		return traps_ap_main(vostd_vcpu()->args);
	if (vostd_has_prefix(vostd_vcpu()->args, "test"))
		return after_teardown_began();
	if (vostd_has_prefix(vostd_vcpu()->args, "stale"))
		stale_ap();
	if (vostd_has_prefix(vostd_vcpu()->args, "uaf"))
		uaf_ap();
	if (vostd_has_prefix(vostd_vcpu()->args, "park"))
		park_ap();
	return 0;
}

VOSTD_KERNEL(hostile, hostile_main, hostile_ap_main);
