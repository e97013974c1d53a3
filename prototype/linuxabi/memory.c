// SPDX-License-Identifier: GPL-2.0
/*
 * memory: an address space as Linux gives one, through glibc, on whatever
 * kernel runs it.  Reservations that cost nothing until touched; a
 * sparse map touched once a megabyte; munmap and mprotect of a map's
 * middle, and the faults that follow, each a SIGSEGV with its address
 * and code; PROT_NONE and back, contents kept; mremap that grows, moves,
 * shrinks and fixes; madvise's DONTNEED on private and shared memory;
 * shared anonymous memory and /dev/zero's across fork, with a
 * process-shared semaphore in it; maps of a file, private and shared, and
 * a named semaphore; a
 * hint taken; a deep stack; /proc/self/maps; RLIMIT_AS and RLIMIT_DATA;
 * and the errors of calls made wrongly.  It
 * prints "memory: ok" and exits 0 if everything held, and names what did
 * not otherwise.  The suite runs it on Linux first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE	4096UL
#define MIB	(1UL << 20)

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("memory: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void check_err(long r, int err, const char *what)
{
	check(r == -1 && errno == err, what);
}

/* A fault caught: its address and code, and back to the probe. */
static sigjmp_buf probe_env;
static volatile void *fault_addr;
static volatile int fault_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	fault_addr = si->si_addr;
	fault_code = si->si_code;
	siglongjmp(probe_env, 1);
}

/* 0 if the access went through; else the SIGSEGV's code, its address in fault_addr. */
static int probe(volatile char *p, int write)
{
	fault_addr = NULL;
	fault_code = 0;
	if (sigsetjmp(probe_env, 1))
		return fault_code;
	if (write)
		*p = 1;
	else
		(void)*p;
	return 0;
}

static char *map(void *at, unsigned long len, int prot, int flags)
{
	return mmap(at, len, prot, flags | MAP_ANONYMOUS, -1, 0);
}

/* Reservations larger than all memory, and a sparse map touched once a megabyte. */
static void reserve(void)
{
	char *r[8], *s;
	int i, ok = 1;
	unsigned long off;

	for (i = 0; i < 8; i++) {
		r[i] = map(NULL, 1UL << 30, PROT_NONE, MAP_PRIVATE);
		ok &= r[i] != MAP_FAILED;
	}
	check(ok, "eight PROT_NONE reservations of a GiB");
	check(mprotect(r[3] + 5 * MIB, 2 * PAGE, PROT_READ | PROT_WRITE) == 0,
	      "a piece of one made writable");
	check(probe(r[3] + 5 * MIB + PAGE, 1) == 0, "and written");
	check(probe(r[3] + 5 * MIB + 2 * PAGE, 0) == SEGV_ACCERR &&
	      fault_addr == r[3] + 5 * MIB + 2 * PAGE, "the reservation past it faults, ACCERR");
	for (i = 0; i < 8; i++)
		ok &= munmap(r[i], 1UL << 30) == 0;
	check(ok, "the reservations unmapped");
	s = map(NULL, 512 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE);
	check(s != MAP_FAILED, "a sparse map of 512 MiB");
	if (s == MAP_FAILED)
		return;
	for (off = 0; off < 512 * MIB; off += MIB)
		s[off] = (char)(off / MIB);
	for (off = 0, ok = 1; off < 512 * MIB; off += MIB)
		ok &= s[off] == (char)(off / MIB) && s[off + PAGE * 20] == 0;
	check(ok, "touched once a megabyte, and read back");
	check(munmap(s, 512 * MIB) == 0, "and unmapped");
}

