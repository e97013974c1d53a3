// SPDX-License-Identifier: GPL-2.0
/* The vCPU services: sleep until kicked, and kick another vCPU. */
#include "vostd.h"

long vostd_idle(void)
{
	return vostd_svc_vcpu_idle();
}

long vostd_kick(unsigned int vcpu)
{
	return vostd_svc_vcpu_kick(vcpu);
}
