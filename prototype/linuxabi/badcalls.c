// SPDX-License-Identifier: GPL-2.0
/*
 * badcalls: bad input to the linux kernel proper's system calls, from an
 * ordinary static C program (glibc).  Each call must come back with the
 * error Linux gives it, never a crash of the program, the sandbox or the
 * guest.  The guest pipeline builds it twice, static and static-PIE, into
 * the kernel's file system; it prints one line a call and exits 0 only if
 * every one was answered as Linux answers it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNMAPPED	((void *)0x1000)
#define KERNEL_VA	((void *)0xffff888000000000UL)

static int failed;

static void want(const char *what, long got, int err)
{
	int ok = got == -1 && errno == err;

	printf("badcalls: %s: %s (%s)\n", what, ok ? "ok" : "FAIL", strerror(errno));
	failed |= !ok;
}

/* A case that must succeed, with the result asked for. */
static void want_ok(const char *what, int ok)
{
	printf("badcalls: %s: %s\n", what, ok ? "ok" : "FAIL");
	failed |= !ok;
}

/*
 * Signals to processes and groups that are not there, or with a number
 * that is not a signal, in Linux's order: no target is ESRCH before a
 * bad signal is EINVAL.  A child that has exited and is not yet reaped
 * still takes a signal, as a zombie does.
 */
static void kills(void)
{
	struct timespec wait = { 0, 200 * 1000 * 1000 };
	pid_t child;

	want("kill of a pid nobody has", kill(INT_MAX, 0), ESRCH);
	want("kill of a pid nobody has, with a bad signal", kill(INT_MAX, 99), ESRCH);
	want("kill of itself with a bad signal", kill(getpid(), 99), EINVAL);
	want("kill of a group nobody is in", kill(-INT_MAX, 0), ESRCH);
	want("kill of group -INT_MIN", syscall(SYS_kill, -2147483647 - 1, 0), ESRCH);
	want_ok("kill of its own group with signal 0", kill(0, 0) == 0);
	child = fork();
	if (!child)
		_exit(0);
	nanosleep(&wait, NULL);
	want_ok("kill of a child exited and not yet reaped", kill(child, 0) == 0);
	want_ok("tgkill of a child exited and not yet reaped",
		syscall(SYS_tgkill, child, child, 0) == 0);
	waitpid(child, NULL, 0);
	want("kill of a child reaped", kill(child, 0), ESRCH);
	want("tkill of thread 0", syscall(SYS_tkill, 0, 0), EINVAL);
	want("tkill of a thread nobody has", syscall(SYS_tkill, INT_MAX, 0), ESRCH);
	want("tgkill of a thread nobody has", syscall(SYS_tgkill, getpid(), INT_MAX, 0), ESRCH);
	want("tgkill of its thread in another process",
	     syscall(SYS_tgkill, INT_MAX, syscall(SYS_gettid), 0), ESRCH);
	want("tgkill of its thread with a bad signal",
	     syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 99), EINVAL);
	want_ok("tgkill of its own thread with signal 0",
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0) == 0);
}

/*
 * Process groups: a group or a pid that is not there, and a child that
 * has run execve, which its parent may move no more.  The child's end of
 * the pipe closes on its exec.
 */
