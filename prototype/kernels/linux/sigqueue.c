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

/*
 * info's signal sent to *q's owner, p or one of its threads, whose
 * pending set is *pending and siginfo slots slots: 0 if it is pending
 * now and was not; 1 if one of its number was pending already, behind
 * which a real-time one queues and into which another coalesces (or a
 * kill's past the limit is dropped); -EAGAIN (charge_locked).
 */
int lx_sigq_send_locked(u64 *pending, struct lx_sigq **q, struct ksiginfo *slots,
			struct proc *p, const struct ksiginfo *info)
{
	int sig = info->signo, ret;
	struct lx_sigq *e;

	if (!(*pending & LX_SIGBIT(sig))) {
		ret = sig < LX_SIGRTMIN ? 0 : charge_locked(p, info, true);
		if (ret)
			return ret;
		*pending |= LX_SIGBIT(sig);
		slots[sig - 1] = *info;
		return 0;
	}
	if (sig < LX_SIGRTMIN)
		return 1;
	ret = charge_locked(p, info, false);
	if (ret)
		return ret;
	e = vostd_alloc(sizeof(*e), false);
	if (!e) {
		lx()->sigqueued--;
		return info->code == SI_USER ? 1 : -EAGAIN;
	}
	e->info = *info;
	e->next = NULL;
	while (*q)
		q = &(*q)->next;
	*q = e;
	return 1;
}

/*
 * sig, pending as *pending says, is taken into *info from its slot; the
 * next one queued behind it, if any, takes the slot, and sig stays
 * pending.
 */
void lx_sigq_take_locked(u64 *pending, struct lx_sigq **q, struct ksiginfo *slots, int sig,
			 struct ksiginfo *info)
{
	struct lx_sigq *e;

	*info = slots[sig - 1];
	if (sig >= LX_SIGRTMIN) {
		lx()->sigqueued--;
		for (; (e = *q); q = &e->next) {
			if (e->info.signo != sig)
				continue;
			*q = e->next;
			slots[sig - 1] = e->info;
			vostd_free(e);
			return;
		}
	}
	*pending &= ~LX_SIGBIT(sig);
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
