// SPDX-License-Identifier: GPL-2.0
/* spin: two threads, one per vCPU, spinning in user mode until the sandbox is killed. */
#include "lib/tenant.h"

static long spin(void *arg)
{
	for (;;)
		asm volatile("pause" ::: "memory");
	return (long)arg;
}

int main(void)
{
	if (thread(spin, 0, 0) < 0)
		return 2;
	print("spin: two threads spinning in user mode");
	return spin(0);
}
