// SPDX-License-Identifier: GPL-2.0
/* The vCPU services: sleep until kicked, and kick another vCPU. */
#include "vostd.h"

long vostd_idle(void)
{
	return vostd_call(EV_SVC_VCPU_IDLE, 0, 0, 0, 0, 0);
}

long vostd_kick(unsigned int vcpu)
{
	return vostd_call(EV_SVC_VCPU_KICK, vcpu, 0, 0, 0, 0);
}
