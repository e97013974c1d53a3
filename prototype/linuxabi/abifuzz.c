// SPDX-License-Identifier: GPL-2.0
/*
 * abifuzz: random system calls with generated arguments, from three
 * threads at once, for a bounded time, on whatever kernel runs it.
 *
 *   abifuzz SEED MS
 *
 * The calls are those a program makes on files, descriptors, memory, time
 * and itself; their arguments come from pools a careless or hostile
 * program would draw on: open, closed and never-opened descriptors (one
 * thread closing what another reads), buffers whole, half in a page that
 * is not mapped, read-only, or not the program's at all (NULL, a kernel
 * address, a non-canonical one), lengths from 0 to huge, and flags and
 * numbers at their boundaries.  The program checks nothing of the
 * answers: the kernel must survive it, and so must the program, which
 * exits 0 once the time is up.  The suite runs it on Linux first (it must
 * survive there too), then in the sandbox, where the program after it in
 * the same sandbox must still run correctly.
 *
 * What it leaves out, so that it cannot harm the guest it runs on as
 * root, or hang on a call that is meant to wait: no signals to anyone
 * but itself, no paths but its own names in its own directory (and one
 * file read-only, whose mode no call changes; links point only at its
 * own names), no mapping over or unmapping of anything but an arena
 * of its own, no read of a pipe or wait on a futex that could block for
 * ever, no exit.  A pipe is written and closed, never kept; a pipe a
 * thread finds under a reused number may still keep it waiting until the
 * time is up, when every descriptor is closed.  Sockets are made, used
 * without waiting and closed in one go (sockets()), and so are System V
 * objects and POSIX timers (sysv_and_timers()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define THREADS		3
#define PAGE		4096UL
#define ARENA_PAGES	64
#define NFDS		16
#define MAX_FD		1024	/* its RLIMIT_NOFILE: every descriptor it opens is below */
#define KERNEL_VA	0xffff888000000000UL
#define NONCANON	0x8000000000000000UL

static unsigned long seed, deadline_ms;
static char *arena;		/* ARENA_PAGES pages the calls may map over */
static char *buf;		/* a page and a half: the half past it is not mapped */
static char *ro;		/* a read-only page */
static int fds[NFDS];		/* descriptors the threads share, open or not */
static const char *const names[] = { "fz-a", "fz-b", "fz-dir", "fz-dir/c" };
static unsigned long thread_calls[THREADS];
static unsigned int threads_done;	/* threads that have seen the time up */

static unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000UL + ts.tv_nsec / 1000000;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static unsigned long below(uint64_t *s, unsigned long n)
{
	return next(s) % n;
}

static unsigned long boundary(uint64_t *s)
{
	static const unsigned long v[] = {
		0, 1, 2, 63, 64, PAGE - 1, PAGE, PAGE + 1, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000UL, (unsigned long)-1, (unsigned long)-4095,
		0x7fffffffffffffffUL, NONCANON,
	};

	return v[below(s, sizeof(v) / sizeof(v[0]))];
}

/*
 * A descriptor: one the threads share, or one never opened.  Never 0, 1 or
 * 2, whose reads would wait on the console and whose writes would fill it.
 */
static int fd(uint64_t *s)
{
	static const int bad[] = { -1, 0x7fffffff, (int)0x80000000, 1 << 20 };

	switch (below(s, 8)) {
	case 0:
		return bad[below(s, 4)];
	case 1:
		return 1000 + below(s, 10);
	default:
		return __atomic_load_n(&fds[below(s, NFDS)], __ATOMIC_RELAXED);
	}
}

/* A pointer that is not the program's, or to nothing (an empty string). */
static unsigned long bad_ptr(uint64_t *s)
{
	switch (below(s, 5)) {
	case 0:
		return 0;
	case 1:
		return KERNEL_VA + below(s, 1 << 20);
	case 2:
		return NONCANON;
	case 3:
		return (unsigned long)arena;	/* mapped with no access, unless a call changed it */
	default:
		return (unsigned long)ro;	/* zeros */
	}
}

