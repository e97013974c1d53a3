// SPDX-License-Identifier: GPL-2.0
/*
 * System V shared memory (Linux's ipc/shm.c): a segment is a shared
 * object of proc's (struct mem_shared) whose frames come at a first
 * touch, as MAP_SHARED anonymous memory's do; shmat maps it as an area,
 * and shmdt unmaps that attach (mem_detach_area).  The segment's table
 * holds one reference to the object and every area one more, so an
 * attach count is the object's references less the table's, counted as
 * Linux counts its VMAs: a fork's copy and each piece of a cut attach
 * count.  A segment removed while attached leaves the table at once (its
 * id names nothing more); its frames stay until the last area goes.
 */
#include <uapi/linux/shm.h>

#include "syscalls.h"

#define LX_SHMLBA	PAGE		/* x86's SHMLBA: where an attach may begin */
#define LX_SHM_LOCKED	02000		/* Linux's mode bit for SHM_LOCK */
#define LX_SHM_MAX	((unsigned long)EV_GRANT_QUOTA * PAGE)	/* a segment's greatest size */

struct lx_shm_seg {
	struct lx_ipc_obj h;
	struct mem_shared *shm;		/* its frames: the table's reference */
	unsigned long size;
	long cpid, lpid;
	u64 atime, dtime;
};

static struct lx_shm_seg *to_seg(struct lx_ipc_obj *o)
{
	return container_of(o, struct lx_shm_seg, h);
}

void shm_obj_free(struct lx_ipc_obj *o)
{
	shm_put(to_seg(o)->shm);
	vostd_free(to_seg(o));
}

static long shm_fits(struct lx_ipc_obj *o, unsigned long size)
{
	return size > to_seg(o)->size ? -EINVAL : 0;
}

LX_PARTIAL(shmget, "SHM_HUGETLB and SHM_NORESERVE are taken and ignored");
LX_SYSCALL_DEFINE3(shmget, s32, key, size_t, size, int, flg)
{
	struct lx_shm_seg *seg = NULL;
	long err = -EINVAL;

	if ((key == IPC_PRIVATE || (flg & IPC_CREAT)) && size >= 1 && size <= LX_SHM_MAX) {
		err = -ENOMEM;
		seg = vostd_alloc(sizeof(*seg), true);
		if (seg) {
			seg->shm = shm_new();
			if (!seg->shm) {
				vostd_free(seg);
				seg = NULL;
			}
		}
	}
	if (seg) {
		seg->size = size;
		seg->shm->sysv_pages = page_up(size) / PAGE;
		seg->cpid = t->p->pid;
	}
	return ipc_get(LX_IPC_SHM, key, flg, seg ? &seg->h : NULL, err, shm_fits, size);
}

/*
 * shmat: the segment as a shared area, where addr says (rounded down to
 * LX_SHMLBA if SHM_RND asks, replacing what is there only if SHM_REMAP
 * does) or at a free range.  Linux's checks in Linux's order.
 */
LX_SYSCALL_DEFINE3(shmat, int, id, unsigned long, addr, int, flg)
{
	struct vma want = { .flags = VMA_SHARED, .prot = EV_PROT_READ };
	struct lx_ipc_obj *o;
	int how = AREA_FREE;
	long va;

	if (addr & (LX_SHMLBA - 1)) {
		if (!(flg & SHM_RND))
			return -EINVAL;
		addr &= ~(unsigned long)(LX_SHMLBA - 1);
	}
	if (addr)
		how = flg & SHM_REMAP ? AREA_FIXED : AREA_NOREPLACE;
	else if (flg & SHM_REMAP)
		return -EINVAL;
	if (!(flg & SHM_RDONLY))
		want.prot |= EV_PROT_WRITE;
	else
		want.flags |= VMA_NOWRITE;	/* mprotect to write: -EACCES, as Linux's */
	if (flg & SHM_EXEC)
		want.prot |= EV_PROT_EXEC;
	ipc_lock();
	o = ipc_find_locked(LX_IPC_SHM, id);
	if (o) {
		ipc_hold(o);	/* and with it the object, until the area holds it too */
		want.shm = to_seg(o)->shm;
		want.start = addr;
		want.end = addr + page_up(to_seg(o)->size);
	}
	ipc_unlock();
	if (!o)
		return -EINVAL;
	va = mem_map_area(t->p, &want, LX_MMAP_BASE, LX_MMAP_END, how, false);
	if (va >= 0) {
		ipc_lock();
		to_seg(o)->atime = ipc_now();
		to_seg(o)->lpid = t->p->pid;
		ipc_unlock();
	}
	ipc_put(o);
	/* An address taken, as Linux's find_vma_intersection finds it, is -EINVAL. */
	return va == -EEXIST ? -EINVAL : lx_mm_err(va);
}

