// SPDX-License-Identifier: GPL-2.0
/* hello: prints through the kernel proper, forks, yields, waits and exits. */
#include "lib/tenant.h"

int main(void)
{
	long me = getpid(), child;

	print("hello from tenant process %ld", me);
	child = fork();
	if (child == 0) {
		print("child %ld of %ld: yielding", getpid(), me);
		yield();
		print("child %ld: exiting with 7", getpid());
		return 7;
	}
	yield();
	print("parent %ld: child %ld exited with %ld", me, child, wait(child));
	return 0;
}