/* A map's middle unmapped, then protected: the faults, their addresses and codes. */
static void split(void)
{
	char *m = map(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	check(m != MAP_FAILED, "a map of 8 pages");
	if (m == MAP_FAILED)
		return;
	memset(m, 'a', 8 * PAGE);
	check(munmap(m + 2 * PAGE, 2 * PAGE) == 0, "its middle unmapped");
	check(probe(m + 3 * PAGE + 9, 0) == SEGV_MAPERR && fault_addr == m + 3 * PAGE + 9,
	      "a read there faults, MAPERR, at its address");
	check(m[PAGE] == 'a' && m[4 * PAGE] == 'a', "both ends kept");
	check(mprotect(m + 5 * PAGE, PAGE, PROT_READ) == 0, "a page made read-only");
	check(probe(m + 5 * PAGE, 1) == SEGV_ACCERR && fault_addr == m + 5 * PAGE,
	      "a write there faults, ACCERR");
	check(probe(m + 6 * PAGE, 1) == 0, "the page after it is still writable");
	check(mprotect(m + 4 * PAGE, 3 * PAGE, PROT_NONE) == 0, "three pages PROT_NONE");
	check(probe(m + 4 * PAGE, 0) == SEGV_ACCERR, "a read of PROT_NONE faults, ACCERR");
	check(mprotect(m + 4 * PAGE, 3 * PAGE, PROT_READ | PROT_WRITE) == 0 &&
	      m[4 * PAGE] == 'a' && m[6 * PAGE] == 1, "and back, contents kept");
	check_err(mprotect(m, 8 * PAGE, PROT_READ), ENOMEM, "mprotect over the hole: ENOMEM");
	check_err(mprotect(m + 1, PAGE, PROT_READ), EINVAL, "mprotect unaligned: EINVAL");
	check_err(mprotect(m, PAGE, 0x40), EINVAL, "mprotect of an unknown bit: EINVAL");
	check(mmap(m + 2 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   -1, 0) == m + 2 * PAGE && m[2 * PAGE] == 0, "MAP_FIXED into the hole");
	check(mmap(m, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   -1, 0) == m && m[0] == 0 && m[PAGE] == 'a', "MAP_FIXED over a page replaces it");
	munmap(m, 8 * PAGE);
	check(probe(m + PAGE, 0) == SEGV_MAPERR, "all gone after munmap");
}

/* mremap: in place, moved, shrunk, fixed; and its errors. */
static void remap(void)
{
	char *a = map(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE), *b, *c, *gone;
	unsigned long i;
	int ok = 1;

	gone = map(NULL, PAGE, PROT_READ, MAP_PRIVATE);
	munmap(gone, PAGE);
	check(mremap(gone, PAGE, 2 * PAGE, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT,
	      "nothing there: EFAULT");
	check(a != MAP_FAILED, "a map to remap");
	if (a == MAP_FAILED)
		return;
	for (i = 0; i < 2 * PAGE; i++)
		a[i] = (char)i;
	munmap(a + 2 * PAGE, 6 * PAGE);
	check(mremap(a, 2 * PAGE, 4 * PAGE, 0) == a, "grown in place into the free range after");
	check(a[3 * PAGE] == 0 && a[PAGE + 7] == (char)(PAGE + 7), "new zeroes, old bytes");
	b = map(a + 4 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE);
	check(b == a + 4 * PAGE, "a map right after it");
	check(mremap(a, 4 * PAGE, 8 * PAGE, 0) == MAP_FAILED && errno == ENOMEM,
	      "growing into it without MREMAP_MAYMOVE: ENOMEM");
	c = mremap(a, 4 * PAGE, 64 * PAGE, MREMAP_MAYMOVE);
	check(c != MAP_FAILED && c != a, "moved to grow");
	if (c == MAP_FAILED)
		return;
	for (i = 0; i < 2 * PAGE; i++)
		ok &= c[i] == (char)i;
	check(ok && c[63 * PAGE] == 0, "its bytes moved with it");
	check(probe(a, 0) == SEGV_MAPERR, "the old place is gone");
	check(mremap(c, 64 * PAGE, 2 * PAGE, 0) == c && probe(c + 3 * PAGE, 0) == SEGV_MAPERR,
	      "shrunk, the tail unmapped");
	check(mremap(c, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, a) == a &&
	      a[PAGE + 7] == (char)(PAGE + 7), "MREMAP_FIXED back to the first place");
	check(mremap(a, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, a + PAGE) ==
	      MAP_FAILED && errno == EINVAL, "MREMAP_FIXED onto itself: EINVAL");
	check(mremap(a, PAGE, PAGE, MREMAP_FIXED, b) == MAP_FAILED && errno == EINVAL,
	      "MREMAP_FIXED without MAYMOVE: EINVAL");
	check(mremap(a, PAGE, PAGE, 0x80) == MAP_FAILED && errno == EINVAL,
	      "an unknown flag: EINVAL");
	check(mremap(a + 1, PAGE, PAGE, 0) == MAP_FAILED && errno == EINVAL,
	      "an unaligned address: EINVAL");
	check(mremap(a, 4 * PAGE, 8 * PAGE, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT,
	      "more than its area: EFAULT");
	munmap(a, 2 * PAGE);
	munmap(b, PAGE);
}

/* madvise: DONTNEED zeroes a private map, keeps a shared one; and its errors. */
static void advise(void)
{
	char *p = map(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *s = map(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED);

	check(p != MAP_FAILED && s != MAP_FAILED, "maps to advise");
	if (p == MAP_FAILED || s == MAP_FAILED)
		return;
	memset(p, 'p', 4 * PAGE);
	memset(s, 's', 4 * PAGE);
	check(madvise(p + PAGE, PAGE, MADV_DONTNEED) == 0 && p[PAGE] == 0 && p[0] == 'p' &&
	      p[2 * PAGE] == 'p', "DONTNEED on private memory: zeroes there alone");
	check(madvise(s, 4 * PAGE, MADV_DONTNEED) == 0 && s[PAGE] == 's',
	      "DONTNEED on shared memory: its bytes come back");
	check(madvise(p, 4 * PAGE, MADV_WILLNEED) == 0, "WILLNEED");
	check_err(madvise(p, PAGE, 9999), EINVAL, "an unknown advice: EINVAL");
	check_err(madvise(p + 1, PAGE, MADV_NORMAL), EINVAL, "an unaligned address: EINVAL");
	munmap(p + 2 * PAGE, PAGE);
	check_err(madvise(p, 4 * PAGE, MADV_DONTNEED), ENOMEM, "over a hole: ENOMEM");
	check(p[3 * PAGE] == 0, "which did the rest");
	check(msync(s, PAGE, MS_SYNC) == 0, "msync");
	check_err(msync(s, PAGE, MS_SYNC | MS_ASYNC), EINVAL, "msync both ways: EINVAL");
	check_err(msync(p, 4 * PAGE, MS_ASYNC), ENOMEM, "msync over the hole: ENOMEM");
	check(mlock(s, 4 * PAGE) == 0 && munlock(s, 4 * PAGE) == 0, "mlock and munlock");
	munmap(p, 4 * PAGE);
	munmap(s, 4 * PAGE);
}

/* Shared memory, anonymous and /dev/zero's, across fork; private memory copied. */
static void shared(void)
{
	char *s = map(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED), *z, *p;
	int fd = open("/dev/zero", O_RDWR), st = -1;
	pid_t pid;

	z = fd < 0 ? MAP_FAILED : mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	p = map(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	check(s != MAP_FAILED && z != MAP_FAILED && p != MAP_FAILED, "shared and private maps");
	if (s == MAP_FAILED || z == MAP_FAILED || p == MAP_FAILED)
		return;
	s[0] = 'x';
	p[0] = 'x';
	pid = fork();
	if (!pid) {
		s[0] = 'c';
		s[PAGE] = 'd';		/* a page the parent never touched */
		z[5] = 'z';
		p[0] = 'c';
		_exit(0);
	}
	waitpid(pid, &st, 0);
	check(st == 0 && s[0] == 'c' && s[PAGE] == 'd', "a child's writes to shared memory seen");
	/*
	 * A process-shared semaphore in it: the child sleeps on its futex,
	 * which the parent's post must find through the shared page (a
	 * timeout ends a sleep nothing wakes).
	 */
	sem_t *sem = (sem_t *)(s + 64);
	struct timespec until;

	check(!sem_init(sem, 1, 0), "sem_init, process-shared");
	pid = fork();
	if (!pid) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 10;
		_exit(sem_timedwait(sem, &until) ? 1 : 0);
	}
	usleep(300000);		/* long enough for the child to sleep */
	check(!sem_post(sem), "sem_post");
	waitpid(pid, &st, 0);
	check(st == 0, "a post in one process wakes a waiter in another");
	check(z[5] == 'z', "and to /dev/zero's shared map");
	check(p[0] == 'x', "but not to private memory");
	check(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED,
	      "/dev/zero mapped private");
	close(fd);
	munmap(s, 2 * PAGE);
	munmap(z, PAGE);
	munmap(p, PAGE);
}

/* Maps of a file: copies whatever their prot; a shared one never writable through mprotect. */
static void file_maps(void)
{
	char path[] = "/tmp/memory-XXXXXX", *m, *n;
	int fd = mkstemp(path), ro;

	check(fd >= 0 && write(fd, "file bytes", 10) == 10, "a file to map");
	ro = open(path, O_RDONLY);
	m = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE, ro, 0);
	check(m != MAP_FAILED && mprotect(m, PAGE, PROT_READ) == 0 && !memcmp(m, "file bytes", 10),
	      "a PROT_NONE map of a file, made readable, holds its bytes");
	n = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0);
	check(n != MAP_FAILED && !memcmp(n, "file bytes", 10), "a shared read-only map of it");
	check_err(mprotect(n, PAGE, PROT_READ | PROT_WRITE), EACCES,
		  "made writable, though opened read-only: EACCES");
	munmap(m, PAGE);
	munmap(n, PAGE);
	close(ro);
	close(fd);
	unlink(path);
	m = map(NULL, PAGE, PROT_READ, MAP_PRIVATE);
	check(mremap(m, PAGE, 1UL << 47, MREMAP_MAYMOVE) == MAP_FAILED &&
	      errno == ENOMEM, "mremap to a length no range has: ENOMEM");
	check_err(madvise(m, -1UL, MADV_NORMAL), EINVAL, "madvise of a length that wraps: EINVAL");
	munmap(m, PAGE);
}

/*
 * A shared map of a file: a store through it is in the file, a write to
 * the file is in it, a child's own map shares it; and a named semaphore,
 * which glibc keeps in a shared map of a file in /dev/shm.
 */
static void shared_files(void)
{
	char path[] = "/tmp/shared-XXXXXX", buf[8], *m;
	int fd = mkstemp(path), st = -1;
	struct timespec until;
	sem_t *sem;
	pid_t pid;

	check(fd >= 0 && ftruncate(fd, 2 * PAGE) == 0, "a file of two pages");
	m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check(m != MAP_FAILED, "a shared writable map of it");
	if (m == MAP_FAILED)
		return;
	memcpy(m + PAGE + 10, "stored", 6);
	check(pread(fd, buf, 6, PAGE + 10) == 6 && !memcmp(buf, "stored", 6),
	      "a store through the map is in the file");
	check(pwrite(fd, "written", 7, 20) == 7 && !memcmp(m + 20, "written", 7),
	      "a write to the file is in the map");
	pid = fork();
	if (!pid) {
		char *c = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);

		if (c == MAP_FAILED)
			_exit(2);
		memcpy(c, "child", 5);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	check(st == 0 && !memcmp(m + PAGE, "child", 5), "a child's own map of the file shares it");
	check(msync(m, 2 * PAGE, MS_SYNC) == 0, "msync of a shared file map");
	munmap(m, 2 * PAGE);
	check(pread(fd, buf, 5, PAGE) == 5 && !memcmp(buf, "child", 5), "kept in the file after munmap");
	close(fd);
	unlink(path);

	sem_unlink("/memory-sem");	/* a left-over of an earlier run */
	sem = sem_open("/memory-sem", O_CREAT | O_EXCL, 0600, 0);
	check(sem != SEM_FAILED, "sem_open");
	if (sem == SEM_FAILED)
		return;
	pid = fork();
	if (!pid) {
		sem_t *s = sem_open("/memory-sem", 0);

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 10;
		_exit(s != SEM_FAILED && !sem_timedwait(s, &until) ? 0 : 1);
	}
	usleep(300000);		/* long enough for the child to sleep */
	check(!sem_post(sem), "sem_post of a named semaphore");
	waitpid(pid, &st, 0);
	check(st == 0, "a named semaphore's post wakes a waiter in another process");
	check(!sem_close(sem) && !sem_unlink("/memory-sem"), "sem_close and sem_unlink");
}

/* A deep stack, a hint, the maps file, and maps made and gone by the thousand. */
static void more(void)
{
	char *hint = (char *)0x7e0000000000UL, *m, line[256];
	volatile char big[2 * MIB];
	FILE *f;
	int i, ok = 1, found = 0;

	big[0] = 1;
	big[sizeof(big) - 1] = 2;
	check(big[0] + big[sizeof(big) - 1] == 3, "two MiB of stack");
	m = map(NULL, 3 * PAGE, PROT_READ, MAP_PRIVATE);
	check(m != MAP_FAILED && mprotect(m + PAGE, PAGE, PROT_NONE) == 0, "a map to see");
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 &&
		    lo == (unsigned long)m + PAGE && hi == lo + PAGE && !strcmp(perm, "---p"))
			found = 1;
	}
	if (f)
		fclose(f);
	check(found, "its PROT_NONE page a line of its own in /proc/self/maps");
	munmap(m, 3 * PAGE);
	m = mmap(hint, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(m != MAP_FAILED, "a map at a hint");
	munmap(m, PAGE);
	for (i = 0; i < 20000 && ok; i++) {
		m = map(NULL, 256 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE);
		ok = m != MAP_FAILED;
		if (ok) {
			m[i % (256 * 1024)] = 1;
			ok = munmap(m, 256 * 1024) == 0;
		}
	}
	check(ok, "20000 maps of 256 KiB, each touched and unmapped");
	check_err((long)map(NULL, 0, PROT_READ, MAP_PRIVATE), EINVAL, "a map of nothing: EINVAL");
	check_err((long)map(NULL, 1UL << 46, PROT_READ | PROT_WRITE, MAP_PRIVATE), ENOMEM,
		  "a writable map larger than memory: ENOMEM");
	check_err(munmap((char *)hint + 1, PAGE), EINVAL, "munmap unaligned: EINVAL");
}

/*
 * The limits on mapping, as Linux's may_expand_vm applies them, in a
 * child whose limits go with it.  RLIMIT_DATA 0: a private writable map,
 * a private one made writable and the heap's growth are refused, a
 * read-only or shared map is not.
 * RLIMIT_AS: a map, PROT_NONE too, or an mremap past it is refused; one
 * that replaces another (MAP_FIXED) is counted once; munmap gives back.
 */
static void limits(void)
{
	struct rlimit zero = { 0, 0 }, as = { 1024 * MIB, 1024 * MIB };
	int status, bad = 0;
	void *a, *b;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		setrlimit(RLIMIT_DATA, &zero);
		a = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bad |= (a != MAP_FAILED || errno != ENOMEM) << 0;
		a = mmap(NULL, MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bad |= (a == MAP_FAILED || mprotect(a, MIB, PROT_READ | PROT_WRITE) != -1 ||
			errno != ENOMEM || mprotect(a, MIB, PROT_NONE)) << 1;
		b = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		bad |= (b == MAP_FAILED) << 2;
		bad |= (sbrk(64 * PAGE) != (void *)-1 || errno != ENOMEM) << 3;
		setrlimit(RLIMIT_AS, &as);
		a = mmap(NULL, 512 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bad |= (a == MAP_FAILED) << 4;
		b = mmap(NULL, 600 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bad |= (b != MAP_FAILED || errno != ENOMEM) << 5;
		b = mmap(a, 512 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		bad |= (b != a) << 6;
		b = mremap(a, 512 * MIB, 1100 * MIB, MREMAP_MAYMOVE);
		bad |= (b != MAP_FAILED || errno != ENOMEM) << 7;
		munmap(a, 512 * MIB);
		b = mmap(NULL, 600 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bad |= (b == MAP_FAILED) << 8;
		if (bad)
			printf("memory: FAIL limits, steps %#x\n", bad);
		fflush(stdout);
		_exit(bad ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), "RLIMIT_DATA and RLIMIT_AS, in a child");
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
	reserve();
	split();
	remap();
	advise();
	shared();
	file_maps();
	shared_files();
	more();
	limits();
	if (failed)
		return 1;
	printf("memory: ok\n");
	return 0;
}
