// SPDX-License-Identifier: GPL-2.0
/*
 * Pipes: a ring of 4 KiB between the files of its two ends.  A reader of
 * an empty pipe, or a writer of a full one, blocks as a kernelet task on
 * the pipe's queue for its end (lx_block_on: the pipe lives across the
 * sleep, since the call's file holds its end, and an end its pipe), and
 * the other end's next act wakes it;
 * the last file of an end wakes the other end's queue, so that a reader
 * sees the end of the pipe and a writer -EPIPE.
 */
#include <linux/fcntl.h>
#include <linux/poll.h>
#include <linux/stat.h>

#include "syscalls.h"

static void pipe_lock(struct lx_pipe *pp)
{
	kl_spin_lock(&pp->lock);
}

static void pipe_unlock(struct lx_pipe *pp)
{
	kl_spin_unlock(&pp->lock);
}

/* A pipe with one reader and one writer (a pipe's two files, a socket's two ends). */
struct lx_pipe *lx_pipe_new(void)
{
	struct lx_pipe *pp = vostd_alloc(sizeof(*pp), true);

	if (pp) {
		pp->readers = 1;
		pp->writers = 1;
	}
	return pp;
}

/* Unlock pp, and free it if no reader, writer or socket is left to use it. */
static void pipe_unlock_put(struct lx_pipe *pp)
{
	bool gone = !pp->readers && !pp->writers && !pp->keeps;

	pipe_unlock(pp);
	if (gone)
		vostd_free(pp);
}

/*
 * A reader or a writer has gone: every task blocked on the other end sees
 * the end of the pipe now; the last of both frees it.
 */
void lx_pipe_drop(struct lx_pipe *pp, bool reader)
{
	pipe_lock(pp);
	if (reader)
		pp->readers--;
	else
		pp->writers--;
	lx_wake_all(reader ? &pp->writing : &pp->reading);
	pipe_unlock_put(pp);
}

/*
 * A socket keeps each pipe of its stream in memory while it lives, so
 * that a poll's waiter can come off it after a shutdown dropped the
 * socket's reader or writer; the last of everything frees it.
 */
void lx_pipe_keep(struct lx_pipe *pp, bool keep)
{
	pipe_lock(pp);
	if (keep)
		pp->keeps++;
	else
		pp->keeps--;
	pipe_unlock_put(pp);
}

/* The last reference to f, an end of a pipe, has gone. */
static void pipe_release(struct lx_file *f)
{
	lx_pipe_drop(f->pipe, f->ops == &lx_pipe_read_fops);
}

/*
 * Nothing read when a signal came: the call is restarted, or -EINTR after
 * a handler.  An empty pipe with O_NONBLOCK is -EAGAIN at once.
 */
long lx_pipe_read(struct thread *t, struct lx_pipe *pp, unsigned long buf, unsigned long len,
		  bool nonblock)
{
	char chunk[LX_CHUNK];
	unsigned int n, i;

	if (!len)		/* as Linux's pipe_read: nothing asked, nothing waited for */
		return 0;
	pipe_lock(pp);
	while (!pp->len && pp->writers && !nonblock && !thread_interrupted(t))
		lx_block_on(t, &pp->lock, &pp->reading);
	if (!pp->len && pp->writers) {
		pipe_unlock(pp);
		return nonblock ? -EAGAIN : -ERESTARTSYS;
	}
	n = min_t(unsigned long, min_t(unsigned long, len, pp->len), LX_CHUNK);
	for (i = 0; i < n; i++)
		chunk[i] = pp->buf[(pp->head + i) % sizeof(pp->buf)];
	pp->head = (pp->head + n) % sizeof(pp->buf);
	pp->len -= n;
	if (n)
		lx_wake_all(&pp->writing);
	pipe_unlock(pp);
	if (n && mem_user_copy(t->p, buf, chunk, n, MEM_WRITE))
		return -EFAULT;
	return n;
}

/*
 * A write with no reader left is -EPIPE and SIGPIPE to the writer, as in
 * Linux (a socket's send with MSG_NOSIGNAL sends none); one a signal
 * cuts short returns what it wrote, or is restarted;
 * with O_NONBLOCK one that finds the pipe full returns what it wrote, or
 * -EAGAIN.
 */
long lx_pipe_write(struct thread *t, struct lx_pipe *pp, unsigned long buf, unsigned long len,
		   bool nonblock, bool sigpipe)
{
	char chunk[LX_CHUNK];
	unsigned long done = 0;

	while (done < len) {
		unsigned int n = min_t(unsigned long, len - done, LX_CHUNK), i, room;

		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_READ))
			return lx_done_or(done, -EFAULT);
		pipe_lock(pp);
		while (pp->readers && pp->len == sizeof(pp->buf) && !nonblock &&
		       !thread_interrupted(t))
			lx_block_on(t, &pp->lock, &pp->writing);
		room = sizeof(pp->buf) - pp->len;
		if (!pp->readers) {
			pipe_unlock(pp);
			if (sigpipe)
				lx_signal_thread(t, LX_SIGPIPE, SI_USER);
			return lx_done_or(done, -EPIPE);
		}
		if (!room) {
			pipe_unlock(pp);
			return lx_done_or(done, nonblock ? -EAGAIN : -ERESTARTSYS);
		}
		n = min(n, room);
		for (i = 0; i < n; i++)
			pp->buf[(pp->head + pp->len + i) % sizeof(pp->buf)] = chunk[i];
		pp->len += n;
		lx_wake_all(&pp->reading);
		pipe_unlock(pp);
		done += n;
	}
	return done;
}

