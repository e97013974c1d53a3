// SPDX-License-Identifier: GPL-2.0
/*
 * Memory calls: brk, mmap, munmap, mprotect, mremap, madvise, msync and
 * mlock, on the process's areas (kernels/proc/vma.c), inside the tenant
 * region; each checks its arguments as Linux's does, in Linux's order.
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
#define MAP_NORESERVE		0x4000
#define MAP_POPULATE		0x8000
#define MAP_FIXED_NOREPLACE	0x100000
#define MAP_LOCKED		0x2000

#define PROT_SEM		0x8
#define PROT_GROWSDOWN		0x01000000
#define PROT_GROWSUP		0x02000000

#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4

#define MS_ASYNC		1
#define MS_INVALIDATE		2
#define MS_SYNC			4

#define MLOCK_ONFAULT		1

static u8 ev_prot(unsigned long prot)
{
	/* PROT_READ, PROT_WRITE and PROT_EXEC are EV_PROT_*'s bits. */
	return prot & (EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC);
}

/* RLIMIT_DATA, the soft limit, in pages; one of 0 is taken as the hard one, as Linux takes it. */
static unsigned long data_limit(struct lx_proc *lp)
{
	return (READ_ONCE(lp->rlim[RLIMIT_DATA][0]) ?: READ_ONCE(lp->rlim[RLIMIT_DATA][1])) / PAGE;
}

/*
 * Linux's may_expand_vm, for len bytes more at va: past RLIMIT_AS in all,
 * or past RLIMIT_DATA in data (private writable memory but the stack), a
 * process may not map.  data < 0: the memory is data if the area at va
 * is.  replace: the new map replaces what is at va (MAP_FIXED), which
 * is not counted twice.  Both limits are infinite at first, and only a
 * finite one costs a count of the areas.  Another thread may map between
 * the count and the map, where Linux's mmap_lock would keep it out: a
 * race a process can only win against its own limits.
 */
static long may_expand(struct thread *t, unsigned long va, unsigned long len, bool replace,
		       int data)
{
	struct lx_proc *lp = lxp(t->p);
	u64 as = READ_ONCE(lp->rlim[RLIMIT_AS][0]);
	struct mem_count all, gone = {};
	unsigned long pages = len / PAGE;

	if (as == RLIM_INFINITY && (READ_ONCE(lp->rlim[RLIMIT_DATA][0]) == RLIM_INFINITY || !data))
		return 0;
	if (data < 0) {
		mem_count_pages(t->p, va, va + PAGE, &all);
		data = all.data > 0;
	}
	mem_count_pages(t->p, 0, ~0UL, &all);
	if (replace)
		mem_count_pages(t->p, va, va + len, &gone);
	/* As Linux's, both count the new pages less all those replaced. */
	pages -= min(pages, gone.all);
	if (all.all + pages > as / PAGE)
		return -ENOMEM;
	if (data && all.data + pages > data_limit(lp))
		return -ENOMEM;
	return 0;
}

/*
 * Linux's mprotect_fixup: private memory made writable becomes data, and
 * past RLIMIT_DATA it may not.
 */
static long may_write(struct thread *t, unsigned long va, unsigned long len)
{
	struct lx_proc *lp = lxp(t->p);
	struct mem_count all, range;

	if (READ_ONCE(lp->rlim[RLIMIT_DATA][0]) == RLIM_INFINITY)
		return 0;
	mem_count_pages(t->p, va, va + len, &range);
	if (range.priv == range.data)
		return 0;
	mem_count_pages(t->p, 0, ~0UL, &all);
	return all.data + range.priv - range.data > data_limit(lp) ? -ENOMEM : 0;
}

/*
 * brk, as Linux's: below the heap's start, or past what it may grow to
 * (RLIMIT_DATA, and our LX_BRK_MAX), or into another area, the break
 * stays where it was.  The heap is an area like any other, filled as it
 * is touched.
 */
