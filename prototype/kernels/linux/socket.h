/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets (socket.c, the objects; sys_socket.c, the calls): what the
 * two files share.
 */
#ifndef LINUX_SOCKET_H
#define LINUX_SOCKET_H

#include <linux/net.h>
#include <linux/socket.h>

#include "syscalls.h"

#define LX_BACKLOG	16		/* connections queued unaccepted; Linux's somaxconn: 4096 */
#define LX_PORT_FIRST	32768		/* the ports given out to sockets not bound to one, */
#define LX_PORT_LAST	60999		/* Linux's ip_local_port_range */
#define LX_LOOPBACK	0x0100007f	/* 127.0.0.1, in network order */

enum { LX_SS_UNCONNECTED, LX_SS_LISTEN, LX_SS_CONNECTED, LX_SS_CLOSED };

#define LX_SHUT_RD	1
#define LX_SHUT_WR	2

/* Linux's struct sockaddr_in. */
struct lx_sockaddr_in {
	u16 family;
	u16 port;			/* network order */
	u32 addr;			/* network order */
	u8 zero[8];
};

/* A socket's name, as the program gave it: a sockaddr_un's bytes or a sockaddr_in. */
struct lx_sockname {
	u32 len;
	union {
		struct {
			u16 family;
			char path[108];
		};
		struct lx_sockaddr_in in;
		u8 raw[128];		/* Linux's sockaddr_storage: the most a call copies in */
	} addr;
};

/*
 * A socket.  state, shut, name, peer and the listener's queue change
 * under sock_lock; rx and tx are set once, under it, when the socket is
 * connected (a datagram socket's rx when it is made), and go when it does.
 */
struct lx_sock {
	u16 family, type;
	u8 state, shut;
	bool binding;			/* a bind is making its node: another is -EINVAL */
	struct lx_pipe *rx, *tx;
	struct lx_node *node;		/* the file a path's name made, with a reference */
	struct lx_sockname name, peer;
	struct lx_sock *next;		/* the list of named sockets */
	struct lx_sock *queue[LX_BACKLOG];	/* a listener's connections, not yet accepted */
	unsigned int nqueue, backlog;
	struct lx_waiter *accepting;
};

/* The most a datagram holds: it, its sender's name and a header fill a pipe's ring. */
#define LX_DGRAM_MAX	(sizeof(((struct lx_pipe *)0)->buf) - 4 - sizeof(struct lx_sockname))

void sock_lock(void);
void sock_unlock(void);
struct lx_sock *sock_new(u16 family, u16 type);
void sock_free(struct lx_sock *s);
unsigned int sock_unnamed_len(u16 family);
struct lx_sock *sock_find_locked(u16 family, u16 type, const struct lx_sockname *n,
				 struct lx_node *nd);
long sock_autobind_locked(struct lx_sock *s);
void sock_list_locked(struct lx_sock *s, const struct lx_sockname *n, struct lx_node *nd);
struct lx_pipe *sock_pipe(struct lx_sock *s, bool rx);
long sock_pipes_new(u16 type, struct lx_pipe *pp[2]);
void sock_pair(struct lx_sock *a, struct lx_sock *b, struct lx_pipe *pp[2]);
void inet_here(struct lx_sockname *n);

struct lx_sock *sock_get(struct thread *t, long fd, struct lx_file **fp, long *err);
bool sock_nonblock(struct lx_file *f, long flags);
long name_in(struct thread *t, unsigned long uaddr, long len, struct lx_sockname *n);
long name_out(struct thread *t, const struct lx_sockname *n, unsigned long uaddr,
	      unsigned long ulen);
long unix_check(struct lx_sockname *n);
long unix_name(struct thread *t, struct lx_sockname *n, struct lx_node **nd);
long inet_name(struct lx_sockname *n);

/* sock_io.c: what a read and a write of a socket's file do */
long sock_recv(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
	       long flags, unsigned long uaddr, unsigned long ulen);
long sock_send(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
	       long flags, const struct lx_sockname *to);

#endif /* LINUX_SOCKET_H */
