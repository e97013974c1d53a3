// SPDX-License-Identifier: GPL-2.0
/*
 * Sockets, within the sandbox: AF_UNIX, named by a path of the file
 * system (a node of type socket), by an abstract name or not at all
 * (socketpair); and AF_INET on the loopback alone, named by a port.  A
 * connected stream is two pipes (pipe.c), one each way, so its reads,
 * writes, polls and closes act as a pipe's do.  A datagram socket
 * receives into a pipe of its own, in records (lx_pipe_send_rec), of
 * which it holds a reader and a writer; a sender holds another writer
 * while it sends.  A listener keeps the connections made to it until they
 * are accepted.  The named sockets are a list under sock_lock, which a
 * connect or a send holds while it finds its peer and takes a hold on the
 * peer's pipe, and a close while it takes its socket off the list: a
 * socket on the list is alive.  No sleep holds sock_lock, and none keeps
 * a pointer to another socket across it: a connect waiting for room in a
 * listener's queue waits on one queue for all (lx()->connecting) and
 * finds the listener again by name when it wakes.
 */
#include <linux/fcntl.h>
#include <linux/poll.h>
#include <linux/stat.h>

#include "socket.h"

void sock_lock(void)
{
	kl_spin_lock(&lx()->sock_spin);
}

void sock_unlock(void)
{
	kl_spin_unlock(&lx()->sock_spin);
}

/* A socket of family and type, not yet named; a datagram one with its own queue. */
struct lx_sock *sock_new(u16 family, u16 type)
{
	struct lx_sock *s = vostd_alloc(sizeof(*s), true);

	if (!s)
		return NULL;
	__atomic_add_fetch(&lx()->socks_live, 1, __ATOMIC_RELAXED);
	s->family = family;
	s->type = type;
	s->name.len = sock_unnamed_len(family);
	s->name.addr.family = family;
	s->peer = s->name;
	if (type == SOCK_DGRAM) {
		s->rx = lx_pipe_new();	/* its reader and a writer: no end of file */
		if (!s->rx) {
			__atomic_sub_fetch(&lx()->socks_live, 1, __ATOMIC_RELAXED);
			vostd_free(s);
			return NULL;
		}
	}
	return s;
}

/*
 * s goes: off the list, its queue of connections not accepted with it,
 * its holds on its pipes dropped, so a peer reads the end or is refused.
 */
