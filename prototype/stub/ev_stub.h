/* SPDX-License-Identifier: GPL-2.0 */
/* Offsets the stub's assembly uses; endovisor/vcpu.c checks them at build time. */
#ifndef EV_STUB_H
#define EV_STUB_H

#define EV_VCPU_LINUX_SP	0
#define EV_VCPU_BAIL		8

#ifndef __ASSEMBLY__
struct ev_vcpu;

/* fn is a long (*)(T *) for the T that arg points to. */
long ev_stub_enter(struct ev_vcpu *v, const void *fn, void *arg,
		   unsigned long sandbox_sp);
long ev_stub_cross(unsigned long svc, unsigned long a0, unsigned long a1,
		   unsigned long a2, unsigned long a3, unsigned long a4);
#endif

#endif /* EV_STUB_H */
