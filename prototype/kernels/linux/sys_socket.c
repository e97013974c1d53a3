// SPDX-License-Identifier: GPL-2.0
/*
 * The socket calls, with Linux's checks in Linux's order (net/socket.c,
 * net/unix/af_unix.c, net/ipv4/af_inet.c): socket, socketpair, bind,
 * listen, accept4, connect, the names, send and receive in their three
 * forms, shutdown and the options.  The sockets themselves are socket.c's.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "socket.h"

static long sock_fd(struct thread *t, struct lx_sock *s, long flags)
{
	struct lx_file *f = file_new(&lx_sock_fops);
	long fd;

	if (!f) {
		sock_free(s);
		return -ENOMEM;
	}
	f->priv = s;
	f->flags = O_RDWR | (flags & O_NONBLOCK);
	fd = fd_install(t->p, f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);	/* and the socket */
	return fd;
}

/* The kind a socket call asks for: its flags checked, then its family's types and protocols. */
static long sock_kind(long family, long type, long proto)
{
	long kind = type & SOCK_TYPE_MASK;

	if (type & ~(SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	if (family < 0 || family >= NPROTO)
		return -EAFNOSUPPORT;
	if (kind < 0 || kind >= SOCK_MAX)
		return -EINVAL;
	if (family == AF_UNIX) {
		if (proto && proto != PF_UNIX)
			return -EPROTONOSUPPORT;
		if (kind == SOCK_RAW)
			kind = SOCK_DGRAM;	/* as unix_create does */
		return kind == SOCK_STREAM || kind == SOCK_DGRAM ? kind : -ESOCKTNOSUPPORT;
	}
	if (family != AF_INET)
		return -EAFNOSUPPORT;
	if (kind == SOCK_STREAM)
		return !proto || proto == 6 ? kind : -EPROTONOSUPPORT;	/* IPPROTO_TCP */
	if (kind == SOCK_DGRAM)
		return !proto || proto == 17 ? kind : -EPROTONOSUPPORT;	/* IPPROTO_UDP */
	return -ESOCKTNOSUPPORT;
}

LX_PARTIAL(socket, "AF_UNIX streams and datagrams, AF_INET's TCP and UDP on the loopback only");
LX_SYSCALL_DEFINE3(socket, int, family, int, type, int, proto)
{
	long kind = sock_kind(family, type, proto);
	struct lx_sock *s;

	if (kind < 0)
		return kind;
	s = sock_new(family, kind);
	return s ? sock_fd(t, s, type) : -ENOMEM;
}

/*
 * socketpair: both sockets and both files made, the numbers reserved and
 * copied out, and only then the files installed, as pipe2 does, so that a
 * copy that fails leaves no descriptor another thread could have used.
 */
LX_PARTIAL(socketpair, "AF_UNIX streams and datagrams only");
LX_SYSCALL_DEFINE4(socketpair, int, family, int, type, int, proto, unsigned long, usv)
{
	long kind = sock_kind(family, type, proto);
	struct lx_sock *s[2] = {};
	struct lx_file *f[2] = {};
	struct lx_pipe *pp[2];
	int fds[2] = { -1, -1 }, i;
	long err;

	if (kind < 0)
		return kind;
	if (family != AF_UNIX)
		return -EOPNOTSUPP;
	err = sock_pipes_new(kind, pp);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		s[i] = sock_new(family, kind);
		f[i] = file_new(&lx_sock_fops);
		if (!s[i] || !f[i])
			err = -ENOMEM;
	}
	if (!err) {
		sock_pair(s[0], s[1], pp);
		for (i = 0; i < 2; i++) {
			f[i]->priv = s[i];
			f[i]->flags = O_RDWR | (type & O_NONBLOCK);
			fds[i] = err ? -1 : fd_reserve(t->p, 0);
			err = err ?: fds[i] < 0 ? fds[i] : 0;
		}
		err = err ?: mem_user_copy(t->p, usv, fds, sizeof(fds), MEM_WRITE) ? -EFAULT : 0;
	} else if (kind == SOCK_STREAM) {
		vostd_free(pp[0]);
		vostd_free(pp[1]);
	}
	for (i = 0; i < 2; i++) {
		if (!err) {
			fd_commit(t->p, fds[i], f[i], type & O_CLOEXEC);
			continue;
		}
		if (fds[i] >= 0)
			fd_unreserve(t->p, fds[i]);
		if (f[i] && f[i]->priv)
			file_put(f[i]);		/* and its socket */
		else if (f[i])
			vostd_free(f[i]);
		if (s[i] && (!f[i] || !f[i]->priv))
			sock_free(s[i]);
	}
	return err;
}

/* bind of an AF_UNIX socket: a path's node made, or an abstract name taken, or one given. */
static long unix_bind(struct thread *t, struct lx_sock *s, struct lx_sockname *n)
{
	struct lx_node *nd = NULL;
	long err = 0;

	if (n->len == sizeof(u16) && n->addr.family == AF_UNIX) {
		sock_lock();
		err = s->name.len > sizeof(u16) ? -EINVAL : sock_autobind_locked(s);
		sock_unlock();
		return err;
	}
	err = unix_check(n);
	if (err)
		return err;
	sock_lock();
	if (s->name.len > sizeof(u16) || s->binding)
		err = -EINVAL;
	s->binding = !err;
	sock_unlock();
	if (err)
		return err;
	if (n->addr.path[0]) {
		err = fs_mknod_in(t->p, n->addr.path,
				  S_IFSOCK | (0777 & ~lxp(t->p)->umask), &nd);
		if (err == -EEXIST)
			err = -EADDRINUSE;
	}
	sock_lock();
	if (!err && !nd && sock_find_locked(AF_UNIX, s->type, n, NULL))
		err = -EADDRINUSE;
	if (!err)
		sock_list_locked(s, n, nd);
	s->binding = false;
	sock_unlock();
	return err;
}

/* bind of an AF_INET socket: the loopback's address or any, and a port, or one given. */
static long inet_bind(struct lx_sock *s, struct lx_sockname *n)
{
	long err = 0;

	if (n->len < sizeof(struct lx_sockaddr_in))
		return -EINVAL;
	if (n->addr.family != AF_INET &&
	    (n->addr.family != AF_UNSPEC || n->addr.in.addr))
		return -EAFNOSUPPORT;
	if (n->addr.in.addr && (n->addr.in.addr & 0xff) != 127)
		return -EADDRNOTAVAIL;
	n->len = sizeof(struct lx_sockaddr_in);
	n->addr.family = AF_INET;
	sock_lock();
	if (s->name.addr.in.port)
		err = -EINVAL;
	else if (!n->addr.in.port)
		err = sock_autobind_locked(s);
	else if (sock_find_locked(AF_INET, s->type, n, NULL))
		err = -EADDRINUSE;
	else
		sock_list_locked(s, n, NULL);
	if (!err)
		s->name.addr.in.addr = n->addr.in.addr;
	sock_unlock();
	return err;
}

/* fd's socket (fd_get's reference in *fp) and the name at uaddr, for bind and connect. */
static struct lx_sock *sock_and_name(struct thread *t, long fd, unsigned long uaddr, long len,
				     struct lx_sockname *n, struct lx_file **fp, long *err)
{
	struct lx_sock *s = sock_get(t, fd, fp, err);

	if (s)
		*err = name_in(t, uaddr, len, n);
	if (s && *err) {
		fd_put(*fp);
		s = NULL;
	}
	return s;
}

LX_SYSCALL_DEFINE3(bind, int, fd, unsigned long, uaddr, int, len)
{
	struct lx_sockname n;
	struct lx_file *f;
	struct lx_sock *s;
	long err;

	s = sock_and_name(t, fd, uaddr, len, &n, &f, &err);
	if (!s)
		return err;
	err = s->family == AF_UNIX ? unix_bind(t, s, &n) : inet_bind(s, &n);
	fd_put(f);
	return err;
}

/* listen, as Linux's: a stream socket only, named (an AF_INET one is given a port). */
LX_SYSCALL_DEFINE2(listen, int, fd, int, backlog)
{
	struct lx_file *f;
	struct lx_sock *s;
	long err = 0;

	s = sock_get(t, fd, &f, &err);
	if (!s)
		return err;
	sock_lock();
	if (s->type != SOCK_STREAM)
		err = -EOPNOTSUPP;
	else if (s->state != LX_SS_UNCONNECTED && s->state != LX_SS_LISTEN)
		err = -EINVAL;
	else if (s->family == AF_UNIX && s->name.len <= sizeof(u16))
		err = -EINVAL;
	else if (s->family == AF_INET && !s->name.addr.in.port)
		err = sock_autobind_locked(s);
	if (!err) {
		/* Past the bound, as past Linux's somaxconn, the bound; a negative one too. */
		s->backlog = (unsigned int)backlog >= LX_BACKLOG ? LX_BACKLOG - 1 : backlog;
		s->state = LX_SS_LISTEN;
		lx_wake_all(&lx()->connecting);
	}
	sock_unlock();
	fd_put(f);
	return err;
}

/*
 * A stream's connect: the listener found by name, the connection made
 * (sock_pair) and put on its queue for accept; with the queue full, a
 * wait for room, unless nonblock.  The listener is found again after
 * every sleep: none is kept across one.
 */
static long stream_connect(struct thread *t, struct lx_sock *s, struct lx_sockname *n,
			   struct lx_node *nd, bool nonblock)
{
	struct lx_sock *srv = sock_new(s->family, SOCK_STREAM), *l;
	struct lx_pipe *pp[2];
	long err;

	if (!srv)
		return -ENOMEM;
	err = sock_pipes_new(SOCK_STREAM, pp);
	if (err) {
		sock_free(srv);
		return err;
	}
	sock_lock();
	for (;;) {
		l = sock_find_locked(s->family, SOCK_STREAM, n, nd);
		err = s->state == LX_SS_CONNECTED ? -EISCONN :
		      s->state != LX_SS_UNCONNECTED ? -EINVAL :
		      !l || l->state != LX_SS_LISTEN ? -ECONNREFUSED : 0;
		if (!err && l->nqueue <= l->backlog)	/* as Linux's: one past the backlog */
			break;
		if (!err)
			err = nonblock ? -EAGAIN : thread_interrupted(t) ? -ERESTARTSYS : 0;
		if (err)
			goto out;
		lx_block_on(t, &lx()->sock_spin, &lx()->connecting);
	}
	if (s->family == AF_INET && !s->name.addr.in.port)
		err = sock_autobind_locked(s);
	if (!err) {
		inet_here(&s->name);	/* a connection's end on the loopback: 127.0.0.1 */
		sock_pair(s, srv, pp);
		pp[0] = NULL;
		pp[1] = NULL;
		srv->name = l->name;
		srv->peer = s->name;
		s->peer = l->name;
		inet_here(&srv->name);
		inet_here(&srv->peer);
		inet_here(&s->peer);
		l->queue[l->nqueue++] = srv;
		lx_wake_all(&l->accepting);
		srv = NULL;
	}
out:
	sock_unlock();
	if (srv)
		sock_free(srv);
	if (pp[0]) {		/* not taken: a connect that failed */
		vostd_free(pp[0]);
		vostd_free(pp[1]);
	}
	return err;
}

/* A datagram socket's connect: the peer whose queue its sends go to, or none (AF_UNSPEC). */
static long dgram_connect(struct lx_sock *s, struct lx_sockname *n, struct lx_node *nd)
{
	struct lx_pipe *old;
	struct lx_sock *peer;
	long err = 0;

	sock_lock();
	old = s->tx;
	s->tx = NULL;
	s->peer = (struct lx_sockname){ .len = sock_unnamed_len(s->family) };
	s->peer.addr.family = s->family;
	if (n->addr.family != AF_UNSPEC) {
		peer = sock_find_locked(s->family, SOCK_DGRAM, n, nd);
		if (s->family == AF_INET && !s->name.addr.in.port)
			err = sock_autobind_locked(s);
		if (!err && peer) {
			s->tx = peer->rx;
			lx_pipe_hold(s->tx, false);
		} else if (!err && s->family == AF_UNIX) {
			err = -ECONNREFUSED;
		}
		if (!err)
			s->peer = *n;
	}
	sock_unlock();
	if (old)
		lx_pipe_drop(old, false);
	return err;
}

LX_PARTIAL(connect, "an AF_INET datagram socket connected to a port no one holds sends nowhere");
LX_SYSCALL_DEFINE3(connect, int, fd, unsigned long, uaddr, int, len)
{
	struct lx_node *nd = NULL;
	struct lx_sockname n;
	struct lx_file *f;
	struct lx_sock *s;
	long err;

	s = sock_and_name(t, fd, uaddr, len, &n, &f, &err);
	if (!s)
		return err;
	if (s->type == SOCK_DGRAM && n.len >= sizeof(u16) && n.addr.family == AF_UNSPEC)
		err = dgram_connect(s, &n, NULL);
	else
		err = s->family == AF_UNIX ? unix_name(t, &n, &nd) : inet_name(&n);
	if (!err && n.addr.family != AF_UNSPEC)
		err = s->type == SOCK_STREAM ?
		      stream_connect(t, s, &n, nd, sock_nonblock(f, 0)) : dgram_connect(s, &n, nd);
	node_put(nd);
	fd_put(f);
	return err;
}

/*
 * accept4: the descriptor and its file made first, so that nothing can
 * fail once a connection is taken off the queue but the copy of its
 * peer's name, after which the descriptor is closed, as in Linux.
 */
static long do_accept4(struct thread *t, long fd, unsigned long uaddr, unsigned long ulen,
		       long flags)
{
	struct lx_file *f, *nf;
	struct lx_sock *s, *c = NULL;
	struct lx_sockname peer;
	unsigned int i;
	long err, nfd;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	s = sock_get(t, fd, &f, &err);
	if (!s)
		return err;
	nfd = fd_reserve(t->p, 0);
	nf = nfd < 0 ? NULL : file_new(&lx_sock_fops);
	err = nfd < 0 ? nfd : nf ? 0 : -ENOMEM;
	if (!err && s->type != SOCK_STREAM)
		err = -EOPNOTSUPP;
	sock_lock();
	while (!err && s->state == LX_SS_LISTEN && !s->nqueue && !sock_nonblock(f, 0) &&
	       !thread_interrupted(t))
		lx_block_on(t, &lx()->sock_spin, &s->accepting);
	if (!err && s->state != LX_SS_LISTEN)
		err = -EINVAL;
	else if (!err && !s->nqueue)
		err = sock_nonblock(f, 0) ? -EAGAIN : -ERESTARTSYS;
	if (!err) {
		c = s->queue[0];
		for (i = 1; i < s->nqueue; i++)
			s->queue[i - 1] = s->queue[i];
		s->nqueue--;
		peer = c->peer;
		lx_wake_all(&lx()->connecting);	/* room in the queue */
	}
	sock_unlock();
	fd_put(f);
	if (err) {
		if (nf)
			vostd_free(nf);
		if (nfd >= 0)
			fd_unreserve(t->p, nfd);
		return err;
	}
	nf->priv = c;
	nf->flags = O_RDWR | (flags & O_NONBLOCK);
	fd_commit(t->p, nfd, nf, flags & O_CLOEXEC);
	err = name_out(t, &peer, uaddr, ulen);
	if (err) {
		fd_close(t->p, nfd);
		return err;
	}
	return nfd;
}

LX_SYSCALL_DEFINE3(accept, int, fd, unsigned long, uaddr, unsigned long, ulen)
{
	return do_accept4(t, fd, uaddr, ulen, 0);
}

LX_SYSCALL_DEFINE4(accept4, int, fd, unsigned long, uaddr, unsigned long, ulen, int, flags)
{
	return do_accept4(t, fd, uaddr, ulen, flags);
}

static long sock_name(struct thread *t, long fd, unsigned long uaddr, unsigned long ulen,
		      bool peer)
{
	struct lx_sockname n;
	struct lx_file *f;
	struct lx_sock *s;
	long err;

	s = sock_get(t, fd, &f, &err);
	if (!s)
		return err;
	sock_lock();
	n = peer ? s->peer : s->name;
	err = peer && s->state != LX_SS_CONNECTED && !(s->type == SOCK_DGRAM && s->tx) ?
	      -ENOTCONN : 0;
	sock_unlock();
	fd_put(f);
	return err ?: name_out(t, &n, uaddr, ulen);
}

LX_SYSCALL_DEFINE3(getsockname, int, fd, unsigned long, uaddr, unsigned long, ulen)
{
	return sock_name(t, fd, uaddr, ulen, false);
}

LX_SYSCALL_DEFINE3(getpeername, int, fd, unsigned long, uaddr, unsigned long, ulen)
{
	return sock_name(t, fd, uaddr, ulen, true);
}

/*
 * shutdown: a stream's way in or out, or both, closed for good: the peer
 * reads the end, or its writes break.  A datagram socket's is only
 * remembered.
 */
LX_PARTIAL(shutdown, "a datagram socket's shutdown changes nothing it does");
LX_SYSCALL_DEFINE2(shutdown, int, fd, int, how)
{
	struct lx_pipe *rx = NULL, *tx = NULL;
	struct lx_file *f;
	struct lx_sock *s;
	unsigned int mask;
	long err = 0;

	s = sock_get(t, fd, &f, &err);
	if (!s)
		return err;
	if (how < 0 || how > 2) {
		fd_put(f);
		return -EINVAL;
	}
	mask = how + 1;		/* SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2 */
	sock_lock();
	if (s->type == SOCK_STREAM && s->state != LX_SS_CONNECTED) {
		err = -ENOTCONN;
	} else if (s->type == SOCK_STREAM) {
		if ((mask & LX_SHUT_RD) && !(s->shut & LX_SHUT_RD))
			rx = s->rx;
		if ((mask & LX_SHUT_WR) && !(s->shut & LX_SHUT_WR))
			tx = s->tx;
	}
	if (!err)
		s->shut |= mask;
	sock_unlock();
	/* The socket keeps both pipes in memory (lx_pipe_keep): only the ends go. */
	if (rx)
		lx_pipe_drop(rx, true);
	if (tx)
		lx_pipe_drop(tx, false);
	fd_put(f);
	return err;
}

/* The options a program may set: kept by none, answered 0, since nothing here acts on them. */
static bool known_option(long level, long name)
{
	if (level == SOL_SOCKET)
		return name == SO_REUSEADDR || name == SO_KEEPALIVE || name == SO_SNDBUF ||
		       name == SO_RCVBUF || name == SO_LINGER || name == SO_RCVTIMEO_OLD ||
		       name == SO_SNDTIMEO_OLD || name == SO_PASSCRED || name == SO_REUSEPORT ||
		       name == SO_BROADCAST || name == SO_OOBINLINE;
	return level == 6 && name == 1;		/* IPPROTO_TCP, TCP_NODELAY */
}

LX_PARTIAL(setsockopt, "SOL_SOCKET's common options and TCP_NODELAY taken and not acted on");
LX_SYSCALL_DEFINE5(setsockopt, int, fd, int, level, int, name, unsigned long, uval, int, len)
{
	struct lx_file *f;
	int v;
	long err;

	if (!sock_get(t, fd, &f, &err))
		return err;
	fd_put(f);
	if (len < 0)
		return -EINVAL;
	if (!known_option(level, name))
		return -ENOPROTOOPT;
	if (len < (int)sizeof(int))
		return -EINVAL;
	return mem_user_copy(t->p, uval, &v, sizeof(v), MEM_READ) ? -EFAULT : 0;
}

/* getsockopt: what a socket is, that it has no error, and its buffer's size. */
LX_PARTIAL(getsockopt, "SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN, SO_ERROR, buffer sizes");
LX_SYSCALL_DEFINE5(getsockopt, int, fd, int, level, int, name, unsigned long, uval,
		   unsigned long, ulen)
{
	struct lx_file *f;
	struct lx_sock *s;
	int len, v;
	long err;

	s = sock_get(t, fd, &f, &err);
	if (!s)
		return err;
	sock_lock();
	switch (level == SOL_SOCKET ? name : -1) {
	case SO_TYPE:
		v = s->type;
		break;
	case SO_DOMAIN:
		v = s->family;
		break;
	case SO_PROTOCOL:
		v = s->family == AF_UNIX ? 0 : s->type == SOCK_STREAM ? 6 : 17;
		break;
	case SO_ACCEPTCONN:
		v = s->state == LX_SS_LISTEN;
		break;
	case SO_ERROR:
		v = 0;
		break;
	case SO_SNDBUF:
	case SO_RCVBUF:
		v = sizeof(((struct lx_pipe *)0)->buf);
		break;
	default:
		err = -ENOPROTOOPT;
	}
	sock_unlock();
	fd_put(f);
	if (err)
		return err;
	if (mem_user_copy(t->p, ulen, &len, sizeof(len), MEM_READ))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(int, len, sizeof(v));
	if (mem_user_copy(t->p, uval, &v, len, MEM_WRITE) ||
	    mem_user_copy(t->p, ulen, &len, sizeof(len), MEM_WRITE))
		return -EFAULT;
	return 0;
}
