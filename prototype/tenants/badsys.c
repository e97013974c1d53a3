// SPDX-License-Identifier: GPL-2.0
/* badsys: makes a system call the kernel proper does not have. */
#include "lib/tenant.h"

int main(void)
{
	print("badsys: calling system call 999");
	return sys3(999, 0, 0, 0);
}
