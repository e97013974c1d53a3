// SPDX-License-Identifier: GPL-2.0
/*
 * epoll: a file that keeps a set of descriptors a program waits on, as
 * Linux's fs/eventpoll.c keeps one, and a wait on them all that is
 * poll.c's (poll_files), made on the set as it stands when the wait
 * begins.  An item names its descriptor and the open file it had when it
 * was added, by the file's id: the item holds no reference, so a close
 * frees what it would free without epoll, and an item whose descriptor
 * no longer holds that file has gone, as Linux removes an item when its
 * file is released.  Waits are level-triggered; EPOLLET is taken and
 * waits as a level would, so a file still ready is reported again.
 * EPOLLONESHOT disarms an item once reported, until EPOLL_CTL_MOD.
 */
#include <linux/fcntl.h>
#include <linux/poll.h>

#include "syscalls.h"

/*
 * The flags of uapi/linux/eventpoll.h as plain numbers, where sparse
 * types Linux's as __poll_t; the event bits are poll's.
 */
#define EP_EXCLUSIVE		BIT(28)	/* EPOLLEXCLUSIVE */
#define EP_WAKEUP		BIT(29)	/* EPOLLWAKEUP */
#define EP_ONESHOT		BIT(30)	/* EPOLLONESHOT */
#define EP_ET			BIT(31)	/* EPOLLET */
#define EP_RDHUP		0x2000		/* EPOLLRDHUP */

#define EP_ITEMS_MAX	LX_FDS		/* items an epoll may hold: -ENOSPC past them */
#define EP_MAX_EVENTS	(0x7fffffff / 12)	/* Linux's: INT_MAX / sizeof(epoll_event) */
#define EP_CTL_BITS	(POLLIN | POLLPRI | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | \
			 POLLRDBAND | POLLWRNORM | POLLWRBAND | POLLMSG | EP_RDHUP)
#define EP_EXCLUSIVE_OK	(POLLIN | POLLOUT | POLLERR | POLLHUP | EP_WAKEUP | EP_ET | \
			 EP_EXCLUSIVE)

struct ep_item {
	int fd;
	const struct lx_file *f;	/* no reference: compared, with id, never followed */
	u64 id;
	u32 events;			/* asked, with EPOLLERR and EPOLLHUP */
	u64 data;
	bool disarmed;			/* EP_ONESHOT, reported */
};

struct lx_epoll {
	vostd_spinlock_t lock;		/* items; held in a guard, never across a sleep */
	unsigned int n;
	struct ep_item items[EP_ITEMS_MAX];
};

/* Linux's struct epoll_event, packed on x86-64. */
struct lx_epoll_event {
	u32 events;
	u64 data;
} __packed;

static long ep_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, 0600, 0, 0);	/* anon_inode's: no type, as Linux's */
}

static const struct lx_file_ops epoll_fops = {
	.lseek = lx_no_lseek,
	.stat = ep_stat,
	.release = file_free_priv,
};