static void groups(void)
{
	struct timespec wait = { 0, 100 * 1000 * 1000 };
	int fds[2];
	char c;
	pid_t child;

	if (!pipe2(fds, O_CLOEXEC)) {
		child = fork();
		if (!child) {
			execl("/bin/busybox", "busybox", "sleep", "5", (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		read(fds[0], &c, 1);
		nanosleep(&wait, NULL);
		want("setpgid of a child that has run execve", setpgid(child, child), EACCES);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		close(fds[0]);
	}
	want("setpgid to a negative group", setpgid(0, -1), EINVAL);
	want("setpgid of a pid nobody has", setpgid(INT_MAX, 0), ESRCH);
	want("getpgid of a pid nobody has", getpgid(INT_MAX), ESRCH);
	want("getsid of a pid nobody has", getsid(INT_MAX), ESRCH);
	want_ok("getpgid of itself is its group", getpgid(0) == getpgrp());
}

/*
 * Linux's O_LARGEFILE on x86-64, which glibc defines as 0 there: a 64-bit
 * kernel sets it on every open of a file, and F_GETFL shows it.
 */
#define KERNEL_O_LARGEFILE	0100000

/* A file's flags as fcntl reads and sets them. */
static void file_flags(void)
{
	int fd = open("/etc/motd", O_RDONLY | O_CLOEXEC), fds[2];

	want_ok("F_GETFL of a file opened O_CLOEXEC is O_LARGEFILE",
		fcntl(fd, F_GETFL) == KERNEL_O_LARGEFILE);
	want_ok("F_SETFL of O_APPEND and O_NONBLOCK, read back",
		!fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK | O_CREAT) &&
		fcntl(fd, F_GETFL) == (KERNEL_O_LARGEFILE | O_APPEND | O_NONBLOCK));
	close(fd);
	if (pipe2(fds, O_NONBLOCK))
		return;
	want_ok("F_GETFL of a pipe's ends",
		fcntl(fds[0], F_GETFL) == O_NONBLOCK &&
		fcntl(fds[1], F_GETFL) == (O_WRONLY | O_NONBLOCK));
	close(fds[0]);
	close(fds[1]);
}

/* pread of what cannot seek: a pipe, either end, and the console. */
static void pread_pipes(void)
{
	int fds[2];
	char c;

	if (pipe(fds))
		return;
	want("pread of a pipe", pread(fds[0], &c, 1, 0), ESPIPE);
	want("pread of a pipe's write end", pread(fds[1], &c, 1, 0), ESPIPE);
	want("pread at a negative offset", pread(fds[0], &c, 1, -1), EINVAL);
	close(fds[0]);
	close(fds[1]);
}

/* The alternate signal stack: kept, given back, and checked as Linux checks it. */
static void altstacks(void)
{
	static char stack[65536];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) }, old;

	want_ok("sigaltstack at first is disabled",
		!sigaltstack(NULL, &old) && old.ss_flags == SS_DISABLE && !old.ss_size);
	want("sigaltstack from an unmapped address", syscall(SYS_sigaltstack, UNMAPPED, NULL),
	     EFAULT);
	ss.ss_flags = 99;
	want("sigaltstack with a bad flag", sigaltstack(&ss, NULL), EINVAL);
	ss.ss_flags = 0;
	ss.ss_size = 100;
	want("sigaltstack smaller than MINSIGSTKSZ", sigaltstack(&ss, NULL), ENOMEM);
	ss.ss_size = sizeof(stack);
	want_ok("sigaltstack set, and given back",
		!sigaltstack(&ss, NULL) && !sigaltstack(NULL, &old) &&
		old.ss_sp == stack && old.ss_size == sizeof(stack) && !old.ss_flags);
	want("sigaltstack to an unmapped old stack",
	     syscall(SYS_sigaltstack, NULL, UNMAPPED), EFAULT);
	ss.ss_flags = SS_DISABLE;
	want_ok("sigaltstack disabled", !sigaltstack(&ss, &old) && old.ss_sp == stack);
}

/*
 * The program's code is its file's frames, which every process running it
 * shares: a child that makes its code writable and writes to it changes
 * its own copy, not its parent's, nor the file's.
 */
