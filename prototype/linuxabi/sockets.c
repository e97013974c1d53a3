// SPDX-License-Identifier: GPL-2.0
/*
 * sockets: AF_UNIX and loopback AF_INET sockets, through glibc, on
 * whatever kernel runs it.  socketpair's streams and datagrams; a server
 * on a path, and on an abstract name, that a child process connects to;
 * TCP and UDP on 127.0.0.1 as a test of a C library would use them; poll
 * of a listener and of a stream; sendmsg and recvmsg with two pieces;
 * shutdown, a broken pipe, and the errors of calls made wrongly.  It
 * prints "sockets: ok" and exits 0 if everything held, and names what did
 * not otherwise.  The suite runs it on Linux first, with the loopback up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("sockets: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void check_err(long r, int err, const char *what)
{
	check(r == -1 && errno == err, what);
}

/* socketpair: both ways, the end after a shutdown, and a broken pipe. */
static void pairs(void)
{
	struct msghdr m = {};
	struct iovec iov[2];
	char buf[16], a[2], b[8];
	int sv[2];

	check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair of streams");
	check(read(sv[1], buf, 0) == 0, "a read of nothing, which does not wait");
	check(write(sv[0], "ping", 4) == 4 && read(sv[1], buf, sizeof(buf)) == 4 &&
	      !memcmp(buf, "ping", 4), "a stream one way");
	check(send(sv[1], "pong", 4, 0) == 4 && recv(sv[0], buf, sizeof(buf), 0) == 4 &&
	      !memcmp(buf, "pong", 4), "and the other");
	check(shutdown(sv[0], SHUT_WR) == 0 && read(sv[1], buf, sizeof(buf)) == 0,
	      "the end after SHUT_WR");
	check_err(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "a send after SHUT_WR");
	close(sv[1]);
	check_err(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "a send to a closed peer");
	close(sv[0]);

	check(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair of datagrams");
	check(fcntl(sv[0], F_GETFD) == FD_CLOEXEC, "SOCK_CLOEXEC");
	check(send(sv[0], "abc", 3, 0) == 3 && send(sv[0], "defgh", 5, 0) == 5,
	      "two datagrams sent");
	check(recv(sv[1], buf, sizeof(buf), 0) == 3 && recv(sv[1], buf, sizeof(buf), 0) == 5 &&
	      !memcmp(buf, "defgh", 5), "their bounds kept");
	/* Gathered from two pieces, scattered into two, cut short. */
	iov[0] = (struct iovec){ "12", 2 };
	iov[1] = (struct iovec){ "345678", 6 };
	m.msg_iov = iov;
	m.msg_iovlen = 2;
	check(sendmsg(sv[1], &m, 0) == 8, "sendmsg of two pieces");
	iov[0] = (struct iovec){ a, 2 };
	iov[1] = (struct iovec){ b, 3 };
	check(recvmsg(sv[0], &m, 0) == 5 && (m.msg_flags & MSG_TRUNC) && !memcmp(a, "12", 2) &&
	      !memcmp(b, "345", 3), "recvmsg of a datagram longer than its two pieces");
	close(sv[0]);
	check_err(send(sv[1], "x", 1, 0), ECONNREFUSED, "a datagram to a closed peer");
	close(sv[1]);
}

/*
 * A server at addr (len bytes) that a child connects to: accept, the
 * names, the bytes.  A path's name comes back as long as its path and a
 * NUL, whatever length bind was given.
 */
static void serve(struct sockaddr_un *addr, socklen_t len, const char *what)
{
	socklen_t named = addr->sun_path[0] ?
			  offsetof(struct sockaddr_un, sun_path) + strlen(addr->sun_path) + 1 : len;
	struct sockaddr_un got = {};
	socklen_t glen = sizeof(got);
	char buf[16];
	int l, c, status;
	pid_t pid;

	l = socket(AF_UNIX, SOCK_STREAM, 0);
	check(l >= 0 && bind(l, (void *)addr, len) == 0 && listen(l, 4) == 0, what);
	check(getsockname(l, (void *)&got, &glen) == 0 && glen == named &&
	      !memcmp(got.sun_path, addr->sun_path, named - offsetof(struct sockaddr_un, sun_path)),
	      "getsockname of a listener");
	pid = fork();
	if (pid == 0) {
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (void *)addr, len) || write(c, "hi", 2) != 2 ||
		    read(c, buf, 1) != 1)
			_exit(1);
		_exit(0);
	}
	c = accept(l, NULL, NULL);
	check(c >= 0 && read(c, buf, sizeof(buf)) == 2 && write(c, "!", 1) == 1,
	      "accept and the bytes of a child's connection");
	glen = sizeof(got);
	check(getpeername(c, (void *)&got, &glen) == 0 && glen == sizeof(sa_family_t),
	      "getpeername of an unnamed peer");
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "the child that connected");
	close(c);
	close(l);
}

