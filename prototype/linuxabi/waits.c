// SPDX-License-Identifier: GPL-2.0
/*
 * waits: waiting on several files at once, through glibc, on whatever
 * kernel runs it.  poll, ppoll, select and pselect on pipes, an eventfd,
 * a file and a device: what each end of a pipe is ready for, before and
 * after a write and as the other end closes; a wait with no end woken by
 * another thread's write; a wait with an end that runs out; a descriptor
 * that is not open; a mask that lets a signal in only while ppoll waits;
 * the eventfd's counter and semaphore; O_NONBLOCK on a pipe; and epoll
 * over a pipe, an eventfd and a socket pair.  It prints
 * "waits: ok" and exits 0 if everything held, and names what did not
 * otherwise.  The suite runs it on Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define UNUSED __attribute__((unused))

static int failed;
static volatile sig_atomic_t hits;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("waits: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static short ready(int fd, short events)
{
	struct pollfd p = { fd, events, 0 };

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

/* What each end of a pipe is ready for. */
static void pipe_ends(void)
{
	int p[2];
	char c;

	check(!pipe(p), "pipe");
	check(ready(p[0], POLLIN) == 0, "an empty pipe is not readable");
	check(ready(p[1], POLLOUT) == POLLOUT, "an empty pipe is writable");
	check(write(p[1], "x", 1) == 1 && ready(p[0], POLLIN) == POLLIN, "a pipe with a byte");
	check(read(p[0], &c, 1) == 1 && ready(p[0], POLLIN) == 0, "a pipe read empty again");
	close(p[1]);
	check(ready(p[0], POLLIN) == POLLHUP, "a pipe with no writer hangs up");
	close(p[0]);
	check(!pipe(p), "pipe");
	close(p[0]);
	check(ready(p[1], POLLOUT) == (POLLOUT | POLLERR), "a pipe with no reader is in error");
	close(p[1]);
}

static void *write_later(void *arg)
{
	usleep(20000);
	check(write((int)(intptr_t)arg, "w", 1) == 1, "a late write");
	return NULL;
}

static void *add_later(void *arg)
{
	uint64_t v = 5;

	usleep(20000);
	check(write((int)(intptr_t)arg, &v, 8) == 8, "a late eventfd write");
	return NULL;
}

/* Waits with no end, woken by another thread; waits with one, which runs out. */
static void wakes_and_ends(void)
{
	struct pollfd pf[2];
	struct timeval tv = { 0, 30000 };
	pthread_t w;
	fd_set in;
	long t0;
	int p[2];
	char c;

	check(!pipe(p), "pipe");
	pf[0] = (struct pollfd){ p[0], POLLIN, 0 };
	pf[1] = (struct pollfd){ -1, POLLIN, 0 };
	check(!pthread_create(&w, NULL, write_later, (void *)(intptr_t)p[1]), "pthread_create");
	check(poll(pf, 2, -1) == 1 && pf[0].revents == POLLIN && pf[1].revents == 0,
	      "a poll with no end woken by a write");
	pthread_join(w, NULL);
	check(read(p[0], &c, 1) == 1, "read");
	t0 = now_ms();
	check(poll(pf, 1, 30) == 0 && now_ms() - t0 >= 25, "a poll that runs out");
	FD_ZERO(&in);
	FD_SET(p[0], &in);
	t0 = now_ms();
	check(select(p[0] + 1, &in, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &in) &&
	      now_ms() - t0 >= 25 && tv.tv_sec == 0 && tv.tv_usec < 30000,
	      "a select that runs out, its time left written back");
	check(write(p[1], "y", 1) == 1, "write");
	FD_SET(p[0], &in);
	FD_SET(p[1], &in);
	check(select(p[1] + 1, &in, NULL, NULL, NULL) == 1 && FD_ISSET(p[0], &in) &&
	      !FD_ISSET(p[1], &in), "select of the read end with a byte");
	FD_ZERO(&in);
	FD_SET(42, &in);
	check(select(43, &in, NULL, NULL, &(struct timeval){ 0, 0 }) == -1 && errno == EBADF,
	      "select of a descriptor not open");
	pf[0] = (struct pollfd){ 42, POLLIN, 0 };
	check(poll(pf, 1, 0) == 1 && pf[0].revents == POLLNVAL, "poll of a descriptor not open");
	close(p[0]);
	close(p[1]);
}

