// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's sends and receives (socket.c's sockets): send and receive
 * in their three forms, sendto and recvfrom, sendmsg and recvmsg, and a
 * read or a write of the socket's file, which are the same without flags.
 * A stream's bytes go through its pipe out, a datagram whole into the
 * queue of the socket it is sent to, with the sender's name.
 */
#include <linux/fcntl.h>

#include "socket.h"

/*
 * A datagram of len bytes at data, to the socket named to, or to the
 * connected peer's queue.  To an AF_INET port no one holds it goes
 * nowhere, as UDP's does with no one to refuse it.
 */
static long dgram_send(struct thread *t, struct lx_file *f, const void *data,
		       unsigned long len, long flags, const struct lx_sockname *to)
{
	struct lx_sock *s = f->priv, *peer;
	struct lx_sockname me, n;
	struct lx_node *nd = NULL;
	struct lx_pipe *pp = NULL;
	long err = 0;

	if (len > LX_DGRAM_MAX)
		return -EMSGSIZE;
	if (to) {
		n = *to;
		err = s->family == AF_UNIX ? unix_name(t, &n, &nd) : inet_name(&n);
		if (err)
			return err;
	}
	sock_lock();
	if (s->family == AF_INET && !s->name.addr.in.port)
		err = sock_autobind_locked(s);
	me = s->name;
	inet_here(&me);
	if (!to) {
		pp = s->tx;
		err = err ?: pp ? 0 : s->family == AF_UNIX ? -ENOTCONN : -EDESTADDRREQ;
	} else if (!err) {
		peer = sock_find_locked(s->family, SOCK_DGRAM, &n, nd);
		pp = peer ? peer->rx : NULL;
		err = pp || s->family == AF_INET ? 0 : -ECONNREFUSED;
	}
	if (pp && !err)
		lx_pipe_hold(pp, false);
	sock_unlock();
	node_put(nd);
	if (err || !pp)
		return err ?: (long)len;
	err = lx_pipe_send_rec(t, pp, &me.addr, me.len, data, len, sock_nonblock(f, flags));
	lx_pipe_drop(pp, false);
	return err;
}

long sock_send(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
	       long flags, const struct lx_sockname *to)
{
	struct lx_sock *s = f->priv;
	struct lx_pipe *pp;
	void *data;
	long r;

	if (s->type == SOCK_DGRAM) {
		if (len > LX_DGRAM_MAX)
			return -EMSGSIZE;
		data = vostd_alloc(len + 1, false);
		if (!data)
			return -ENOMEM;
		r = len && mem_user_copy(t->p, buf, data, len, MEM_READ) ? -EFAULT :
		    dgram_send(t, f, data, len, flags, to);
		vostd_free(data);
		return r;
	}
	if (to && to->len && s->family == AF_UNIX)
		return READ_ONCE(s->state) == LX_SS_CONNECTED ? -EISCONN : -EOPNOTSUPP;
	pp = sock_pipe(s, false);
	if (!pp) {
		/* Shut for writing, or never connected: TCP's is a broken pipe too. */
		if (READ_ONCE(s->state) != LX_SS_CONNECTED && s->family == AF_UNIX)
			return -ENOTCONN;
		if (!(flags & MSG_NOSIGNAL))
			lx_signal_thread(t, LX_SIGPIPE, SI_USER);
		return -EPIPE;
	}
	r = lx_pipe_write(t, pp, buf, len, sock_nonblock(f, flags), !(flags & MSG_NOSIGNAL));
	lx_pipe_drop(pp, false);
	return r;
}

/*
 * One datagram into data (LX_DGRAM_MAX bytes), its sender's name into
 * from; its whole length back.
 */
static long dgram_recv(struct thread *t, struct lx_file *f, void *data, long flags,
		       struct lx_sockname *from)
{
	struct lx_pipe *pp = sock_pipe(f->priv, true);
	unsigned int n = sizeof(from->addr);
	long r;

	r = lx_pipe_recv_rec(t, pp, &from->addr, &n, data, LX_DGRAM_MAX, sock_nonblock(f, flags));
	lx_pipe_drop(pp, true);
	from->len = n;
	return r;
}

/*
 * A receive: a stream's bytes (all len of them with MSG_WAITALL, unless
 * the stream ends first), or one datagram, cut to len (its whole length
 * with MSG_TRUNC), and its sender's name to uaddr.
 */
