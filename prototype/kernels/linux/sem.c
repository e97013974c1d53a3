// SPDX-License-Identifier: GPL-2.0
/*
 * System V semaphores (Linux's ipc/sem.c): a set of counters, and semop,
 * which applies a list of changes to them all at once or not at all.  A
 * list that cannot be applied whole sleeps on the set until any change
 * to it, then tries again from the start; Linux queues each list and
 * tries it where it would succeed, which serves waiters in a fairer
 * order but applies the same lists.  SEM_UNDO keeps, per process and
 * set, what its changes add up to, and takes it back as the process ends.
 */
#include <uapi/linux/sem.h>

#include "syscalls.h"

#define LX_SEMMSL	250		/* counters per set (Linux's SEMMSL is 32000) */
#define LX_SEMOPM	SEMOPM		/* changes per semop */

struct lx_sem {
	u16 val;
	u16 ncnt, zcnt;			/* sleepers waiting for it to grow, or to be 0 */
	s32 pid;			/* the last to change it */
};

struct lx_sem_set {
	struct lx_ipc_obj h;
	u64 otime;			/* the last semop's */
	unsigned int nsems;
	struct lx_sem sems[];
};

/* A process's SEM_UNDO adjustments for one set (Linux's sem_undo). */
struct lx_sem_undo {
	struct lx_sem_undo *next;
	long pid;
	int semid;
	s16 adj[LX_SEMMSL];
};

static struct lx_sem_set *to_set(struct lx_ipc_obj *o)
{
	return container_of(o, struct lx_sem_set, h);
}

/*
 * The undo records of set semid leave the list, or with all every one
 * of pid's: the caller frees what comes back.
 */
static struct lx_sem_undo *undos_take_locked(long pid, int semid, bool all)
{
	struct lx_sem_undo **pu = &lx()->sem_undos, *u, *taken = NULL;

	while ((u = *pu)) {
		if (all ? u->pid == pid : u->semid == semid) {
			*pu = u->next;
			u->next = taken;
			taken = u;
		} else {
			pu = &u->next;
		}
	}
	return taken;
}

static void undos_free(struct lx_sem_undo *u)
{
	struct lx_sem_undo *next;

	for (; u; u = next) {
		next = u->next;
		vostd_free(u);
	}
}

void sem_obj_free(struct lx_ipc_obj *o)
{
	vostd_free(to_set(o));
}

static long sem_fits(struct lx_ipc_obj *o, unsigned long nsems)
{
	return nsems > to_set(o)->nsems ? -EINVAL : 0;
}

LX_SYSCALL_DEFINE3(semget, s32, key, int, nsems, int, flg)
{
	struct lx_sem_set *set = NULL;
	long err = -EINVAL;

	if (nsems < 0 || nsems > LX_SEMMSL)
		return -EINVAL;
	if ((key == IPC_PRIVATE || (flg & IPC_CREAT)) && nsems) {
		set = vostd_alloc(struct_size(set, sems, nsems), true);
		err = -ENOMEM;
	}
	if (set)
		set->nsems = nsems;
	return ipc_get(LX_IPC_SEM, key, flg, set ? &set->h : NULL, err, sem_fits, nsems);
}

/*
 * Try ops on set whole (Linux's perform_atomic_semop): 0 and applied, 1
 * if one must wait (*blocked names it), or -EAGAIN for a wait IPC_NOWAIT
 * forbids, -ERANGE for a counter or an undo out of range; then nothing
 * changed.  u takes the SEM_UNDO changes.
 */
static long sem_try_locked(struct lx_sem_set *set, struct sembuf *ops, unsigned int n,
			   struct lx_sem_undo *u, long pid, unsigned int *blocked)
{
	unsigned int i;
	long err = 0;

	for (i = 0; i < n; i++) {
		struct lx_sem *sem = &set->sems[ops[i].sem_num];
		int val = sem->val + ops[i].sem_op;

		if ((!ops[i].sem_op && sem->val) || val < 0) {
			*blocked = i;
			err = ops[i].sem_flg & IPC_NOWAIT ? -EAGAIN : 1;
			break;
		}
		if (val > SEMVMX) {
			err = -ERANGE;
			break;
		}
		if (ops[i].sem_flg & SEM_UNDO) {
			int adj = u->adj[ops[i].sem_num] - ops[i].sem_op;

			if (adj < -SEMAEM - 1 || adj > SEMAEM) {
				err = -ERANGE;
				break;
			}
			u->adj[ops[i].sem_num] = adj;
		}
		sem->val = val;
	}
	if (err) {
		while (i--) {	/* back out the ones applied */
			set->sems[ops[i].sem_num].val -= ops[i].sem_op;
			if (ops[i].sem_flg & SEM_UNDO)
				u->adj[ops[i].sem_num] += ops[i].sem_op;
		}
		return err;
	}
	for (i = 0; i < n; i++)
		set->sems[ops[i].sem_num].pid = pid;
	return 0;
}

static struct lx_sem_undo *undo_find_locked(long pid, int semid)
{
	struct lx_sem_undo *u;