static void on_usr1(int sig UNUSED)
{
	hits++;
}

/* ppoll and pselect let a blocked signal in while they wait, and only then. */
static void masks(void)
{
	sigset_t block, none, now;
	struct pollfd pf;
	int p[2];

	check(!pipe(p), "pipe");
	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &block, NULL);
	raise(SIGUSR1);
	check(hits == 0, "a blocked signal ran");
	pf = (struct pollfd){ p[0], POLLIN, 0 };
	check(ppoll(&pf, 1, NULL, &none) == -1 && errno == EINTR && hits == 1,
	      "ppoll let the signal in");
	sigprocmask(SIG_BLOCK, NULL, &now);
	check(sigismember(&now, SIGUSR1), "ppoll's mask outlived it");
	raise(SIGUSR1);
	check(pselect(0, NULL, NULL, NULL, NULL, &none) == -1 && errno == EINTR && hits == 2,
	      "pselect let the signal in");
	check(write(p[1], "z", 1) == 1 && ppoll(&pf, 1, NULL, &block) == 1,
	      "ppoll with a mask and a ready pipe");
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	signal(SIGUSR1, SIG_DFL);
	close(p[0]);
	close(p[1]);
}

static void eventfds(void)
{
	int e = eventfd(0, 0), s = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	uint64_t v = 3;
	pthread_t w;

	check(e >= 0 && s >= 0, "eventfd");
	check(ready(e, POLLIN | POLLOUT) == POLLOUT, "an empty eventfd is writable only");
	check(write(e, &v, 8) == 8 && write(e, &v, 8) == 8 && ready(e, POLLIN) == POLLIN,
	      "an eventfd written");
	check(read(e, &v, 8) == 8 && v == 6, "an eventfd read whole");
	check(read(s, &v, 8) == 8 && v == 1 && read(s, &v, 8) == 8 && v == 1,
	      "a semaphore eventfd read one at a time");
	check(read(s, &v, 8) == -1 && errno == EAGAIN, "an empty eventfd with O_NONBLOCK");
	check(read(e, &v, 4) == -1 && errno == EINVAL, "an eventfd read of four bytes");
	v = UINT64_MAX;
	check(write(e, &v, 8) == -1 && errno == EINVAL, "an eventfd write of the greatest value");
	check(!pthread_create(&w, NULL, add_later, (void *)(intptr_t)e), "pthread_create");
	check(read(e, &v, 8) == 8 && v == 5, "an eventfd read woken by a write");
	pthread_join(w, NULL);
	close(e);
	close(s);
}

static void nonblocking_and_files(void)
{
	int p[2], fd = open("/dev/null", O_RDWR), n = 0;
	char buf[512] = { 0 };

	check(!pipe2(p, O_NONBLOCK), "pipe2 with O_NONBLOCK");
	check(read(p[0], buf, 1) == -1 && errno == EAGAIN, "an empty pipe with O_NONBLOCK");
	while (write(p[1], buf, sizeof(buf)) > 0 && n < 1000)
		n++;
	check(n > 0 && n < 1000 && errno == EAGAIN, "a full pipe with O_NONBLOCK");
	check(ready(p[1], POLLOUT) == 0, "a full pipe is not writable");
	check(ready(fd, POLLIN | POLLOUT) == (POLLIN | POLLOUT), "a device is always ready");
	close(fd);
	close(p[0]);
	close(p[1]);
}

static int ep_wait1(int ep, int timeout, struct epoll_event *ev)
{
	return epoll_wait(ep, ev, 1, timeout);
}

/*
 * epoll over a pipe, an eventfd and a socket pair: ready or not, woken
 * by another thread, one-shot, an item gone with its descriptor's close,
 * the hang-up of a closed writer, and the errors of calls made wrongly.
 */
