// SPDX-License-Identifier: GPL-2.0
/* nullptr: reads address 0, outside the tenant region: an exception, not a page fault of ours. */
#include "lib/tenant.h"

int main(void)
{
	print("nullptr: reading address 0");
	return *(volatile char *)0;
}