static void code_stays_own(void)
{
	unsigned char *page = (unsigned char *)((unsigned long)code_stays_own & ~4095UL);
	unsigned char before = page[0];
	int status = -1, ok;
	pid_t child = fork();

	if (!child) {
		if (mprotect(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
			_exit(2);
		page[0] = before ^ 0xff;
		_exit(page[0] == (unsigned char)(before ^ 0xff) ? 0 : 3);
	}
	waitpid(child, &status, 0);
	ok = child > 0 && WIFEXITED(status) && !WEXITSTATUS(status) && page[0] == before;
	printf("badcalls: a child's write to its own code: %s\n", ok ? "ok" : "FAIL");
	failed |= !ok;
}

/*
 * rt_sigprocmask with a how it does not know: -EINVAL, with the old mask
 * not written out, as Linux leaves it (the new mask is checked first).
 */
static void sigmask_bad_how(void)
{
	unsigned long set = 0, old = 0x5a5a5a5a;
	long r = syscall(SYS_rt_sigprocmask, 99, &set, &old, 8);
	int ok = r == -1 && errno == EINVAL && old == 0x5a5a5a5a;

	printf("badcalls: rt_sigprocmask with a bad how: %s (%s)\n", ok ? "ok" : "FAIL",
	       strerror(errno));
	failed |= !ok;
}

/*
 * The calls of signals, with numbers, sizes and pointers they refuse, and
 * rt_sigqueueinfo's rule: a siginfo that poses as the kernel's or kill's
 * goes to no one but the caller.
 */
static void signal_calls(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	siginfo_t si = { .si_code = SI_QUEUE };
	unsigned long set = 0;
	pid_t child;
	int status;

	want("rt_sigaction of signal 0", syscall(SYS_rt_sigaction, 0, &sa, NULL, 8), EINVAL);
	want("rt_sigaction of signal 65", syscall(SYS_rt_sigaction, 65, &sa, NULL, 8), EINVAL);
	want("rt_sigaction of SIGKILL", syscall(SYS_rt_sigaction, SIGKILL, &sa, NULL, 8), EINVAL);
	want("rt_sigaction with a set of 4 bytes",
	     syscall(SYS_rt_sigaction, SIGUSR1, &sa, NULL, 4), EINVAL);
	want("rt_sigaction from an unmapped address",
	     syscall(SYS_rt_sigaction, SIGUSR1, UNMAPPED, NULL, 8), EFAULT);
	want("rt_sigpending of 16 bytes", syscall(SYS_rt_sigpending, &set, 16), EINVAL);
	want("rt_sigpending to an unmapped address", syscall(SYS_rt_sigpending, UNMAPPED, 8),
	     EFAULT);
	want("rt_sigsuspend with a set of 4 bytes", syscall(SYS_rt_sigsuspend, &set, 4), EINVAL);
	want("rt_sigsuspend from an unmapped address", syscall(SYS_rt_sigsuspend, UNMAPPED, 8),
	     EFAULT);
	want("rt_sigqueueinfo from an unmapped address",
	     syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, UNMAPPED), EFAULT);
	want("rt_sigqueueinfo to itself with a bad signal",
	     syscall(SYS_rt_sigqueueinfo, getpid(), 99, &si), EINVAL);
	want("rt_sigqueueinfo to a pid nobody has",
	     syscall(SYS_rt_sigqueueinfo, INT_MAX, SIGUSR1, &si), ESRCH);
	want_ok("rt_sigqueueinfo of signal 0 to itself",
		syscall(SYS_rt_sigqueueinfo, getpid(), 0, &si) == 0);
	want("rt_tgsigqueueinfo of process 0", syscall(SYS_rt_tgsigqueueinfo, 0, 1, 0, &si),
	     EINVAL);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	si.si_code = SI_USER;
	want("rt_sigqueueinfo posing as kill to another process",
	     syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si), EPERM);
	si.si_code = SI_KERNEL;
	want("rt_sigqueueinfo posing as the kernel to another process",
	     syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si), EPERM);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	want_ok("pause ended by SIGKILL", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* The interval timers and rt_sigtimedwait, with the timers and times Linux refuses. */
static void itimers(void)
{
	struct itimerval bad = { { 0, 0 }, { 0, 1000000 } }, v;
	struct timespec bad_ts = { 0, 1000000000 }, no_ts = { 0, 0 };
	unsigned long zero_set = 1UL << (SIGUSR2 - 1);

	want("setitimer of timer 99", setitimer(99, &bad, NULL), EINVAL);
	want("setitimer from an unmapped address",
	     syscall(SYS_setitimer, ITIMER_REAL, UNMAPPED, NULL), EFAULT);
	want("setitimer of a million microseconds", setitimer(ITIMER_REAL, &bad, NULL), EINVAL);
	bad.it_value.tv_usec = 0;
	bad.it_value.tv_sec = -1;
	want("setitimer of negative seconds", setitimer(ITIMER_REAL, &bad, NULL), EINVAL);
	want("getitimer of timer 99", getitimer(99, &v), EINVAL);
	want("getitimer to an unmapped address",
	     syscall(SYS_getitimer, ITIMER_REAL, UNMAPPED), EFAULT);
	want("rt_sigtimedwait with a set of 4 bytes",
	     syscall(SYS_rt_sigtimedwait, &v, NULL, NULL, 4), EINVAL);
	want("rt_sigtimedwait from an unmapped set",
	     syscall(SYS_rt_sigtimedwait, UNMAPPED, NULL, NULL, 8), EFAULT);
	want("rt_sigtimedwait with a billion nanoseconds",
	     syscall(SYS_rt_sigtimedwait, &zero_set, NULL, &bad_ts, 8), EINVAL);
	want("rt_sigtimedwait with no time and nothing pending",
	     syscall(SYS_rt_sigtimedwait, &zero_set, NULL, &no_ts, 8), EAGAIN);
	want_ok("getitimer of a timer never armed",
		!getitimer(ITIMER_REAL, &v) && !v.it_value.tv_sec && !v.it_value.tv_usec);
}

/* A futex's word must be mapped, aligned and hold the value a wait names. */
static void futexes(void)
{
	static int word[2];
	struct timespec ms = { 0, 1000000 };

	want("futex wait on an unmapped word",
	     syscall(SYS_futex, UNMAPPED, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), EFAULT);
	want("futex wait on a word in the kernel",
	     syscall(SYS_futex, KERNEL_VA, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), EFAULT);
	want("futex wait on a misaligned word",
	     syscall(SYS_futex, (char *)word + 1, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), EINVAL);
	want("futex wait on a word that holds another value",
	     syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0), EAGAIN);
	want("futex wait with a timeout at an unmapped address",
	     syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, UNMAPPED, NULL, 0), EFAULT);
	want("futex wait of a millisecond that nobody wakes",
	     syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &ms, NULL, 0), ETIMEDOUT);
	want("futex requeue of a negative count",
	     syscall(SYS_futex, word, FUTEX_REQUEUE_PRIVATE, 0, -1L, word, 0), EINVAL);
	want("futex requeue of a negative count to a word in the kernel",
	     syscall(SYS_futex, word, FUTEX_REQUEUE_PRIVATE, -1, 1L, KERNEL_VA, 0), EINVAL);
	want("futex requeue to a word in the kernel",
	     syscall(SYS_futex, word, FUTEX_REQUEUE_PRIVATE, 0, 1L, KERNEL_VA, 0), EFAULT);
	want("futex requeue to a misaligned word",
	     syscall(SYS_futex, word, FUTEX_REQUEUE_PRIVATE, 0, 1L, (char *)word + 2, 0), EINVAL);
	want("futex compare-and-requeue of a word that holds another value",
	     syscall(SYS_futex, word, FUTEX_CMP_REQUEUE_PRIVATE, 0, 1L, word, 1), EAGAIN);
	want("futex wake-op on an unmapped word",
	     syscall(SYS_futex, word, FUTEX_WAKE_OP_PRIVATE, 1, 1L, UNMAPPED,
		     FUTEX_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 0)), EFAULT);
	want("futex wake-op with an operation that does not exist",
	     syscall(SYS_futex, word, FUTEX_WAKE_OP_PRIVATE, 1, 1L, word, 7 << 28), ENOSYS);
	want("futex wake-op with a comparison that does not exist",
	     syscall(SYS_futex, word, FUTEX_WAKE_OP_PRIVATE, 1, 1L, word, 15 << 24), ENOSYS);
	want("futex with an operation that does not exist",
	     syscall(SYS_futex, word, 99, 0, NULL, NULL, 0), ENOSYS);
}

