// SPDX-License-Identifier: GPL-2.0
/* The vCPU services: sleep until kicked, and kick another vCPU. */
#include "vostd.h"

long vostd_idle(void)
{
	return vostd_svc_vcpu_idle();
}

/*
 * This vCPU stops for good, masked, as a halted processor: it sleeps in
 * vcpu_idle until the sandbox ends.  Its timer and any kick are dropped
 * at every round, since nothing will take them any more, and another
 * vCPU's wake may set them again: left, each would end the sleep at once,
 * and the carrier would spin.
 */
void __noreturn vostd_halt(void)
{
	struct ev_vcpu_shared *sh = vostd_vcpu();

	vostd_upcall_disable();
	for (;;) {
		WRITE_ONCE(sh->timer_at, 0);
		__atomic_store_n(&sh->kick_pending, 0, __ATOMIC_RELEASE);
		vostd_idle();
	}
}

long vostd_kick(unsigned int vcpu)
{
	return vostd_svc_vcpu_kick(vcpu);
}