/* A pointer for the kernel to read or write through. */
static unsigned long ptr(uint64_t *s)
{
	switch (below(s, 10)) {
	case 0:
	case 1:
	case 2:
		return bad_ptr(s);
	case 3:
		return (unsigned long)ro + below(s, PAGE);
	case 4:
		return (unsigned long)buf + PAGE + PAGE / 2 - below(s, 64);	/* runs off the map */
	case 5:
		return (unsigned long)arena + below(s, ARENA_PAGES * PAGE);
	default:
		return (unsigned long)buf + below(s, PAGE);
	}
}

static unsigned long len(uint64_t *s)
{
	return below(s, 4) ? below(s, 2 * PAGE) : boundary(s);
}

/*
 * A name of its own, or a pointer that is none: never the buffers or the
 * arena, which hold what calls wrote there, a path among it perhaps.
 */
static unsigned long path(uint64_t *s)
{
	unsigned long a;

	switch (below(s, 6)) {
	case 0:
		a = bad_ptr(s);
		return a == (unsigned long)arena ? 0 : a;
	case 1:
		return (unsigned long)"/nonexistent/x";
	default:
		return (unsigned long)names[below(s, 4)];
	}
}

/* A range in the arena, or one that is no one's to change. */
static void range(uint64_t *s, unsigned long *addr, unsigned long *n)
{
	*addr = (unsigned long)arena + below(s, ARENA_PAGES) * PAGE;
	*n = (1 + below(s, 8)) * PAGE;
	if (*addr + *n > (unsigned long)arena + ARENA_PAGES * PAGE)
		*n = (unsigned long)arena + ARENA_PAGES * PAGE - *addr;
	switch (below(s, 8)) {
	case 0:
		*addr += 1 + below(s, PAGE - 1);	/* unaligned */
		break;
	case 1:
		*addr = KERNEL_VA;
		break;
	case 2:
		*n = 0;
		break;
	}
}

static void keep_fd(uint64_t *s, long r)
{
	if (r >= 0)
		__atomic_store_n(&fds[below(s, NFDS)], (int)r, __ATOMIC_RELAXED);
}

/*
 * An option of level to set (SOL_SOCKET, or 6 for TCP).  Not the
 * timestamps, nor TCP's options past its first four: on Linux they turn
 * on static keys (netstamp_needed_key, tcp_md5_needed), and the emulator
 * has been seen to oops on their patching of live code
 * (emulatorFault in internal/guest/qemu.go), in the loopback's receive
 * path while another thread sends.
 */
static int sockopt(uint64_t *s, int level)
{
	int opt;

	if (level != SOL_SOCKET)
		return 1 + below(s, 4);
	opt = below(s, 40);
	return opt == SO_TIMESTAMP || opt == SO_TIMESTAMPNS || opt == SO_TIMESTAMPING ?
	       SO_KEEPALIVE : opt;
}

/*
 * Sockets, made, used and closed in one go, every call that could wait
 * told not to: streams only, since a thread that finds a datagram socket
 * under a reused number and reads it would wait for ever on a socket
 * that is its own writer.  A listener's connection is accepted only when
 * poll says one waits.
 */
