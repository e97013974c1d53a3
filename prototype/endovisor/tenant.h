/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a tenant on a vCPU's carrier: tenant.c runs one and ends its
 * run at a trap, trap.c catches the traps, regs.c loads and saves its
 * user registers.  Called by the vCPU's run (vcpu.c), the services that
 * run tenants, and kick.c, which queues a kick's trap.
 */
#ifndef EV_TENANT_H
#define EV_TENANT_H

#include "endovisor.h"

/* regs.c */
void ev_load_user_regs(struct pt_regs *regs, const struct ev_tenant_ctx *c);
void ev_save_user_regs(struct ev_tenant_ctx *c, const struct pt_regs *regs);
void ev_segs_read(struct ev_user_segs *s);
void ev_segs_write(const struct ev_user_segs *s);
u64 ev_segs_scrub(void);

/* tenant.c */
void ev_tenant_vcpu_init(struct ev_vcpu *v);
void ev_tenant_carrier_dead(struct ev_vcpu *v);
long ev_tenant_finish(struct ev_vcpu *v, long ret);
void ev_tenant_park(struct ev_vcpu *v);
long ev_tenant_entered(struct ev_vcpu *v);

/* trap.c */
int ev_trap_module_init(void);
void ev_trap_module_exit(void);
void ev_tenant_queue_trap(struct ev_vcpu *v, u32 trap);
void ev_trap_report(struct ev_vcpu *v, unsigned long traps, struct ev_tenant_ctx *c);
extern const struct vm_operations_struct ev_tenant_vm_ops;

#endif /* EV_TENANT_H */