static void unix_names(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/sockets-%d", getpid());
	serve(&a, sizeof(a), "a server on a path");
	check(stat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode), "the path is a socket");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check_err(bind(s, (void *)&a, sizeof(a)), EADDRINUSE, "a bind to a path taken");
	check_err(connect(s, (void *)&a, sizeof(a)), ECONNREFUSED,
		  "a connect to a path no one listens on");
	unlink(a.sun_path);
	check_err(connect(s, (void *)&a, sizeof(a)), ENOENT, "a connect to a path removed");
	check_err(connect(s, (void *)&(struct sockaddr_un){ .sun_family = AF_UNIX,
		  .sun_path = "/bin/busybox" }, sizeof(a)), ECONNREFUSED, "a connect to a file");
	check_err(recv(s, &st, 1, 0), EINVAL, "a recv on an unconnected stream");
	check_err(send(s, "x", 1, 0), ENOTCONN, "a send on an unconnected stream");
	check_err(getpeername(s, (void *)&a, &(socklen_t){ sizeof(a) }), ENOTCONN,
		  "getpeername of an unconnected socket");
	check_err(accept(s, NULL, NULL), EINVAL, "an accept on a socket not listening");
	check_err(listen(s, 1), EINVAL, "a listen on a socket with no name");
	close(s);
	memset(a.sun_path, 0, sizeof(a.sun_path));
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "sockets-%d", getpid());
	serve(&a, offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1),
	      "a server on an abstract name");
}

/* TCP and UDP on the loopback, as a C library's own test uses them. */
static void loopback(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET }, from;
	struct pollfd p;
	int s, c, a;
	char buf[16];

	s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	check(s >= 0 && bind(s, (void *)&sa, sizeof(sa)) == 0, "TCP bind to any port");
	check(getsockname(s, (void *)&sa, &(socklen_t){ sizeof(sa) }) == 0 && sa.sin_port,
	      "the port it was given");
	check(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_usec = 1 },
			 sizeof(struct timeval)) == 0, "SO_RCVTIMEO");
	check(listen(s, 2) == 0, "TCP listen");
	p = (struct pollfd){ s, POLLIN, 0 };
	check(poll(&p, 1, 0) == 0, "a listener with nothing to accept");
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	check(fcntl(c, F_GETFL) & O_NONBLOCK, "SOCK_NONBLOCK");
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	check(connect(c, (void *)&sa, sizeof(sa)) == 0 || errno == EINPROGRESS, "TCP connect");
	check(getsockname(c, (void *)&from, &(socklen_t){ sizeof(from) }) == 0 &&
	      from.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && from.sin_port,
	      "a connected socket's own address");
	check(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN), "a listener with one to accept");
	a = accept(s, (void *)&from, &(socklen_t){ sizeof(from) });
	check(a >= 0 && from.sin_family == AF_INET, "TCP accept");
	p = (struct pollfd){ c, POLLOUT, 0 };
	check(poll(&p, 1, 1000) == 1 && (p.revents & POLLOUT), "a connected stream to write");
	check(write(c, "tcp", 3) == 3 && read(a, buf, sizeof(buf)) == 3, "TCP's bytes");
	check(fcntl(s, F_SETFL, O_NONBLOCK) == 0, "a listener made non-blocking");
	check_err(accept4(s, NULL, NULL, SOCK_NONBLOCK), EAGAIN, "an accept of none");
	close(a);
	close(c);
	close(s);

	s = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	sa = (struct sockaddr_in){ .sin_family = AF_INET };
	check(s >= 0 && bind(s, (void *)&sa, sizeof(sa)) == 0 &&
	      getsockname(s, (void *)&sa, &(socklen_t){ sizeof(sa) }) == 0, "UDP bind");
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	check(sendto(c, "x", 1, 0, (void *)&sa, sizeof(sa)) == 1, "UDP sendto");
	check(recvfrom(s, buf, sizeof(buf), 0, (void *)&from, &(socklen_t){ sizeof(from) }) == 1 &&
	      buf[0] == 'x' && from.sin_port, "UDP recvfrom, with the sender's port");
	close(c);
	close(s);
	sa.sin_addr.s_addr = htonl(0x0a000001);
	s = socket(AF_INET, SOCK_STREAM, 0);
	check_err(bind(s, (void *)&sa, sizeof(sa)), EADDRNOTAVAIL, "a bind to an address not here");
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(9);
	check_err(connect(s, (void *)&sa, sizeof(sa)), ECONNREFUSED, "a connect to a port no one has");
	close(s);
}

static void bad_calls(void)
{
	int p[2];

	check_err(socket(AF_INET6 + 100, SOCK_STREAM, 0), EAFNOSUPPORT, "a family past any");
	check_err(socket(AF_UNIX, SOCK_STREAM | 0x1000, 0), EINVAL, "a type with a bad flag");
	check_err(socket(AF_UNIX, SOCK_STREAM, 99), EPROTONOSUPPORT, "a protocol not AF_UNIX's");
	check_err(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), EPROTONOSUPPORT, "TCP as UDP");
	check_err(socketpair(AF_INET, SOCK_STREAM, 0, p), EOPNOTSUPP, "socketpair of AF_INET");
	check_err(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 8), EFAULT,
		  "socketpair into an unmapped address");
	check(pipe(p) == 0, "a pipe");
	check_err(listen(p[0], 1), ENOTSOCK, "listen on a pipe");
	check_err(listen(99, 1), EBADF, "listen on a descriptor not open");
	close(p[0]);
	close(p[1]);
	p[0] = socket(AF_UNIX, SOCK_DGRAM, 0);
	check_err(listen(p[0], 1), EOPNOTSUPP, "listen on a datagram socket");
	check_err(send(p[0], "x", 1, 0), ENOTCONN, "a datagram with nowhere to go");
	check_err(bind(p[0], (void *)&(struct sockaddr_un){ .sun_family = AF_INET }, 8), EINVAL,
		  "an AF_UNIX bind of another family's name");
	close(p[0]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	pairs();
	unix_names();
	loopback();
	bad_calls();
	if (failed)
		return 1;
	printf("sockets: ok\n");
	return 0;
}
