// SPDX-License-Identifier: GPL-2.0
/*
 * Real-time signals queue, as Linux's sigqueue lists do: one sent while
 * one of its number is pending waits behind it, and each is delivered
 * with its own siginfo, in the order sent.  The first of each number is
 * the pending bit and its info[] slot (signal.c); the ones behind it are
 * here, a list per thread and per process.  Every real-time signal
 * pending, first or behind, counts against the target's
 * RLIMIT_SIGPENDING, one count for the whole sandbox, as Linux counts one
 * user's.  Signals below SIGRTMIN never queue: a second one while the
 * first is pending is the same signal, and they are not counted (Linux
 * counts them and lets them past the limit).
 *
 * Everything here is under the table's lock (procs_lock).
 */
#include "syscalls.h"

#define LX_SIGRT_BITS	(~0ULL << (LX_SIGRTMIN - 1))

struct lx_sigq {
	struct ksiginfo info;
	struct lx_sigq *next;
};

/*
 * Whether info's signal may be pending once more for p: 0, counted, it
 * goes.  As in Linux's __send_signal, a real-time one past p's
 * RLIMIT_SIGPENDING is -EAGAIN, but kill's (SI_USER): the first of its
 * number goes anyway, a second is dropped (1).  Linux sends that first
 * one without its siginfo and does not count it; here it keeps both.  A
 * timer's always goes, as Linux's, which it charged at timer_create.
 */
static int charge_locked(struct proc *p, const struct ksiginfo *info, bool first)
{
	if (lx()->sigqueued >= lxp(p)->rlim[RLIMIT_SIGPENDING][0] && info->code != SI_TIMER) {
		if (info->code != SI_USER)
			return -EAGAIN;
		if (!first)
			return 1;
	}
	lx()->sigqueued++;
	return 0;
}

/* The first of info's signal pending for p: 0, or -EAGAIN (charge_locked). */
int lx_sigq_first_locked(struct proc *p, const struct ksiginfo *info)
{
	if (info->signo < LX_SIGRTMIN)
		return 0;
	return charge_locked(p, info, true);
}

/*
 * A second of info's signal while one is pending on *q's owner, p or one
 * of its threads: a real-time one queues behind it, another is the same
 * signal.  0, or -EAGAIN (charge_locked).
 */
int lx_sigq_send_locked(struct lx_sigq **q, struct proc *p, const struct ksiginfo *info)
{
	struct lx_sigq *e;
	int ret;

	if (info->signo < LX_SIGRTMIN)
		return 0;
	ret = charge_locked(p, info, false);
	if (ret)
		return ret < 0 ? ret : 0;
	e = vostd_alloc(sizeof(*e), false);
	if (!e) {
		lx()->sigqueued--;
		return info->code == SI_USER ? 0 : -EAGAIN;
	}
	e->info = *info;
	e->next = NULL;
	while (*q)
		q = &(*q)->next;
	*q = e;
	return 0;
}

/*
 * sig, pending, is taken: true if another waits behind it, now in *info
 * (its slot), and sig stays pending; false if none does.
 */
bool lx_sigq_take_locked(struct lx_sigq **q, int sig, struct ksiginfo *info)
{
	struct lx_sigq *e;

	if (sig < LX_SIGRTMIN)
		return false;
	lx()->sigqueued--;
	for (; (e = *q); q = &e->next) {
		if (e->info.signo != sig)
			continue;
		*q = e->next;
		*info = e->info;
		vostd_free(e);
		return true;
	}
	return false;
}

/*
 * The signals in bits, pending as *pending says and queued on *q, are
 * discarded (all: ~0): ignored, or their thread or process gone.
 */
void lx_sigq_drop_locked(u64 *pending, struct lx_sigq **q, u64 bits)
{
	u64 gone = *pending & bits & LX_SIGRT_BITS;
	struct lx_sigq *e;

	for (; gone; gone &= gone - 1)
		lx()->sigqueued--;
	*pending &= ~bits;
	while ((e = *q)) {
		if (!(bits & LX_SIGBIT(e->info.signo))) {
			q = &e->next;
			continue;
		}
		*q = e->next;
		vostd_free(e);
		lx()->sigqueued--;
	}
}
