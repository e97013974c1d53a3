/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every service, by number and name, one EV_SERVICE(number, name) each, in
 * the order of their numbers (ev_abi.h).  No include guard: the includer
 * defines EV_SERVICE first.  The endovisor makes from this list its
 * services' dispatch and a crossing for each service, ev_stub_cross_NAME,
 * which calls ev_svc_NAME directly (stub/cross.S, endovisor/services.c);
 * sandbox kernels make from it their calls to those crossings
 * (vostd/vostd.h).
 */
EV_SERVICE(EV_SVC_NOP, nop)
EV_SERVICE(EV_SVC_LOG, log)
EV_SERVICE(EV_SVC_MEM_ALLOC, mem_alloc)
EV_SERVICE(EV_SVC_MEM_FREE, mem_free)
EV_SERVICE(EV_SVC_VCPU_IDLE, vcpu_idle)
EV_SERVICE(EV_SVC_VCPU_KICK, vcpu_kick)
EV_SERVICE(EV_SVC_SET_UPCALL, set_upcall)
EV_SERVICE(EV_SVC_FRAME_GRANT, frame_grant)
EV_SERVICE(EV_SVC_VM_CREATE, vm_create)
EV_SERVICE(EV_SVC_VM_DESTROY, vm_destroy)
EV_SERVICE(EV_SVC_VM_MAP, vm_map)
EV_SERVICE(EV_SVC_VM_PROTECT, vm_protect)
EV_SERVICE(EV_SVC_VM_UNMAP, vm_unmap)
EV_SERVICE(EV_SVC_VM_BATCH, vm_batch)
EV_SERVICE(EV_SVC_COPY_FROM_TENANT, copy_from_tenant)
EV_SERVICE(EV_SVC_COPY_TO_TENANT, copy_to_tenant)
EV_SERVICE(EV_SVC_TENANT_RUN, tenant_run)
EV_SERVICE(EV_SVC_CALIBRATE, calibrate)
EV_SERVICE(EV_SVC_VM_ACTIVATE, vm_activate)
EV_SERVICE(EV_SVC_FPU_CREATE, fpu_create)
EV_SERVICE(EV_SVC_FPU_DESTROY, fpu_destroy)
EV_SERVICE(EV_SVC_FPU_SWITCH, fpu_switch)
EV_SERVICE(EV_SVC_VM_QUERY, vm_query)
EV_SERVICE(EV_SVC_VM_SHARE, vm_share)
