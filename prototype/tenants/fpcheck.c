// SPDX-License-Identifier: GPL-2.0
/*
 * fpcheck: two threads on one vCPU, and so on one carrier, each filling
 * the sixteen vector registers and MXCSR with a pattern of its own and
 * checking them after every yield.  A register that held the other
 * thread's value would mean FP state leaking between tenant threads.
 */
#include "lib/tenant.h"

#define ROUNDS 500

typedef unsigned char v16 __attribute__((vector_size(16)));

static volatile long bad[2];

#define LOAD(n) asm volatile("movdqu %0, %%xmm" #n :: "m"(p))
#define STORE(n) asm volatile("movdqu %%xmm" #n ", %0" : "=m"(got[n]))

static long check(void *arg)
{
	long id = (long)arg, r, i;
	v16 p, got[16];
	u32 mxcsr = id ? 0x1fc0 : 0x1f80, now;	/* one with denormals-are-zero */

	for (i = 0; i < 16; i++)
		p[i] = (unsigned char)(0x11 * (id + 1) + i);
	asm volatile("ldmxcsr %0" :: "m"(mxcsr));
	LOAD(0); LOAD(1); LOAD(2); LOAD(3); LOAD(4); LOAD(5); LOAD(6); LOAD(7);
	LOAD(8); LOAD(9); LOAD(10); LOAD(11); LOAD(12); LOAD(13); LOAD(14); LOAD(15);
	for (r = 0; r < ROUNDS; r++) {
		yield();
		STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5); STORE(6); STORE(7);
		STORE(8); STORE(9); STORE(10); STORE(11); STORE(12); STORE(13); STORE(14); STORE(15);
		asm volatile("stmxcsr %0" : "=m"(now));
		for (i = 0; i < 16; i++)
			if (__builtin_memcmp(&got[i], &p, 16))
				bad[id]++;
		if (now != mxcsr)
			bad[id]++;
	}
	return 0;
}

static volatile long done;

static long second(void *arg)
{
	check(arg);
	done = 1;
	return 0;
}

int main(void)
{
	if (thread(second, (void *)1, 1) < 0)
		return 2;
	check((void *)0);
	while (!done)
		yield();
	print("fpcheck: %d rounds, thread 0 saw %ld wrong registers, thread 1 saw %ld",
	      ROUNDS, bad[0], bad[1]);
	return bad[0] || bad[1];
}