static void sockets(uint64_t *s)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(40000 + below(s, 4)),
				  .sin_addr.s_addr = htonl(0x7f000001) };
	int fam = below(s, 3) ? AF_UNIX : AF_INET, k[5] = { -1, -1, -1, -1, -1 }, i;
	void *name = fam == AF_UNIX ? (void *)&un : (void *)&in;
	socklen_t nlen = fam == AF_UNIX ? sizeof(un) : sizeof(in);
	struct pollfd p;

	if (below(s, 2))
		strcpy(un.sun_path, names[below(s, 4)]);
	else
		strcpy(un.sun_path + 1, "fz");		/* an abstract name */
	if (!below(s, 6))
		name = (void *)bad_ptr(s);
	if (!below(s, 6))
		nlen = below(s, 2) ? boundary(s) : below(s, sizeof(un) + 2);
	k[0] = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | (below(s, 2) ? SOCK_CLOEXEC : 0), 0);
	k[1] = socket(fam, SOCK_STREAM | SOCK_NONBLOCK, 0);
	syscall(SYS_bind, k[0], name, nlen);
	syscall(SYS_listen, k[0], (int)below(s, 4) - 1);
	syscall(SYS_connect, k[1], name, nlen);
	syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
		below(s, 6) ? (unsigned long)&k[2] : bad_ptr(s));
	for (i = 0; i < 6; i++) {
		int fd = k[below(s, 5)], lvl;

		switch (below(s, 8)) {
		case 0:
			syscall(SYS_sendto, fd, ptr(s), len(s), MSG_DONTWAIT | MSG_NOSIGNAL,
				below(s, 4) ? 0 : (unsigned long)name, nlen);
			break;
		case 1:
			syscall(SYS_recvfrom, fd, ptr(s), len(s), MSG_DONTWAIT | below(s, 2) * MSG_WAITALL,
				below(s, 2) ? ptr(s) : 0, ptr(s));
			break;
		case 2:
			syscall(SYS_shutdown, fd, (int)below(s, 5) - 1);
			break;
		case 3:
			syscall(below(s, 2) ? SYS_getsockname : SYS_getpeername, fd, ptr(s), ptr(s));
			break;
		case 4:
			lvl = below(s, 2) ? SOL_SOCKET : 6;
			syscall(SYS_setsockopt, fd, lvl, sockopt(s, lvl), ptr(s), below(s, 16));
			break;
		case 5:
			syscall(SYS_getsockopt, fd, below(s, 2) ? SOL_SOCKET : 6, below(s, 40), ptr(s),
				ptr(s));
			break;
		case 6:
			syscall(below(s, 2) ? SYS_sendmsg : SYS_recvmsg, fd, ptr(s),
				MSG_DONTWAIT | MSG_NOSIGNAL);
			break;
		default:
			p = (struct pollfd){ k[0], POLLIN, 0 };
			if (k[4] < 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
				k[4] = syscall(SYS_accept4, k[0], ptr(s), ptr(s), SOCK_NONBLOCK);
			break;
		}
	}
	for (i = 0; i < 5; i++)
		if (k[i] >= 0)
			close(k[i]);
}

/*
 * System V objects and POSIX timers, made, used without waiting and gone
 * in one go, as sockets are: every message call is IPC_NOWAIT's, a semop
 * waits a millisecond at most, an attach goes in the arena or where the kernel likes
 * and is detached, a timer's signal is SIGPIPE, which the program
 * ignores, and every object is removed before the call ends, so none
 * outlives it, on Linux either.
 */
