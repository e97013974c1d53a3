/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mem kernel's files share: its tenant's layout, the tenant
 * object, and the helpers its cases and figures print through.  main.c
 * says what the kernel does.
 */
#ifndef MEM_MEM_H
#define MEM_MEM_H

#include <linux/stringify.h>

#include "mm.h"
#include "sanitize.h"

extern const char tenant_touch_start[], tenant_touch_end[];

#define PAGE		VOSTD_PAGE_SIZE
#define CODE_VA		EV_TENANT_BASE			/* the tenant's code */
#define RESULTS_VA	(EV_TENANT_BASE + 0x100000)	/* its timings, 8 bytes a page */
#define DATA_VA		(EV_TENANT_BASE + 0x10000000)	/* the pages it touches */
#define RW		(EV_PROT_READ | EV_PROT_WRITE)
#define RO		EV_PROT_READ
#define CURSOR_BATCH	64

#define ROUNDS		9
#define CAL_ROUNDS	__stringify(EV_CAL_ROUNDS)	/* for a figure's line */
#define CAL_PAIRS	__stringify(EV_CAL_PAIRS)
#define PAGES_2M	512
#define FORK_PAGES	16384		/* 64 MiB */
#define FORK_FRAMES	256		/* each mapped 64 times */
#define FORK_ROUNDS	3
#define GIB		BIT(30)
#define PMD_SPAN	(PAGE * 512)	/* what one page of page table maps */

/* A test case: on a FAIL, what came back, got, and what it is. */
static inline void check(const char *name, bool ok, const char *what, long got)
{
	if (ok)
		vostd_test(name, true, "%s", "");
	else
		vostd_fail(name, "%s %ld", what, got);
}

/* One figure of n samples: their median and p99. */
static inline void report(const char *key, u64 *s, unsigned int n, const char *unit,
			  const char *baseline)
{
	vostd_fig_median(key, s, n, unit, baseline);
}

static inline void report_count(const char *key, u64 v, const char *unit)
{
	vostd_println(EV_FIG("%s", "%llu", "sum", "%s"), key, v, unit);
}

/*
 * A measurement whose timed operation failed is a failed case, so that the
 * run fails instead of reporting an error's quick return as a cost.
 */
static inline void perf_fail(const char *name, const char *what, long got)
{
	vostd_fail(name, "%s %ld", what, got);
}

struct tenant {
	struct vostd_vmspace *vs;
	void *code;
	void *results[FORK_PAGES * 8 / PAGE];
	unsigned int result_pages;
	/* The traps a fault handler saw, and the last one's address and kind. */
	unsigned int traps;
	unsigned long fault_addr;
	bool fault_write;
};

/* space.c: tenants: their spaces, their code, a pass of touch over pages */
struct tenant *tenant_new(unsigned int n);
void tenant_free(struct tenant *t);
u64 touch(struct tenant *t, unsigned long va, unsigned long n, bool write,
	  u64 *s, u64 *faults,
	  long (*fault)(struct tenant *t, unsigned long addr, bool write));
long map_range(struct vostd_vmspace *vs, unsigned long va, unsigned long n,
	       void **frames, unsigned long nframes, unsigned int prot);

/* fork.c: the fork this kernel does, and the unmap of a child */
struct tenant *fork_space(struct tenant *parent, unsigned long pages,
			  unsigned long *crossings);
struct tenant *fork_space_cursor(struct tenant *parent, unsigned long pages,
				 void **frames, unsigned long nframes,
				 unsigned long *crossings);
u64 unmap_child(struct tenant *child, unsigned long pages, bool flush_each);
struct tenant *fork_parent(unsigned long pages, void ***frames);
void fork_parent_free(struct tenant *parent, void **frames);

/* perf.c: the measurements */
void perf_pair(void);
void perf(void);

/* scale.c: the scale suite */
void scale(const char *args);

/* tests.c: the test cases */
void tests(void);

/* bugs.c: the bugs planted for the checking mode */
void planted_bugs(void);

#endif /* MEM_MEM_H */