/*
 * The calls that make, change and remove files, in a directory of their
 * own under /tmp, with Linux's answers: names that are not names ("/",
 * ".", ".."), flags no call takes, a directory where a file must be and
 * the reverse, a directory into itself, descriptors of the wrong kind.
 */
static void file_system_calls(void)
{
	char top[] = "/tmp/badcalls-XXXXXX", path[300], buf[8];
	struct timespec times[2] = { { 0, 1000000000 }, { 0, 0 } };
	struct iovec iov = { buf, (size_t)-1 };
	int p[2], ro, fd;

	if (!mkdtemp(top) || chdir(top) || pipe(p)) {
		want_ok("a directory of its own, and a pipe", 0);
		return;
	}
	fd = open("f", O_RDWR | O_CREAT, 0644);
	ro = open("f", O_RDONLY);
	want_ok("mkdir, symlink", mkdir("d", 0755) == 0 && mkdir("d/e", 0755) == 0 &&
		symlink("loop", "loop") == 0 && fd >= 0 && ro >= 0);
	want("mkdir of an empty path", mkdir("", 0755), ENOENT);
	want("mkdir under a file", mkdir("f/x", 0755), ENOTDIR);
	want("mkdir of a name there", mkdir("f", 0755), EEXIST);
	want("mkdir from an unmapped path", syscall(SYS_mkdir, UNMAPPED, 0755), EFAULT);
	want("mkdirat from a file's descriptor", mkdirat(fd, "x", 0755), ENOTDIR);
	want("rmdir of the root", rmdir("/"), EBUSY);
	want("rmdir of ..", rmdir("d/e/.."), ENOTEMPTY);
	want("rmdir of a full directory", rmdir("d"), ENOTEMPTY);
	want("unlink of the root", unlink("/"), EISDIR);
	want("unlink of a directory", unlink("d"), EISDIR);
	want("unlinkat with a flag it does not take", unlinkat(AT_FDCWD, "f", 1), EINVAL);
	want("rename of a directory into itself", rename("d", "d/e/x"), EINVAL);
	want("rename of the root", rename("/", "/x"), EBUSY);
	want("rename of a file over a directory", rename("f", "d"), EISDIR);
	want("rename of a directory over a file", rename("d", "f"), ENOTDIR);
	want("rename of a directory over a full one", rename("d/e", "."), EBUSY);
	want("renameat2 with NOREPLACE over a name",
	     syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "d", RENAME_NOREPLACE), EEXIST);
	want("renameat2 with NOREPLACE and EXCHANGE",
	     syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "g",
		     RENAME_NOREPLACE | RENAME_EXCHANGE), EINVAL);
	want("renameat2 with a flag it does not take",
	     syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "g", 0x10), EINVAL);
	want("link of a directory", link("d", "x"), EPERM);
	want("link over a name", link("f", "d"), EEXIST);
	want("linkat with a flag it does not take", linkat(AT_FDCWD, "f", AT_FDCWD, "x", 1),
	     EINVAL);
	want("symlink to an empty target", symlink("", "x"), ENOENT);
	want("symlink over a name", symlink("f", "d"), EEXIST);
	want("open through a loop of links", open("loop", O_RDONLY), ELOOP);
	memset(path, 'n', sizeof(path) - 1);
	path[sizeof(path) - 1] = 0;
	want("open of a name past NAME_MAX", open(path, O_RDONLY), ENAMETOOLONG);
	want("open with O_CREAT and O_DIRECTORY", open("x", O_CREAT | O_DIRECTORY, 0644), EINVAL);
	want("open with O_TMPFILE to read only", open(".", O_TMPFILE | O_RDONLY, 0600), EINVAL);
	want("truncate to a negative size", truncate("f", -1), EINVAL);
	want("truncate of a directory", truncate("d", 0), EISDIR);
	want("ftruncate of a file open to read", ftruncate(ro, 0), EINVAL);
	want("ftruncate of a pipe", ftruncate(p[1], 0), EINVAL);
	want("chmod of nothing", chmod("nothing", 0644), ENOENT);
	want("fchmodat2 with a flag it does not take",
	     syscall(452 /* fchmodat2 */, AT_FDCWD, "f", 0644, 1), EINVAL);
	want("fchmodat2 of a link itself",
	     syscall(452 /* fchmodat2 */, AT_FDCWD, "loop", 0644, AT_SYMLINK_NOFOLLOW),
	     EOPNOTSUPP);
	want("fchownat with a flag it does not take", fchownat(AT_FDCWD, "f", 0, 0, 1), EINVAL);
	want("utimensat with a nanosecond past a second", utimensat(AT_FDCWD, "f", times, 0),
	     EINVAL);
	want("utimensat with a flag it does not take",
	     syscall(SYS_utimensat, AT_FDCWD, "f", NULL, 1), EINVAL);
	want("utimensat of no path from the working directory",
	     syscall(SYS_utimensat, AT_FDCWD, NULL, NULL, 0), EFAULT);
	want("futimens of a descriptor never opened",
	     syscall(SYS_utimensat, 42, NULL, NULL, 0), EBADF);
	want("futimens with a flag", syscall(SYS_utimensat, fd, NULL, NULL, AT_SYMLINK_NOFOLLOW),
	     EINVAL);
	want("statfs of nothing", syscall(SYS_statfs, "nothing", buf), ENOENT);
	want("fstatfs of a descriptor never opened", syscall(SYS_fstatfs, 42, buf), EBADF);
	want("fsync of a pipe", fsync(p[0]), EINVAL);
	want("fdatasync of a descriptor never opened", fdatasync(42), EBADF);
	want("pwrite to a pipe", pwrite(p[1], "x", 1, 0), ESPIPE);
	want("pwrite at a negative offset", pwrite(fd, "x", 1, -1), EINVAL);
	want("readv of a length past SSIZE_MAX", readv(fd, &iov, 1), EINVAL);
	want("readv of too many vectors", syscall(SYS_readv, fd, &iov, 1025), EINVAL);
	want("F_SETLK of a lock type that is not one",
	     fcntl(fd, F_SETLK, &(struct flock){ .l_type = 7 }), EINVAL);
	want("F_SETLK of a write lock on a file open to read",
	     fcntl(ro, F_SETLK, &(struct flock){ .l_type = F_WRLCK }), EBADF);
	want("F_SETLK from a whence that is not one",
	     fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_whence = 9 }), EINVAL);
	want("F_GETLK into an unmapped address", fcntl(fd, F_GETLK, UNMAPPED), EFAULT);
	want("fchdir to a file", fchdir(fd), ENOTDIR);
	want("fchdir of a descriptor never opened", fchdir(42), EBADF);
	want("getcwd into one byte", syscall(SYS_getcwd, buf, 1), ERANGE);
	want("access with a mode it does not know", access("f", 8), EINVAL);
	want("faccessat2 with a flag it does not take",
	     syscall(SYS_faccessat2, AT_FDCWD, "f", 0, 1), EINVAL);
	close(p[0]);
	close(p[1]);
	close(fd);
	close(ro);
	if (chdir("/"))
		want_ok("back to the root", 0);
}

