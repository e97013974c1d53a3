// SPDX-License-Identifier: GPL-2.0
/*
 * hello: the smallest sandbox kernel.  Every vCPU prints one greeting
 * through vOSTD, which is one crossing to the endovisor's log service, and
 * returns.  It shows the whole path working: the module registered, a
 * sandbox created, carriers entering the kernel on their boot stacks, and
 * a service called through the stub.
 */
#include "vostd.h"

static long hello_main(void)
{
	struct ev_vcpu_shared *v = vostd_vcpu();
	long ret;

	ret = vostd_println("hello from sandbox %llu, vCPU %u of %u, carried by Linux thread %u",
			    v->sandbox_id, v->vcpu, v->nr_vcpus, v->carrier_tid);
	return ret;
}

VOSTD_KERNEL(hello, hello_main, hello_main);
