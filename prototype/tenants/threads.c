// SPDX-License-Identifier: GPL-2.0
/* threads: fifty threads of one process, spread over the vCPUs, yielding and counting. */
#include "lib/tenant.h"

#define THREADS 50
#define YIELDS 20

static long count;
static char seen[THREADS];

static long worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < YIELDS; i++)
		yield();
	seen[id] = 1;
	__atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int main(void)
{
	long missing = 0;

	for (long i = 1; i < THREADS; i++)
		if (thread(worker, (void *)i, 0) < 0)
			return 2;
	worker(0);
	while (__atomic_load_n(&count, __ATOMIC_SEQ_CST) < THREADS)
		yield();
	for (int i = 0; i < THREADS; i++)
		missing += !seen[i];
	print("threads: %d threads each yielded %d times; %ld missing", THREADS, YIELDS, missing);
	return missing != 0;
}
