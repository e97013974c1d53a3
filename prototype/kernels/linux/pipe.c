// SPDX-License-Identifier: GPL-2.0
/*
 * Pipes: a ring of 4 KiB between the files of its two ends.  A reader of
 * an empty pipe, or a writer of a full one, blocks as a kernelet task on
 * the pipe's queue for its end, and the other end's next act wakes it;
 * the last file of an end wakes the other end's queue, so that a reader
 * sees the end of the pipe and a writer -EPIPE.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

static void pipe_lock(struct lx_pipe *pp)
{
	kl_guard_begin();
	vostd_spin_lock(&pp->lock);
}

static void pipe_unlock(struct lx_pipe *pp)
{
	vostd_spin_unlock(&pp->lock);
	kl_guard_end();
}

/*
 * Wake every task queued on *q, under the pipe's lock: each looks again at
 * the pipe when it runs.  The guard holds their switches until the unlock.
 */
static void pipe_wake_all(struct lx_waiter **q)
{
	struct lx_waiter *w;

	for (w = *q; w; w = w->next) {
		w->queued = false;
		kl_wake(w->tid);
	}
	*q = NULL;
}

/*
 * The last reference to f, an end of a pipe, has gone: every task blocked
 * on the other end sees the end of the pipe now; the last end frees it.
 */
static void pipe_release(struct lx_file *f)
{
	struct lx_pipe *pp = f->pipe;
	bool reader = f->ops == &lx_pipe_read_fops;
	bool gone;

	pipe_lock(pp);
	if (reader)
		pp->readers--;
	else
		pp->writers--;
	pipe_wake_all(reader ? &pp->writing : &pp->reading);
	gone = !pp->readers && !pp->writers;
	pipe_unlock(pp);
	if (gone)
		vostd_free(pp);
}

/*
 * Wait on queue q of pp, whose lock the caller holds, for the other end or
 * for a kill or a signal (which wake the thread through lx_sleeping); return
 * with the lock held again and off the queue.  pp lives across the sleep:
 * the caller's call holds a file of this end (fd_get), and an end holds
 * its pipe (pipe_release).  w is on this stack: a waker touches it only
 * under pp's lock, which is taken again before w goes.
 */
static void pipe_block(struct thread *t, struct lx_pipe *pp, struct lx_waiter **q)
{
	struct lx_waiter w = { .tid = kl_self(), .next = *q, .queued = true }, **pw;

	*q = &w;
	pipe_unlock(pp);
	lx_sleeping(t);
	if (!thread_interrupted(t))
		kl_block();
	lx_awake(t);
	pipe_lock(pp);
	for (pw = q; w.queued && *pw; pw = &(*pw)->next) {
		if (*pw == &w) {
			*pw = w.next;
			break;
		}
	}
}

/* Nothing read when a signal came: the call is restarted, or -EINTR after a handler. */
static long pipe_read(struct thread *t, struct lx_pipe *pp, unsigned long buf,
		      unsigned long len)
{
	char chunk[LX_CHUNK];
	unsigned int n, i;

	pipe_lock(pp);
	while (!pp->len && pp->writers && !thread_interrupted(t))
		pipe_block(t, pp, &pp->reading);
	if (!pp->len && pp->writers) {
		pipe_unlock(pp);
		return -ERESTARTSYS;
	}
	n = min_t(unsigned long, min_t(unsigned long, len, pp->len), LX_CHUNK);
	for (i = 0; i < n; i++)
		chunk[i] = pp->buf[(pp->head + i) % sizeof(pp->buf)];
	pp->head = (pp->head + n) % sizeof(pp->buf);
	pp->len -= n;
	if (n)
		pipe_wake_all(&pp->writing);
	pipe_unlock(pp);
	if (n && mem_user_copy(t->p, buf, chunk, n, MEM_WRITE))
		return -EFAULT;
	return n;
}

/*
 * A write with no reader left is -EPIPE and SIGPIPE to the writer, as in
 * Linux; one a signal cuts short returns what it wrote, or is restarted.
 */
static long pipe_write(struct thread *t, struct lx_pipe *pp, unsigned long buf,
		       unsigned long len)
{
	char chunk[LX_CHUNK];
	unsigned long done = 0;

	while (done < len) {
		unsigned int n = min_t(unsigned long, len - done, LX_CHUNK), i, room;

		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_READ))
			return done ?: -EFAULT;
		pipe_lock(pp);
		while (pp->readers && pp->len == sizeof(pp->buf) && !thread_interrupted(t))
			pipe_block(t, pp, &pp->writing);
		room = sizeof(pp->buf) - pp->len;
		if (!pp->readers) {
			pipe_unlock(pp);
			lx_signal_thread(t, LX_SIGPIPE, SI_USER);
			return done ?: -EPIPE;
		}
		if (!room) {
			pipe_unlock(pp);
			return done ?: -ERESTARTSYS;
		}
		n = min(n, room);
		for (i = 0; i < n; i++)
			pp->buf[(pp->head + pp->len + i) % sizeof(pp->buf)] = chunk[i];
		pp->len += n;
		pipe_wake_all(&pp->reading);
		pipe_unlock(pp);
		done += n;
	}
	return done;
}

/* No pread reaches here: a pipe cannot seek (do_read, sys_fs.c). */
static long pipe_file_read(struct thread *t, struct lx_file *f, unsigned long buf,
			   unsigned long len, long off)
{
	return pipe_read(t, f->pipe, buf, len);
}

static long pipe_file_write(struct thread *t, struct lx_file *f, unsigned long buf,
			    unsigned long len, long off)
{
	return pipe_write(t, f->pipe, buf, len);
}

static long pipe_stat(struct thread *t, struct lx_file *f, unsigned long ust)
{
	return lx_stat_out(t, ust, S_IFIFO | 0600, 4, 0);
}

/* Each end is opened for its one direction: O_ACCMODE refuses the other. */
const struct lx_file_ops lx_pipe_read_fops = {
	.read = pipe_file_read,
	.lseek = lx_no_lseek,
	.stat = pipe_stat,
	.release = pipe_release,
};

const struct lx_file_ops lx_pipe_write_fops = {
	.write = pipe_file_write,
	.lseek = lx_no_lseek,
	.stat = pipe_stat,
	.release = pipe_release,
};

static long do_pipe2(struct thread *t, unsigned long ufds, long flags)
{
	struct lx_pipe *pp;
	struct lx_file *r, *w;
	int fds[2];
	long err;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK))	/* O_NONBLOCK is kept, not acted on */
		return -EINVAL;
	pp = vostd_alloc(sizeof(*pp), true);
	r = file_new(&lx_pipe_read_fops);
	w = file_new(&lx_pipe_write_fops);
	if (!pp || !r || !w) {
		vostd_free(pp);
		vostd_free(r);
		vostd_free(w);
		return -ENOMEM;
	}
	pp->readers = 1;
	pp->writers = 1;
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

LX_PARTIAL(pipe2, "O_NONBLOCK kept but not acted on; O_DIRECT -EINVAL; a 4 KiB buffer");
LX_SYSCALL_DEFINE2(pipe2, unsigned long, ufds, int, flags)
{
	return do_pipe2(t, ufds, flags);
}
