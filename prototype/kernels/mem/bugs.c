// SPDX-License-Identifier: GPL-2.0
/*
 * The bugs planted for vOSTD's checking mode: each must make the one
 * report expected with it on, naming the lines of this file that
 * allocated, freed and found, and stay inside the sandbox without it.
 */
#include "mem.h"

static bool site_is(const struct vostd_site *s, int line)
{
	return s && s->line == line && vostd_has_prefix(s->file, __FILE__) &&
	       vostd_has_prefix(__FILE__, s->file);
}

/*
 * A planted bug's case.  With the checking mode on, it must have made the
 * one report expected: of kind, the damage from byte first to last, naming
 * the lines of this file that allocated and freed the object and where
 * the damage was found (a line of 0: none to name).  Without it, nothing
 * is reported, and that the sandbox goes on is the case.
 */
static void planted(const char *name, enum vostd_san_kind kind, long first, long last,
		    int at_alloc, int at_free, int at_found)
{
	struct vostd_san_report r = {};
	bool seen = vostd_san_expected(&r);

	if (!vostd_checking())
		check(name, !seen, "a report without the checking mode", 0);
	else if (!seen)
		vostd_fail(name, "no report");
	else
		check(name, r.kind == kind && r.first == first && r.last == last &&
		      (at_alloc ? site_is(r.alloc, at_alloc) : !r.alloc) &&
		      (at_free ? site_is(r.free, at_free) : !r.free) &&
		      (at_found ? site_is(r.at, at_found) : !r.at),
		      "the report is another: its kind", r.kind);
}

/* As the linux kernel's pipe, which its reader wrote into after a close freed it. */
struct planted_pipe {
	vostd_spinlock_t lock;
	u32 len;
	u64 head;
	char buf[48];
};

/*
 * A reader that kept a pointer to the pipe across its sleep writes after
 * the pipe's free; the object waits in the quarantine, and a check finds
 * its poison spoiled at head's bytes.  Without the mode the write lands
 * in a free slab object of the sandbox's own.
 */
static void planted_write_after_free(void)
{
	struct planted_pipe *pp = vostd_alloc(sizeof(*pp), true);
	int at_alloc = __LINE__ - 1, at_free;

	if (!pp) {
		vostd_fail("planted_write_after_free", "no object");
		return;
	}
	vostd_san_expect(VOSTD_SAN_WRITE_AFTER_FREE);
	vostd_free(pp);
	at_free = __LINE__ - 1;
	WRITE_ONCE(pp->head, 1);	/* the planted bug */
	vostd_san_check();
	planted("planted_write_after_free", VOSTD_SAN_WRITE_AFTER_FREE, 8, 15,
		at_alloc, at_free, 0);
}

/*
 * The same reader, taking the freed pipe's lock: the word is the poison,
 * no lock's, and the report comes at once (without a planted expectation
 * the vCPU would stop there, for going on would read the poison as the
 * pipe's pointers).  The lock's own write and its release are then a
 * write after free.  Without the mode the freed lock is unlocked, as the
 * free found it.
 */
static void planted_lock_after_free(void)
{
	struct planted_pipe *pp = vostd_alloc(sizeof(*pp), true);
	int at_alloc = __LINE__ - 1, at_free;

	if (!pp) {
		vostd_fail("planted_lock_after_free", "no object");
		return;
	}
	vostd_free(pp);
	at_free = __LINE__ - 1;
	vostd_san_expect(VOSTD_SAN_LOCK_SPOILED);
	vostd_upcall_disable();
	vostd_spin_lock(&pp->lock);	/* the planted bug */
	vostd_spin_unlock(&pp->lock);
	vostd_upcall_enable();
	planted("planted_lock_after_free", VOSTD_SAN_LOCK_SPOILED, 0, 0, at_alloc, at_free, 0);
	vostd_san_expect(VOSTD_SAN_WRITE_AFTER_FREE);
	vostd_san_check();
	planted("planted_lock_after_free_write", VOSTD_SAN_WRITE_AFTER_FREE, 0, 3,
		at_alloc, at_free, 0);
}

