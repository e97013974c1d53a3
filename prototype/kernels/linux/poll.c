// SPDX-License-Identifier: GPL-2.0
/*
 * poll, ppoll, select and pselect6: wait until one of several files is
 * ready, as Linux's fs/select.c waits.  Each round asks every file what
 * it is ready for (its poll); a wait that may sleep queues a waiter of its
 * own on each file as it asks, under the lock the file looked under, so
 * that whatever changes a file after the look wakes the thread, and
 * sleeps, until its end if it has one (kl_block_until).
 */
#include <linux/poll.h>

#include "syscalls.h"

#define POLL_DEFAULT	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
#define POLL_MAX_NS	(1000ULL * 1000000000)	/* a wait longer than 1000 s ends there */

/* Ask each file what it is ready for; with queue, queue each one's waiter too. */
static unsigned int poll_look(struct poll_ent *e, unsigned int n, bool queue)
{
	unsigned int i, ready = 0;

	for (i = 0; i < n; i++) {
		unsigned int mask;

		if (e[i].fd < 0) {
			e[i].revents = 0;
			continue;
		}
		if (!e[i].f) {
			e[i].revents = POLLNVAL;
			ready++;
			continue;
		}
		if (e[i].f->ops->poll)
			mask = e[i].f->ops->poll(e[i].f, queue ? e[i].w : NULL);
		else
			mask = POLL_DEFAULT;
		e[i].revents = mask & (e[i].events | e[i].always);
		ready += !!e[i].revents;
	}
	return ready;
}

static void poll_unqueue(struct poll_ent *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (e[i].f && e[i].f->ops->unpoll)
			e[i].f->ops->unpoll(e[i].f, e[i].w);
}

/*
 * The wait itself, on files the caller has taken (fd_get): until one is
 * ready, the time ns is up (-1: no end, 0: just look) or a signal or a
 * kill comes.  The count of files ready, or -ERESTARTNOHAND for a signal
 * (-EINTR once a handler has run).  *left is the time that was left.
 */
long poll_files(struct thread *t, struct poll_ent *e, unsigned int n, s64 ns, u64 *left)
{
	u64 until = ns > 0 ? vostd_cycles() + vostd_ns_to_cycles(min_t(u64, ns, POLL_MAX_NS)) : 0;
	unsigned int ready;
	u64 now;

	for (;;) {
		ready = poll_look(e, n, ns != 0);
		if (ready || !ns || thread_interrupted(t) || (until && vostd_cycles() >= until)) {
			if (ns)
				poll_unqueue(e, n);
			break;
		}
		lx_sleeping(t);
		if (!thread_interrupted(t))
			kl_block_until(until);
		lx_awake(t);
		poll_unqueue(e, n);
	}
	now = vostd_cycles();
	*left = ns > 0 && now < until ? vostd_cycles_to_ns(until - now) : 0;
	return ready || !thread_interrupted(t) ? (long)ready : -ERESTARTNOHAND;
}

void poll_put(struct poll_ent *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (e[i].f)
			fd_put(e[i].f);
}

/*
 * A timespec (or with usec a timeval) in from the tenant as ns: -1 for
 * none (NULL).  A timeval's whole seconds of microseconds move to its
 * seconds first, as Linux's select does; what is then negative, or a
 * part past its second, is -EINVAL.
 */
long poll_time_in(struct thread *t, unsigned long u, bool usec, s64 *ns)
{
	s64 v[2], per = usec ? 1000000 : 1000000000;

	*ns = -1;
	if (!u)
		return 0;
	if (mem_user_copy(t->p, u, v, sizeof(v), MEM_READ))
		return -EFAULT;
	if (usec) {
		v[0] += v[1] / per;
		v[1] %= per;
	}
	if (v[0] < 0 || v[1] < 0 || v[1] >= per)
		return -EINVAL;
	*ns = v[0] > (s64)(POLL_MAX_NS / 1000000000) ? (s64)POLL_MAX_NS :
	      v[0] * 1000000000 + v[1] * (1000000000 / per);
	return 0;
}

/* The time left back out, as Linux's: a bad address there is not the call's error. */
static void time_out(struct thread *t, unsigned long u, bool usec, u64 left)
{
	u64 v[2] = { left / 1000000000, left % 1000000000 / (usec ? 1000 : 1) };

	if (u)
		put_user_bytes(t, u, v, sizeof(v));
}

