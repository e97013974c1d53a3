// SPDX-License-Identifier: GPL-2.0
/*
 * vOSTD's checking mode: a sanitizer for a sandbox kernel's heap and
 * frames, which every functional suite runs, so that a use after free in
 * a kernel proper is found by its tests and not by an attacker.
 *
 * What it covers.  vostd_alloc and vostd_free, whether an object's memory
 * comes from the slab or is a block of the endovisor's; and the frame
 * pool, vostd_frame_free and vostd_frame_alloc.  Not vostd_heap_alloc and
 * vostd_heap_free: they are the endovisor's blocks themselves, which its
 * table checks, used where a block's exact bounds matter (task stacks,
 * vOSTD's own state, the hostile kernel's cases against the services).
 *
 * An object lies in a larger piece of the unchecked heap, its raw memory:
 * a left redzone, the object, a right redzone, both filled with
 * SAN_REDZONE.  The left one is as long as the object's alignment and 64
 * bytes at least, so the object keeps the alignment vostd_alloc promises,
 * up to a page; the right one is the rest of the raw memory, a power of
 * two, 16 bytes at least.  There is no header: the size, the state and the
 * sites that allocated and freed an object are a record in a table of the
 * mode's own, keyed by the object's address, where a stray write into the
 * heap cannot spoil them, and which says whether a pointer handed to
 * vostd_free is an object before anything at it is read.
 *
 * A free checks the redzones, fills the object with SAN_FREE and queues it
 * in the quarantine, a FIFO bounded in objects and bytes; its memory goes
 * back to the unchecked heap only when it leaves the quarantine, after its
 * poison and redzones are checked again.  A slab object leaves filled with
 * SAN_FREE whole, and the allocation that next gets it checks that it
 * still is.  A frame freed is filled with SAN_FREE and recorded with its
 * free's site, and checked when the pool gives it out again.  At teardown
 * (the last vCPU out) the quarantine empties through the same checks,
 * every object still allocated is a leak, and every frame left in the pool
 * is checked.  A problem is reported once: what it found is painted over.
 *
 * What it cannot see: a read of freed memory, which nothing traps; a
 * write into another live object, or past a redzone; and a write into
 * freed memory until that memory is checked, or ever, into a block that
 * has left the quarantine, since it went back to Linux.  A second free of
 * an object given out again since is its new owner's free.
 *
 * A report is one line beginning EV_SANITIZER_WORD (ev_report.h), on
 * which the launcher, the guest's init and the host each fail a boot; it
 * fails the run too (vostd_boot).  A test that plants a bug names the one
 * report it expects (vostd_san_expect), which is printed beginning
 * EV_SANITIZER_EXPECTED_WORD instead and counted against nothing.
 *
 * The mode is the sandbox's, set when it is created (EV_CREATE_CHECKING):
 * one build of every kernel, and a run without it pays one test of a word
 * of its vCPU's shared page per allocation and free (heap.c).
 */
#include "san.h"

/* ---- an object's raw memory ---- */