long sock_recv(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
	       long flags, unsigned long uaddr, unsigned long ulen)
{
	struct lx_sock *s = f->priv;
	struct lx_sockname from = {};
	struct lx_pipe *pp;
	unsigned long done = 0;
	void *data;
	long r;

	if (s->type == SOCK_STREAM && READ_ONCE(s->state) != LX_SS_CONNECTED)
		return s->family == AF_UNIX ? -EINVAL : -ENOTCONN;
	if (s->type == SOCK_STREAM) {
		pp = sock_pipe(s, true);
		if (!pp)
			return 0;	/* shut for reading */
		do {
			r = lx_pipe_read(t, pp, buf + done, len - done, sock_nonblock(f, flags));
			if (r > 0)
				done += r;
		} while (r > 0 && done < len && (flags & MSG_WAITALL));
		lx_pipe_drop(pp, true);
		sock_lock();
		from = s->family == AF_UNIX ? s->peer : (struct lx_sockname){};
		sock_unlock();
		r = lx_done_or(done, r);
		return r < 0 ? r : name_out(t, &from, uaddr, ulen) ?: r;
	}
	data = vostd_alloc(LX_DGRAM_MAX + 1, false);
	if (!data)
		return -ENOMEM;
	r = dgram_recv(t, f, data, flags, &from);
	if (r > 0 && mem_user_copy(t->p, buf, data, min_t(unsigned long, len, r), MEM_WRITE))
		r = -EFAULT;
	vostd_free(data);
	if (r >= 0 && !(flags & MSG_TRUNC))
		r = min_t(unsigned long, len, r);
	return r < 0 ? r : name_out(t, &from, uaddr, ulen) ?: r;
}

LX_PARTIAL(sendto, "MSG_DONTWAIT and MSG_NOSIGNAL; other flags ignored; datagrams under 4 KiB");
LX_SYSCALL_DEFINE6(sendto, int, fd, unsigned long, buf, unsigned long, len, unsigned int, flags,
		   unsigned long, uaddr, int, alen)
{
	struct lx_sockname to;
	struct lx_file *f;
	long err;

	if (!sock_get(t, fd, &f, &err))
		return err;
	err = uaddr ? name_in(t, uaddr, alen, &to) : 0;
	if (!err)
		err = sock_send(t, f, buf, len, flags, uaddr && alen ? &to : NULL);
	fd_put(f);
	return err;
}

LX_PARTIAL(recvfrom, "MSG_DONTWAIT, MSG_WAITALL and MSG_TRUNC; no MSG_PEEK; others ignored");
LX_SYSCALL_DEFINE6(recvfrom, int, fd, unsigned long, buf, unsigned long, len, unsigned int, flags,
		   unsigned long, uaddr, unsigned long, ulen)
{
	struct lx_file *f;
	long err;

	if (!sock_get(t, fd, &f, &err))
		return err;
	err = flags & MSG_PEEK ? -EINVAL : sock_recv(t, f, buf, len, flags, uaddr, ulen);
	fd_put(f);
	return err;
}

/* Linux's struct user_msghdr and struct iovec on x86-64. */
struct lx_msghdr {
	u64 name;
	u32 namelen, pad0;
	u64 iov, iovlen, control, controllen;
	u32 flags, pad1;
};

struct lx_iovec {
	u64 base, len;
};

#define LX_UIO_MAXIOV	1024

/* A message's header and its vector in; -EMSGSIZE for a vector past Linux's UIO_MAXIOV. */
static long msg_in(struct thread *t, unsigned long umsg, struct lx_msghdr *m,
		   struct lx_iovec **iov)
{
	if (mem_user_copy(t->p, umsg, m, sizeof(*m), MEM_READ))
		return -EFAULT;
	if (m->iovlen > LX_UIO_MAXIOV)
		return -EMSGSIZE;
	*iov = vostd_alloc(m->iovlen * sizeof(**iov) + 1, false);
	if (!*iov)
		return -ENOMEM;
	if (m->iovlen && mem_user_copy(t->p, m->iov, *iov, m->iovlen * sizeof(**iov), MEM_READ)) {
		vostd_free(*iov);
		return -EFAULT;
	}
	return 0;
}

/*
 * sendmsg: a stream's vector sent a piece at a time, a datagram gathered
 * whole first.  No ancillary data: no descriptor passes between processes.
 */
static long do_sendmsg(struct thread *t, struct lx_file *f, unsigned long umsg, long flags)
{
	struct lx_sock *s = f->priv;
	struct lx_sockname to;
	struct lx_iovec *iov;
	struct lx_msghdr m;
	unsigned long i, done = 0, total = 0;
	char *data = NULL;
	long r;

	r = msg_in(t, umsg, &m, &iov);
	if (r)
		return r;
	r = m.controllen ? -EINVAL : m.name ? name_in(t, m.name, (int)m.namelen, &to) : 0;
	for (i = 0; !r && i < m.iovlen; i++)
		total += iov[i].len;
	if (!r && s->type == SOCK_DGRAM) {
		data = total <= LX_DGRAM_MAX ? vostd_alloc(total + 1, false) : NULL;
		r = total > LX_DGRAM_MAX ? -EMSGSIZE : data ? 0 : -ENOMEM;
		for (i = 0; !r && i < m.iovlen; done += iov[i++].len)
			if (iov[i].len && mem_user_copy(t->p, iov[i].base, data + done, iov[i].len,
							MEM_READ))
				r = -EFAULT;
		if (!r)
			r = dgram_send(t, f, data, total, flags, m.name && m.namelen ? &to : NULL);
		vostd_free(data);
		vostd_free(iov);
		return r;
	}
	for (i = 0; !r && i < m.iovlen; i++) {
		r = sock_send(t, f, iov[i].base, iov[i].len, flags,
			      m.name && m.namelen ? &to : NULL);
		if (r > 0)
			done += r;
		r = r < 0 ? r : (u64)r < iov[i].len ? 1 : 0;	/* a short send ends it */
	}
	vostd_free(iov);
	return lx_done_or(done, r < 0 ? r : 0);
}

