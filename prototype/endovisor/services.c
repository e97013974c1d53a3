// SPDX-License-Identifier: GPL-2.0
/*
 * The service table: everything a sandbox kernel may ask of Linux.  Each
 * entry runs on the carrier's Linux stack, called by the stub with the
 * calling vCPU first; every other argument comes from the sandbox and is
 * checked before use.  A bad argument is refused with an error code the
 * sandbox sees, never with a crash.
 */
#include <linux/ctype.h>
#include <linux/uaccess.h>

#include "endovisor.h"

static long ev_svc_nop(struct ev_vcpu *v, unsigned long a0, unsigned long a1,
		       unsigned long a2, unsigned long a3, unsigned long a4)
{
	return 0;
}

/*
 * log(buf, len): one line into the sandbox's log, tagged with the kernel
 * and vCPU it came from.  The buffer must lie in memory the sandbox owns;
 * unprintable bytes are replaced so that a line stays one line.
 */
static long ev_svc_log(struct ev_vcpu *v, unsigned long buf, unsigned long len,
		       unsigned long a2, unsigned long a3, unsigned long a4)
{
	char line[EV_LOG_LINE_MAX];
	size_t i;

	if (len == 0 || len > EV_LOG_LINE_MAX)
		return -EINVAL;
	if (ev_sandbox_read(v->sb, line, (const void *)buf, len))
		return -EFAULT;
	if (line[len - 1] == '\n')
		len--;
	for (i = 0; i < len; i++)
		if (!isprint(line[i]))
			line[i] = '?';
	ev_log_printf(&v->sb->log, "[%s.%u] %.*s\n", v->sb->kernel->name,
		      v->id, (int)len, line);
	return 0;
}

const ev_service_fn ev_service_table[EV_NR_SERVICES] = {
	[EV_SVC_NOP] = ev_svc_nop,
	[EV_SVC_LOG] = ev_svc_log,
	[EV_SVC_MEM_ALLOC] = ev_svc_mem_alloc,
	[EV_SVC_MEM_FREE] = ev_svc_mem_free,
	[EV_SVC_VCPU_IDLE] = ev_svc_vcpu_idle,
	[EV_SVC_VCPU_KICK] = ev_svc_vcpu_kick,
	[EV_SVC_SET_UPCALL] = ev_svc_set_upcall,
	[EV_SVC_FRAME_GRANT] = ev_svc_frame_grant,
	[EV_SVC_VM_CREATE] = ev_svc_vm_create,
	[EV_SVC_VM_DESTROY] = ev_svc_vm_destroy,
	[EV_SVC_VM_MAP] = ev_svc_vm_map,
	[EV_SVC_VM_PROTECT] = ev_svc_vm_protect,
	[EV_SVC_VM_UNMAP] = ev_svc_vm_unmap,
	[EV_SVC_VM_BATCH] = ev_svc_vm_batch,
	[EV_SVC_COPY_FROM_TENANT] = ev_svc_copy_from_tenant,
	[EV_SVC_COPY_TO_TENANT] = ev_svc_copy_to_tenant,
	[EV_SVC_TENANT_RUN] = ev_svc_tenant_run,
	[EV_SVC_CALIBRATE] = ev_svc_calibrate,
	[EV_SVC_VM_ACTIVATE] = ev_svc_vm_activate,
	[EV_SVC_FPU_CREATE] = ev_svc_fpu_create,
	[EV_SVC_FPU_DESTROY] = ev_svc_fpu_destroy,
	[EV_SVC_FPU_SWITCH] = ev_svc_fpu_switch,
	[EV_SVC_VM_QUERY] = ev_svc_vm_query,
};
