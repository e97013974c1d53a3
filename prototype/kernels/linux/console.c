// SPDX-License-Identifier: GPL-2.0
/*
 * The console: a process's stdout and stderr go to the sandbox's log, a
 * line at a time, each line under the process's pid; stdin is empty.
 */
#include <linux/stat.h>

#include "linux.h"

/* Out goes p's line so far.  Its console lock held, or no thread of p left. */
void console_flush(struct proc *p)
{
	struct lx_proc *lp = lxp(p);

	if (!lp->line_len)
		return;
	lp->line[lp->line_len] = 0;
	/* A program's own figures go out as they are, for mkbook to read. */
	if (vostd_has_prefix(lp->line, EV_FIG_WORD " "))
		vostd_println("%s", lp->line);
	else
		vostd_println("[pid %ld] %s", p->pid, lp->line);
	lp->line_len = 0;
}

/* Bytes to the log, a line at a time, nothing unprintable. */
static void console_write(struct proc *p, const char *b, unsigned long n)
{
	struct lx_proc *lp = lxp(p);

	kl_spin_lock(&lp->con_lock);
	while (n--) {
		char c = *b++;

		if (c == '\n') {
			if (!lp->line_len)
				lp->line[lp->line_len++] = ' ';
			console_flush(p);
			continue;
		}
		if (c == '\t')
			c = ' ';
		if (c < 0x20 || c > 0x7e)
			c = '?';
		lp->line[lp->line_len++] = c;
		if (lp->line_len >= sizeof(lp->line) - 1)
			console_flush(p);
	}
	kl_spin_unlock(&lp->con_lock);
}

/* stdin is empty. */
static long console_read(struct thread *t, struct lx_file *f, unsigned long buf,
			 unsigned long len, long off)
{
	return 0;
}

static long console_file_write(struct thread *t, struct lx_file *f, unsigned long buf,
			       unsigned long len, long off)
{
	char chunk[LX_CHUNK];
	unsigned long done = 0;

	while (done < len) {
		unsigned long n = min_t(unsigned long, len - done, LX_CHUNK);

		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_READ))
			return lx_done_or(done, -EFAULT);
		console_write(t->p, chunk, n);
		done += n;
	}
	return done;
}

static long console_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_fill(ks, S_IFCHR | 0620, 3, 5 << 8 | 1);
}

/* A process's first stdin, stdout and stderr, opened for both (lx_proc_init). */
const struct lx_file_ops lx_console_fops = {
	.read = console_read,
	.write = console_file_write,
	.lseek = lx_no_lseek,
	.stat = console_stat,
};