/*
 * Datagrams in a pipe's ring (socket.c): each a record, a header of its
 * length and of its sender's name, the name, then the bytes, put in and
 * taken out whole under the pipe's lock.
 */
struct rec_head {
	u16 len, namelen;
};

static void ring_put(struct lx_pipe *pp, const void *src, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pp->buf[(pp->head + pp->len + i) % sizeof(pp->buf)] = ((const char *)src)[i];
	pp->len += n;
}

static void ring_get(struct lx_pipe *pp, void *dst, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (dst)
			((char *)dst)[i] = pp->buf[(pp->head + i) % sizeof(pp->buf)];
	pp->head = (pp->head + n) % sizeof(pp->buf);
	pp->len -= n;
}

/*
 * Send the len bytes at data, named name, as one record: -EMSGSIZE for
 * one the ring could never hold, -ECONNREFUSED once no reader is left
 * (the receiving socket has closed), and as a pipe's write otherwise.
 */
long lx_pipe_send_rec(struct thread *t, struct lx_pipe *pp, const void *name,
		      unsigned int namelen, const void *data, unsigned int len, bool nonblock)
{
	struct rec_head h = { .len = len, .namelen = namelen };
	unsigned int need = sizeof(h) + namelen + len;
	long r = len;

	if (need > sizeof(pp->buf))
		return -EMSGSIZE;
	pipe_lock(pp);
	while (pp->readers && sizeof(pp->buf) - pp->len < need && !nonblock &&
	       !thread_interrupted(t))
		lx_block_on(t, &pp->lock, &pp->writing);
	if (!pp->readers) {
		r = -ECONNREFUSED;
	} else if (sizeof(pp->buf) - pp->len < need) {
		r = nonblock ? -EAGAIN : -ERESTARTSYS;
	} else {
		ring_put(pp, &h, sizeof(h));
		ring_put(pp, name, namelen);
		ring_put(pp, data, len);
		lx_wake_all(&pp->reading);
	}
	pipe_unlock(pp);
	return r;
}

/*
 * Take one record: its first size bytes to data (the rest is dropped, as
 * a datagram's is), its sender's name to name (*namelen, in and out); the
 * record's whole length comes back.  An empty ring waits, unless
 * nonblock, for a record or the end of every writer, which is 0.
 */
long lx_pipe_recv_rec(struct thread *t, struct lx_pipe *pp, void *name, unsigned int *namelen,
		      void *data, unsigned int size, bool nonblock)
{
	struct rec_head h;
	long r;

	pipe_lock(pp);
	while (!pp->len && pp->writers && !nonblock && !thread_interrupted(t))
		lx_block_on(t, &pp->lock, &pp->reading);
	if (!pp->len) {
		r = !pp->writers ? 0 : nonblock ? -EAGAIN : -ERESTARTSYS;
		pipe_unlock(pp);
		return r;
	}
	ring_get(pp, &h, sizeof(h));
	*namelen = min_t(unsigned int, h.namelen, *namelen);
	ring_get(pp, name, *namelen);
	ring_get(pp, NULL, h.namelen - *namelen);
	ring_get(pp, data, min_t(unsigned int, h.len, size));
	ring_get(pp, NULL, h.len - min_t(unsigned int, h.len, size));
	lx_wake_all(&pp->writing);
	pipe_unlock(pp);
	return h.len;
}

/* One more reader or writer for a call under way: the caller knows pp lives. */
void lx_pipe_hold(struct lx_pipe *pp, bool reader)
{
	pipe_lock(pp);
	if (reader)
		pp->readers++;
	else
		pp->writers++;
	pipe_unlock(pp);
}

/* No pread reaches here: a pipe cannot seek (do_read, sys_fs.c). */
static long pipe_file_read(struct thread *t, struct lx_file *f, unsigned long buf,
			   unsigned long len, long off)
{
	return lx_pipe_read(t, f->pipe, buf, len, READ_ONCE(f->flags) & O_NONBLOCK);
}

static long pipe_file_write(struct thread *t, struct lx_file *f, unsigned long buf,
			    unsigned long len, long off)
{
	return lx_pipe_write(t, f->pipe, buf, len, READ_ONCE(f->flags) & O_NONBLOCK, true);
}

static long pipe_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, S_IFIFO | 0600, 4, 0);
}

