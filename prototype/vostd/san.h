/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checking mode's own state, shared by its two files: sanitize.c,
 * which checks objects and frames, and sanitize_report.c, which words
 * what it finds and holds the one report a test expects.
 */
#ifndef VOSTD_SAN_H
#define VOSTD_SAN_H

#include "mm.h"
#include "sanitize.h"

#define SAN_FREE		0x6b	/* fills a freed object or frame */
#define SAN_REDZONE		0xcc	/* fills the redzones */
#define SAN_LEFT_MIN		64UL
#define SAN_RIGHT_MIN		16UL
#define SAN_RIGHT_MAX		VOSTD_PAGE_SIZE	/* of a longer right redzone, filled and checked */
#define SAN_QUARANTINE		1024		/* objects */
#define SAN_QUARANTINE_BYTES	(8UL << 20)	/* of their raw memory */
/* Each vCPU may queue one object past the bounds before it drains. */
#define SAN_RING		(SAN_QUARANTINE + EV_MAX_VCPUS)
#define SAN_TABLE_MIN		1024UL		/* slots */
#define SAN_SHOWN		8		/* reports of one sweep shown */
#define SAN_GONE		1UL		/* the key of a removed record */

enum san_state {
	SAN_LIVE = 1,		/* an object given out */
	SAN_QUARANTINED,	/* an object freed, in the quarantine */
	SAN_FRAME_FREE,		/* a frame in the pool */
};

/* One object or free frame: 32 bytes, open addressing by its address. */
struct san_rec {
	unsigned long key;	/* 0: empty; SAN_GONE: removed */
	u32 size;
	u32 state;
	const struct vostd_site *alloc, *free;
};

#define SAN_TABLE_MAX		(EV_MEM_MAX_BLOCK / sizeof(struct san_rec))

/* The sandbox's checking mode, in its slot. */
struct vostd_san {
	vostd_spinlock_t lock;
	struct san_rec *table;		/* never more than half full, removed ones counted */
	unsigned long mask, used, gone;
	unsigned long ring[SAN_RING];	/* the quarantine, oldest at head */
	unsigned int head, queued;
	unsigned long queued_bytes;
	unsigned long allocs, frees, frame_frees;
	bool full_said;
	enum vostd_san_kind expect;	/* a test's planted bug */
	bool expect_seen;
	struct vostd_san_report expected;
};

static inline struct vostd_san *san_state(void)
{
	return vostd_global(VOSTD_SLOT_SAN, sizeof(struct vostd_san));
}

static inline void san_lock(struct vostd_san *st)
{
	vostd_upcall_disable();
	vostd_spin_lock(&st->lock);
}

static inline void san_unlock(struct vostd_san *st)
{
	vostd_spin_unlock(&st->lock);
	vostd_upcall_enable();
}

/* sanitize_report.c */
void san_fill(struct vostd_san_report *r, enum vostd_san_kind kind,
	      const struct san_rec *rec, const struct vostd_site *at,
	      const char *when);
bool san_report(struct vostd_san *st, const struct vostd_san_report *r);

#endif /* VOSTD_SAN_H */