	for (u = lx()->sem_undos; u; u = u->next)
		if (u->pid == pid && u->semid == semid)
			return u;
	return NULL;
}

/*
 * ops on the set, whole, with the set held across each sleep; the caller's
 * undo record is looked up again after one, since the set's removal frees it.
 */
static long sem_apply(struct thread *t, int id, struct sembuf *ops, unsigned int n,
		      u64 deadline, struct lx_sem_undo **fresh)
{
	unsigned int i, max = 0, blocked = 0;
	long pid = t->p->pid, err;
	struct lx_sem_undo *u = NULL;
	struct lx_ipc_obj *o;
	bool undo = false;

	for (i = 0; i < n; i++) {
		max = max_t(unsigned int, max, ops[i].sem_num);
		undo |= ops[i].sem_flg & SEM_UNDO;
	}
	ipc_lock();
	o = ipc_find_locked(LX_IPC_SEM, id);
	if (!o || max >= to_set(o)->nsems) {
		ipc_unlock();
		return o ? -EFBIG : -EINVAL;
	}
	ipc_hold(o);
	for (;;) {
		struct lx_sem *sem;

		u = undo ? undo_find_locked(pid, id) : NULL;
		if (undo && !u) {
			u = *fresh;
			*fresh = NULL;
			u->pid = pid;
			u->semid = id;
			u->next = lx()->sem_undos;
			lx()->sem_undos = u;
		}
		err = sem_try_locked(to_set(o), ops, n, u, pid, &blocked);
		if (err <= 0)
			break;
		sem = &to_set(o)->sems[ops[blocked].sem_num];
		if (ops[blocked].sem_op)
			sem->ncnt++;
		else
			sem->zcnt++;
		err = ipc_wait_locked(t, o, deadline);
		if (ops[blocked].sem_op)
			sem->ncnt--;
		else
			sem->zcnt--;
		if (err)
			break;
	}
	if (!err) {
		to_set(o)->otime = ipc_now();
		lx_wake_all(&o->waiters);
	}
	ipc_unlock();
	ipc_put(o);
	return err;
}

/*
 * semtimedop, and semop without a timeout: Linux's checks in Linux's
 * order.  A signal ends the wait with -EINTR, never restarted, as in
 * Linux; the timeout is -EAGAIN.
 */
static long do_semtimedop(struct thread *t, int id, unsigned long usops, unsigned int nsops,
			  unsigned long utimeout)
{
	struct lx_sem_undo *fresh = NULL;
	struct sembuf small[8], *ops = small;
	u64 ts[2], deadline = 0;
	unsigned int i;
	long err = 0;

	if (nsops < 1 || id < 0)
		return -EINVAL;
	if (nsops > LX_SEMOPM)
		return -E2BIG;
	if (nsops > ARRAY_SIZE(small)) {
		ops = vostd_alloc(nsops * sizeof(*ops), false);
		if (!ops)
			return -ENOMEM;
	}
	if (mem_user_copy(t->p, usops, ops, nsops * sizeof(*ops), MEM_READ))
		err = -EFAULT;
	if (!err && utimeout) {
		if (mem_user_copy(t->p, utimeout, ts, sizeof(ts), MEM_READ))
			err = -EFAULT;
		else if ((s64)ts[0] < 0 || ts[1] >= 1000000000)
			err = -EINVAL;
		else
			deadline = lx_now_ns() + min(ts[0], 1000000ULL) * 1000000000 + ts[1];
	}
	for (i = 0; !err && i < nsops; i++) {
		if ((ops[i].sem_flg & SEM_UNDO) && !fresh) {
			fresh = vostd_alloc(sizeof(*fresh), true);
			err = fresh ? 0 : -ENOMEM;
		}
	}
	if (!err)
		err = sem_apply(t, id, ops, nsops, deadline, &fresh);
	vostd_free(fresh);
	if (ops != small)
		vostd_free(ops);
	return err;
}

LX_SYSCALL_DEFINE4(semtimedop, int, id, unsigned long, usops, unsigned int, nsops,
		   unsigned long, utimeout)
{
	return do_semtimedop(t, id, usops, nsops, utimeout);
}

LX_SYSCALL_DEFINE3(semop, int, id, unsigned long, usops, unsigned int, nsops)
{
	return do_semtimedop(t, id, usops, nsops, 0);
}

/* A counter set by SETVAL or SETALL: every undo record forgets it (Linux's). */
static void sem_set_locked(struct lx_sem_set *set, unsigned int num, u16 val, long pid)
{
	struct lx_sem_undo *u;

	for (u = lx()->sem_undos; u; u = u->next)
		if (u->semid == set->h.id)
			u->adj[num] = 0;
	set->sems[num].val = val;
	set->sems[num].pid = pid;
}