LX_PARTIAL(sendmsg, "no ancillary data (SCM_RIGHTS, SCM_CREDENTIALS): a control buffer is -EINVAL");
LX_SYSCALL_DEFINE3(sendmsg, int, fd, unsigned long, umsg, unsigned int, flags)
{
	struct lx_file *f;
	long err;

	if (!sock_get(t, fd, &f, &err))
		return err;
	err = do_sendmsg(t, f, umsg, flags);
	fd_put(f);
	return err;
}

/* The flags and control length a recvmsg gives back, after its name. */
static long msg_out(struct thread *t, unsigned long umsg, struct lx_msghdr *m)
{
	m->controllen = 0;
	return mem_user_copy(t->p, umsg + offsetof(struct lx_msghdr, controllen), &m->controllen,
			     sizeof(m->controllen) + sizeof(m->flags), MEM_WRITE);
}

/* A datagram scattered over the vector, MSG_TRUNC if it did not fit. */
static long dgram_recvmsg(struct thread *t, struct lx_file *f, unsigned long umsg,
			  struct lx_msghdr *m, struct lx_iovec *iov, long flags)
{
	struct lx_sockname from;
	unsigned long i, done = 0;
	char *data;
	long r;

	data = vostd_alloc(LX_DGRAM_MAX + 1, false);
	if (!data)
		return -ENOMEM;
	r = dgram_recv(t, f, data, flags, &from);
	for (i = 0; r > 0 && i < m->iovlen && done < (unsigned long)r; i++) {
		unsigned long n = min_t(unsigned long, iov[i].len, r - done);

		if (n && mem_user_copy(t->p, iov[i].base, data + done, n, MEM_WRITE))
			r = -EFAULT;
		done += n;
	}
	vostd_free(data);
	if (r < 0)
		return r;
	m->flags = done < (unsigned long)r ? MSG_TRUNC : 0;
	if (m->name)
		r = name_out(t, &from, m->name, umsg + offsetof(struct lx_msghdr, namelen)) ?: r;
	if (r >= 0)
		r = msg_out(t, umsg, m) ?: (flags & MSG_TRUNC ? r : (long)done);
	return r;
}

/*
 * recvmsg: into the vector's first piece with room, then on while a
 * stream has more (no waiting after the first); the sender's name to
 * msg_name, its length to msg_namelen, no control data, and MSG_TRUNC in
 * msg_flags for a datagram cut short.
 */
static long do_recvmsg(struct thread *t, struct lx_file *f, unsigned long umsg, long flags)
{
	struct lx_sock *s = f->priv;
	struct lx_iovec *iov;
	struct lx_msghdr m;
	unsigned long i, done = 0;
	int none = 0;
	long r;

	r = msg_in(t, umsg, &m, &iov);
	if (r)
		return r;
	m.flags = 0;
	/* No msg_name: its length comes back 0, as Linux's does. */
	if (!m.name && mem_user_copy(t->p, umsg + offsetof(struct lx_msghdr, namelen), &none,
				     sizeof(none), MEM_WRITE)) {
		vostd_free(iov);
		return -EFAULT;
	}
	if (s->type == SOCK_DGRAM) {
		r = dgram_recvmsg(t, f, umsg, &m, iov, flags);
		vostd_free(iov);
		return r;
	}
	for (i = 0; i < m.iovlen && !r; i++) {
		if (!iov[i].len && i + 1 < m.iovlen)
			continue;
		r = sock_recv(t, f, iov[i].base, iov[i].len, done ? flags | MSG_DONTWAIT : flags,
			      done ? 0 : m.name, umsg + offsetof(struct lx_msghdr, namelen));
		if (r == -EAGAIN && done)
			r = 0;
		if (r < 0)
			break;
		done += r;
		r = (u64)r == iov[i].len ? 0 : 1;	/* a short read ends it */
	}
	vostd_free(iov);
	if (r < 0 && !done)
		return r;
	return msg_out(t, umsg, &m) ?: (long)done;
}

LX_PARTIAL(recvmsg, "no ancillary data comes back; no MSG_PEEK");
LX_SYSCALL_DEFINE3(recvmsg, int, fd, unsigned long, umsg, unsigned int, flags)
{
	struct lx_file *f;
	long err;

	if (!sock_get(t, fd, &f, &err))
		return err;
	err = flags & MSG_PEEK ? -EINVAL : do_recvmsg(t, f, umsg, flags);
	fd_put(f);
	return err;
}
