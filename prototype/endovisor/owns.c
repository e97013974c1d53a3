// SPDX-License-Identifier: GPL-2.0
/*
 * The pointer gate: is a range of memory a sandbox's own?  Every service
 * that reads or writes memory a sandbox kernel names asks here first, and
 * refuses with -EFAULT what is not the sandbox's: its kernel's data
 * objects (read-only data to be read), its globals page, its boot stacks,
 * its heap's blocks and its frames.  The gate sits below every service:
 * it calls only the heap, the grant set and the records it reads, never
 * up into the lifecycle (sandbox.c) or the services.
 */
#include <linux/string.h>

#include "endovisor.h"

/*
 * Is [start, end) wholly in one of the kernel's data objects, or, to be
 * read, in its module's read-only data?  The rest of the module's
 * writable data is Linux's: its struct module and its symbol tables.  A
 * binary search of a record that does not change while a sandbox holds
 * it: no lock, so safe in hard interrupts.  The range found goes into
 * *found.
 */
static bool ev_kernel_data_owns(const struct ev_kernel_rec *k, unsigned long start,
				unsigned long end, bool write, struct ev_owned *found)
{
	unsigned int lo = 0, hi = k->nr_objects, i;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (k->objects[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* objects[lo - 1] is the last to start at or below start. */
	if (lo && ev_range_holds(&k->objects[lo - 1], start, end)) {
		*found = (struct ev_owned){ .range = k->objects[lo - 1], .write = true };
		return true;
	}
	/* Read-only data may be read; a write there would fault in the service. */
	for (i = 0; !write && i < ARRAY_SIZE(k->rodata); i++) {
		if (ev_range_holds(&k->rodata[i], start, end)) {
			*found = (struct ev_owned){ .range = k->rodata[i] };
			return true;
		}
	}
	return false;
}

/*
 * Does [start, end) lie wholly in memory the sandbox owns, and which
 * range of it: its globals page, one of its boot stacks, one block of its
 * heap, one of its kernel's data objects (or read-only data, to be read),
 * or one of its frames?  In that order: the cheap tests first, then the
 * likely ones.  The caller is in a read section (ev_heap_read_begin): the
 * heap's table is read without a lock.  A heap block's range carries
 * the heap's generation, which the next free changes; the others are the
 * sandbox's for its life.
 *
 * The generation is read before the table, with acquire, and a free
 * bumps it after it marks the block gone, with release (ev_heap_take):
 * so a block found live is cached under a generation no later than its
 * free's, and the cache fails at the first use after that free.  Read
 * after the lookup, as it once was, a free on another vCPU between the
 * two reads left the freed block cached under the new generation, and
 * the cache passed it until the next free.
 */
static bool ev_sandbox_find(struct ev_sandbox *sb, unsigned long start, unsigned long end,
			    bool write, struct ev_owned *found)
{
	unsigned long g = (unsigned long)sb->globals, page = start & PAGE_MASK;
	/* Pairs with the release in ev_heap_take: an older cache is stale. */
	u64 gen = smp_load_acquire(&sb->heap.gen);
	unsigned int i;

	if (end < start)
		return false;
	if (start >= g && end <= g + PAGE_SIZE) {
		*found = (struct ev_owned){ .range = { g, g + PAGE_SIZE }, .write = true };
		return true;
	}
	for (i = 0; i < sb->nr_vcpus; i++) {
		unsigned long lo = (unsigned long)sb->vcpus[i]->boot_stack;

		if (start >= lo && end <= lo + EV_STACK_SIZE) {
			*found = (struct ev_owned){ .range = { lo, lo + EV_STACK_SIZE },
						    .write = true };
			return true;
		}
	}
	if (ev_heap_owns(&sb->heap, start, end, &found->range)) {
		found->write = true;
		found->gen = gen;
		return true;
	}
	if (ev_kernel_data_owns(sb->kernel, start, end, write, found))
		return true;
	if (!ev_grant_owns(&sb->grant, start, end))
		return false;
	/* A range of two frames is not cached: the two need not be neighbours. */
	*found = (struct ev_owned){ .range = { page, page + (end - page <= PAGE_SIZE ?
							     PAGE_SIZE : 0) },
				    .write = true };
	return true;
}

/*
 * Does [p, p + len) lie wholly in memory the sandbox owns: one of its
 * kernel's data objects (or read-only data, to be read), its globals page,
 * its frames, one of its boot stacks, or one block of its heap?  The
 * caller is in a read section (ev_heap_read_begin).
 */
bool ev_sandbox_owns(struct ev_sandbox *sb, const void *p, size_t len, bool write)
{
	unsigned long start = (unsigned long)p;
	struct ev_owned found = {};

	return ev_sandbox_find(sb, start, start + len, write, &found);
}

/*
 * ev_sandbox_owns, for a service of vCPU v, in front of which v keeps the
 * last range it found: a buffer a kernel hands over again and again (a
 * tenant's registers, a copy's destination, a batch of operations) is
 * checked by two compares, and by the heap's generation if it is a heap
 * block, which any free since it was found makes stale.  Only v's carrier
 * uses the cache, in services, in a read section: a free that bumped the
 * generation before the section began is seen, and one after it waits
 * for the section to end before the block goes.
 */
bool ev_vcpu_owns(struct ev_vcpu *v, const void *p, size_t len, bool write)
{
	unsigned long start = (unsigned long)p, end = start + len;
	struct ev_owned *c = &v->owned;
	struct ev_sandbox *sb = v->sb;

	if (end >= start && start >= c->range.start && end <= c->range.end &&
	    (c->write || !write) && (!c->gen || c->gen == READ_ONCE(sb->heap.gen)))
		return true;
	return ev_sandbox_find(sb, start, end, write, c);
}

/*
 * Copies len bytes between sandbox memory at sandbox and dst or src, if all
 * of it is the sandbox's (and takes writes, with write), in a read section,
 * so that the heap does not free it meanwhile:
 * freed memory stays mapped, and a copy after another vCPU's free would
 * read or write whatever Linux had put there since.  -EFAULT if not.
 */
int ev_sandbox_copy(struct ev_vcpu *v, void *dst, const void *src,
		    const void *sandbox, size_t len, bool write)
{
	int ret = -EFAULT;

	ev_heap_read_begin(v);
	if (ev_vcpu_owns(v, sandbox, len, write)) {
		memcpy(dst, src, len);
		ret = 0;
	}
	ev_heap_read_end(v);
	return ret;
}

int ev_sandbox_write(struct ev_vcpu *v, void *dst, const void *src, size_t len)
{
	return ev_sandbox_copy(v, dst, src, dst, len, true);
}

int ev_sandbox_read(struct ev_vcpu *v, void *dst, const void *src, size_t len)
{
	return ev_sandbox_copy(v, dst, src, src, len, false);
}

/* Is ip in sb's kernel text: where a diverted interrupt may send sandbox code. */
bool ev_in_kernel_text(struct ev_sandbox *sb, unsigned long ip)
{
	return ev_range_holds(&sb->kernel->text, ip, ip + 1);
}