void sock_free(struct lx_sock *s)
{
	struct lx_sock *queue[LX_BACKLOG], **pp;
	unsigned int i, n;

	sock_lock();
	for (pp = &lx()->socks; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	n = s->nqueue;
	vostd_memcpy(queue, s->queue, n * sizeof(queue[0]));
	s->nqueue = 0;
	s->state = LX_SS_CLOSED;
	lx_wake_all(&lx()->connecting);	/* a connect waiting on s is refused now */
	sock_unlock();
	for (i = 0; i < n; i++)
		sock_free(queue[i]);
	if (s->type == SOCK_STREAM && s->rx) {
		if (!(s->shut & LX_SHUT_RD))
			lx_pipe_drop(s->rx, true);
		if (!(s->shut & LX_SHUT_WR))
			lx_pipe_drop(s->tx, false);
		lx_pipe_keep(s->rx, false);
		lx_pipe_keep(s->tx, false);
	} else if (s->type == SOCK_DGRAM) {
		lx_pipe_drop(s->rx, true);
		lx_pipe_drop(s->rx, false);
		if (s->tx)
			lx_pipe_drop(s->tx, false);
	}
	node_put(s->node);
	vostd_free(s);
	__atomic_sub_fetch(&lx()->socks_live, 1, __ATOMIC_RELAXED);
}

/* The length of an unnamed socket's name: the family alone, or 0.0.0.0:0. */
unsigned int sock_unnamed_len(u16 family)
{
	return family == AF_INET ? sizeof(struct lx_sockaddr_in) : sizeof(u16);
}

static bool same_name(const struct lx_sockname *a, const struct lx_sockname *b)
{
	unsigned int i;

	if (a->len != b->len)
		return false;
	for (i = 0; i < a->len; i++)
		if (a->addr.raw[i] != b->addr.raw[i])
			return false;
	return true;
}

/*
 * The named socket of family and type that n or nd (a path's node) names,
 * or NULL; under sock_lock.  An AF_INET name is its port; any address
 * was checked to be the loopback's.
 */
struct lx_sock *sock_find_locked(u16 family, u16 type, const struct lx_sockname *n,
				 struct lx_node *nd)
{
	struct lx_sock *s;

	for (s = lx()->socks; s; s = s->next) {
		if (s->family != family || s->type != type)
			continue;
		if (family == AF_INET ? s->name.addr.in.port == n->addr.in.port :
		    nd ? s->node == nd :
		    same_name(&s->name, n))
			return s;
	}
	return NULL;
}

/*
 * Name s by a port of its own, or by an abstract name of its own for
 * AF_UNIX (Linux's autobind): five hex digits after a zero byte.  Under
 * sock_lock; -EADDRINUSE if every one is taken.
 */
long sock_autobind_locked(struct lx_sock *s)
{
	struct lx_globals *g = lx();
	struct lx_sockname n = { .addr.family = s->family };
	unsigned int i;

	for (i = 0; i <= LX_PORT_LAST - LX_PORT_FIRST; i++) {
		u32 k = g->next_port++ % (LX_PORT_LAST - LX_PORT_FIRST + 1);

		if (s->family == AF_INET) {
			n.len = sizeof(struct lx_sockaddr_in);
			n.addr.in.port = __builtin_bswap16(LX_PORT_FIRST + k);
		} else {
			n.len = sizeof(u16) + 1 + 5;
			vostd_snprintf(n.addr.path + 1, 6, "%05x", k);
			n.addr.path[0] = 0;
		}
		if (!sock_find_locked(s->family, s->type, &n, NULL)) {
			sock_list_locked(s, &n, NULL);
			return 0;
		}
	}
	return -EADDRINUSE;
}

/* Under sock_lock: s is named now, by n (and nd, a path's node, whose reference it takes). */
void sock_list_locked(struct lx_sock *s, const struct lx_sockname *n, struct lx_node *nd)
{
	s->name = *n;
	s->node = nd;
	s->next = lx()->socks;
	lx()->socks = s;
}

/*
 * A call's hold on one of s's pipes, or NULL: the stream's way in (rx)
 * or out, unless shut; a datagram socket's own queue (rx) or its peer's.
 * The call drops it with lx_pipe_drop when done.
 */
struct lx_pipe *sock_pipe(struct lx_sock *s, bool rx)
{
	struct lx_pipe *pp;

	sock_lock();
	pp = rx ? s->rx : s->tx;
	if (s->type == SOCK_STREAM && (s->shut & (rx ? LX_SHUT_RD : LX_SHUT_WR)))
		pp = NULL;
	if (pp)
		lx_pipe_hold(pp, rx);
	sock_unlock();
	return pp;
}

/*
 * A stream's two pipes, made before any lock is taken: a datagram
 * socket's needs none.  -ENOMEM frees what was made.
 */
long sock_pipes_new(u16 type, struct lx_pipe *pp[2])
{
	pp[0] = type == SOCK_STREAM ? lx_pipe_new() : NULL;
	pp[1] = type == SOCK_STREAM ? lx_pipe_new() : NULL;
	if (type == SOCK_STREAM && (!pp[0] || !pp[1])) {
		vostd_free(pp[0]);
		vostd_free(pp[1]);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Connect two sockets: a stream's two ways through pp (sock_pipes_new),
 * which it takes, or each datagram socket to the other's queue.
 */
void sock_pair(struct lx_sock *a, struct lx_sock *b, struct lx_pipe *pp[2])
{
	if (a->type == SOCK_DGRAM) {
		a->tx = b->rx;
		b->tx = a->rx;
		lx_pipe_hold(a->tx, false);
		lx_pipe_hold(b->tx, false);
		return;
	}
	a->rx = pp[0];
	a->tx = pp[1];
	b->rx = pp[1];
	b->tx = pp[0];
	lx_pipe_keep(pp[0], true);
	lx_pipe_keep(pp[0], true);
	lx_pipe_keep(pp[1], true);
	lx_pipe_keep(pp[1], true);
	a->state = LX_SS_CONNECTED;
	b->state = LX_SS_CONNECTED;
}

/* The loopback's address for a name bound to any: where a peer sees it. */
void inet_here(struct lx_sockname *n)
{
	if (n->addr.family == AF_INET && !n->addr.in.addr)
		n->addr.in.addr = LX_LOOPBACK;
}

/* fd's socket, with fd_get's reference in *fp; -ENOTSOCK for another file. */
struct lx_sock *sock_get(struct thread *t, long fd, struct lx_file **fp, long *err)
{
	struct lx_file *f = fd_get(t->p, fd);

	*fp = f;
	*err = f ? -ENOTSOCK : -EBADF;
	if (f && f->ops == &lx_sock_fops) {
		*err = 0;
		return f->priv;
	}
	if (f)
		fd_put(f);
	return NULL;
}

bool sock_nonblock(struct lx_file *f, long flags)
{
	return (READ_ONCE(f->flags) & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

/* A name in from the program (Linux's move_addr_to_kernel). */
long name_in(struct thread *t, unsigned long uaddr, long len, struct lx_sockname *n)
{
	*n = (struct lx_sockname){ .len = len };
	if (len < 0 || len > (long)sizeof(n->addr.raw))
		return -EINVAL;
	return len && mem_user_copy(t->p, uaddr, &n->addr, len, MEM_READ) ? -EFAULT : 0;
}

/* A name out to the program (Linux's move_addr_to_user); no address asks for nothing. */
long name_out(struct thread *t, const struct lx_sockname *n, unsigned long uaddr,
	      unsigned long ulen)
{
	struct lx_sockname copy = *n;	/* mem_user_copy takes no const */
	int len;

	if (!uaddr)
		return 0;
	if (mem_user_copy(t->p, ulen, &len, sizeof(len), MEM_READ))
		return -EFAULT;
	if (len > (int)copy.len)
		len = copy.len;
	if (len < 0)
		return -EINVAL;
	if (len && mem_user_copy(t->p, uaddr, &copy.addr, len, MEM_WRITE))
		return -EFAULT;
	return mem_user_copy(t->p, ulen, &copy.len, sizeof(int), MEM_WRITE);
}

/*
 * An AF_UNIX name checked, as Linux's unix_validate_addr does; a path's
 * name is kept as Linux keeps it: its length to the NUL.
 */
long unix_check(struct lx_sockname *n)
{
	if (n->len <= sizeof(u16) || n->len > sizeof(u16) + sizeof(n->addr.path) ||
	    n->addr.family != AF_UNIX)
		return -EINVAL;
	if (n->addr.path[0]) {
		n->addr.raw[n->len] = 0;
		n->len = sizeof(u16) + fs_strlen(n->addr.path) + 1;
	}
	return 0;
}

/*
 * An AF_UNIX name to reach (unix_check), and the node a path's name walks
 * to, with a reference, in *nd; an abstract name has none.
 */
long unix_name(struct thread *t, struct lx_sockname *n, struct lx_node **nd)
{
	long err = unix_check(n);

	*nd = NULL;
	if (err || !n->addr.path[0])
		return err;
	*nd = fs_lookup_in(t->p, AT_FDCWD, n->addr.path, LX_WALK_FOLLOW, &err);
	if (!*nd)
		return err;
	if (!S_ISSOCK((*nd)->mode)) {
		node_put(*nd);
		*nd = NULL;
		return -ECONNREFUSED;
	}
	return 0;
}

/* An AF_INET name to reach: on the loopback (or 0.0.0.0, which is this host), or no route. */
long inet_name(struct lx_sockname *n)
{
	if (n->len < sizeof(struct lx_sockaddr_in))
		return -EINVAL;
	if (n->addr.family != AF_INET)
		return -EAFNOSUPPORT;
	if (n->addr.in.addr && (n->addr.in.addr & 0xff) != 127)
		return -ENETUNREACH;
	n->len = sizeof(struct lx_sockaddr_in);
	return 0;
}

/* The file of a socket: reads and writes as recv and send without flags. */
static long sock_file_read(struct thread *t, struct lx_file *f, unsigned long buf,
			   unsigned long len, long off)
{
	return sock_recv(t, f, buf, len, 0, 0, 0);
}

static long sock_file_write(struct thread *t, struct lx_file *f, unsigned long buf,
			    unsigned long len, long off)
{
	return sock_send(t, f, buf, len, 0, NULL);
}

static long sock_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, S_IFSOCK | 0777, 6, 0);
}

/*
 * What a socket is ready for: a listener to accept when a connection
 * waits; a stream to read when its way in holds bytes or has ended, and
 * to write when its way out has room; a datagram socket to read when a
 * record waits, and always to write.  The waiters go on the pipes' queues
 * (w[0] in, w[1] out) or on the listener's.
 */
static unsigned int sock_poll(struct lx_file *f, struct lx_waiter *w)
{
	struct lx_sock *s = f->priv;
	unsigned int mask = 0;

	sock_lock();
	if (s->state == LX_SS_LISTEN) {
		mask = s->nqueue ? POLLIN | POLLRDNORM : 0;
		if (w)
			lx_queue(&s->accepting, &w[0]);
		sock_unlock();
		return mask;
	}
	sock_unlock();
	if (s->type == SOCK_DGRAM)
		return lx_pipe_poll(s->rx, true, w) | POLLOUT | POLLWRNORM;
	if (s->state != LX_SS_CONNECTED)
		return POLLOUT | POLLHUP;	/* as Linux's unix_poll of an unconnected stream */
	if (!(s->shut & LX_SHUT_RD))
		mask |= lx_pipe_poll(s->rx, true, w);
	else
		mask |= POLLIN | POLLRDNORM | POLLRDHUP;
	if (!(s->shut & LX_SHUT_WR))
		mask |= lx_pipe_poll(s->tx, false, w ? &w[1] : NULL) & ~POLLERR;
	return mask;
}

static void sock_unpoll(struct lx_file *f, struct lx_waiter *w)
{
	struct lx_sock *s = f->priv;

	sock_lock();
	lx_unqueue(&s->accepting, &w[0]);
	sock_unlock();
	/* A pipe lives while s does (lx_pipe_keep), shut or not. */
	if (s->rx)
		lx_pipe_unpoll(s->rx, true, &w[0]);
	if (s->type == SOCK_STREAM && s->tx)
		lx_pipe_unpoll(s->tx, false, &w[1]);
}

static long sock_ioctl(struct thread *t, struct lx_file *f, unsigned long cmd, unsigned long arg)
{
	return -ENOTTY;
}

static void sock_file_release(struct lx_file *f)
{
	sock_free(f->priv);
}

const struct lx_file_ops lx_sock_fops = {
	.read = sock_file_read,
	.write = sock_file_write,
	.lseek = lx_no_lseek,
	.stat = sock_stat,
	.poll = sock_poll,
	.unpoll = sock_unpoll,
	.ioctl = sock_ioctl,
	.release = sock_file_release,
};
