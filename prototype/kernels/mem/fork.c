// SPDX-License-Identifier: GPL-2.0
/*
 * The mem kernel's fork: the parent's pages shared read-only with the
 * child by one cursor's copy_from (vm_share), the fork it replaced (a
 * protect of the parent and a map into the child for every page), and
 * the unmap of a child.
 */
#include "mem.h"

/*
 * The fork: every page of the parent made read-only and mapped read-only
 * into the child, with one vm_share for the whole range (a cursor's
 * copy_from).  *crossings gets the page-table calls it made.
 */
struct tenant *fork_space(struct tenant *parent, unsigned long pages,
			  unsigned long *crossings)
{
	struct tenant *child = tenant_new(pages);
	struct vostd_cursor pc, cc;

	if (!child)
		return NULL;
	vostd_cursor_init(&pc, parent->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_init(&cc, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_copy_from(&cc, &pc, pages * PAGE, RO);
	if (vostd_cursor_finish(&pc) | vostd_cursor_finish(&cc)) {
		tenant_free(child);
		return NULL;
	}
	*crossings = pc.crossings + cc.crossings;
	return child;
}

/*
 * The fork as it was done before vm_share, kept to be timed beside it: for
 * every page of the parent, protect it read-only and map the same frame
 * read-only into the child, each under a cursor of its own.
 */
struct tenant *fork_space_cursor(struct tenant *parent, unsigned long pages,
				 void **frames, unsigned long nframes,
				 unsigned long *crossings)
{
	struct tenant *child = tenant_new(pages);
	struct vostd_cursor pc, cc;
	unsigned long i;

	if (!child)
		return NULL;
	vostd_cursor_init(&pc, parent->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	vostd_cursor_init(&cc, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	for (i = 0; i < pages; i++) {
		vostd_cursor_protect_next(&pc, PAGE, RO);
		vostd_cursor_map(&cc, frames[i % nframes], RO);
	}
	if (vostd_cursor_finish(&pc) | vostd_cursor_finish(&cc)) {
		tenant_free(child);
		return NULL;
	}
	*crossings = pc.crossings + cc.crossings;
	return child;
}

/*
 * Unmap the child's pages under one cursor: its cycles, or 0 on failure.
 * With flush_each, every batch flushes the TLB, as every batch did before
 * a cursor's batches left their flush to its last.
 */
u64 unmap_child(struct tenant *child, unsigned long pages, bool flush_each)
{
	struct vostd_cursor cur;
	unsigned long i;
	u64 t0 = vostd_cycles();

	vostd_cursor_init(&cur, child->vs, DATA_VA, DATA_VA + pages * PAGE, CURSOR_BATCH);
	for (i = 0; i < pages; i++) {
		vostd_cursor_unmap(&cur, PAGE);
		if (flush_each && (i + 1) % CURSOR_BATCH == 0)
			vostd_cursor_flush(&cur);
	}
	if (vostd_cursor_finish(&cur))
		return 0;
	return vostd_cycles() - t0;
}

/*
 * The process a fork measurement forks: pages of data over FORK_FRAMES
 * frames, each mapped many times over, so that the data stays in the
 * cache and what is timed is page tables.  NULL if it cannot be made.
 */
struct tenant *fork_parent(unsigned long pages, void ***frames)
{
	struct tenant *parent = tenant_new(0);
	int i;

	*frames = vostd_alloc(FORK_FRAMES * sizeof(void *), true);
	if (!*frames || !parent)
		goto fail;
	for (i = 0; i < FORK_FRAMES; i++) {
		(*frames)[i] = vostd_frame_alloc();
		if (!(*frames)[i])
			goto fail;
	}
	if (!map_range(parent->vs, DATA_VA, pages, *frames, FORK_FRAMES, RW))
		return parent;
fail:
	if (parent)
		tenant_free(parent);
	if (*frames) {
		for (i = 0; i < FORK_FRAMES && (*frames)[i]; i++)
			vostd_frame_free((*frames)[i]);
		vostd_free(*frames);
	}
	return NULL;
}

void fork_parent_free(struct tenant *parent, void **frames)
{
	int i;

	tenant_free(parent);
	for (i = 0; i < FORK_FRAMES; i++)
		vostd_frame_free(frames[i]);
	vostd_free(frames);
}
