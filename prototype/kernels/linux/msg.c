// SPDX-License-Identifier: GPL-2.0
/*
 * System V message queues (Linux's ipc/msg.c): a list of typed messages
 * per queue, bounded by the queue's bytes (msg_qbytes) and, across the
 * sandbox, by LX_MSG_BYTES of messages and their headers, since the
 * sandbox's heap is what holds them (past it, msgsnd is -ENOMEM).  A sender waits for room, a
 * receiver for a message of the type it asks; either sleeps on the
 * queue until any change to it.
 */
#include <uapi/linux/msg.h>

#include "syscalls.h"

#define LX_MSGMAX	MSGMAX		/* a message's greatest size */
#define LX_MSGMNB	MSGMNB		/* a new queue's msg_qbytes */
#define LX_MSG_QBYTES	(4 * MSGMNB)	/* the most IPC_SET may give a queue */
#define LX_MSG_BYTES	(1024UL * 1024)	/* queued in the sandbox, headers counted */

struct lx_msg {
	struct lx_msg *next;
	long type;
	size_t len;
	char text[];
};

struct lx_msg_queue {
	struct lx_ipc_obj h;
	struct lx_msg *first, **last;
	u64 stime, rtime;
	unsigned long cbytes, qnum, qbytes;
	long lspid, lrpid;
};

static struct lx_msg_queue *to_queue(struct lx_ipc_obj *o)
{
	return container_of(o, struct lx_msg_queue, h);
}

static unsigned long msg_cost(const struct lx_msg *m)
{
	return sizeof(*m) + m->len;
}

void msg_obj_free(struct lx_ipc_obj *o)
{
	struct lx_msg *m, *next;

	for (m = to_queue(o)->first; m; m = next) {
		next = m->next;
		__atomic_sub_fetch(&lx()->msg_bytes, msg_cost(m), __ATOMIC_RELAXED);
		vostd_free(m);
	}
	vostd_free(to_queue(o));
}

LX_SYSCALL_DEFINE2(msgget, s32, key, int, flg)
{
	struct lx_msg_queue *q = NULL;

	if (key == IPC_PRIVATE || (flg & IPC_CREAT)) {
		q = vostd_alloc(sizeof(*q), true);
		if (q) {
			q->last = &q->first;
			q->qbytes = LX_MSGMNB;
		}
	}
	return ipc_get(LX_IPC_MSG, key, flg, q ? &q->h : NULL, -ENOMEM, NULL, 0);
}

/* Room in q for m: Linux's test. */
static bool msg_room_locked(struct lx_msg_queue *q, const struct lx_msg *m)
{
	return m->len + q->cbytes <= q->qbytes && 1 + q->qnum <= q->qbytes;
}

LX_SYSCALL_DEFINE4(msgsnd, int, id, unsigned long, umsg, size_t, len, int, flg)
{
	struct lx_ipc_obj *o;
	struct lx_msg *m;
	long type, err = 0;

	if (len > LX_MSGMAX || id < 0)
		return -EINVAL;
	if (mem_user_copy(t->p, umsg, &type, sizeof(type), MEM_READ))
		return -EFAULT;
	if (type < 1)
		return -EINVAL;
	m = vostd_alloc(sizeof(*m) + len, false);
	if (!m)
		return -ENOMEM;
	m->type = type;
	m->len = len;
	if (mem_user_copy(t->p, umsg + sizeof(long), m->text, len, MEM_READ)) {
		vostd_free(m);
		return -EFAULT;
	}
	ipc_lock();
	o = ipc_find_locked(LX_IPC_MSG, id);
	if (o)
		ipc_hold(o);
	while (o && !msg_room_locked(to_queue(o), m)) {
		err = flg & IPC_NOWAIT ? -EAGAIN : ipc_wait_locked(t, o, 0);
		if (err)
			break;
	}
	/* The sandbox's bound is no queue's: nothing would wake a wait for it. */
	if (o && !err && READ_ONCE(lx()->msg_bytes) + msg_cost(m) > LX_MSG_BYTES)
		err = -ENOMEM;
	if (o && !err) {
		struct lx_msg_queue *q = to_queue(o);

		m->next = NULL;
		*q->last = m;
		q->last = &m->next;
		q->qnum++;
		q->cbytes += len;
		__atomic_add_fetch(&lx()->msg_bytes, msg_cost(m), __ATOMIC_RELAXED);
		q->lspid = t->p->pid;
		q->stime = ipc_now();
		lx_wake_all(&o->waiters);
		m = NULL;
	}
	ipc_unlock();
	vostd_free(m);
	if (!o)
		return -EINVAL;
	ipc_put(o);
	/* A signal ends the wait; the call restarts only if no handler ran (Linux's). */
	return err == -EINTR ? -ERESTARTNOHAND : err;
}

/*
 * The message msgrcv takes (Linux's find_msg): the first of any type
 * for 0, the first of type for type > 0 (of another type with
 * MSG_EXCEPT), the first of the lowest type at most -type for type < 0;
 * with MSG_COPY, the one at index type, left in the queue.
 */
