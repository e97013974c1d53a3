// SPDX-License-Identifier: GPL-2.0
/*
 * System V IPC's common part (Linux's ipc/util.c): the sandbox's tables
 * of objects, one per kind, which are its IPC namespace; keys and ids;
 * the permission record every object has; and the sleep of semop, msgsnd
 * and msgrcv.  An id is an index in its table and a sequence number
 * (Linux's ipcmni_seq_shift), so an id whose object was removed and
 * whose slot was taken again names nothing.  Every caller is root here
 * (getuid is 0), so no permission check refuses anything, as none
 * refuses CAP_IPC_OWNER in Linux.
 */
#include <uapi/linux/ipc.h>

#include "syscalls.h"

#define IPC_SEQ_SHIFT	15	/* Linux's IPCMNI_SHIFT: index below, sequence above */
#define IPC_INDEX(id)	((u32)(id) & ((1U << IPC_SEQ_SHIFT) - 1))

/* Seconds on time()'s clock: an object's times. */
u64 ipc_now(void)
{
	return lx_now_ns() / 1000000000;
}

void ipc_lock(void)
{
	kl_spin_lock(&lx()->ipc_spin);
}

void ipc_unlock(void)
{
	kl_spin_unlock(&lx()->ipc_spin);
}

void ipc_hold(struct lx_ipc_obj *o)
{
	__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
}

/* Drop a reference to o; the last frees it.  Never under ipc_lock. */
void ipc_put(struct lx_ipc_obj *o)
{
	if (!o || __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (o->kind == LX_IPC_SHM)
		shm_obj_free(o);
	else if (o->kind == LX_IPC_SEM)
		sem_obj_free(o);
	else
		msg_obj_free(o);
}

struct lx_ipc_obj *ipc_find_locked(int kind, int id)
{
	struct lx_ipc_obj *o;

	if (id < 0 || IPC_INDEX(id) >= LX_IPC_IDS)
		return NULL;
	o = lx()->ipc[kind][IPC_INDEX(id)];
	return o && o->id == id ? o : NULL;
}

static struct lx_ipc_obj *ipc_by_key_locked(int kind, s32 key)
{
	unsigned int i;

	for (i = 0; i < LX_IPC_IDS; i++)
		if (lx()->ipc[kind][i] && lx()->ipc[kind][i]->key == key)
			return lx()->ipc[kind][i];
	return NULL;
}

/*
 * msgget, semget and shmget (Linux's ipcget): the id of kind's object
 * with key, or of fresh, which the caller made beforehand (nothing is
 * allocated under the lock) if key is IPC_PRIVATE or IPC_CREAT asks; a
 * fresh it could not make is fresh_err.  fits checks a found object
 * against what the caller wants (a segment's size, a set's count).
 * Linux's errors in Linux's order; fresh, if unused, is freed.
 */
long ipc_get(int kind, s32 key, int flg, struct lx_ipc_obj *fresh, long fresh_err,
	     long (*fits)(struct lx_ipc_obj *o, unsigned long want), unsigned long want)
{
	struct lx_ipc_obj *o = NULL;
	unsigned int i;
	long ret;

	ipc_lock();
	if (key != IPC_PRIVATE)
		o = ipc_by_key_locked(kind, key);
	if (o) {
		if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
			ret = -EEXIST;
		else
			ret = (fits ? fits(o, want) : 0) ?: o->id;
	} else if (key != IPC_PRIVATE && !(flg & IPC_CREAT)) {
		ret = -ENOENT;
	} else if (!fresh) {
		ret = fresh_err;
	} else {
		for (i = 0; i < LX_IPC_IDS && lx()->ipc[kind][i]; i++)
			;
		ret = -ENOSPC;
		if (i < LX_IPC_IDS) {
			u16 seq = ++lx()->ipc_seq[kind];

			fresh->refs = 1;	/* the table's */
			fresh->kind = kind;
			fresh->id = (int)((u32)seq << IPC_SEQ_SHIFT | i);
			fresh->key = key;
			fresh->mode = flg & 0777;
			fresh->ctime = ipc_now();
			lx()->ipc[kind][i] = fresh;
			ret = fresh->id;
			fresh = NULL;
		}
	}
	ipc_unlock();
	if (fresh) {
		fresh->kind = kind;
		fresh->refs = 1;
		ipc_put(fresh);
	}
	return ret;
}

/*
 * IPC_RMID: o leaves its table, and its sleepers wake to -EIDRM; the
 * caller puts the table's reference.
 */
void ipc_remove_locked(struct lx_ipc_obj *o)
{
	lx()->ipc[o->kind][IPC_INDEX(o->id)] = NULL;
	o->removed = true;
	lx_wake_all(&o->waiters);
}

void ipc_perm_out(const struct lx_ipc_obj *o, struct ipc64_perm *out)
{
	vostd_memset(out, 0, sizeof(*out));
	out->key = o->key;
	out->uid = o->uid;
	out->gid = o->gid;
	out->cuid = o->cuid;
	out->cgid = o->cgid;
	out->mode = o->mode;
	out->seq = (u32)o->id >> IPC_SEQ_SHIFT;
}

/* IPC_SET's part of every kind: the owner and the permission bits. */
void ipc_perm_in(struct lx_ipc_obj *o, const struct ipc64_perm *in)
{
	o->uid = in->uid;
	o->gid = in->gid;
	o->mode = (o->mode & ~0777) | (in->mode & 0777);
	o->ctime = ipc_now();
}

/*
 * Sleep on o, ipc_lock held in a guard and o held by the caller, until a
 * wake, a signal or deadline (lx_now_ns's ns; 0: none) passes.  Back
 * with the lock held: 0 to look again, -EIDRM if o was removed, -EINTR
 * for a signal, -EAGAIN past the deadline.
 */
long ipc_wait_locked(struct thread *t, struct lx_ipc_obj *o, u64 deadline)
{
	struct lx_waiter w;
	bool woken;

	lx_queue(&o->waiters, &w);
	ipc_unlock();
	lx_sleep_until(t, &w.queued, false, deadline);	/* a wake takes it off the queue */
	ipc_lock();
	woken = !w.queued;
	lx_unqueue(&o->waiters, &w);
	if (o->removed)
		return -EIDRM;
	if (woken)
		return 0;
	if (thread_interrupted(t))
		return -EINTR;
	return deadline && lx_now_ns() >= deadline ? -EAGAIN : 0;
}

/* The sandbox ends: every object left goes with its namespace, as Linux's do. */
void ipc_exit(void)
{
	struct lx_ipc_obj *o;
	unsigned int k, i;

	for (k = 0; k < LX_IPC_KINDS; k++) {
		for (i = 0; i < LX_IPC_IDS; i++) {
			ipc_lock();
			o = lx()->ipc[k][i];
			if (o)
				ipc_remove_locked(o);
			ipc_unlock();
			ipc_put(o);
		}
	}
}
