// SPDX-License-Identifier: GPL-2.0
/*
 * fpcheck: two threads on one vCPU, and so on one carrier, each filling
 * the sixteen vector registers, MXCSR, the x87 control word and all eight
 * x87 stack registers with values of its own and checking them after
 * every yield.  A register that held the other thread's value, or the
 * initial one, would mean FP state leaking between tenant threads.
 *
 * The x87 stack stays full across the yields: nothing in between may use
 * x87 or MMX instructions, which this program's C code, with no long
 * double in it, never does.
 */
#include "lib/tenant.h"

#define ROUNDS 500

typedef unsigned char v16 __attribute__((vector_size(16)));

/* An x87 register as fstpt stores it: ten bytes, kept in sixteen. */
struct x87reg {
	unsigned char b[16];
};

static volatile long bad[2], bad_x87[2];

#define LOAD(n) asm volatile("movdqu %0, %%xmm" #n :: "m"(p) : "xmm" #n)
#define STORE(n) asm volatile("movdqu %%xmm" #n ", %0" : "=m"(got[n]))

/* Push st7 first, so that st0 ends up holding r[0]. */
static void x87_load(const struct x87reg *r)
{
	int i;

	for (i = 7; i >= 0; i--)
		asm volatile("fldt %0" :: "m"(r[i]));
}

/* Pop all eight, st0 first: the stack is empty after. */
static void x87_store(struct x87reg *r)
{
	int i;

	for (i = 0; i < 8; i++)
		asm volatile("fstpt %0" : "=m"(r[i]));
}

static int x87_same(const struct x87reg *a, const struct x87reg *b)
{
	return !__builtin_memcmp(a->b, b->b, 10);
}

static long check(void *arg)
{
	long id = (long)arg, r, i;
	v16 p, got[16];
	u32 mxcsr = id ? 0x1fc0 : 0x1f80, now;	/* one with denormals-are-zero */
	/* Neither the initial 0x37f: rounding up or down, double precision. */
	unsigned short cw = id ? 0x067f : 0x0a7f, cw_now;
	struct x87reg want[8], have[8];
	long long seed;

	for (i = 0; i < 16; i++)
		p[i] = (unsigned char)(0x11 * (id + 1) + i);
	/* Eight values of its own, kept as the x87 holds them. */
	asm volatile("fninit; fldcw %0" :: "m"(cw));
	for (i = 7; i >= 0; i--) {
		seed = (id + 1) * 1000003 + i * 7919;
		asm volatile("fildq %0; fldpi; fmulp" :: "m"(seed));
	}
	x87_store(want);
	x87_load(want);
	asm volatile("ldmxcsr %0" :: "m"(mxcsr));
	LOAD(0); LOAD(1); LOAD(2); LOAD(3); LOAD(4); LOAD(5); LOAD(6); LOAD(7);
	LOAD(8); LOAD(9); LOAD(10); LOAD(11); LOAD(12); LOAD(13); LOAD(14); LOAD(15);
	for (r = 0; r < ROUNDS; r++) {
		yield();
		STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5); STORE(6); STORE(7);
		STORE(8); STORE(9); STORE(10); STORE(11); STORE(12); STORE(13); STORE(14); STORE(15);
		asm volatile("stmxcsr %0" : "=m"(now));
		asm volatile("fnstcw %0" : "=m"(cw_now));
		x87_store(have);
		for (i = 0; i < 16; i++)
			if (__builtin_memcmp(&got[i], &p, 16))
				bad[id]++;
		if (now != mxcsr)
			bad[id]++;
		if (cw_now != cw)
			bad_x87[id]++;
		for (i = 0; i < 8; i++)
			if (!x87_same(&have[i], &want[i]))
				bad_x87[id]++;
		/* Again, in case the checks' code used any of them. */
		x87_load(want);
		LOAD(0); LOAD(1); LOAD(2); LOAD(3); LOAD(4); LOAD(5); LOAD(6); LOAD(7);
		LOAD(8); LOAD(9); LOAD(10); LOAD(11); LOAD(12); LOAD(13); LOAD(14); LOAD(15);
	}
	x87_store(have);
	asm volatile("fninit");
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
	print("fpcheck: x87, %d rounds, thread 0 saw %ld wrong control words or stack registers, "
	      "thread 1 saw %ld", ROUNDS, bad_x87[0], bad_x87[1]);
	return bad[0] || bad[1] || bad_x87[0] || bad_x87[1];
}
