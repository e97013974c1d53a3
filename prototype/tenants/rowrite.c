// SPDX-License-Identifier: GPL-2.0
/* rowrite: writes to a page it mapped read-only. */
#include "lib/tenant.h"

int main(void)
{
	volatile char *p = mmap(4096, PROT_R);

	if ((long)p < 0)
		return 2;
	print("rowrite: reading %lx, then writing it", (u64)p);
	if (*p != 0)
		return 3;
	*p = 1;
	return 4;
}
