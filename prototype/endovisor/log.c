// SPDX-License-Identifier: GPL-2.0
/*
 * A sandbox's log: one append-only buffer per sandbox, written by the log
 * service and by the endovisor, read by the launcher through read() with
 * the file position as its cursor.  It never wraps, so a reader that comes
 * late still sees every line; what does not fit is counted, not kept.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "endovisor.h"

int ev_log_init(struct ev_log *log, size_t size)
{
	spin_lock_init(&log->lock);
	init_waitqueue_head(&log->readers);
	log->buf = kvmalloc(size, GFP_KERNEL);
	if (!log->buf)
		return -ENOMEM;
	log->size = size;
	log->len = 0;
	log->dropped = 0;
	log->finished = false;
	return 0;
}

void ev_log_free(struct ev_log *log)
{
	kvfree(log->buf);
	log->buf = NULL;
}

void ev_log_append(struct ev_log *log, const char *s, size_t len)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	if (log->len + len <= log->size) {
		memcpy(log->buf + log->len, s, len);
		/* Readers copy up to len without the lock. */
		smp_store_release(&log->len, log->len + len);
	} else {
		log->dropped++;
	}
	spin_unlock_irqrestore(&log->lock, flags);
	wake_up_interruptible(&log->readers);
}

void ev_log_printf(struct ev_log *log, const char *fmt, ...)
{
	char line[EV_LOG_LINE_MAX + 64];
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	ev_log_append(log, line, n);
}

/* No more lines will come: readers get end of file once they have read all. */
void ev_log_finish(struct ev_log *log)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	log->finished = true;
	spin_unlock_irqrestore(&log->lock, flags);
	wake_up_interruptible(&log->readers);
}

static bool ev_log_ready(struct ev_log *log, loff_t pos)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&log->lock, flags);
	ready = pos < log->len || log->finished;
	spin_unlock_irqrestore(&log->lock, flags);
	return ready;
}

/*
 * Copies out what lies past *pos, waiting for more while the sandbox runs.
 * Bytes below log->len never change, so they are copied without the lock.
 */
ssize_t ev_log_read(struct ev_log *log, char __user *ubuf, size_t count,
		    loff_t *pos)
{
	size_t avail;
	int ret;

	if (*pos < 0)
		return -EINVAL;
	ret = wait_event_interruptible(log->readers, ev_log_ready(log, *pos));
	if (ret)
		return ret;
	avail = smp_load_acquire(&log->len);	/* pairs with ev_log_append */
	if (*pos >= avail)
		return 0;
	count = min_t(size_t, count, avail - *pos);
	if (copy_to_user(ubuf, log->buf + *pos, count))
		return -EFAULT;
	*pos += count;
	return count;
}
