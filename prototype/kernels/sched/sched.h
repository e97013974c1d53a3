/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the sched kernel's files share: spinning and waiting by the
 * clock, and a join of tasks.  Inline, as they were in one file: the
 * measurements call some of them.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include "kernelet.h"

static inline u64 ms_cycles(u64 ms)
{
	return vostd_ns_to_cycles(ms * 1000000ULL);
}

static inline void spin_cycles(u64 cycles)
{
	u64 end = vostd_cycles() + cycles;

	while (vostd_cycles() < end)
		asm volatile("pause");
}

/* Waiting for a flag another task sets, with a bound so a bug cannot hang. */
static inline bool wait_flag(volatile u32 *flag, u64 bound_ms)
{
	u64 end = vostd_cycles() + ms_cycles(bound_ms);

	while (!*flag) {
		if (vostd_cycles() > end)
			return false;
		asm volatile("pause");
	}
	return true;
}

/* A count of tasks to finish and the task waiting for them. */
struct join {
	u32 left;
	kl_tid_t waiter;
};

/*
 * The waiter may return, and its join go with its stack, as soon as the
 * count reaches zero: the id is read before.
 */
static inline void join_done(struct join *j)
{
	kl_tid_t waiter = j->waiter;

	if (__atomic_sub_fetch(&j->left, 1, __ATOMIC_ACQ_REL) == 0)
		kl_wake(waiter);
}

static inline void join_wait(struct join *j)
{
	while (__atomic_load_n(&j->left, __ATOMIC_ACQUIRE))
		kl_block();
}

/* tests.c */
void tests(void);

#endif /* SCHED_SCHED_H */
