// SPDX-License-Identifier: GPL-2.0
/*
 * cow: after fork, parent and child each write their own values into
 * three pages they shared (a global, the stack, an mmap'd page), and each
 * must go on seeing only its own: copy-on-write gives the first writer of
 * a shared page a copy, in either process.
 */
#include "lib/tenant.h"

#define BEFORE	0x1111
#define PARENT	0x2222
#define CHILD	0x3333

static volatile long global = BEFORE;

/* How many of the three hold a value other than want. */
static int wrong(volatile long *stack, volatile long *mapped, long want)
{
	return (global != want) + (*stack != want) + (*mapped != want);
}

static void set(volatile long *stack, volatile long *mapped, long v)
{
	global = v;
	*stack = v;
	*mapped = v;
}

int main(void)
{
	volatile long stack = BEFORE, *mapped = mmap(4096, PROT_R | PROT_W);
	long child, code;
	int bad;

	if ((long)mapped < 0)
		return 2;
	*mapped = BEFORE;
	child = fork();
	if (child < 0)
		return 3;
	if (child == 0) {
		/* It inherited the values; it writes its own. */
		bad = wrong(&stack, mapped, BEFORE);
		set(&stack, mapped, CHILD);
		/*
		 * A yield that runs nobody else means the parent is asleep in
		 * wait, which it enters only after writing its own values.
		 */
		while (!yield())
			;
		bad += wrong(&stack, mapped, CHILD);
		print("cow: child saw %d wrong values", bad);
		return bad;
	}
	set(&stack, mapped, PARENT);
	code = wait(child);
	bad = wrong(&stack, mapped, PARENT);
	print("cow: parent saw %d wrong values; the child ended with %ld", bad, code);
	return bad || code;
}