/*
 * What Linux's own conformance test (the linux-conf suite) found
 * missing: out-pointers Linux requires, statx, chroot, wait4's bounds,
 * the ioctls every file answers, descriptors past 64, and limits kept.
 */
static void conformance_calls(void)
{
	struct rlimit rl = { 1 << 20, 1 << 21 }, got = {};
	struct timeval tv0 = { 0, 0 }, tv;
	struct timezone tz;
	struct statx stx;
	struct stat st;
	uint64_t mask = 0;
	int p[2], n = 0, on = 1;
	fd_set rs;

	want("uname into NULL", syscall(SYS_uname, NULL), EFAULT);
	want("clock_gettime into NULL", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NULL), EFAULT);
	want("prctl PR_SET_NAME from NULL", prctl(PR_SET_NAME, NULL, 0, 0, 0), EFAULT);
	want("prctl PR_GET_NAME into NULL", prctl(PR_GET_NAME, NULL, 0, 0, 0), EFAULT);
	want("rt_sigpending into NULL", syscall(SYS_rt_sigpending, NULL, 8), EFAULT);
	want("arch_prctl ARCH_GET_FS into NULL", syscall(SYS_arch_prctl, 0x1003, NULL), EFAULT);
	want("get_robust_list into NULL", syscall(SYS_get_robust_list, 0, NULL, NULL), EFAULT);
	want("statx of a NULL path", syscall(SYS_statx, AT_FDCWD, NULL, 0, 0, &stx), EFAULT);
	want("statx with the reserved mask bit",
	     syscall(SYS_statx, AT_FDCWD, "/", 0, 0x80000000U, &stx), EINVAL);
	want("statx with both sync flags", syscall(SYS_statx, AT_FDCWD, "/",
	     AT_STATX_FORCE_SYNC | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &stx), EINVAL);
	want("statx of a name that is not there",
	     syscall(SYS_statx, AT_FDCWD, "/nothing", 0, STATX_BASIC_STATS, &stx), ENOENT);
	want("statx into a kernel address",
	     syscall(SYS_statx, AT_FDCWD, "/", 0, STATX_BASIC_STATS, KERNEL_VA), EFAULT);
	want_ok("statx of descriptor 0 by a NULL path and AT_EMPTY_PATH",
		syscall(SYS_statx, 0, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0 &&
		(stx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS);
	want_ok("statx of /etc/motd, as stat sees it", stat("/etc/motd", &st) == 0 &&
		syscall(SYS_statx, AT_FDCWD, "/etc/motd", 0, STATX_BASIC_STATS, &stx) == 0 &&
		S_ISREG(stx.stx_mode) && stx.stx_size == (unsigned long)st.st_size &&
		stx.stx_ino == st.st_ino && stx.stx_nlink == st.st_nlink &&
		stx.stx_mtime.tv_sec == st.st_mtim.tv_sec);
	want("chroot of a file", chroot("/etc/motd"), ENOTDIR);
	want("chroot of a name that is not there", chroot("/nothing"), ENOENT);
	want("chroot from an unmapped path", syscall(SYS_chroot, UNMAPPED), EFAULT);
	want_ok("chroot of /", chroot("/") == 0);
	want("sched_getaffinity of a size not a long's",
	     syscall(SYS_sched_getaffinity, 0, 4, &mask), EINVAL);
	want("sched_getaffinity into an unmapped address",
	     syscall(SYS_sched_getaffinity, 0, sizeof(mask), UNMAPPED), EFAULT);
	want("sched_getaffinity of a thread that is not there",
	     syscall(SYS_sched_getaffinity, 0x3fffffff, sizeof(mask), &mask), ESRCH);
	want_ok("sched_getaffinity of itself",
		syscall(SYS_sched_getaffinity, 0, sizeof(mask), &mask) == sizeof(mask) && mask);
	want("wait4 of INT_MIN", syscall(SYS_wait4, INT_MIN, NULL, WNOHANG, NULL), ESRCH);
	want("wait4 with an option it does not take", syscall(SYS_wait4, -1, NULL, 0x100, NULL),
	     EINVAL);
	if (pipe(p) || write(p[1], "abc", 3) != 3) {
		want_ok("a pipe with three bytes", 0);
		return;
	}
	want("a terminal's request of a pipe", ioctl(p[0], TCGETS, &n), ENOTTY);
	want_ok("FIONREAD of a pipe", ioctl(p[0], FIONREAD, &n) == 0 && n == 3);
	want_ok("FIOCLEX", ioctl(p[0], FIOCLEX) == 0 && fcntl(p[0], F_GETFD) == FD_CLOEXEC);
	want_ok("FIONBIO", ioctl(p[0], FIONBIO, &on) == 0 && (fcntl(p[0], F_GETFL) & O_NONBLOCK));
	want("FIONBIO from an unmapped address", ioctl(p[0], FIONBIO, UNMAPPED), EFAULT);
	FD_ZERO(&rs);
	FD_SET(1000, &rs);
	want_ok("dup2 to descriptor 1000, and select of it",
		dup2(p[0], 1000) == 1000 && select(1001, &rs, NULL, NULL, &tv0) == 1 &&
		FD_ISSET(1000, &rs) && close(1000) == 0);
	close(p[0]);
	close(p[1]);
	want_ok("RLIMIT_CORE kept", setrlimit(RLIMIT_CORE, &rl) == 0 &&
		getrlimit(RLIMIT_CORE, &got) == 0 && got.rlim_cur == rl.rlim_cur &&
		got.rlim_max == rl.rlim_max);
	want_ok("gettimeofday with a time zone", gettimeofday(&tv, &tz) == 0);
}

int main(int argc, char **argv, char **envp)
{
	char *none[] = { "nothing", NULL };
	int fd = open("/etc/motd", O_RDONLY), dir = open("/etc", O_RDONLY | O_DIRECTORY);
	struct timespec ts;

	if (fd < 0 || dir < 0) {
		perror("badcalls: /etc/motd or /etc");
		return 1;
	}
	want("write from an unmapped buffer", syscall(SYS_write, 1, UNMAPPED, 8), EFAULT);
	want("read into a kernel address", syscall(SYS_read, fd, KERNEL_VA, 8), EFAULT);
	want("read into read-only code", syscall(SYS_read, fd, (void *)main, 8), EFAULT);
	want("open of a path at an unmapped address",
	     syscall(SYS_openat, AT_FDCWD, UNMAPPED, O_RDONLY), EFAULT);
	want("stat into a kernel address",
	     syscall(SYS_newfstatat, AT_FDCWD, "/etc/motd", KERNEL_VA, 0), EFAULT);
	want("pipe2 into an unmapped address", syscall(SYS_pipe2, UNMAPPED, 0), EFAULT);
	want("execve with argv unmapped", syscall(SYS_execve, "/bin/busybox", UNMAPPED, envp),
	     EFAULT);
	want("execve of a file that does not exist", execve("/bin/nothing", none, envp), ENOENT);
	want("execve of a malformed ELF", execve("/bin/badelf", none, envp), ENOEXEC);
	want("execve of a directory", execve("/etc", none, envp), EACCES);
	want("unknown system call 999", syscall(999), ENOSYS);
	want("a number past any table", syscall(0x7fffffff), ENOSYS);
	want("write to a descriptor never opened", write(42, "x", 1), EBADF);
	want("dup3 of a descriptor onto itself", dup3(fd, fd, 0), EINVAL);
	want("dup3 with a flag it does not take", dup3(fd, fd + 1, O_RDWR), EINVAL);
	want("dup2 of a descriptor never opened onto itself", dup2(42, 42), EBADF);
	want("open of a directory for writing", open("/etc", O_WRONLY), EISDIR);
	want("arch_prctl with a kernel address", syscall(SYS_arch_prctl, 0x1002, KERNEL_VA), EPERM);
	want("arch_prctl with a non-canonical address",
	     syscall(SYS_arch_prctl, 0x1002, 1UL << 47), EPERM);
	want("open with O_CREAT and O_EXCL of a file that exists",
	     open("/etc/motd", O_CREAT | O_EXCL | O_RDONLY, 0644), EEXIST);
	want("open with O_CREAT of a directory", open("/etc", O_CREAT | O_RDONLY, 0644), EISDIR);
	want("lseek to the end of a directory", lseek(dir, 0, SEEK_END), EINVAL);
	pread_pipes();
	file_flags();
	file_system_calls();
	want("clock_gettime of the retired clock 10", syscall(SYS_clock_gettime, 10, &ts), EINVAL);
	want("mmap neither private nor shared",
	     (long)mmap(NULL, 4096, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
	want("tgkill of thread 0", syscall(SYS_tgkill, getpid(), 0, 0), EINVAL);
	kills();
	groups();
	altstacks();
	sigmask_bad_how();
	signal_calls();
	itimers();
	futexes();
	want("poll of more descriptors than RLIMIT_NOFILE", syscall(SYS_poll, NULL, 1 << 24, 0),
	     EINVAL);
	want("poll of descriptors at an unmapped address", syscall(SYS_poll, UNMAPPED, 1, 0),
	     EFAULT);
	want("select of a negative count", syscall(SYS_select, -1, NULL, NULL, NULL, NULL),
	     EINVAL);
	want("select with a negative time",
	     syscall(SYS_select, 0, NULL, NULL, NULL, &(struct timeval){ 0, -1 }), EINVAL);
	want("ppoll with a mask of the wrong size",
	     syscall(SYS_ppoll, NULL, 0, NULL, &ts, 4), EINVAL);
	want("ppoll with a nanosecond past a second",
	     syscall(SYS_ppoll, NULL, 0, &(struct timespec){ 0, 1000000000 }, NULL, 8), EINVAL);
	want("eventfd2 with a flag it does not take", syscall(SYS_eventfd2, 0, 2), EINVAL);
	want("set_robust_list of a length not its head's",
	     syscall(SYS_set_robust_list, &ts, sizeof(ts) + 1), EINVAL);
	want("get_robust_list of a thread that is not there",
	     syscall(SYS_get_robust_list, 0x3fffffff, &ts, &ts), ESRCH);
	want("prlimit64 of a resource that is not one", syscall(SYS_prlimit64, 0, 99, NULL, NULL),
	     EINVAL);
	want("prlimit64 with a soft limit past the hard",
	     syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &(struct rlimit){ 2, 1 }, NULL), EINVAL);
	want("prlimit64 from an unmapped limit",
	     syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, UNMAPPED, NULL), EFAULT);
	want("prlimit64 of a process that is not there",
	     syscall(SYS_prlimit64, 0x3fffffff, RLIMIT_NOFILE, NULL, &ts), ESRCH);
	want("clone of a thread that does not share the signal handlers",
	     syscall(SYS_clone, CLONE_VM | CLONE_THREAD, NULL, NULL, NULL, 0), EINVAL);
	want("clone of a thread with a kernel address for its TLS",
	     syscall(SYS_clone, CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_SETTLS,
		     NULL, NULL, NULL, KERNEL_VA), EPERM);
	want("clone of a process that shares the handlers but not the memory",
	     syscall(SYS_clone, SIGCHLD | CLONE_SIGHAND, NULL, NULL, NULL, 0), EINVAL);
	want("clone of a process with a kernel address for its TLS",
	     syscall(SYS_clone, SIGCHLD | CLONE_SETTLS, NULL, NULL, NULL, KERNEL_VA), EPERM);
	code_stays_own();
	conformance_calls();
	printf("badcalls: %s (%s, argc %d)\n", failed ? "FAIL" : "all ok", argv[0], argc);
	return failed;
}
