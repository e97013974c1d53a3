// SPDX-License-Identifier: GPL-2.0
/*
 * The console: a process's stdout and stderr go to the sandbox's log, a
 * line at a time, each line under the process's pid; stdin is empty.
 */
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
void console_write(struct proc *p, const char *b, unsigned long n)
{
	struct lx_proc *lp = lxp(p);

	kl_guard_begin();
	vostd_spin_lock(&lp->con_lock);
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
	vostd_spin_unlock(&lp->con_lock);
	kl_guard_end();
}