LX_PARTIAL(brk, "the heap grows to 256 MiB at most");
LX_SYSCALL_DEFINE1(brk, unsigned long, want)
{
	struct lx_proc *lp = lxp(t->p);
	unsigned long old = page_up(lp->brk), new = page_up(want);
	struct vma heap = { .start = old, .end = new, .flags = VMA_HEAP,
			    .prot = EV_PROT_READ | EV_PROT_WRITE };

	if (want < lp->brk_start || want - lp->brk_start > LX_BRK_MAX)
		return lp->brk;
	/* Linux's check_data_rlimit, of the heap alone: its data segment is not kept. */
	if (want - lp->brk_start > READ_ONCE(lp->rlim[RLIMIT_DATA][0]))
		return lp->brk;
	if (new > old && (may_expand(t, old, new - old, false, true) ||
			  mem_map_area(t->p, &heap, 0, 0, AREA_NOREPLACE, false) < 0))
		return lp->brk;
	if (new < old && mem_unmap_area(t->p, new, old - new))
		return lp->brk;
	lp->brk = want;
	return want;
}

/*
 * The map, with Linux's checks in Linux's order.  Anonymous memory, and
 * /dev/zero's, is an area filled as it is touched.  A shared map of a
 * file maps the file's own frames (fs_shared), so stores through it are
 * the file's; one of a file opened read-only is never made writable
 * (VMA_NOWRITE).  A private map of a file is a copy of it made now into
 * the area, whatever its prot (fs_copy_in), after the area, under a
 * second hold of the lock: another thread's MAP_FIXED or munmap of the
 * range between the two is not guarded against.
 */
static long do_mmap(struct thread *t, unsigned long addr, unsigned long len,
		    unsigned long prot, unsigned long flags, struct lx_node *nd, u32 fmode,
		    bool zero, unsigned long off)
{
	struct vma want = { .prot = ev_prot(prot) };
	struct proc *p = t->p;
	int how = AREA_FREE;
	long va, err;

	if (!len)
		return -EINVAL;
	len = page_up(len);
	if (!len || len > EV_TENANT_SIZE)
		return -ENOMEM;
	if (off / PAGE + len / PAGE < off / PAGE)
		return -EOVERFLOW;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if ((addr & PAGE_MASK_LOW) || !mem_in_region(addr, len))
			return -EINVAL;
		how = flags & MAP_FIXED_NOREPLACE ? AREA_NOREPLACE : AREA_FIXED;
	}
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
		if (!nd && !zero)
			return -ENODEV;		/* a file with no mmap: a pipe, a socket */
	}
	if (nd) {
		if (!S_ISREG(nd->mode))
			return -ENODEV;
		want.flags = VMA_FILE;
		want.ino = nd->ino;
		want.pgoff = off / PAGE;
	} else if (flags & MAP_SHARED) {
		want.flags = VMA_SHARED;	/* anonymous or /dev/zero's: an object of its own */
	}
	/*
	 * Linux's heuristic overcommit: memory the map would have to back,
	 * private and writable or shared, larger than all the sandbox may
	 * have, is refused now.
	 */
	if ((flags & MAP_TYPE) == MAP_PRIVATE ? (prot & 2) && !(flags & MAP_NORESERVE) : !nd)
		if (len / PAGE > EV_GRANT_QUOTA)
			return -ENOMEM;
	err = may_expand(t, addr, len, how == AREA_FIXED,
			 (flags & MAP_TYPE) == MAP_PRIVATE && (prot & 2));
	if (err)
		return err;
	if (nd && (flags & MAP_SHARED)) {
		/* Past the largest file, as Linux's file_mmap_ok refuses one. */
		if (off / PAGE + len / PAGE > LX_FILE_MAX / PAGE)
			return -EOVERFLOW;
		/* The file's own frames; a map of a file opened read-only stays so. */
		want.flags |= VMA_SHARED | (fmode != O_RDWR ? VMA_NOWRITE : 0);
		err = fs_shared(nd, want.pgoff, len / PAGE, &want.shm);
		if (err)
			return lx_mm_err(err);
	}
	want.start = addr & ~PAGE_MASK_LOW;
	want.end = want.start + len;
	va = mem_map_area(p, &want, LX_MMAP_BASE, LX_MMAP_END, how,
			  (nd && !want.shm) || (flags & (MAP_POPULATE | MAP_LOCKED)));
	shm_put(want.shm);	/* the area holds its own */
	if (va < 0 || !nd || want.shm)
		return lx_mm_err(va);
	err = fs_copy_in(p, nd, va, off, len);
	if (err < 0) {
		mem_unmap_area(p, va, len);
		return lx_mm_err(err);
	}
	return va;
}