static void sysv_and_timers(uint64_t *s)
{
	static const int semcmds[] = { IPC_STAT, IPC_SET, IPC_RMID, GETVAL, SETVAL, GETALL,
				       SETALL, GETPID, GETNCNT, GETZCNT, IPC_INFO, 12345 };
	static const int ctlcmds[] = { IPC_STAT, IPC_SET, IPC_INFO, SHM_LOCK, SHM_UNLOCK, -1 };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGPIPE };
	int sem = semget(IPC_PRIVATE, below(s, 5), 0600), msq = msgget(IPC_PRIVATE, 0600);
	unsigned long size = below(s, 2) ? len(s) : below(s, 4) * PAGE, page;
	int shm = shmget(IPC_PRIVATE, size, 0600);
	int timer = -1, i, j;
	unsigned long at[4] = { 0 };
	struct timespec ms = { 0, 1000000 };
	struct sembuf ops[4];
	struct itimerspec its;

	for (i = 0; i < 8; i++) {
		switch (below(s, 10)) {
		case 0:
			for (j = 0; j < 4; j++)
				ops[j] = (struct sembuf){ below(s, 6), (short)(below(s, 7) - 3),
							  IPC_NOWAIT | (below(s, 2) ? SEM_UNDO : 0) };
			/* a millisecond at most: ops from a bad pointer may lack IPC_NOWAIT */
			syscall(SYS_semtimedop, below(s, 4) ? sem : (int)boundary(s),
				below(s, 6) ? (unsigned long)ops : bad_ptr(s), below(s, 5), &ms);
			break;
		case 1:
			syscall(SYS_semctl, sem, (int)below(s, 6) - 1, semcmds[below(s, 12)],
				below(s, 2) ? ptr(s) : boundary(s));
			break;
		case 2:
			syscall(SYS_msgsnd, msq, ptr(s), below(s, 2) ? len(s) : below(s, 64),
				IPC_NOWAIT | (below(s, 2) ? MSG_NOERROR : 0));
			break;
		case 3:
			syscall(SYS_msgrcv, below(s, 4) ? msq : (int)boundary(s), ptr(s), len(s),
				(long)boundary(s) * (below(s, 2) ? 1 : -1),
				IPC_NOWAIT | below(s, 8) * MSG_NOERROR);
			break;
		case 4:
			syscall(below(s, 2) ? SYS_msgctl : SYS_shmctl, below(s, 2) ? msq : shm,
				ctlcmds[below(s, 6)], ptr(s));
			break;
		case 5:
			/* in the arena, over it if it fits there, or where the kernel likes */
			j = below(s, 4);
			page = below(s, ARENA_PAGES);
			if (below(s, 2) && size <= (ARENA_PAGES - page) * PAGE)
				at[j] = syscall(SYS_shmat, shm, (unsigned long)arena + page * PAGE,
						(below(s, 2) ? SHM_REMAP : 0) |
						(below(s, 2) ? SHM_RDONLY : 0));
			else
				at[j] = syscall(SYS_shmat, shm, 0, below(s, 2) ? SHM_RDONLY : 0);
			if ((long)at[j] < 0)
				at[j] = 0;
			break;
		case 6:
			syscall(SYS_shmdt, below(s, 2) ? at[below(s, 4)] : ptr(s));
			break;
		case 7:
			if (timer >= 0)
				break;
			if (!below(s, 4)) {
				ev.sigev_notify = SIGEV_THREAD_ID;
				ev._sigev_un._tid = gettid();
			}
			/*
			 * Always its own event, never one read from memory the calls
			 * wrote, nor NULL, which asks for SIGALRM: a signal it does not
			 * ignore would end it.  A bad signal number is refused.
			 */
			if (!below(s, 6))
				ev.sigev_signo = below(s, 2) ? 0 : 65;
			syscall(SYS_timer_create, (int)below(s, 13) - 1, &ev, &timer);
			break;
		case 8:
			/* a period of a millisecond at least: no storm of expiries */
			its = (struct itimerspec){ { 0, below(s, 2) * 1000000 },
						   { 0, below(s, 3) * 500000 } };
			syscall(SYS_timer_settime, timer, below(s, 2),
				below(s, 6) ? (unsigned long)&its : bad_ptr(s),
				below(s, 2) ? ptr(s) : 0);
			break;
		default:
			syscall(below(s, 2) ? SYS_timer_gettime : SYS_timer_getoverrun, timer, ptr(s));
			break;
		}
	}
	for (j = 0; j < 4; j++)
		if (at[j])
			syscall(SYS_shmdt, at[j]);
	if (timer >= 0)
		syscall(SYS_timer_delete, timer);
	semctl(sem, 0, IPC_RMID);
	msgctl(msq, IPC_RMID, NULL);
	shmctl(shm, IPC_RMID, NULL);
}

