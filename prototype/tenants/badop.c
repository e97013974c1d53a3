// SPDX-License-Identifier: GPL-2.0
/* badop: executes an instruction that does not exist (ud2): an invalid-opcode exception. */
#include "lib/tenant.h"

int main(void)
{
	print("badop: executing ud2");
	asm volatile("ud2");
	return 0;
}