/*
 * One byte past a 48-byte object: its redzone, found by its free.  Without
 * the mode, the byte is the slack of the slab's 64-byte object.
 */
static void planted_overrun(void)
{
	char *p = vostd_alloc(48, false);
	int at_alloc = __LINE__ - 1, at_free;

	if (!p) {
		vostd_fail("planted_overrun", "no object");
		return;
	}
	vostd_san_expect(VOSTD_SAN_REDZONE_AFTER);
	p[48] = 1;			/* the planted bug */
	vostd_free(p);
	at_free = __LINE__ - 1;
	planted("planted_overrun", VOSTD_SAN_REDZONE_AFTER, 48, 48, at_alloc, 0, at_free);
}

/*
 * One byte before an object.  Only with the mode on: without it the byte
 * is the end of the slab object before, which may be someone's.
 */
static void planted_underrun(void)
{
	char *p = vostd_alloc(48, false);
	int at_alloc = __LINE__ - 1, at_free;

	if (!p || !vostd_checking()) {
		vostd_free(p);
		return;
	}
	vostd_san_expect(VOSTD_SAN_REDZONE_BEFORE);
	p[-1] = 1;			/* the planted bug */
	vostd_free(p);
	at_free = __LINE__ - 1;
	planted("planted_underrun", VOSTD_SAN_REDZONE_BEFORE, -1, -1, at_alloc, 0, at_free);
}

/* A second free while the first is in the quarantine: both frees named. */
static void planted_double_free(void)
{
	char *p = vostd_alloc(64, false);
	int at_alloc = __LINE__ - 1, at_free, at_again;
	long r;

	vostd_san_expect(VOSTD_SAN_DOUBLE_FREE);
	vostd_free(p);
	at_free = __LINE__ - 1;
	r = vostd_free(p);		/* the planted bug */
	at_again = __LINE__ - 1;
	if (r != -ENOENT)
		vostd_fail("planted_double_free", "the second free returned %ld", r);
	else
		planted("planted_double_free", VOSTD_SAN_DOUBLE_FREE, 0, 0,
			at_alloc, at_free, at_again);
}

/*
 * A frame written after its free, found when the pool gives it out again
 * (the pool is a stack: the next allocation takes it back).  Without the
 * mode the write lands in a frame of the sandbox's pool, zeroed when
 * given out.
 */
static void planted_frame_write(void)
{
	char *f = vostd_frame_alloc(), *g;
	int at_free;

	if (!f) {
		vostd_fail("planted_frame_write", "no frame");
		return;
	}
	vostd_san_expect(VOSTD_SAN_FRAME_WRITE);
	vostd_frame_free(f);
	at_free = __LINE__ - 1;
	f[100] = 1;			/* the planted bug */
	g = vostd_frame_alloc();
	planted("planted_frame_write", VOSTD_SAN_FRAME_WRITE, 100, 100, 0, at_free, 0);
	if (g)
		vostd_frame_free(g);
}

/*
 * A frame freed twice: the second free is refused, and the frame is in
 * the pool once.  Only with the mode on: without it the pool would hold
 * the frame twice and give it to two owners.
 */
static void planted_frame_double_free(void)
{
	void *f = vostd_frame_alloc();
	int at_free, at_again;

	if (!f || !vostd_checking()) {
		if (f)
			vostd_frame_free(f);
		return;
	}
	vostd_san_expect(VOSTD_SAN_FRAME_DOUBLE_FREE);
	vostd_frame_free(f);
	at_free = __LINE__ - 1;
	vostd_frame_free(f);		/* the planted bug */
	at_again = __LINE__ - 1;
	planted("planted_frame_double_free", VOSTD_SAN_FRAME_DOUBLE_FREE, 0, 0,
		0, at_free, at_again);
}

void planted_bugs(void)
{
	planted_write_after_free();
	planted_lock_after_free();
	planted_overrun();
	planted_underrun();
	planted_double_free();
	planted_frame_write();
	planted_frame_double_free();
}