static void epolls(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 }, got;
	int ep = epoll_create1(EPOLL_CLOEXEC), p[2], sv[2], efd, fd;
	pthread_t th;

	check(ep >= 0 && pipe(p) == 0, "an epoll and a pipe");
	check(epoll_create1(0x40) == -1 && errno == EINVAL, "epoll_create1 of a bad flag: EINVAL");
	check(epoll_create(0) == -1 && errno == EINVAL, "epoll_create of 0: EINVAL");
	check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "the pipe's read end added");
	check(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == -1 && errno == EEXIST, "twice: EEXIST");
	check(ep_wait1(ep, 0, &got) == 0, "nothing to read: no event");
	check(write(p[1], "x", 1) == 1 && ep_wait1(ep, 0, &got) == 1 &&
	      got.events == EPOLLIN && got.data.u64 == 42, "a byte to read: EPOLLIN, its data");
	check(ep_wait1(ep, 0, &got) == 1, "and again while it waits: level-triggered");
	check(read(p[0], &got, 1) == 1 && ep_wait1(ep, 0, &got) == 0, "read: no event");
	ev.events = EPOLLIN | EPOLLONESHOT;
	check(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0 && write(p[1], "y", 1) == 1 &&
	      ep_wait1(ep, 0, &got) == 1 && ep_wait1(ep, 0, &got) == 0,
	      "EPOLLONESHOT: reported once");
	check(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0 && ep_wait1(ep, 0, &got) == 1,
	      "and again after EPOLL_CTL_MOD");
	check(read(p[0], &got, 1) == 1, "the byte read");
	ev.events = EPOLLIN;
	check(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0, "back to plain EPOLLIN");
	check(pthread_create(&th, NULL, write_later, (void *)(intptr_t)p[1]) == 0 &&
	      epoll_wait(ep, &got, 1, -1) == 1 && got.events == EPOLLIN,
	      "a wait with no end woken by another thread's write");
	pthread_join(th, NULL);
	check(read(p[0], &got, 1) == 1, "its byte read");
	close(p[1]);
	check(ep_wait1(ep, 0, &got) == 1 && (got.events & EPOLLHUP), "the writer closed: EPOLLHUP");
	close(p[0]);
	check(ep_wait1(ep, 0, &got) == 0, "the reader closed: its item gone");
	check(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == -1 && errno == EBADF,
	      "EPOLL_CTL_DEL of a closed descriptor: EBADF");
	efd = eventfd(0, 0);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLOUT, .data.u64 = 7 };
	check(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) == 0 && ep_wait1(ep, 0, &got) == 1 &&
	      got.events == EPOLLOUT && got.data.u64 == 7, "an eventfd: writable, not readable");
	check(epoll_ctl(ep, EPOLL_CTL_DEL, efd, NULL) == 0 && ep_wait1(ep, 0, &got) == 0,
	      "EPOLL_CTL_DEL");
	check(epoll_ctl(ep, EPOLL_CTL_DEL, efd, NULL) == -1 && errno == ENOENT,
	      "EPOLL_CTL_DEL again: ENOENT");
	check(epoll_ctl(ep, EPOLL_CTL_MOD, efd, &ev) == -1 && errno == ENOENT,
	      "EPOLL_CTL_MOD of what is not there: ENOENT");
	check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
	      epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev) == 0 && ep_wait1(ep, 0, &got) == 1 &&
	      (got.events & EPOLLOUT) && !(got.events & EPOLLIN), "a socket: writable");
	check(write(sv[1], "z", 1) == 1 && ep_wait1(ep, 0, &got) == 1 &&
	      (got.events & EPOLLIN), "and readable once written to");
	fd = open("/dev/null", O_RDONLY);
	check(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1 && errno == EPERM,
	      "/dev/null, which has no poll: EPERM");
	check(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev) == -1 && errno == EINVAL, "itself: EINVAL");
	check(epoll_ctl(ep, 99, efd, &ev) == -1 && errno == EINVAL, "an unknown op: EINVAL");
	check(epoll_ctl(efd, EPOLL_CTL_ADD, sv[1], &ev) == -1 && errno == EINVAL,
	      "on what is not an epoll: EINVAL");
	check(epoll_wait(ep, &got, 0, 0) == -1 && errno == EINVAL, "a wait for 0 events: EINVAL");
	check(epoll_wait(efd, &got, 1, 0) == -1 && errno == EINVAL, "a wait on no epoll: EINVAL");
	check(epoll_wait(-1, &got, 1, 0) == -1 && errno == EBADF, "a wait on -1: EBADF");
	check(epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], NULL) == -1 && errno == EFAULT,
	      "an event at NULL: EFAULT");
	close(fd);
	close(efd);
	close(sv[0]);
	close(sv[1]);
	close(ep);
}

int main(void)
{
	pipe_ends();
	wakes_and_ends();
	masks();
	eventfds();
	nonblocking_and_files();
	epolls();
	if (failed)
		return 1;
	printf("waits: ok\n");
	return 0;
}
