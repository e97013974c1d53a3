// SPDX-License-Identifier: GPL-2.0
/*
 * Memory calls: brk, mmap, munmap and mprotect, on proc's memory
 * (kernels/proc/memory.c), inside the tenant region.
 */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define MAP_SHARED		0x01
#define MAP_PRIVATE		0x02
#define MAP_SHARED_VALIDATE	0x03
#define MAP_TYPE		0x0f
#define MAP_FIXED		0x10
#define MAP_ANONYMOUS		0x20
#define MAP_FIXED_NOREPLACE	0x100000

static u8 ev_prot(unsigned long prot)
{
	/* PROT_READ, PROT_WRITE and PROT_EXEC are EV_PROT_*'s bits. */
	return prot & (EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC);
}

LX_PARTIAL(brk, "the heap grows to 256 MiB at most, though RLIMIT_DATA reports no limit");
LX_SYSCALL_DEFINE1(brk, unsigned long, want)
{
	struct lx_proc *lp = lxp(t->p);
	unsigned long old = (lp->brk + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	unsigned long new = (want + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;

	if (want < lp->brk_start || want - lp->brk_start > LX_BRK_MAX)
		return lp->brk;
	if (new > old && mem_map_anon(t->p, old, new - old, EV_PROT_READ | EV_PROT_WRITE))
		return lp->brk;
	if (new < old && mem_unmap_range(t->p, new, old - new))
		return lp->brk;
	lp->brk = want;
	return want;
}

/*
 * The map, with Linux's checks in Linux's order.  It goes at the lowest
 * free range (mem_map_free): a range unmapped, or mapped by a map that
 * failed, serves again.
 */
static long do_mmap(struct thread *t, unsigned long addr, unsigned long len,
		    unsigned long prot, unsigned long flags, struct lx_node *nd, u32 fmode,
		    unsigned long off)
{
	const u8 rw = EV_PROT_READ | EV_PROT_WRITE;
	struct proc *p = t->p;
	long va, err = 0;

	if (!len)
		return -EINVAL;
	/* Every page is a frame from the start: more than they all can be is refused now. */
	if (len > LX_MMAP_MAX)
		return -ENOMEM;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
	    ((addr & PAGE_MASK_LOW) || !mem_in_region(addr, len)))
		return -EINVAL;
	/*
	 * The type, where Linux's do_mmap checks it: a file may be mapped
	 * shared, shared with its flags validated, or private; anonymous
	 * memory shared or private (MAP_DROPPABLE is not had here).
	 */
	switch (flags & MAP_TYPE) {
	case MAP_SHARED:
	case MAP_PRIVATE:
		break;
	case MAP_SHARED_VALIDATE:
		if (!(flags & MAP_ANONYMOUS))
			break;
		fallthrough;
	default:
		return -EINVAL;
	}
	if (!(flags & MAP_ANONYMOUS)) {
		if (fmode == O_WRONLY)
			return -EACCES;		/* a map reads its file */
		if ((flags & MAP_SHARED) && (prot & 2) && fmode != O_RDWR)
			return -EACCES;
		if (!nd || !S_ISREG(nd->mode) || ((flags & MAP_SHARED) && (prot & 2)))
			return -ENODEV;
	}
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		va = mem_map_fixed(p, addr, len, rw, !(flags & MAP_FIXED_NOREPLACE));
	else
		va = mem_map_free(p, LX_MMAP_BASE, LX_MMAP_END, len, rw);
	if (va < 0)
		return va == -ENOSPC ? -ENOMEM : va;
	if (nd) {
		long n = fs_read(p, nd, off, len, va, NULL);

		err = n < 0 ? n : 0;
	}
	if (!err && ev_prot(prot) != rw)
		err = mem_protect_range(p, va, len, ev_prot(prot));
	if (err) {
		mem_unmap_range(p, va, len);
		return err == -ENOSPC ? -ENOMEM : err;
	}
	return va;
}

/*
 * mmap, anonymous or of a file (copied, so a private map of it is what
 * any map is; a shared writable one is refused, since a write to it would
 * not reach the file).  The file's node is held until the copy is made.
 */
LX_PARTIAL(mmap, "shared memory is private; shared writable file maps -ENODEV; PROT_NONE readable");
LX_SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len,
		   unsigned long, prot, unsigned long, flags, int, fd, unsigned long, off)
{
	struct proc *p = t->p;
	struct lx_node *nd = NULL;
	u32 fmode = 0;
	long va;

	if (off & PAGE_MASK_LOW)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		struct lx_file *f = fd_get(p, fd);

		if (!f)
			return -EBADF;
		/* The copy needs the node only, held until it is made. */
		if (f->ops == &lx_node_fops) {
			nd = f->node;
			node_get(nd);
		}
		fmode = f->flags & O_ACCMODE;
		fd_put(f);
	}
	va = do_mmap(t, addr, len, prot, flags, nd, fmode, off);
	node_put(nd);
	return va;
}

LX_SYSCALL_DEFINE2(munmap, unsigned long, va, unsigned long, len)
{
	if ((va & PAGE_MASK_LOW) || !len)
		return -EINVAL;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if (!mem_in_region(va, len))
		return -EINVAL;
	return mem_unmap_range(t->p, va, len);
}

LX_PARTIAL(mprotect, "PROT_NONE leaves pages readable; unmapped pages are skipped, not -ENOMEM");
LX_SYSCALL_DEFINE3(mprotect, unsigned long, va, unsigned long, len, unsigned long, prot)
{
	if (va & PAGE_MASK_LOW)
		return -EINVAL;
	len = (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if (!len)
		return 0;
	if (!mem_in_region(va, len))
		return -ENOMEM;
	return mem_protect_range(t->p, va, len, ev_prot(prot));
}
