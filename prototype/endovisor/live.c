// SPDX-License-Identifier: GPL-2.0
/*
 * The endovisor's live objects: counts that every constructor raises and
 * every destructor lowers, read by /sys/class/misc/endovisor/live (so a
 * test can see that teardown left nothing behind) and by the unload
 * check.  At the bottom of the module: every file may count here, and
 * this file calls no other.
 */
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "endovisor.h"

struct ev_live ev_live;

/* Heap blocks are counted per CPU: mem_alloc and mem_free are hot. */
DEFINE_PER_CPU(struct ev_live_blocks, ev_live_blocks);

void ev_live_blocks_read(long *blocks, long *bytes)
{
	int cpu;

	*blocks = *bytes = 0;
	for_each_possible_cpu(cpu) {
		*blocks += per_cpu(ev_live_blocks, cpu).blocks;
		*bytes += per_cpu(ev_live_blocks, cpu).bytes;
	}
}

/* The live counts as sysfs shows them, one "name count" line each. */
ssize_t ev_live_show(char *buf)
{
	long blocks, bytes;

	ev_live_blocks_read(&blocks, &bytes);
	return sysfs_emit(buf,
			  "sandboxes %d\nvcpus %d\nstacks %d\nblocks %ld\nblock_bytes %ld\npool_pages %d\nframes %d\nvms %d\nfpus %d\n",
			  atomic_read(&ev_live.sandboxes),
			  atomic_read(&ev_live.vcpus),
			  atomic_read(&ev_live.stacks),
			  blocks, bytes,
			  atomic_read(&ev_live.pool_pages),
			  atomic_read(&ev_live.frames),
			  atomic_read(&ev_live.vms),
			  atomic_read(&ev_live.fpus));
}

/* At unload, once no sandbox can be made: anything live is a leak. */
void ev_live_check_none(void)
{
	long blocks, bytes;

	ev_live_blocks_read(&blocks, &bytes);
	WARN(atomic_read(&ev_live.sandboxes) || atomic_read(&ev_live.vcpus) ||
	     atomic_read(&ev_live.stacks) || blocks || atomic_read(&ev_live.pool_pages) ||
	     atomic_read(&ev_live.frames) || atomic_read(&ev_live.vms) ||
	     atomic_read(&ev_live.fpus),
	     "endovisor: unloading with %d sandboxes, %d vCPUs, %d stacks, %ld blocks, %d pool pages, %d frames, %d address spaces, %d FPU contexts live\n",
	     atomic_read(&ev_live.sandboxes), atomic_read(&ev_live.vcpus),
	     atomic_read(&ev_live.stacks), blocks, atomic_read(&ev_live.pool_pages),
	     atomic_read(&ev_live.frames), atomic_read(&ev_live.vms),
	     atomic_read(&ev_live.fpus));
}