/*
 * ppoll's and pselect6's mask: the thread's until the call returns, and
 * until a handler has run if a signal ends it, as Linux's
 * set_user_sigmask and restore_saved_sigmask_unless.
 */
long poll_mask_in(struct thread *t, unsigned long uset, unsigned long size)
{
	u64 set;

	if (!uset)
		return 0;
	if (size != sizeof(set))
		return -EINVAL;
	if (mem_user_copy(t->p, uset, &set, sizeof(set), MEM_READ))
		return -EFAULT;
	t->sig.saved_mask = t->sig.mask;
	t->sig.restore_mask = true;
	lx_set_mask(t, set);
	return 0;
}

void poll_mask_done(struct thread *t, long ret)
{
	if (t->sig.restore_mask && ret != -ERESTARTNOHAND) {
		t->sig.restore_mask = false;
		lx_set_mask(t, t->sig.saved_mask);
	}
}

/* Linux's struct pollfd. */
struct lx_pollfd {
	s32 fd;
	s16 events, revents;
};

static long do_poll(struct thread *t, unsigned long ufds, unsigned long nfds, s64 ns,
		    u64 *left)
{
	struct lx_pollfd *pfd;
	struct poll_ent *e;
	unsigned long i;
	long r;

	if (nfds > READ_ONCE(lxp(t->p)->rlim[RLIMIT_NOFILE][0]))
		return -EINVAL;		/* Linux's: more than RLIMIT_NOFILE */
	pfd = vostd_alloc(max(nfds, 1UL) * sizeof(*pfd), false);
	e = vostd_alloc(max(nfds, 1UL) * sizeof(*e), true);
	r = pfd && e ? 0 : -ENOMEM;
	if (!r && mem_user_copy(t->p, ufds, pfd, nfds * sizeof(*pfd), MEM_READ))
		r = -EFAULT;
	for (i = 0; !r && i < nfds; i++) {
		e[i].fd = pfd[i].fd;
		e[i].events = pfd[i].events;
		e[i].always = POLLERR | POLLHUP;
		e[i].f = pfd[i].fd >= 0 ? fd_get(t->p, pfd[i].fd) : NULL;
	}
	if (!r)
		r = poll_files(t, e, nfds, ns, left);
	for (i = 0; r >= 0 && i < nfds; i++)
		pfd[i].revents = e[i].revents;
	if (r >= 0 && mem_user_copy(t->p, ufds, pfd, nfds * sizeof(*pfd), MEM_WRITE))
		r = -EFAULT;
	if (e)
		poll_put(e, nfds);
	vostd_free(pfd);
	vostd_free(e);
	return r;
}

LX_PARTIAL(poll, "a wait with an end yields until it, as nanosleep; a signal never restarts it");
LX_SYSCALL_DEFINE3(poll, unsigned long, ufds, unsigned int, nfds, int, ms)
{
	u64 left;

	return do_poll(t, ufds, nfds, ms < 0 ? -1 : (s64)ms * 1000000, &left);
}

LX_PARTIAL(ppoll, "a wait with an end yields until it, as nanosleep");
LX_SYSCALL_DEFINE5(ppoll, unsigned long, ufds, unsigned int, nfds, unsigned long, uts,
		   unsigned long, uset, unsigned long, size)
{
	u64 left;
	s64 ns;
	long r = poll_time_in(t, uts, false, &ns) ?: poll_mask_in(t, uset, size);

	if (r)
		return r;
	r = do_poll(t, ufds, nfds, ns, &left);
	poll_mask_done(t, r);
	if (r != -EFAULT)
		time_out(t, uts, false, left);
	return r;
}

#define POLLIN_SET	(POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET	(POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET	POLLPRI

/* select's sets, as Linux copies them: whole longs, LX_FDS bits at most. */
#define SEL_WORDS	(LX_FDS / 64)

struct sel_sets {
	u64 in[3][SEL_WORDS], out[3][SEL_WORDS];
};

static bool sel_bit(const u64 *set, unsigned int i)
{
	return (set[i / 64] >> (i % 64)) & 1;
}

