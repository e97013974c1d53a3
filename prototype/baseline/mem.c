// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's memory costs, on 4 KiB pages only (small_pages), as the
 * sandbox's side has: first touches, mprotect of 2 MiB, fork and munmap.
 */
#include "baseline.h"

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* One timed read of a byte: the same lfence; rdtsc bracket as tenants/touch.S. */
static uint64_t timed_read(volatile const char *p)
{
	uint64_t t0 = cycles();

	(void)*p;
	_mm_lfence();
	return __rdtsc() - t0;
}

/*
 * Private anonymous memory of len bytes in 4 KiB pages, populated (written,
 * as MAP_POPULATE does for such a mapping) if asked.  The guest's
 * transparent huge pages are "always", which would otherwise back an
 * aligned 2 MiB with one huge page where the sandbox's side maps 512 small
 * ones; so the mapping is marked first and populated after.
 */
static char *small_pages(size_t len, int populate)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	if (populate && madvise(p, len, MADV_POPULATE_WRITE))
		die("madvise(MADV_POPULATE_WRITE)");
	return p;
}

/* The same for a write of a byte, as touch.S's write pass. */
static uint64_t timed_write(volatile char *p)
{
	uint64_t t0 = cycles();

	*p = 0x5a;
	_mm_lfence();
	return __rdtsc() - t0;
}

/*
 * A read of a page never touched maps the shared zero page: the cheapest
 * fault there is.  A write allocates a page and zeroes it, as a page the
 * sandbox maps is allocated and zeroed (vostd_frame_alloc) before vm_map.
 */
void touch(size_t n, int populate, int write, const char *key)
{
	size_t len = n * 4096, i;
	uint64_t *s = calloc(n, sizeof(*s));
	char *p = small_pages(len, populate);
	long f0;

	if (!s)
		die("calloc");
	f0 = faults();
	for (i = 0; i < n; i++)
		s[i] = write ? timed_write(p + i * 4096) : timed_read(p + i * 4096);
	printf(EV_FIG("%s_faults", "%ld", "sum", "faults") "\n", key, faults() - f0);
	fig_median(key, s, n);
	munmap(p, len);
	free(s);
}

void mprotect_2m(size_t rounds)
{
	size_t len = 2 << 20, r;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char *p = small_pages(len, 1);

	if (!s)
		die("calloc");
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = cycles();

		if (mprotect(p, len, PROT_READ))
			die("mprotect");
		s[r] = cycles() - t0;
		if (mprotect(p, len, PROT_READ | PROT_WRITE))
			die("mprotect");
	}
	fig_median("linux.mprotect_2m", s, rounds);
	munmap(p, len);
	free(s);
}

void fork_mib(size_t rounds, size_t mib)
{
	size_t len = mib << 20, r, i;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char *p = small_pages(len, 0), key[32];

	if (!s)
		die("calloc");
	snprintf(key, sizeof(key), "linux.fork_%zum", mib);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = cycles();
		pid_t child = fork();

		if (child < 0)
			die("fork");
		if (child == 0)
			_exit(0);
		s[r] = cycles() - t0;
		waitpid(child, NULL, 0);
	}
	fig_median(key, s, rounds);
	munmap(p, len);
	free(s);
}

/*
 * munmap of mib MiB of touched 4 KiB pages that a child forked just before
 * still maps: Linux takes each page out of this process's page table and
 * drops its count and reverse mapping, and frees none, as the sandbox's
 * unmap of a forked child's range frees no frame.  The child waits on a
 * pipe until the munmap is done.
 */
void munmap_mib(size_t rounds, size_t mib)
{
	size_t len = mib << 20, r, i;
	uint64_t *s = calloc(rounds, sizeof(*s));
	char key[32];

	if (!s)
		die("calloc");
	snprintf(key, sizeof(key), "linux.munmap_%zum", mib);
	for (r = 0; r < rounds; r++) {
		char *p = small_pages(len, 0), c = 0;
		int fds[2];
		pid_t child;
		uint64_t t0;

		for (i = 0; i < len; i += 4096)
			p[i] = 1;
		if (pipe(fds))
			die("pipe");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			close(fds[1]);
			if (read(fds[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[0]);
		t0 = cycles();
		if (munmap(p, len))
			die("munmap");
		s[r] = cycles() - t0;
		if (write(fds[1], &c, 1) != 1)
			die("write");
		close(fds[1]);
		waitpid(child, NULL, 0);
	}
	fig_median(key, s, rounds);
	free(s);
}