static unsigned long san_pow2(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

/* The left redzone: the object's alignment, 64 bytes to a page. */
static unsigned long san_left(unsigned long size)
{
	return max(SAN_LEFT_MIN, min(san_pow2(size), VOSTD_PAGE_SIZE));
}

static unsigned long san_raw_size(unsigned long size)
{
	return san_pow2(san_left(size) + size + SAN_RIGHT_MIN);
}

static unsigned long san_right(unsigned long size)
{
	return min(san_raw_size(size) - san_left(size) - size, SAN_RIGHT_MAX);
}

/* The first byte of [p, p + n) that is not c, or -1: a word at a time where it can. */
static long san_first(const u8 *p, unsigned long n, u8 c)
{
	u64 word = 0x0101010101010101ULL * c;
	unsigned long i = 0;

	for (; i < n && ((unsigned long)(p + i) & 7); i++)
		if (p[i] != c)
			return i;
	for (; i + 8 <= n; i += 8)
		if (*(const u64 *)(p + i) != word)
			break;
	for (; i < n; i++)
		if (p[i] != c)
			return i;
	return -1;
}

/*
 * Is [p, p + n) still all c?  If not, r gets the damage: its first and
 * last bytes, from base, and the first one's value.
 */
static bool san_intact(const u8 *p, unsigned long n, u8 c, const u8 *base,
		       struct vostd_san_report *r)
{
	long first = san_first(p, n, c), last = n - 1;

	if (first < 0)
		return true;
	while (p[last] == c)
		last--;
	r->first = p + first - base;
	r->last = p + last - base;
	r->found = p[first];
	return false;
}

/*
 * Check an object's poison, if it is freed, and its redzones: the first
 * damage found goes in r, and is painted over.
 */
static enum vostd_san_kind san_check_object(const struct san_rec *rec,
					    struct vostd_san_report *r)
{
	unsigned long size = rec->size, left = san_left(size);
	u8 *p = (u8 *)rec->key;

	if (rec->state == SAN_QUARANTINED && !san_intact(p, size, SAN_FREE, p, r)) {
		vostd_memset(p, SAN_FREE, size);
		return VOSTD_SAN_WRITE_AFTER_FREE;
	}
	if (!san_intact(p - left, left, SAN_REDZONE, p, r)) {
		vostd_memset(p - left, SAN_REDZONE, left);
		return VOSTD_SAN_REDZONE_BEFORE;
	}
	if (!san_intact(p + size, san_right(size), SAN_REDZONE, p, r)) {
		vostd_memset(p + size, SAN_REDZONE, san_right(size));
		return VOSTD_SAN_REDZONE_AFTER;
	}
	return VOSTD_SAN_NONE;
}

/* Raw memory back to the heap; a slab object's whole in SAN_FREE, for its next allocation. */
static void san_release(u8 *raw, unsigned long raw_size)
{
	if (raw_size <= VOSTD_SLAB_MAX)
		vostd_memset(raw, SAN_FREE, raw_size);
	vostd_free_unchecked(raw);
}

/* ---- the table of records ---- */

static unsigned long san_hash(unsigned long key)
{
	return (key * 0x9e3779b97f4a7c15UL) >> 40;
}

static struct san_rec *san_find(struct vostd_san *st, unsigned long key)
{
	struct san_rec *rec;
	unsigned long i;

	if (!st->table)
		return NULL;
	for (i = san_hash(key);; i++) {
		rec = &st->table[i & st->mask];
		if (rec->key == key)
			return rec;
		if (!rec->key)
			return NULL;
	}
}

static bool san_is_object(const struct san_rec *rec)
{
	return rec && (rec->state == SAN_LIVE || rec->state == SAN_QUARANTINED);
}

static void san_put(struct san_rec *table, unsigned long mask, const struct san_rec *rec)
{
	unsigned long i = san_hash(rec->key);

	while (table[i & mask].key)
		i++;
	table[i & mask] = *rec;
}

/*
 * Room for one more record: the table rebuilt, without its removed
 * records, four to eight times the size of what it holds, allocated with
 * the lock dropped, as the slab's set grows.  The lock is held on entry
 * and on return; false if there is no room.
 */
static bool san_room(struct vostd_san *st)
{
	while (!st->table || 2 * (st->used + st->gone + 1) > st->mask + 1) {
		unsigned long slots = max(SAN_TABLE_MIN, san_pow2(4 * (st->used + 1))), i;
		struct san_rec *old = st->table, *table;

		slots = min(slots, SAN_TABLE_MAX);
		if (2 * (st->used + 1) > slots)
			return false;
		san_unlock(st);
		table = vostd_heap_alloc(slots * sizeof(*table), true);
		san_lock(st);
		if (!table)
			return false;
		if (st->table != old) {		/* another vCPU rebuilt it */
			san_unlock(st);
			vostd_heap_free(table);
			san_lock(st);
			continue;
		}
		for (i = 0; old && i <= st->mask; i++)
			if (old[i].key > SAN_GONE)
				san_put(table, slots - 1, &old[i]);
		st->table = table;
		st->mask = slots - 1;
		st->gone = 0;
		if (old) {
			san_unlock(st);
			vostd_heap_free(old);
			san_lock(st);
		}
	}
	return true;
}

/* A new record of key (not in the table), or NULL; the lock is held. */
static struct san_rec *san_insert(struct vostd_san *st, unsigned long key)
{
	struct san_rec *rec;
	unsigned long i;

	if (!san_room(st))
		return NULL;
	for (i = san_hash(key);; i++) {
		rec = &st->table[i & st->mask];
		if (rec->key <= SAN_GONE)
			break;
	}
	if (rec->key == SAN_GONE)
		st->gone--;
	*rec = (struct san_rec){ .key = key };
	st->used++;
	return rec;
}

static void san_remove(struct vostd_san *st, struct san_rec *rec)
{
	rec->key = SAN_GONE;
	st->used--;
	st->gone++;
}

/* ---- objects ---- */

void *vostd_san_alloc(size_t size, bool zero, const struct vostd_site *site)
{
	struct vostd_san *st = san_state();
	struct vostd_san_report r = {};
	unsigned long left, raw_size;
	struct san_rec *rec;
	bool say_full;
	u8 *raw, *p;

	if (!st || !size || size > EV_MEM_MAX_BLOCK)
		return NULL;
	left = san_left(size);
	raw_size = san_raw_size(size);
	if (raw_size > EV_MEM_MAX_BLOCK)
		return NULL;
	raw = vostd_alloc_unchecked(raw_size, false);
	if (!raw)
		return NULL;
	/* A slab object is new, so zero, or has left the quarantine all SAN_FREE. */
	if (raw_size <= VOSTD_SLAB_MAX && vostd_slab_owns(raw) &&
	    !san_intact(raw, raw_size, raw[0] || raw[raw_size - 1] ? SAN_FREE : 0, raw, &r)) {
		r.kind = VOSTD_SAN_RELEASED_WRITE;
		r.addr = (unsigned long)raw;
		r.size = raw_size;
		r.at = site;
		r.when = "found by the allocation at";
		san_report(st, &r);
	}
	p = raw + left;
	vostd_memset(raw, SAN_REDZONE, left);
	vostd_memset(p + size, SAN_REDZONE, san_right(size));
	if (zero)
		vostd_memset(p, 0, size);
	san_lock(st);
	rec = san_insert(st, (unsigned long)p);
	if (rec) {
		rec->size = size;
		rec->state = SAN_LIVE;
		rec->alloc = site;
		st->allocs++;
	}
	say_full = !rec && !st->full_said;
	st->full_said |= !rec;
	san_unlock(st);
	if (rec)
		return p;
	san_release(raw, raw_size);
	if (say_full) {
		r = (struct vostd_san_report){ .kind = VOSTD_SAN_FULL, .addr = (unsigned long)p,
					       .size = size, .at = site,
					       .when = "found by the allocation at" };
		san_report(st, &r);
	}
	return NULL;
}

/*
 * Empty the quarantine down to objects and bytes: each object leaving is
 * checked, its record removed, its memory given back.
 */
static void san_drain(struct vostd_san *st, unsigned long objects, unsigned long bytes,
		      const char *when)
{
	for (;;) {
		struct vostd_san_report r = {};
		enum vostd_san_kind kind = VOSTD_SAN_NONE;
		unsigned long size = 0;
		struct san_rec *rec;
		u8 *p;

		san_lock(st);
		if (st->queued <= objects && st->queued_bytes <= bytes) {
			san_unlock(st);
			return;
		}
		p = (u8 *)st->ring[st->head];
		st->head = (st->head + 1) % SAN_RING;
		st->queued--;
		rec = san_find(st, (unsigned long)p);
		if (rec) {
			size = rec->size;
			st->queued_bytes -= san_raw_size(size);
			kind = san_check_object(rec, &r);
			if (kind)
				san_fill(&r, kind, rec, NULL, when);
			san_remove(st, rec);
		}
		san_unlock(st);
		if (kind)
			san_report(st, &r);
		if (rec)
			san_release(p - san_left(size), san_raw_size(size));
	}
}

/*
 * The object whose memory holds p, inside it or in its left redzone: r
 * gets it, and p's offset in first.  An object lies at a multiple of its
 * left redzone's length, 64 bytes to a page, so a few lookups find it.
 */
static bool san_holder(struct vostd_san *st, unsigned long p, struct vostd_san_report *r)
{
	struct san_rec *rec = NULL;
	unsigned long align, q = 0;

	san_lock(st);
	for (align = SAN_LEFT_MIN; align <= VOSTD_PAGE_SIZE; align *= 2) {
		q = p & ~(align - 1);
		rec = san_find(st, q);
		if (san_is_object(rec) && p < q + rec->size)
			break;
		q = (p | (align - 1)) + 1;
		rec = san_find(st, q);
		if (san_is_object(rec) && p >= q - san_left(rec->size))
			break;
		rec = NULL;
	}
	if (rec) {
		r->addr = q;
		r->size = rec->size;
		r->first = p - q;
		r->last = p - q;
		r->alloc = rec->alloc;
		r->free = rec->free;
	}
	san_unlock(st);
	return rec;
}

/*
 * A free of what is no object: perhaps a block of vostd_heap_alloc's,
 * which vostd_free takes too.
 */
static long san_free_unknown(struct vostd_san *st, void *p, const struct vostd_site *site)
{
	struct vostd_san_report r = { .kind = VOSTD_SAN_INVALID_FREE, .addr = (unsigned long)p,
				      .at = site, .when = "by the free at" };
	long ret;

	if (san_holder(st, (unsigned long)p, &r)) {
		ret = -EINVAL;
	} else if (vostd_slab_owns(p)) {
		ret = -ENOENT;	/* the slab's memory is the checking mode's only */
	} else {
		ret = vostd_heap_free(p);
		if (!ret)
			return 0;
	}
	san_report(st, &r);
	return ret;
}

long vostd_san_free(void *p, const struct vostd_site *site)
{
	struct vostd_san *st = san_state();
	enum vostd_san_kind kind = VOSTD_SAN_NONE;
	struct vostd_san_report r = {};
	struct san_rec *rec;

	if (!p || !st)
		return vostd_free_unchecked(p);
	san_lock(st);
	rec = san_find(st, (unsigned long)p);
	if (rec && rec->state == SAN_QUARANTINED) {
		san_fill(&r, VOSTD_SAN_DOUBLE_FREE, rec, site, "freed again at");
		san_unlock(st);
		san_report(st, &r);
		return -ENOENT;
	}
	if (!rec || rec->state != SAN_LIVE) {
		san_unlock(st);
		return san_free_unknown(st, p, site);
	}
	kind = san_check_object(rec, &r);
	if (kind)
		san_fill(&r, kind, rec, site, "found by the free at");
	vostd_memset(p, SAN_FREE, rec->size);
	rec->state = SAN_QUARANTINED;
	rec->free = site;
	st->ring[(st->head + st->queued++) % SAN_RING] = (unsigned long)p;
	st->queued_bytes += san_raw_size(rec->size);
	st->frees++;
	san_unlock(st);
	if (kind)
		san_report(st, &r);
	san_drain(st, SAN_QUARANTINE, SAN_QUARANTINE_BYTES, "found leaving the quarantine");
	return 0;
}

/* ---- frames ---- */

/* False if the frame must stay out of the pool: it is not one to free. */
bool vostd_san_frame_free(void *frame, const struct vostd_site *site)
{
	struct vostd_san_report r = { .kind = VOSTD_SAN_INVALID_FREE, .addr = (unsigned long)frame,
				      .at = site, .when = "by the frame free at" };
	struct vostd_san *st = san_state();
	struct san_rec *rec;

	if (!st)
		return true;
	if (!frame || (unsigned long)frame & (VOSTD_PAGE_SIZE - 1)) {
		san_report(st, &r);
		return false;
	}
	san_lock(st);
	rec = san_find(st, (unsigned long)frame);
	if (rec) {
		if (rec->state == SAN_FRAME_FREE)
			san_fill(&r, VOSTD_SAN_FRAME_DOUBLE_FREE, rec, site, "freed again at");
		else
			san_fill(&r, VOSTD_SAN_INVALID_FREE, rec, site, "by the frame free at");
		san_unlock(st);
		san_report(st, &r);
		return false;
	}
	rec = san_insert(st, (unsigned long)frame);
	if (rec) {
		rec->size = VOSTD_PAGE_SIZE;
		rec->state = SAN_FRAME_FREE;
		rec->free = site;
		st->frame_frees++;
	}
	san_unlock(st);
	if (rec)
		vostd_memset(frame, SAN_FREE, VOSTD_PAGE_SIZE);
	return true;
}

/* A frame the pool gives out: if it was freed, it must still be all SAN_FREE. */
void vostd_san_frame_alloc(void *frame)
{
	struct vostd_san_report r = { .kind = VOSTD_SAN_FRAME_WRITE, .addr = (unsigned long)frame,
				      .size = VOSTD_PAGE_SIZE,
				      .when = "found when the pool gave it out again" };
	struct vostd_san *st = san_state();
	struct san_rec *rec;

	if (!st)
		return;
	san_lock(st);
	rec = san_find(st, (unsigned long)frame);
	if (!rec || rec->state != SAN_FRAME_FREE) {
		san_unlock(st);
		return;		/* new from the grant */
	}
	r.free = rec->free;
	san_remove(st, rec);
	san_unlock(st);
	if (!san_intact(frame, VOSTD_PAGE_SIZE, SAN_FREE, frame, &r))
		san_report(st, &r);
}

/* ---- locks ---- */

/*
 * vostd_spin_lock found l's word neither 0 nor 1: no lock's, so l lies in
 * freed memory (a freed object's SAN_FREE, with the mode on) or was
 * overwritten.  Nothing will ever unlock it.  Without the mode the caller
 * spins on, as it always did.  With it, the report names the object l lies
 * in, and the vCPU stops, its upcalls masked, asleep until the launcher,
 * reading EV_SANITIZER_STOPS, ends the sandbox: going on would take the
 * freed object's poison for pointers, and fault in Linux.  But a test's
 * planted lock: the caller takes it, and the test goes on.
 */
bool vostd_lock_spoiled(vostd_spinlock_t *l, u32 word)
{
	struct vostd_san_report r = { .kind = VOSTD_SAN_LOCK_SPOILED, .addr = (unsigned long)l,
				      .word = word, .when = EV_SANITIZER_STOPS };
	struct vostd_san *st;

	if (!vostd_checking())
		return false;
	st = vostd_slots()[VOSTD_SLOT_SAN];
	if (st && l == &st->lock) {
		__atomic_add_fetch(&vostd_globals()->san_reports, 1, __ATOMIC_RELAXED);
		vostd_println("%s the checking mode's own lock is overwritten (0x%x); %s",
			      EV_SANITIZER_WORD, word, EV_SANITIZER_STOPS);
	} else {
		st = san_state();
		if (st) {
			san_holder(st, (unsigned long)l, &r);
			if (san_report(st, &r))
				return true;
		}
	}
	vostd_halt();
}

/* ---- sweeps ---- */

/*
 * Check every record: the poison of the quarantine and of the frames in
 * the pool, every object's redzones; with leaks, every object still
 * allocated is one.  The lock is held throughout, so the first SAN_SHOWN
 * reports wait in found[] and the rest are counted in one line.
 */
static void san_sweep(struct vostd_san *st, bool leaks, const char *when)
{
	struct vostd_san_report found[SAN_SHOWN];
	unsigned long i, n = 0, more = 0;

	san_lock(st);
	for (i = 0; st->table && i <= st->mask; i++) {
		struct san_rec *rec = &st->table[i];
		struct vostd_san_report r = {};
		enum vostd_san_kind kind;

		if (rec->key <= SAN_GONE)
			continue;
		if (rec->state == SAN_FRAME_FREE) {
			kind = VOSTD_SAN_NONE;
			if (!san_intact((u8 *)rec->key, VOSTD_PAGE_SIZE, SAN_FREE,
					(u8 *)rec->key, &r)) {
				vostd_memset((void *)rec->key, SAN_FREE, VOSTD_PAGE_SIZE);
				kind = VOSTD_SAN_FRAME_WRITE;
			}
		} else {
			kind = san_check_object(rec, &r);
		}
		if (kind) {
			san_fill(&r, kind, rec, NULL, when);
			if (n < SAN_SHOWN)
				found[n++] = r;
			else
				more++;
		}
		if (leaks && rec->state == SAN_LIVE) {
			r = (struct vostd_san_report){};
			san_fill(&r, VOSTD_SAN_LEAK, rec, NULL, when);
			if (n < SAN_SHOWN)
				found[n++] = r;
			else
				more++;
		}
	}
	san_unlock(st);
	for (i = 0; i < n; i++)
		san_report(st, &found[i]);
	if (more) {
		__atomic_add_fetch(&vostd_globals()->san_reports, 1, __ATOMIC_RELAXED);
		vostd_println("%s %lu more problems %s", EV_SANITIZER_WORD, more, when);
	}
}

void vostd_san_check(void)
{
	if (vostd_checking())
		san_sweep(san_state(), false, "found by a check");
}

void vostd_san_teardown(void)
{
	struct vostd_san *st = vostd_slots()[VOSTD_SLOT_SAN];

	if (!st) {
		vostd_println("vostd: checking mode: no allocations");
		return;
	}
	san_drain(st, 0, 0, "found at teardown");
	san_sweep(st, true, "found at teardown");
	vostd_println("vostd: checking mode: %lu allocations, %lu frees, %lu frame frees; %u reports",
		      st->allocs, st->frees, st->frame_frees, vostd_san_reports());
	if (st->table)
		vostd_heap_free(st->table);
	vostd_global_release(VOSTD_SLOT_SAN);
}

u32 vostd_san_reports(void)
{
	return __atomic_load_n(&vostd_globals()->san_reports, __ATOMIC_RELAXED);
}
