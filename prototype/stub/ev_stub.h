/* SPDX-License-Identifier: GPL-2.0 */
/* Offsets the stub's assembly uses; endovisor/vcpu.c checks them at build time. */
#ifndef EV_STUB_H
#define EV_STUB_H

#define EV_VCPU_LINUX_SP	0
#define EV_VCPU_BAIL		8
#define EV_VCPU_SANDBOX_FRAME	16
#define EV_VCPU_SANDBOX_R12	24	/* r12 .. r15, 8 bytes apart */
#define EV_VCPU_PARK_IP		56
#define EV_VCPU_PARK_RET	64
#define EV_VCPU_PARKED		72

/* Values of the bail word. */
#define EV_BAIL_ABANDON		1	/* leave sandbox code for good: -EINTR */
#define EV_BAIL_SUSPEND		2	/* leave it to be resumed: 0 */
#define EV_BAIL_PARK		3	/* the same, keeping the service's result: 0 */

#ifndef __ASSEMBLY__
struct ev_vcpu;

/* fn is a long (*)(T *) for the T that arg points to. */
long ev_stub_enter(struct ev_vcpu *v, const void *fn, void *arg,
		   unsigned long sandbox_sp);
/* The crossing as it was, through ev_service_table: for crossing.c to time. */
long ev_stub_cross_table(unsigned long svc, unsigned long a0, unsigned long a1,
			 unsigned long a2, unsigned long a3, unsigned long a4);
/* Return ret from the crossing a suspend left; the frame is like ev_stub_enter's. */
long ev_stub_resume(struct ev_vcpu *v, long ret);
/* Not called: an interrupt returns to it (kick.c, ev_abandon_divert). */
void ev_stub_abandon(void);
/* Not called: an interrupt returns to it (kick.c, ev_park_divert). */
void ev_stub_park(void);
#endif

#endif /* EV_STUB_H */
