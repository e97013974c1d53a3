/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interrupting a running vCPU: kick.c's interrupt and upcalls, park.c's
 * suspension of a vCPU whose carrier Linux takes, and tick.c, the
 * sandbox's tick that drives both.  None of them calls back into the
 * vCPU's run.
 */
#ifndef EV_KICK_H
#define EV_KICK_H

#include "endovisor.h"

/* kick.c */
int ev_kick_module_init(void);
void ev_kick_module_exit(void);
void ev_kick_init(struct ev_vcpu *v);
void ev_kick_sched_in(struct ev_vcpu *v, int cpu);
void ev_kick_sched_out(struct ev_vcpu *v);
void ev_kick_stop(struct ev_vcpu *v);
bool ev_abandon_divert(struct ev_vcpu *v, struct pt_regs *regs);
void ev_kick_interrupt(struct ev_vcpu *t, int cpu);
void ev_kick_stranded(struct ev_vcpu *v, struct pt_regs *regs);
void ev_kick_timer(struct ev_vcpu *v, struct pt_regs *regs);

/* park.c */
bool ev_park_divert(struct ev_vcpu *v, struct pt_regs *regs);
void ev_park_request(struct ev_vcpu *v, struct task_struct *c);
long ev_vcpu_park(struct ev_vcpu *v);
long ev_park_resume(struct ev_vcpu *v);

/* tick.c */
void ev_tick_init(struct ev_sandbox *sb);
void ev_tick_start(struct ev_sandbox *sb);
void ev_tick_stop(struct ev_sandbox *sb);

#endif /* EV_KICK_H */