LX_SYSCALL_DEFINE1(shmdt, unsigned long, addr)
{
	const struct mem_shared *gone;
	unsigned int i;
	long err;

	if (addr & PAGE_MASK_LOW)
		return -EINVAL;
	err = mem_detach_area(t->p, addr, &gone);
	if (err)
		return lx_mm_err(err);
	/* gone is compared, never read: a segment in the table holds its own. */
	ipc_lock();
	for (i = 0; i < LX_IPC_IDS; i++) {
		struct lx_ipc_obj *o = lx()->ipc[LX_IPC_SHM][i];

		if (o && to_seg(o)->shm == gone) {
			to_seg(o)->dtime = ipc_now();
			to_seg(o)->lpid = t->p->pid;
		}
	}
	ipc_unlock();
	return 0;
}

LX_PARTIAL(shmctl, "INFO and STAT commands -EINVAL; a removed segment leaves the table at once");
LX_SYSCALL_DEFINE3(shmctl, int, id, int, cmd, unsigned long, ubuf)
{
	struct shmid64_ds ds;
	struct lx_ipc_obj *o;
	long err = 0;

	cmd &= ~IPC_64;		/* x86-64 has one layout, Linux's ipc_parse_version */
	if (cmd == IPC_SET && mem_user_copy(t->p, ubuf, &ds, sizeof(ds), MEM_READ))
		return -EFAULT;
	if (cmd != IPC_STAT && cmd != IPC_SET && cmd != IPC_RMID && cmd != SHM_LOCK &&
	    cmd != SHM_UNLOCK)
		return -EINVAL;
	ipc_lock();
	o = ipc_find_locked(LX_IPC_SHM, id);
	if (!o) {
		ipc_unlock();
		return -EINVAL;
	}
	switch (cmd) {
	case IPC_STAT:
		vostd_memset(&ds, 0, sizeof(ds));
		ipc_perm_out(o, &ds.shm_perm);
		ds.shm_segsz = to_seg(o)->size;
		ds.shm_atime = to_seg(o)->atime;
		ds.shm_dtime = to_seg(o)->dtime;
		ds.shm_ctime = o->ctime;
		ds.shm_cpid = to_seg(o)->cpid;
		ds.shm_lpid = to_seg(o)->lpid;
		ds.shm_nattch = READ_ONCE(to_seg(o)->shm->refs) - 1;
		break;
	case IPC_SET:
		ipc_perm_in(o, &ds.shm_perm);
		break;
	case SHM_LOCK:		/* its pages are never swapped: none are here */
		o->mode |= LX_SHM_LOCKED;
		break;
	case SHM_UNLOCK:
		o->mode &= ~LX_SHM_LOCKED;
		break;
	case IPC_RMID:
		ipc_remove_locked(o);
		break;
	}
	ipc_unlock();
	if (cmd == IPC_RMID)
		ipc_put(o);	/* the table's */
	else if (cmd == IPC_STAT && mem_user_copy(t->p, ubuf, &ds, sizeof(ds), MEM_WRITE))
		err = -EFAULT;
	return err;
}
