/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one list of the services: every service, one line each, in the
 * order of their numbers, EV_SERVICE(number, NAME, name, arguments): its
 * number (EV_SVC_NAME), its name, the count of the arguments it takes,
 * and in a comment beside it, "(ARGS): RESULT; ERRORS", what the
 * arguments are, what it returns and, after the semicolon, the errors it
 * can return ("ending": -ESHUTDOWN once the sandbox's teardown has begun;
 * ev_abi.h says what the errors mean for every service).  No include
 * guard: the includer defines EV_SERVICE first.
 *
 * From this list come the service numbers (ev_abi.h); the endovisor's
 * dispatch and a crossing for each service, ev_stub_cross_NAME, which
 * calls ev_svc_NAME directly (stub/cross.S, endovisor/services.c); the
 * check that each service's definition takes as many arguments
 * (EV_SERVICE_DEFINEn, endovisor/endovisor.h); vOSTD's call of each
 * service with its own arguments, vostd_svc_NAME (vostd/vostd.h); and
 * the book's table of the services, which shows these lines
 * (cmd/mkbook/services.go).
 */
EV_SERVICE(0, NOP, nop, 0)			/* (): 0, having done nothing: the crossing is timed with it */
EV_SERVICE(1, LOG, log, 2)			/* (buf, len): 0; -EINVAL bad length, -EFAULT not the sandbox's */
EV_SERVICE(2, MEM_ALLOC, mem_alloc, 2)		/* (size, flags): address; -EINVAL, -ENOMEM, ending */
EV_SERVICE(3, MEM_FREE, mem_free, 1)		/* (address): 0; -ENOENT no block starts there, -EINVAL inside one */
EV_SERVICE(4, VCPU_IDLE, vcpu_idle, 0)		/* (): 0 once kicked or once the shared page's timer_at passes, sleeping until then; -EINTR on a fatal signal */
EV_SERVICE(5, VCPU_KICK, vcpu_kick, 1)		/* (vcpu): 0; -EINVAL no such vCPU */
EV_SERVICE(6, SET_UPCALL, set_upcall, 1)	/* (entry): 0; -EFAULT not in the kernel's text */
EV_SERVICE(7, FRAME_GRANT, frame_grant, 2)	/* (count, out): count, with the frames in out[]; -EINVAL, -EFAULT, -ENOMEM, ending */
EV_SERVICE(8, VM_CREATE, vm_create, 0)		/* (): a tenant address space (> 0); -ENOSPC, -ENOMEM, ending */
EV_SERVICE(9, VM_DESTROY, vm_destroy, 1)	/* (vm): 0; -EBADF no such space, -EBUSY a tenant runs in it */
EV_SERVICE(10, VM_MAP, vm_map, 4)		/* (vm, va, frame, prot): 0; -EBADF, -EINVAL, -EACCES, -EEXIST, -ENOSPC past EV_MAP_QUOTA or EV_PT_QUOTA */
EV_SERVICE(11, VM_PROTECT, vm_protect, 4)	/* (vm, va, pages, prot): 0; -EBADF, -EINVAL, -ENOENT */
EV_SERVICE(12, VM_UNMAP, vm_unmap, 3)		/* (vm, va, pages): 0; -EBADF, -EINVAL, -ENOENT */
EV_SERVICE(13, VM_BATCH, vm_batch, 4)		/* (vm, ops, count, flags): count, or -errno of the first to fail (as vm_map, vm_protect, vm_unmap); -EFAULT, -EINVAL unknown flags */
EV_SERVICE(14, COPY_FROM_TENANT, copy_from_tenant, 4)	/* (vm, dst, src, len): 0; -EBADF, -EINVAL, -EFAULT */
EV_SERVICE(15, COPY_TO_TENANT, copy_to_tenant, 4)	/* (vm, dst, src, len): 0; -EBADF, -EINVAL, -EFAULT */
EV_SERVICE(16, TENANT_RUN, tenant_run, 3)	/* (vm, ctx, stamps): the trap that ended the run; -EBADF, -EFAULT, -EINVAL, -ENOSPC page tables at EV_PT_QUOTA, -ENOMEM, ending */
EV_SERVICE(17, CALIBRATE, calibrate, 5)		/* (what, a0, a1, a2, a3): 0, with Linux's own costs in the log; -EINVAL, -EBADF, -EFAULT, -ENOMEM, -ENOSPC as tenant_run, -EINTR on a fatal signal */
EV_SERVICE(18, VM_ACTIVATE, vm_activate, 1)	/* (vm or 0): 0, the carrier having adopted vm's mm, or its own; -EBADF */
EV_SERVICE(19, FPU_CREATE, fpu_create, 1)	/* (src or 0): a copy of src's FPU context, or the initial one (> 0); -EBADF, -EBUSY, -ENOSPC, -ENOMEM, ending */
EV_SERVICE(20, FPU_DESTROY, fpu_destroy, 1)	/* (fpu): 0; -EBADF, -EBUSY loaded on another vCPU's carrier */
EV_SERVICE(21, FPU_SWITCH, fpu_switch, 1)	/* (fpu): 0, the carrier's user FPU state saved and fpu's loaded; -EBADF, -EBUSY loaded on another vCPU's carrier, -ENOMEM */
EV_SERVICE(22, VM_QUERY, vm_query, 2)		/* (vm, va): the frame mapped at va | its EV_PROT_* bits; -EBADF, -EINVAL, -ENOENT nothing mapped */
EV_SERVICE(23, VM_SHARE, vm_share, 5)		/* (dst, src, va, pages, prot): the pages shared, each mapped page of src's range set to prot there and mapped with prot in dst; -EBADF, -EINVAL, -EEXIST, -ENOSPC as vm_map */
EV_SERVICE(24, FPU_READ, fpu_read, 2)		/* (fpu, buf): 0, its x87 and SSE registers in buf as FXSAVE's 512 bytes; -EBADF, -EBUSY loaded on another vCPU's carrier, -EFAULT */
EV_SERVICE(25, FPU_WRITE, fpu_write, 2)		/* (fpu, buf): 0, its x87 and SSE registers buf's, AVX and on initial; -EBADF, -EBUSY, -EFAULT, -EINVAL MXCSR bits the processor lacks */