/* semctl's commands on the counters, with the set found and the lock held. */
static long sem_cmd_locked(struct thread *t, struct lx_sem_set *set, int num, int cmd, int val,
			   u16 *vals)
{
	unsigned int i;

	if (cmd == GETALL || cmd == SETALL) {
		for (i = 0; i < set->nsems; i++) {
			if (cmd == GETALL)
				vals[i] = set->sems[i].val;
			else
				sem_set_locked(set, i, vals[i], t->p->pid);
		}
	} else if (num < 0 || (unsigned int)num >= set->nsems) {
		return -EINVAL;
	}
	switch (cmd) {
	case GETVAL:
		return set->sems[num].val;
	case GETPID:
		return set->sems[num].pid;
	case GETNCNT:
		return set->sems[num].ncnt;
	case GETZCNT:
		return set->sems[num].zcnt;
	case SETVAL:
		sem_set_locked(set, num, val, t->p->pid);
		break;
	}
	if (cmd == SETVAL || cmd == SETALL) {
		set->h.ctime = ipc_now();
		lx_wake_all(&set->h.waiters);
	}
	return 0;
}

/* How many counters set id has, for a SETALL's copy before the lock: -EINVAL if none. */
static long sem_count(int id)
{
	struct lx_ipc_obj *o;
	long n;

	ipc_lock();
	o = ipc_find_locked(LX_IPC_SEM, id);
	n = o ? (long)to_set(o)->nsems : -EINVAL;
	ipc_unlock();
	return n;
}

LX_PARTIAL(semctl, "INFO and STAT commands -EINVAL; at most 250 semaphores a set");
LX_SYSCALL_DEFINE4(semctl, int, id, int, num, int, cmd, unsigned long, arg)
{
	struct lx_sem_undo *undos = NULL;
	struct semid64_ds ds;
	u16 vals[LX_SEMMSL];
	struct lx_ipc_obj *o;
	long ret = 0, n = 0;

	cmd &= ~IPC_64;
	if (id < 0)
		return -EINVAL;
	switch (cmd) {
	case SETVAL:
		if ((int)arg < 0 || (int)arg > SEMVMX)
			return -ERANGE;
		break;
	case SETALL:
		n = sem_count(id);
		if (n < 0)
			return n;
		if (mem_user_copy(t->p, arg, vals, n * sizeof(vals[0]), MEM_READ))
			return -EFAULT;
		for (ret = 0; ret < n; ret++)
			if (vals[ret] > SEMVMX)
				return -ERANGE;
		ret = 0;
		break;
	case IPC_SET:
		if (mem_user_copy(t->p, arg, &ds, sizeof(ds), MEM_READ))
			return -EFAULT;
		break;
	case IPC_STAT: case IPC_RMID: case GETVAL: case GETPID: case GETNCNT: case GETZCNT:
	case GETALL:
		break;
	default:
		return -EINVAL;
	}
	ipc_lock();
	o = ipc_find_locked(LX_IPC_SEM, id);
	if (!o) {
		ret = cmd == SETALL ? -EIDRM : -EINVAL;	/* gone since it was counted */
	} else if (cmd == SETALL && to_set(o)->nsems != n) {
		ret = -EIDRM;				/* and its slot taken again */
	} else if (cmd == IPC_STAT) {
		vostd_memset(&ds, 0, sizeof(ds));
		ipc_perm_out(o, &ds.sem_perm);
		ds.sem_otime = to_set(o)->otime;
		ds.sem_ctime = o->ctime;
		ds.sem_nsems = to_set(o)->nsems;
	} else if (cmd == IPC_SET) {
		ipc_perm_in(o, &ds.sem_perm);
	} else if (cmd == IPC_RMID) {
		ipc_remove_locked(o);
		undos = undos_take_locked(0, id, false);
	} else {
		ret = sem_cmd_locked(t, to_set(o), num, cmd, (int)arg, vals);
		n = to_set(o)->nsems;
	}
	ipc_unlock();
	undos_free(undos);
	if (cmd == IPC_RMID && o)
		ipc_put(o);	/* the table's */
	if (o && !ret && cmd == IPC_STAT &&
	    mem_user_copy(t->p, arg, &ds, sizeof(ds), MEM_WRITE))
		ret = -EFAULT;
	if (o && !ret && cmd == GETALL &&
	    mem_user_copy(t->p, arg, vals, n * sizeof(vals[0]), MEM_WRITE))
		ret = -EFAULT;
	return ret;
}

/*
 * p ends: its SEM_UNDO adjustments are made, each counter kept in
 * [0, SEMVMX], as Linux's exit_sem keeps it.
 */
void sem_proc_exit(struct proc *p)
{
	struct lx_sem_undo *undos, *u;
	struct lx_ipc_obj *o;
	unsigned int i;

	if (!READ_ONCE(lx()->sem_undos))
		return;
	ipc_lock();
	undos = undos_take_locked(p->pid, 0, true);
	for (u = undos; u; u = u->next) {
		o = ipc_find_locked(LX_IPC_SEM, u->semid);
		for (i = 0; o && i < to_set(o)->nsems; i++) {
			int val = to_set(o)->sems[i].val + u->adj[i];

			if (!u->adj[i])
				continue;
			to_set(o)->sems[i].val = clamp(val, 0, SEMVMX);
			to_set(o)->sems[i].pid = p->pid;
		}
		if (o)
			lx_wake_all(&o->waiters);
	}
	ipc_unlock();
	undos_free(undos);
}