static void random_call(uint64_t *s)
{
	unsigned long a, n;
	struct timespec ts = { 0, 100000 };	/* a tenth of a millisecond */
	int p[2];
	long r;

	switch (below(s, 32)) {
	case 0:
		/* the one file outside its directory, only ever read */
		keep_fd(s, syscall(SYS_openat, AT_FDCWD, "/etc/motd", O_RDONLY));
		break;
	case 1:
		keep_fd(s, syscall(SYS_openat, below(s, 2) ? AT_FDCWD : fd(s), path(s),
				   (below(s, 2) ? O_RDONLY : O_RDWR | O_CREAT) |
				   (below(s, 4) ? 0 : O_DIRECTORY | O_APPEND | O_TRUNC), 0600));
		break;
	case 2:
		syscall(SYS_close, fd(s));
		break;
	case 3:
		syscall(SYS_read, fd(s), ptr(s), len(s));
		break;
	case 4:
		syscall(SYS_write, fd(s), ptr(s), len(s));
		break;
	case 5:
		syscall(SYS_lseek, fd(s), boundary(s), below(s, 6));
		break;
	case 6:
		syscall(SYS_fstat, fd(s), ptr(s));
		break;
	case 7:
		syscall(SYS_getdents64, fd(s), ptr(s), len(s));
		break;
	case 8:
		r = below(s, 2) ? fd(s) : 1000 + (long)below(s, 6);
		keep_fd(s, syscall(SYS_dup2, fd(s), r >= 0 && r < 3 ? 1000 : r));
		break;
	case 9:
		keep_fd(s, syscall(SYS_dup, fd(s)));
		break;
	case 10: {
		static const int cmds[] = { F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD,
					    F_DUPFD_CLOEXEC, F_GETLK, 9999 };

		syscall(SYS_fcntl, fd(s), cmds[below(s, 8)], below(s, 2) ? boundary(s) : ptr(s));
		break;
	}
	case 11:
		syscall(SYS_ioctl, fd(s), boundary(s), ptr(s));
		break;
	case 12:
		/*
		 * A pipe is written and closed in one go, never read and never
		 * kept: another thread may find its numbers in the pool and read
		 * it, and a read of a pipe waits for as long as a writer lives.
		 */
		if (below(s, 4)) {
			if (syscall(SYS_pipe2, p, O_CLOEXEC))
				break;
			syscall(SYS_write, p[1], ptr(s), below(s, PAGE));
			syscall(SYS_close, p[1]);
			syscall(SYS_close, p[0]);
		} else {
			syscall(SYS_pipe2, bad_ptr(s), O_CLOEXEC);
		}
		break;
	case 13:
		range(s, &a, &n);
		syscall(SYS_mmap, a, n, below(s, 8),
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	case 14:
		range(s, &a, &n);
		syscall(SYS_munmap, a, n);
		break;
	case 15:
		range(s, &a, &n);
		syscall(SYS_mprotect, a, n, below(s, 8));
		break;
	case 16:
		/* not fixed: wherever the kernel likes, then given back */
		n = len(s);
		r = syscall(SYS_mmap, 0, n, below(s, 8), below(s, 2) ? MAP_PRIVATE | MAP_ANONYMOUS :
			    MAP_SHARED, fd(s), below(s, 2) ? 0 : boundary(s) & ~(PAGE - 1));
		if (r > 0 && (unsigned long)r < KERNEL_VA)
			syscall(SYS_munmap, r, n);
		break;
	case 17:
		syscall(SYS_clock_gettime, below(s, 12), ptr(s));
		break;
	case 18:
		/* never a time read from memory the calls wrote: it could be years */
		a = below(s, 4);
		syscall(SYS_nanosleep, a == 0 ? 0 : a == 1 ? KERNEL_VA : (unsigned long)&ts, ptr(s));
		break;
	case 19:
		/* a wait on a word that does not hold the value, or for 0.1 ms */
		a = (unsigned long)buf + below(s, PAGE / 4) * 4;
		syscall(SYS_futex, below(s, 4) ? a : ptr(s), below(s, 2) ? FUTEX_WAKE : FUTEX_WAIT,
			*(uint32_t *)a + 1, &ts, 0, 0);
		break;
	case 20:
		syscall(SYS_getcwd, ptr(s), len(s));
		break;
	case 21:
		syscall(SYS_readlinkat, AT_FDCWD, path(s), ptr(s), len(s));
		break;
	case 22:
		if (below(s, 2))
			syscall(SYS_mkdirat, AT_FDCWD, path(s), 0700);
		else
			syscall(SYS_unlinkat, AT_FDCWD, path(s), below(s, 2) ? AT_REMOVEDIR : 0);
		break;
	case 23:
		syscall(SYS_uname, ptr(s));
		break;
	case 26:
		/* names among its own: a rename, a link, a symbolic link to another */
		a = below(s, 3);
		if (a == 0)
			syscall(SYS_renameat2, AT_FDCWD, path(s), AT_FDCWD, path(s), below(s, 8));
		else if (a == 1)
			syscall(SYS_linkat, AT_FDCWD, path(s), AT_FDCWD, path(s), below(s, 2) << 10);
		else
			syscall(SYS_symlinkat, path(s), AT_FDCWD, path(s));
		break;
	case 27:
		if (below(s, 2))
			syscall(SYS_ftruncate, fd(s), boundary(s));
		else
			syscall(SYS_truncate, path(s), below(s, 2) ? len(s) : boundary(s));
		break;
	case 28:
		if (below(s, 2))
			syscall(SYS_pwrite64, fd(s), ptr(s), len(s), boundary(s));
		else
			syscall(SYS_pread64, fd(s), ptr(s), len(s), boundary(s));
		break;
	case 29:
		/* attributes: never a mode by descriptor, which may be /etc/motd's */
		switch (below(s, 5)) {
		case 0:
			syscall(SYS_utimensat, below(s, 2) ? AT_FDCWD : fd(s),
				below(s, 4) ? path(s) : 0, ptr(s), below(s, 2) << 8);
			break;
		case 1:
			syscall(SYS_fchmodat, AT_FDCWD, path(s), below(s, 8) * 0111);
			break;
		case 2:
			syscall(SYS_statfs, path(s), ptr(s));
			break;
		case 3:
			syscall(SYS_fstatfs, fd(s), ptr(s));
			break;
		default:
			syscall(below(s, 2) ? SYS_fsync : SYS_fdatasync, fd(s));
			break;
		}
		break;
	case 30:
		sockets(s);
		break;
	case 31:
		sysv_and_timers(s);
		break;
	case 24:
		syscall(SYS_kill, getpid(), 0);
		syscall(SYS_getppid);
		syscall(SYS_sched_yield);
		break;
	default:
		syscall(SYS_faccessat, AT_FDCWD, path(s), below(s, 8));
		break;
	}
}

static void *fuzz_thread(void *arg)
{
	unsigned long id = (unsigned long)arg;
	uint64_t s = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (id + 1) * 0xbf58476d1ce4e5b9ULL;

	if (!s)
		s = 1;
	while (now_ms() < deadline_ms) {
		random_call(&s);
		thread_calls[id]++;
	}
	__atomic_add_fetch(&threads_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	unsigned long i, total = 0;
	char *m;

	if (argc != 3) {
		fprintf(stderr, "usage: abifuzz SEED MS\n");
		return 2;
	}
	/* a write to a pipe another thread has closed: EPIPE, not the end */
	signal(SIGPIPE, SIG_IGN);
	setrlimit(RLIMIT_NOFILE, &(struct rlimit){ MAX_FD, MAX_FD });
	seed = strtoul(argv[1], NULL, 10);
	deadline_ms = now_ms() + strtoul(argv[2], NULL, 10);
	arena = mmap(NULL, ARENA_PAGES * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || m == MAP_FAILED) {
		perror("abifuzz: mmap");
		return 1;
	}
	/* buf's half page past its end is not mapped; ro is read-only */
	buf = m + PAGE / 2;
	munmap(m + 2 * PAGE, PAGE);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		perror("abifuzz: mmap");
		return 1;
	}
	/* its names in a directory of its own, where the file system is writable */
	if ((!mkdir("abifuzz.d", 0700) || errno == EEXIST) && !chdir("abifuzz.d"))
		printf("abifuzz: in abifuzz.d\n");
	for (i = 0; i < NFDS; i++)
		fds[i] = 3 + i;
	printf("abifuzz: seed %lu, %d threads\n", seed, THREADS);
	fflush(stdout);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, fuzz_thread, (void *)i)) {
			fprintf(stderr, "abifuzz: pthread_create failed\n");
			return 1;
		}
	/*
	 * A descriptor number is used again once closed, so another thread's
	 * pipe can end up in the pool, dup'd, its reader waiting for a writer
	 * that lives on.  Once the time is up, every descriptor but the
	 * console's is closed, again and again, until each thread has
	 * returned: a pipe with no writer left reads as its end.
	 */
	while (now_ms() < deadline_ms)
		usleep(10000);
	while (__atomic_load_n(&threads_done, __ATOMIC_ACQUIRE) < THREADS) {
		for (i = 3; i < MAX_FD; i++)
			close(i);
		usleep(10000);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		total += thread_calls[i];
	}
	printf("abifuzz: %lu calls, survived\n", total);
	return 0;
}