static long do_epoll_create(struct thread *t, int flags)
{
	struct lx_file *f;
	long fd;

	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	f = file_new(&epoll_fops);
	if (f)
		f->priv = vostd_alloc(sizeof(struct lx_epoll), true);
	if (!f || !f->priv) {
		vostd_free(f);
		return -ENOMEM;
	}
	f->flags = O_RDWR;
	fd = fd_install(t->p, f, 0, flags & EPOLL_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

LX_SYSCALL_DEFINE1(epoll_create1, int, flags)
{
	return do_epoll_create(t, flags);
}

LX_SYSCALL_DEFINE1(epoll_create, int, size)
{
	return size <= 0 ? -EINVAL : do_epoll_create(t, 0);
}

/* The item for fd, or NULL.  ep's lock held. */
static struct ep_item *ep_find(struct lx_epoll *ep, int fd, const struct lx_file *f)
{
	unsigned int i;

	for (i = 0; i < ep->n; i++)
		if (ep->items[i].fd == fd && ep->items[i].f == f && ep->items[i].id == f->id)
			return &ep->items[i];
	return NULL;
}

/* The change, in Linux's do_epoll_ctl's order once both files are found. */
static long ep_change(struct lx_epoll *ep, int op, int fd, const struct lx_file *tf,
		      const struct lx_epoll_event *ev)
{
	struct ep_item *it;
	long err = 0;

	kl_spin_lock(&ep->lock);
	it = ep_find(ep, fd, tf);
	switch (op) {
	case EPOLL_CTL_ADD:
		if (it)
			err = -EEXIST;
		else if (ep->n == EP_ITEMS_MAX)
			err = -ENOSPC;
		else
			ep->items[ep->n++] = (struct ep_item){
				.fd = fd, .f = tf, .id = tf->id, .data = ev->data,
				.events = ev->events | POLLERR | POLLHUP };
		break;
	case EPOLL_CTL_MOD:
		if (!it)
			err = -ENOENT;
		else if (it->events & EP_EXCLUSIVE)
			err = -EINVAL;
		else
			*it = (struct ep_item){ .fd = fd, .f = tf, .id = tf->id, .data = ev->data,
						.events = ev->events | POLLERR | POLLHUP };
		break;
	default:	/* EPOLL_CTL_DEL */
		if (!it)
			err = -ENOENT;
		else
			*it = ep->items[--ep->n];
	}
	kl_spin_unlock(&ep->lock);
	return err;
}

LX_PARTIAL(epoll_ctl, "EP_ET waits as a level would; the console and another epoll are -EPERM");
LX_SYSCALL_DEFINE4(epoll_ctl, int, epfd, int, op, int, fd, unsigned long, uevent)
{
	struct lx_epoll_event ev = {};
	struct lx_file *f, *tf;
	long err = -EINVAL;

	if (op != EPOLL_CTL_DEL &&
	    mem_user_copy(t->p, uevent, &ev, sizeof(ev), MEM_READ))
		return -EFAULT;
	f = fd_get(t->p, epfd);
	if (!f)
		return -EBADF;
	tf = fd_get(t->p, fd);
	if (!tf) {
		fd_put(f);
		return -EBADF;
	}
	if (!tf->ops->poll && tf->ops != &epoll_fops)
		err = -EPERM;		/* a regular file, a directory, a device without poll */
	else if (f == tf || f->ops != &epoll_fops)
		err = -EINVAL;
	else if (tf->ops == &epoll_fops)
		err = -EPERM;		/* an epoll in an epoll: not had here */
	else if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD && op != EPOLL_CTL_DEL)
		err = -EINVAL;
	else if (op != EPOLL_CTL_DEL && (ev.events & EP_EXCLUSIVE) &&
		 (op == EPOLL_CTL_MOD || (ev.events & ~EP_EXCLUSIVE_OK)))
		err = -EINVAL;
	else
		err = ep_change(f->priv, op, fd, tf, &ev);
	fd_put(tf);
	fd_put(f);
	return err;
}

/*
 * The set as it stands, up to cap of it, into poll entries, each file
 * held for the wait; items whose descriptor no longer holds their file
 * go.  The count.
 */
static long ep_entries(struct thread *t, struct lx_epoll *ep, struct poll_ent *e,
		       struct ep_item *copy, unsigned int cap)
{
	unsigned int i = 0, m = 0;

	kl_spin_lock(&ep->lock);
	while (i < ep->n && m < cap) {
		struct ep_item *it = &ep->items[i];
		/* fd_get takes the table's lock inside the set's, never the other way. */
		struct lx_file *f = fd_get(t->p, it->fd);

		/*
		 * The put is never the last: the table's reference cannot go
		 * meanwhile, since nothing here sleeps or yields and a sandbox
		 * of this kernel runs its processes on one vCPU.
		 */
		if (!f || f != it->f || f->id != it->id) {
			if (f)
				fd_put(f);
			*it = ep->items[--ep->n];
			continue;
		}
		if (it->disarmed) {
			fd_put(f);
		} else {
			copy[m] = *it;
			e[m++] = (struct poll_ent){ .fd = it->fd, .f = f,
						    .events = it->events & EP_CTL_BITS,
						    .always = POLLERR | POLLHUP };
		}
		i++;
	}
	kl_spin_unlock(&ep->lock);
	return m;
}

/*
 * The wait: poll.c's on the set's files, then up to max of the ready
 * ones out to the tenant, one-shot items disarmed.  -EINTR if a signal
 * ends it: an epoll wait is never restarted.
 */
static long ep_wait(struct thread *t, int epfd, unsigned long uevents, int max, s64 ns)
{
	struct lx_epoll_event out;
	struct ep_item *copy = NULL;
	struct poll_ent *e = NULL;
	struct lx_file *f;
	long r, m, i, k = 0;
	unsigned int cap;
	u64 left;

	if (max <= 0 || max > EP_MAX_EVENTS)
		return -EINVAL;
	f = fd_get(t->p, epfd);
	if (!f)
		return -EBADF;
	if (f->ops != &epoll_fops) {
		fd_put(f);
		return -EINVAL;
	}
	/* Room for the set as it is now; items added meanwhile wait for the next call. */
	cap = max(READ_ONCE(((struct lx_epoll *)f->priv)->n), 1U);
	e = vostd_alloc(cap * sizeof(*e), true);
	copy = vostd_alloc(cap * sizeof(*copy), false);
	r = e && copy ? 0 : -ENOMEM;
	m = r ? 0 : ep_entries(t, f->priv, e, copy, cap);
	if (!r)
		r = poll_files(t, e, m, ns, &left);
	for (i = 0; r > 0 && i < m && k < max; i++) {
		if (!e[i].revents)
			continue;
		out = (struct lx_epoll_event){ .events = e[i].revents, .data = copy[i].data };
		if (mem_user_copy(t->p, uevents + k * sizeof(out), &out, sizeof(out), MEM_WRITE)) {
			r = -EFAULT;
			break;
		}
		k++;
		if (copy[i].events & EP_ONESHOT) {
			struct lx_epoll *ep = f->priv;
			struct ep_item *it;

			kl_spin_lock(&ep->lock);
			it = ep_find(ep, copy[i].fd, copy[i].f);
			if (it && it->id == copy[i].id)
				it->disarmed = true;
			kl_spin_unlock(&ep->lock);
		}
	}
	poll_put(e, m);
	vostd_free(e);
	vostd_free(copy);
	fd_put(f);
	if (r == -ERESTARTNOHAND)
		return -EINTR;
	return r < 0 ? r : k;
}

/* A wait of timeout ms: none if negative, as Linux's ep_timeout_to_timespec. */
static s64 ms_to_ns(int timeout)
{
	return timeout < 0 ? -1 : (s64)timeout * 1000000;
}

LX_PARTIAL(epoll_wait, "an item added during a wait is seen by the next; one with an end yields");
LX_SYSCALL_DEFINE4(epoll_wait, int, epfd, unsigned long, uevents, int, max, int, timeout)
{
	return ep_wait(t, epfd, uevents, max, ms_to_ns(timeout));
}

LX_PARTIAL(epoll_pwait, "an item added during a wait is seen by the next; one with an end yields");
LX_SYSCALL_DEFINE6(epoll_pwait, int, epfd, unsigned long, uevents, int, max, int, timeout,
		   unsigned long, uset, unsigned long, size)
{
	long r = poll_mask_in(t, uset, size);

	if (r)
		return r;
	r = ep_wait(t, epfd, uevents, max, ms_to_ns(timeout));
	poll_mask_done(t, r == -EINTR ? -ERESTARTNOHAND : r);
	return r;
}

LX_PARTIAL(epoll_pwait2, "an item added during a wait is seen by the next; one with an end yields");
LX_SYSCALL_DEFINE6(epoll_pwait2, int, epfd, unsigned long, uevents, int, max,
		   unsigned long, uts, unsigned long, uset, unsigned long, size)
{
	s64 ns;
	long r = poll_time_in(t, uts, false, &ns) ?: poll_mask_in(t, uset, size);

	if (r)
		return r;
	r = ep_wait(t, epfd, uevents, max, ns);
	poll_mask_done(t, r == -EINTR ? -ERESTARTNOHAND : r);
	return r;
}