/*
 * mmap, anonymous or of a file (a private map copied, a shared one the
 * file's frames).  The file's node is held until the map is made.
 */
LX_PARTIAL(mmap, "a private file map is a copy; a shared one keeps its frames past a truncate");
LX_SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len,
		   unsigned long, prot, unsigned long, flags, int, fd, unsigned long, off)
{
	struct proc *p = t->p;
	struct lx_node *nd = NULL;
	bool zero = false;
	u32 fmode = 0;
	long va;

	if (off & PAGE_MASK_LOW)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		struct lx_file *f = fd_get(p, fd);

		if (!f)
			return -EBADF;
		fmode = f->flags & O_ACCMODE;
		zero = dev_is_zero(f);
		if (f->ops == &lx_node_fops) {
			/* The copy needs the node only, held until it is made. */
			nd = f->node;
			node_get(nd);
		}
		fd_put(f);
	}
	va = do_mmap(t, addr, len, prot, flags, nd, fmode, zero, off);
	node_put(nd);
	return va;
}

LX_SYSCALL_DEFINE2(munmap, unsigned long, va, unsigned long, len)
{
	if ((va & PAGE_MASK_LOW) || !len)
		return -EINVAL;
	len = page_up(len);
	if (!len || !mem_in_region(va, len))
		return -EINVAL;
	return lx_mm_err(mem_unmap_area(t->p, va, len));
}

/* PROT_NONE takes every entry away; the pages, and what they hold, stay. */
LX_SYSCALL_DEFINE3(mprotect, unsigned long, va, unsigned long, len, unsigned long, prot)
{
	unsigned long grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);

	prot &= ~grows;
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (va & PAGE_MASK_LOW)
		return -EINVAL;
	if (!len)
		return 0;
	len = page_up(len);
	if (!len)
		return -ENOMEM;
	if (prot & ~(unsigned long)(EV_PROT_READ | EV_PROT_WRITE | EV_PROT_EXEC | PROT_SEM))
		return -EINVAL;
	if ((prot & EV_PROT_WRITE) && may_write(t, va, len))
		return -ENOMEM;
	return lx_mm_err(mem_protect_area(t->p, va, len, ev_prot(prot)));
}

/*
 * mremap, with Linux's checks in Linux's order: the range in one area
 * grows or shrinks in place, or moves with its pages; MREMAP_FIXED puts
 * it at new_va, whatever was there gone first.
 */