static short sel_events(struct sel_sets *s, unsigned int i)
{
	return (sel_bit(s->in[0], i) ? POLLIN_SET : 0) | (sel_bit(s->in[1], i) ? POLLOUT_SET : 0) |
	       (sel_bit(s->in[2], i) ? POLLEX_SET : 0);
}

/*
 * select's three sets of n bits, as poll entries, one for each descriptor
 * with a bit in any set: -EBADF for one that is not open, as Linux's
 * max_select_fd finds.  Out, each set holds the bits of what is ready,
 * and no bit past n.
 */
static long do_select(struct thread *t, long n, unsigned long uin, unsigned long uout,
		      unsigned long uex, s64 ns, u64 *left)
{
	unsigned long u[3] = { uin, uout, uex }, bytes;
	struct poll_ent *e = NULL;
	struct sel_sets *s;
	unsigned int i, k, m = 0, want = 0;
	long r = 0;

	if (n < 0)
		return -EINVAL;
	n = min_t(long, n, LX_FDS);	/* as Linux's: bits past the table are dropped */
	bytes = (n + 63) / 64 * 8;
	s = vostd_alloc(sizeof(*s), true);
	if (!s)
		return -ENOMEM;
	for (k = 0; k < 3 && !r; k++)
		if (u[k] && bytes && mem_user_copy(t->p, u[k], s->in[k], bytes, MEM_READ))
			r = -EFAULT;
	for (i = 0; i < n && !r; i++)
		want += !!sel_events(s, i);
	if (!r && want) {
		e = vostd_alloc(want * sizeof(*e), true);
		r = e ? 0 : -ENOMEM;
	}
	for (i = 0; i < n && !r; i++) {
		if (!sel_events(s, i))
			continue;
		e[m].fd = i;
		e[m].events = sel_events(s, i);
		e[m].f = fd_get(t->p, i);
		r = e[m++].f ? 0 : -EBADF;
	}
	if (!r)
		r = poll_files(t, e, m, ns, left);
	for (i = 0; r >= 0 && i < m; i++) {
		unsigned int w = e[i].fd / 64;
		u64 bit = 1ULL << (e[i].fd % 64);

		if (e[i].revents & POLLIN_SET & e[i].events)
			s->out[0][w] |= bit;
		if (e[i].revents & POLLOUT_SET & e[i].events)
			s->out[1][w] |= bit;
		if (e[i].revents & POLLEX_SET & e[i].events)
			s->out[2][w] |= bit;
	}
	poll_put(e, m);
	if (e)
		vostd_free(e);
	if (r > 0)
		r = 0;		/* the count of bits set, not of descriptors ready */
	for (k = 0; r >= 0 && k < 3; k++) {
		for (i = 0; i < n; i++)		/* no popcount: it would be a call into Linux */
			r += sel_bit(s->out[k], i);
		if (u[k] && bytes && mem_user_copy(t->p, u[k], s->out[k], bytes, MEM_WRITE))
			r = -EFAULT;
	}
	vostd_free(s);
	return r;
}

LX_PARTIAL(select, "a wait with an end yields until it");
LX_SYSCALL_DEFINE5(select, int, n, unsigned long, uin, unsigned long, uout, unsigned long, uex,
		   unsigned long, utv)
{
	u64 left;
	s64 ns;
	long r = poll_time_in(t, utv, true, &ns);

	if (r)
		return r;
	r = do_select(t, n, uin, uout, uex, ns, &left);
	if (r != -EFAULT)
		time_out(t, utv, true, left);
	return r;
}

LX_PARTIAL(pselect6, "a wait with an end yields until it");
LX_SYSCALL_DEFINE6(pselect6, int, n, unsigned long, uin, unsigned long, uout,
		   unsigned long, uex, unsigned long, uts, unsigned long, usig)
{
	u64 left, sig[2] = {};
	s64 ns;
	long r = poll_time_in(t, uts, false, &ns);

	/* The sixth argument is a pair: the mask's address and its size. */
	if (!r && usig && mem_user_copy(t->p, usig, sig, sizeof(sig), MEM_READ))
		r = -EFAULT;
	r = r ?: poll_mask_in(t, sig[0], sig[1]);
	if (r)
		return r;
	r = do_select(t, n, uin, uout, uex, ns, &left);
	poll_mask_done(t, r);
	if (r != -EFAULT)
		time_out(t, uts, false, left);
	return r;
}
