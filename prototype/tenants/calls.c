// SPDX-License-Identifier: GPL-2.0
/*
 * calls: the system calls no other test tenant makes, munmap and clock.
 * munmap must take back exactly one earlier mmap, all of it, and leave
 * nothing mapped: a child reads the unmapped page and is killed, while
 * the parent goes on to wait for it.  The clock must never go back and
 * must advance at a rate the cycle counter agrees with.
 */
#include "lib/tenant.h"

#define PAGES 4
#define EINVAL 22

static int check_munmap(char **gone)
{
	char *a = mmap(PAGES * 4096, PROT_R | PROT_W), *b = mmap(4096, PROT_R | PROT_W);
	int bad = 0, i;

	if ((long)a < 0 || (long)b < 0)
		return 100;
	for (i = 0; i < PAGES; i++)
		a[i * 4096] = (char)i;
	b[0] = 42;
	bad += munmap(a, 4096) != -EINVAL;		/* part of a region */
	bad += munmap(a + 4096, PAGES * 4096) != -EINVAL;	/* not where one starts */
	bad += munmap(a, PAGES * 4096) != 0;
	bad += munmap(a, PAGES * 4096) != -EINVAL;	/* twice */
	bad += b[0] != 42;				/* the other mapping stays */
	bad += munmap(b, 4096) != 0;
	*gone = a;
	return bad;
}

static int check_clock(unsigned long *mhz)
{
	long first = clock(), last = first, now;
	u64 c0 = cycles(), c1;
	int bad = 0;

	/* The clock never goes back, and the cycle counter says how fast it goes. */
	do {
		now = clock();
		bad += now < last;
		last = now;
		c1 = cycles();
	} while (c1 - c0 < 20000000);
	bad += first < 0 || last <= first;
	*mhz = last > first ? (c1 - c0) * 1000 / (unsigned long)(last - first) : 0;
	/* A counter between 100 MHz and 100 GHz, or the conversion is wrong. */
	bad += *mhz < 100 || *mhz > 100000;
	return bad;
}

int main(void)
{
	unsigned long mhz;
	long child, code;
	char *gone = NULL;
	int bad_unmap = check_munmap(&gone), bad_clock = check_clock(&mhz);

	print("calls: munmap %d wrong results; clock %d wrong, against the counter at %lu MHz",
	      bad_unmap, bad_clock, mhz);
	if (!gone)
		return 2;
	child = fork();
	if (child == 0) {
		print("calls: child reading the unmapped %lx", (u64)gone);
		return *(volatile char *)gone;
	}
	code = wait(child);
	print("calls: the child ended with %ld", code);
	return bad_unmap || bad_clock || code != 128 + 11;
}