/* FIONREAD: the bytes the pipe holds (Linux's pipe_ioctl), of either end. */
static long pipe_ioctl(struct thread *t, struct lx_file *f, unsigned long cmd, unsigned long arg)
{
	struct lx_pipe *pp = f->pipe;
	int n;

	if (cmd != 0x541B)	/* FIONREAD */
		return -ENOTTY;
	pipe_lock(pp);
	n = pp->len;
	pipe_unlock(pp);
	return mem_user_copy(t->p, arg, &n, sizeof(n), MEM_WRITE);
}

/*
 * What an end is ready for, as Linux's pipe_poll answers: the read end to
 * read if the pipe holds bytes, and hung up once no writer is left; the
 * write end to write if there is room, and in error once no reader is.
 * With w, w waits on the queue the other end's next act wakes, queued
 * under the lock the look was made under, so no wake falls between.
 */
unsigned int lx_pipe_poll(struct lx_pipe *pp, bool reader, struct lx_waiter *w)
{
	unsigned int mask;

	pipe_lock(pp);
	if (reader) {
		mask = (pp->len ? POLLIN | POLLRDNORM : 0) | (pp->writers ? 0 : POLLHUP);
		if (w)
			lx_queue(&pp->reading, w);
	} else {
		mask = (pp->len < sizeof(pp->buf) ? POLLOUT | POLLWRNORM : 0) |
		       (pp->readers ? 0 : POLLERR);
		if (w)
			lx_queue(&pp->writing, w);
	}
	pipe_unlock(pp);
	return mask;
}

void lx_pipe_unpoll(struct lx_pipe *pp, bool reader, struct lx_waiter *w)
{
	pipe_lock(pp);
	lx_unqueue(reader ? &pp->reading : &pp->writing, w);
	pipe_unlock(pp);
}

static unsigned int pipe_poll(struct lx_file *f, struct lx_waiter *w)
{
	return lx_pipe_poll(f->pipe, f->ops == &lx_pipe_read_fops, w);
}

static void pipe_unpoll(struct lx_file *f, struct lx_waiter *w)
{
	lx_pipe_unpoll(f->pipe, f->ops == &lx_pipe_read_fops, w);
}

/* Each end is opened for its one direction: O_ACCMODE refuses the other. */
const struct lx_file_ops lx_pipe_read_fops = {
	.read = pipe_file_read,
	.lseek = lx_no_lseek,
	.stat = pipe_stat,
	.poll = pipe_poll,
	.unpoll = pipe_unpoll,
	.ioctl = pipe_ioctl,
	.release = pipe_release,
};

const struct lx_file_ops lx_pipe_write_fops = {
	.write = pipe_file_write,
	.lseek = lx_no_lseek,
	.stat = pipe_stat,
	.poll = pipe_poll,
	.unpoll = pipe_unpoll,
	.ioctl = pipe_ioctl,
	.release = pipe_release,
};

static long do_pipe2(struct thread *t, unsigned long ufds, long flags)
{
	struct lx_pipe *pp;
	struct lx_file *r, *w;
	int fds[2];
	long err;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	pp = lx_pipe_new();
	r = file_new(&lx_pipe_read_fops);
	w = file_new(&lx_pipe_write_fops);
	if (!pp || !r || !w) {
		vostd_free(pp);
		vostd_free(r);
		vostd_free(w);
		return -ENOMEM;
	}
	r->pipe = pp;
	w->pipe = pp;
	r->flags = flags & O_NONBLOCK;	/* O_RDONLY, as F_GETFL says */
	w->flags = O_WRONLY | (flags & O_NONBLOCK);
	/*
	 * The numbers are reserved and copied out before the files go in, as
	 * in Linux: a copy that fails leaves behind no descriptor that another
	 * thread could have used.
	 */
	fds[0] = fd_reserve(t->p, 0);
	fds[1] = fds[0] < 0 ? -EMFILE : fd_reserve(t->p, 0);
	err = fds[1] < 0 ? -EMFILE :
	      mem_user_copy(t->p, ufds, fds, sizeof(fds), MEM_WRITE) ? -EFAULT : 0;
	if (err) {
		if (fds[0] >= 0)
			fd_unreserve(t->p, fds[0]);
		if (fds[1] >= 0)
			fd_unreserve(t->p, fds[1]);
		file_put(r);
		file_put(w);	/* and the pipe with it */
		return err;
	}
	fd_commit(t->p, fds[0], r, flags & O_CLOEXEC);
	fd_commit(t->p, fds[1], w, flags & O_CLOEXEC);
	return 0;
}

LX_PARTIAL(pipe, "a 4 KiB buffer, where Linux's holds 64 KiB");
LX_SYSCALL_DEFINE1(pipe, unsigned long, ufds)
{
	return do_pipe2(t, ufds, 0);
}

LX_PARTIAL(pipe2, "O_DIRECT -EINVAL; a 4 KiB buffer");
LX_SYSCALL_DEFINE2(pipe2, unsigned long, ufds, int, flags)
{
	return do_pipe2(t, ufds, flags);
}
