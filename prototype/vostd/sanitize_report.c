// SPDX-License-Identifier: GPL-2.0
/*
 * The checking mode's reports (sanitize.c finds the problems): one line
 * each, beginning EV_SANITIZER_WORD, or EV_SANITIZER_EXPECTED_WORD for
 * the one a test planted and named with vostd_san_expect.
 */
#include "san.h"

static const char *const san_kind_text[] = {
	[VOSTD_SAN_NONE]		= "no problem",
	[VOSTD_SAN_WRITE_AFTER_FREE]	= "write after free",
	[VOSTD_SAN_REDZONE_BEFORE]	= "write before an object",
	[VOSTD_SAN_REDZONE_AFTER]	= "write past an object's end",
	[VOSTD_SAN_DOUBLE_FREE]		= "double free",
	[VOSTD_SAN_INVALID_FREE]	= "invalid free",
	[VOSTD_SAN_RELEASED_WRITE]	= "write to freed slab memory",
	[VOSTD_SAN_FRAME_WRITE]		= "write to a free frame",
	[VOSTD_SAN_FRAME_DOUBLE_FREE]	= "double free of a frame",
	[VOSTD_SAN_LEAK]		= "leak",
	[VOSTD_SAN_FULL]		= "no room to record an object, the allocation fails",
	[VOSTD_SAN_LOCK_SPOILED]	= "lock in freed or overwritten memory",
};

void san_fill(struct vostd_san_report *r, enum vostd_san_kind kind,
	      const struct san_rec *rec, const struct vostd_site *at,
	      const char *when)
{
	r->kind = kind;
	r->addr = rec->key;
	r->size = rec->size;
	r->alloc = rec->alloc;
	r->free = rec->free;
	r->at = at;
	r->when = when;
}

static __printf(3, 4) void san_cat(char *line, int *n, const char *fmt, ...)
{
	va_list args;

	if (*n >= EV_LOG_LINE_MAX - 1)
		return;
	va_start(args, fmt);
	*n += vostd_vsnprintf(line + *n, EV_LOG_LINE_MAX - *n, fmt, args);
	va_end(args);
}

static void san_site(char *line, int *n, const char *what, const struct vostd_site *s)
{
	if (s)
		san_cat(line, n, "; %s %s:%u %s()", what, s->file, s->line, s->func);
	else
		san_cat(line, n, "; %s an unknown site", what);
}

/* "a 64-byte object at ADDR", or without the address where the line is short of room. */
static void san_object(char *line, int *n, const struct vostd_san_report *r, bool addr)
{
	san_cat(line, n, "a %lu-byte object", r->size);
	if (addr)
		san_cat(line, n, " at %lx", r->addr);
}

/* One report's line, n long: what, where, the byte written, and the sites. */
static int san_format(char *line, const struct vostd_san_report *r, bool expected, bool addr)
{
	const char *kind = san_kind_text[r->kind];
	int n = 0;

	if (r->kind == VOSTD_SAN_LOCK_SPOILED && r->free)
		kind = "lock in freed memory";
	san_cat(line, &n, "%s %s: ", expected ? EV_SANITIZER_EXPECTED_WORD : EV_SANITIZER_WORD,
		kind);
	switch (r->kind) {
	case VOSTD_SAN_WRITE_AFTER_FREE:
	case VOSTD_SAN_REDZONE_BEFORE:
	case VOSTD_SAN_REDZONE_AFTER:
	case VOSTD_SAN_RELEASED_WRITE:
	case VOSTD_SAN_FRAME_WRITE:
		if (r->first == r->last)
			san_cat(line, &n, "byte %ld of ", r->first);
		else
			san_cat(line, &n, "bytes %ld..%ld of ", r->first, r->last);
		if (r->kind == VOSTD_SAN_FRAME_WRITE)
			san_cat(line, &n, "frame %lx", r->addr);
		else if (r->kind == VOSTD_SAN_RELEASED_WRITE)
			san_cat(line, &n, "%lu bytes at %lx", r->size, r->addr);
		else
			san_object(line, &n, r, addr);
		san_cat(line, &n, " (0x%02x)", r->found);
		break;
	case VOSTD_SAN_INVALID_FREE:
		san_cat(line, &n, "%lx", r->addr + r->first);
		if (r->size) {
			san_cat(line, &n, ", byte %ld of ", r->first);
			san_object(line, &n, r, addr);
		} else {
			san_cat(line, &n, ", which no allocation gave out");
		}
		break;
	case VOSTD_SAN_FRAME_DOUBLE_FREE:
		san_cat(line, &n, "frame %lx", r->addr);
		break;
	case VOSTD_SAN_LOCK_SPOILED:
		if (r->size) {
			san_cat(line, &n, "byte %ld of ", r->first);
			san_object(line, &n, r, addr);
		} else {
			san_cat(line, &n, "%lx", r->addr);
		}
		san_cat(line, &n, " (0x%x)", r->word);
		break;
	default:
		san_object(line, &n, r, addr);
	}
	if (r->alloc)
		san_site(line, &n, "allocated at", r->alloc);
	if (r->free)
		san_site(line, &n, "freed at", r->free);
	if (r->at)
		san_site(line, &n, r->when, r->at);
	else if (expected && r->kind == VOSTD_SAN_LOCK_SPOILED)
		san_cat(line, &n, "; taken, as planted");
	else
		san_cat(line, &n, "; %s", r->when);
	return n;
}

static void san_print(const struct vostd_san_report *r, bool expected)
{
	char line[EV_LOG_LINE_MAX];

	if (san_format(line, r, expected, true) >= EV_LOG_LINE_MAX - 1)
		san_format(line, r, expected, false);
	vostd_println("%s", line);
}

/* Report r: the expected one a test planted (true), or a problem, counted. */
bool san_report(struct vostd_san *st, const struct vostd_san_report *r)
{
	bool expected;

	san_lock(st);
	expected = st->expect == r->kind && !st->expect_seen;
	if (expected) {
		st->expected = *r;
		st->expect_seen = true;
	}
	san_unlock(st);
	if (!expected)
		__atomic_add_fetch(&vostd_globals()->san_reports, 1, __ATOMIC_RELAXED);
	san_print(r, expected);
	return expected;
}

/* ---- planted bugs ---- */

void vostd_san_expect(enum vostd_san_kind kind)
{
	struct vostd_san *st = vostd_checking() ? san_state() : NULL;

	if (!st)
		return;
	san_lock(st);
	st->expect = kind;
	st->expect_seen = false;
	san_unlock(st);
}

bool vostd_san_expected(struct vostd_san_report *r)
{
	struct vostd_san *st = vostd_checking() ? san_state() : NULL;
	bool seen;

	if (!st)
		return false;
	san_lock(st);
	seen = st->expect_seen;
	if (seen)
		*r = st->expected;
	st->expect = VOSTD_SAN_NONE;
	st->expect_seen = false;
	san_unlock(st);
	return seen;
}