static struct lx_msg **msg_find_locked(struct lx_msg_queue *q, long type, int flg)
{
	long limit = type == LONG_MIN ? LONG_MAX : -type, i = 0;
	struct lx_msg **pm, **best = NULL;

	for (pm = &q->first; *pm; pm = &(*pm)->next, i++) {
		long mt = (*pm)->type;

		if (flg & MSG_COPY) {
			if (i == type)
				return pm;
		} else if (!type || (type > 0 && ((flg & MSG_EXCEPT) ? mt != type : mt == type))) {
			return pm;
		} else if (type < 0 && mt <= limit && (!best || mt < (*best)->type)) {
			best = pm;
		}
	}
	return best;
}

LX_SYSCALL_DEFINE5(msgrcv, int, id, unsigned long, umsg, size_t, size, long, type, int, flg)
{
	struct lx_msg **pm, *m = NULL;
	struct lx_ipc_obj *o;
	long err = 0;

	if (id < 0 || (long)size < 0)
		return -EINVAL;
	if ((flg & MSG_COPY) && (!(flg & IPC_NOWAIT) || (flg & MSG_EXCEPT)))
		return -EINVAL;
	ipc_lock();
	o = ipc_find_locked(LX_IPC_MSG, id);
	if (o)
		ipc_hold(o);
	while (o) {
		pm = msg_find_locked(to_queue(o), type, flg);
		if (pm) {
			err = (*pm)->len > size && !(flg & MSG_NOERROR) ? -E2BIG : 0;
			break;
		}
		err = flg & IPC_NOWAIT ? -ENOMSG : ipc_wait_locked(t, o, 0);
		if (err)
			break;
	}
	if (o && !err && (flg & MSG_COPY)) {
		/* A copy, made under the lock: the message stays queued. */
		m = vostd_alloc(sizeof(*m) + (*pm)->len, false);
		if (m)
			vostd_memcpy(m, *pm, sizeof(*m) + (*pm)->len);
		err = m ? 0 : -ENOMEM;
	} else if (o && !err) {
		struct lx_msg_queue *q = to_queue(o);

		m = *pm;
		*pm = m->next;
		if (q->last == &m->next)
			q->last = pm;
		q->qnum--;
		q->cbytes -= m->len;
		__atomic_sub_fetch(&lx()->msg_bytes, msg_cost(m), __ATOMIC_RELAXED);
		q->lrpid = t->p->pid;
		q->rtime = ipc_now();
		lx_wake_all(&o->waiters);
	}
	ipc_unlock();
	if (!o)
		return -EINVAL;
	ipc_put(o);
	if (err)
		return err == -EINTR ? -ERESTARTNOHAND : err;
	/* Taken off the queue, a message that cannot be written is lost, as in Linux. */
	size = min(size, m->len);
	if (mem_user_copy(t->p, umsg, &m->type, sizeof(long), MEM_WRITE) ||
	    mem_user_copy(t->p, umsg + sizeof(long), m->text, size, MEM_WRITE))
		err = -EFAULT;
	vostd_free(m);
	return err ?: (long)size;
}

LX_PARTIAL(msgctl, "INFO and STAT commands -EINVAL; msg_qbytes past 64 KiB is -EPERM");
LX_SYSCALL_DEFINE3(msgctl, int, id, int, cmd, unsigned long, ubuf)
{
	struct msqid64_ds ds;
	struct lx_ipc_obj *o;
	long err = 0;

	cmd &= ~IPC_64;
	if (id < 0 || (cmd != IPC_STAT && cmd != IPC_SET && cmd != IPC_RMID))
		return -EINVAL;
	if (cmd == IPC_SET && mem_user_copy(t->p, ubuf, &ds, sizeof(ds), MEM_READ))
		return -EFAULT;
	ipc_lock();
	o = ipc_find_locked(LX_IPC_MSG, id);
	if (!o) {
		err = -EINVAL;
	} else if (cmd == IPC_STAT) {
		struct lx_msg_queue *q = to_queue(o);

		vostd_memset(&ds, 0, sizeof(ds));
		ipc_perm_out(o, &ds.msg_perm);
		ds.msg_stime = q->stime;
		ds.msg_rtime = q->rtime;
		ds.msg_ctime = o->ctime;
		ds.msg_cbytes = q->cbytes;
		ds.msg_qnum = q->qnum;
		ds.msg_qbytes = q->qbytes;
		ds.msg_lspid = q->lspid;
		ds.msg_lrpid = q->lrpid;
	} else if (cmd == IPC_SET) {
		/* As to a caller without CAP_SYS_RESOURCE past the sandbox's bound. */
		if (ds.msg_qbytes > LX_MSG_QBYTES) {
			err = -EPERM;
		} else {
			ipc_perm_in(o, &ds.msg_perm);
			to_queue(o)->qbytes = ds.msg_qbytes;
			lx_wake_all(&o->waiters);	/* senders may fit now */
		}
	} else {
		ipc_remove_locked(o);
	}
	ipc_unlock();
	if (o && cmd == IPC_RMID)
		ipc_put(o);	/* the table's */
	if (o && !err && cmd == IPC_STAT && mem_user_copy(t->p, ubuf, &ds, sizeof(ds), MEM_WRITE))
		err = -EFAULT;
	return err;
}
