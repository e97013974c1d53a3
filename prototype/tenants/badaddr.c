// SPDX-License-Identifier: GPL-2.0
/* badaddr: reads a page of the tenant region that nobody mapped. */
#include "lib/tenant.h"

int main(void)
{
	volatile char *nowhere = (volatile char *)0x400400000UL;

	print("badaddr: reading %lx", (u64)nowhere);
	return *nowhere;
}
