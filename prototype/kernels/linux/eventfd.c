// SPDX-License-Identifier: GPL-2.0
/*
 * eventfd: a file that is a 64-bit counter (Linux's fs/eventfd.c).  A
 * write adds to it, a read takes it all (or one, with EFD_SEMAPHORE) and
 * waits while it is zero; a write that would pass the greatest value,
 * ULLONG_MAX - 1, waits for a read.  O_NONBLOCK makes each wait -EAGAIN,
 * and poll says which way it is ready.
 */
#include <linux/fcntl.h>
#include <linux/poll.h>

#include "syscalls.h"

#define EFD_SEMAPHORE	1
#define EFD_MAX		(~0ULL - 1)

struct lx_eventfd {
	vostd_spinlock_t lock;
	u64 count;
	bool semaphore;
	struct lx_waiter *reading, *writing;	/* blocked on it, each way */
};

static void efd_lock(struct lx_eventfd *e)
{
	kl_spin_lock(&e->lock);
}

static void efd_unlock(struct lx_eventfd *e)
{
	kl_spin_unlock(&e->lock);
}

static long efd_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		     long off)
{
	struct lx_eventfd *e = f->priv;
	bool nonblock = READ_ONCE(f->flags) & O_NONBLOCK;
	u64 v;

	if (len < sizeof(v))
		return -EINVAL;
	efd_lock(e);
	while (!e->count && !nonblock && !thread_interrupted(t))
		lx_block_on(t, &e->lock, &e->reading);
	if (!e->count) {
		efd_unlock(e);
		return nonblock ? -EAGAIN : -ERESTARTSYS;
	}
	v = e->semaphore ? 1 : e->count;
	e->count -= v;
	lx_wake_all(&e->writing);
	efd_unlock(e);
	return mem_user_copy(t->p, buf, &v, sizeof(v), MEM_WRITE) ?: (long)sizeof(v);
}

static long efd_write(struct thread *t, struct lx_file *f, unsigned long buf,
		      unsigned long len, long off)
{
	struct lx_eventfd *e = f->priv;
	bool nonblock = READ_ONCE(f->flags) & O_NONBLOCK;
	u64 v;

	if (len < sizeof(v))
		return -EINVAL;
	if (mem_user_copy(t->p, buf, &v, sizeof(v), MEM_READ))
		return -EFAULT;
	if (v == ~0ULL)
		return -EINVAL;
	efd_lock(e);
	while (EFD_MAX - e->count < v && !nonblock && !thread_interrupted(t))
		lx_block_on(t, &e->lock, &e->writing);
	if (EFD_MAX - e->count < v) {
		efd_unlock(e);
		return nonblock ? -EAGAIN : -ERESTARTSYS;
	}
	e->count += v;
	if (v)
		lx_wake_all(&e->reading);
	efd_unlock(e);
	return sizeof(v);
}

static unsigned int efd_poll(struct lx_file *f, struct lx_waiter *w)
{
	struct lx_eventfd *e = f->priv;
	unsigned int mask;

	efd_lock(e);
	mask = (e->count ? POLLIN | POLLRDNORM : 0) |
	       (e->count < EFD_MAX ? POLLOUT | POLLWRNORM : 0);
	/* One waiter, on the queue of the way it is not ready: at most one is. */
	if (w)
		lx_queue(e->count ? &e->writing : &e->reading, w);
	efd_unlock(e);
	return mask;
}

static void efd_unpoll(struct lx_file *f, struct lx_waiter *w)
{
	struct lx_eventfd *e = f->priv;

	efd_lock(e);
	lx_unqueue(&e->reading, w);
	lx_unqueue(&e->writing, w);
	efd_unlock(e);
}

/* An anonymous inode's: mode 0600 and no type, as Linux's anon_inode. */
static long efd_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, 0600, 5, 0);
}

static const struct lx_file_ops efd_fops = {
	.read = efd_read,
	.write = efd_write,
	.lseek = lx_no_lseek,
	.stat = efd_stat,
	.poll = efd_poll,
	.unpoll = efd_unpoll,
	.release = file_free_priv,
};

static long do_eventfd2(struct thread *t, unsigned int count, long flags)
{
	struct lx_eventfd *e;
	struct lx_file *f;
	long fd;

	if (flags & ~(EFD_SEMAPHORE | O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	e = vostd_alloc(sizeof(*e), true);
	f = e ? file_new(&efd_fops) : NULL;
	if (!f) {
		vostd_free(e);
		return -ENOMEM;
	}
	e->count = count;
	e->semaphore = flags & EFD_SEMAPHORE;
	f->priv = e;
	f->flags = O_RDWR | (flags & O_NONBLOCK);
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

LX_SYSCALL_DEFINE2(eventfd2, unsigned int, count, int, flags)
{
	return do_eventfd2(t, count, flags);
}

LX_SYSCALL_DEFINE1(eventfd, unsigned int, count)
{
	return do_eventfd2(t, count, 0);
}
