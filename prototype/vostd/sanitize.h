/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vOSTD's checking mode (sanitize.c): what the heap and the frame pool
 * call while it is on, and what a kernel's tests use to plant a bug and
 * see it reported.
 */
#ifndef VOSTD_SANITIZE_H
#define VOSTD_SANITIZE_H

#include "vostd.h"

enum vostd_san_kind {
	VOSTD_SAN_NONE,
	VOSTD_SAN_WRITE_AFTER_FREE,	/* a quarantined object's poison spoiled */
	VOSTD_SAN_REDZONE_BEFORE,	/* bytes before an object written */
	VOSTD_SAN_REDZONE_AFTER,	/* bytes past an object's end written */
	VOSTD_SAN_DOUBLE_FREE,		/* a free of an object already freed */
	VOSTD_SAN_INVALID_FREE,		/* a free of what no allocation gave out */
	VOSTD_SAN_RELEASED_WRITE,	/* a slab object written after its quarantine */
	VOSTD_SAN_FRAME_WRITE,		/* a frame written while in the pool */
	VOSTD_SAN_FRAME_DOUBLE_FREE,	/* a frame freed while in the pool */
	VOSTD_SAN_LEAK,			/* an object still allocated at teardown */
	VOSTD_SAN_FULL,			/* no room to record an allocation */
	VOSTD_SAN_LOCK_SPOILED,		/* a lock taken whose word is no lock's */
};

/*
 * One report.  first and last bound the damage, in bytes from addr (the
 * object's start, or the frame's); found is the byte at first.  alloc and
 * free are where the object was allocated and freed, at where the check
 * that found it ran (a free's or an allocation's site; NULL for a check
 * of the quarantine or the teardown), when says which check that was.
 */
struct vostd_san_report {
	enum vostd_san_kind kind;
	unsigned long addr, size;
	long first, last;
	u8 found;
	u32 word;			/* a spoiled lock's */
	const struct vostd_site *alloc, *free, *at;
	const char *when;
};

/* heap.c and mm.c call these only in checking mode. */
void *vostd_san_alloc(size_t size, bool zero, const struct vostd_site *site);
long vostd_san_free(void *p, const struct vostd_site *site);
bool vostd_san_frame_free(void *frame, const struct vostd_site *site);
void vostd_san_frame_alloc(void *frame);
/* The last vCPU out, before vOSTD's memory layer gives back its state. */
void vostd_san_teardown(void);
u32 vostd_san_reports(void);

/*
 * Check every object and free frame now, as the teardown does, without
 * giving anything back; each problem is reported once.
 */
void vostd_san_check(void);

/*
 * A test that plants a bug: the next report of kind is expected, printed
 * as EV_SANITIZER_EXPECTED_WORD and not counted against the run;
 * vostd_san_expected says whether it came, and what it said.
 */
void vostd_san_expect(enum vostd_san_kind kind);
bool vostd_san_expected(struct vostd_san_report *r);

#endif /* VOSTD_SANITIZE_H */