LX_PARTIAL(mremap, "MREMAP_DONTUNMAP and an old length of 0 are -EINVAL");
LX_SYSCALL_DEFINE5(mremap, unsigned long, va, unsigned long, old_len,
		   unsigned long, new_len, unsigned long, flags, unsigned long, new_va)
{
	if (flags & ~(unsigned long)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) &&
	    (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if (va & PAGE_MASK_LOW)
		return -EINVAL;
	old_len = page_up(old_len);
	new_len = page_up(new_len);
	if (!new_len || (flags & MREMAP_DONTUNMAP) || !old_len)
		return -EINVAL;
	if (!mem_in_region(va, old_len))
		return -EFAULT;
	if (flags & MREMAP_FIXED) {
		if ((new_va & PAGE_MASK_LOW) || !mem_in_region(new_va, new_len))
			return -EINVAL;
		if (new_va < va + old_len && va < new_va + new_len)
			return -EINVAL;
	} else {
		new_va = 0;
	}
	if (new_len > EV_TENANT_SIZE)
		return -ENOMEM;		/* no range is that long: get_unmapped_area's answer */
	if (new_len > old_len) {
		long err = may_expand(t, va, new_len - old_len, false, -1);

		if (err)
			return err;
	}
	return lx_mm_err(mem_remap(t->p, va, old_len, new_len, flags & MREMAP_MAYMOVE, new_va,
				LX_MMAP_BASE, LX_MMAP_END));
}

/* What each advice does here: Linux's numbers; the rest are -EINVAL. */
static int advice(int behavior)
{
	switch (behavior) {
	case 4:		/* MADV_DONTNEED */
	case 8:		/* MADV_FREE: the pages may go; here they go at once */
	case 24:	/* MADV_DONTNEED_LOCKED */
		return ADVISE_DROP;
	case 22:	/* MADV_POPULATE_READ */
	case 23:	/* MADV_POPULATE_WRITE */
		return ADVISE_FILL;
	case 0: case 1: case 2:		/* NORMAL, RANDOM, SEQUENTIAL */
	case 3:				/* WILLNEED: of memory, nothing to read ahead */
	case 10: case 11:		/* DONTFORK, DOFORK */
	case 12: case 13:		/* MERGEABLE, UNMERGEABLE */
	case 14: case 15:		/* HUGEPAGE, NOHUGEPAGE */
	case 16: case 17:		/* DONTDUMP, DODUMP */
	case 18: case 19:		/* WIPEONFORK, KEEPONFORK */
	case 20: case 21:		/* COLD, PAGEOUT */
		return ADVISE_LOOK;
	}
	return -EINVAL;
}

LX_PARTIAL(madvise, "FREE drops at once; DONTFORK and WIPEONFORK are taken and not acted on");
LX_SYSCALL_DEFINE3(madvise, unsigned long, va, unsigned long, len, int, behavior)
{
	int what = advice(behavior);
	unsigned long end;

	if (what < 0 || (va & PAGE_MASK_LOW))
		return -EINVAL;
	if (len && !page_up(len))
		return -EINVAL;
	end = va + page_up(len);
	if (end < va)
		return -EINVAL;
	if (end == va)
		return 0;
	return lx_mm_err(mem_advise(t->p, va, end - va, what));
}

/* A file's map is a copy: there is nothing to write back, only the range to check. */
LX_SYSCALL_DEFINE3(msync, unsigned long, va, unsigned long, len, int, flags)
{
	unsigned long end;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (va & PAGE_MASK_LOW)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	end = va + page_up(len);
	if (end < va)
		return -ENOMEM;
	if (end == va)
		return 0;
	return mem_advise(t->p, va, end - va, ADVISE_LOOK);
}

/*
 * mlock fills the range, as Linux's does; nothing here is ever paged out,
 * so munlock only checks it.  The range is the pages the bytes touch.
 */
static long lock_range(struct thread *t, unsigned long va, unsigned long len, int what)
{
	unsigned long start = va & ~PAGE_MASK_LOW, end = page_up(va + len);

	if (end < start || (len && end == start))
		return -ENOMEM;
	if (end == start)
		return 0;
	return lx_mm_err(mem_advise(t->p, start, end - start, what));
}

LX_SYSCALL_DEFINE2(mlock, unsigned long, va, unsigned long, len)
{
	return lock_range(t, va, len, ADVISE_FILL);
}

LX_SYSCALL_DEFINE3(mlock2, unsigned long, va, unsigned long, len, int, flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return lock_range(t, va, len, flags ? ADVISE_LOOK : ADVISE_FILL);
}

LX_SYSCALL_DEFINE2(munlock, unsigned long, va, unsigned long, len)
{
	return lock_range(t, va, len, ADVISE_LOOK);
}
