// SPDX-License-Identifier: GPL-2.0
/*
 * The devices of /dev, chosen by the number the image gives a node, as
 * Linux's drivers/char/mem.c numbers them: null, zero, full, random and
 * urandom; and tty and console, which are the sandbox's console (a
 * process's own terminal, in Linux, is what /dev/tty opens).
 */
#include "syscalls.h"

#define DEV(major, minor)	((major) << 8 | (minor))
#define DEV_CHUNK_MAX		(1024UL * 1024)	/* a read of zeros or randomness, at most */

static long null_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	return 0;
}

static long null_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len, long off)
{
	return len;
}

/* /dev/full: no space, ever. */
static long full_write(struct thread *t, struct lx_file *f, unsigned long buf,
		       unsigned long len, long off)
{
	return -ENOSPC;
}

/* As Linux's null_lseek and the memory devices': the position stays 0. */
static long dev_lseek(struct lx_file *f, long off, long whence)
{
	return 0;
}

static long zero_read(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off)
{
	unsigned long done = 0;

	len = min(len, DEV_CHUNK_MAX);
	while (done < len) {
		unsigned long n = min(len - done, PAGE);

		if (mem_user_copy(t->p, buf + done, (void *)lx_zero_page, n, MEM_WRITE))
			return lx_done_or(done, -EFAULT);
		done += n;
	}
	return done;
}

/*
 * random and urandom: the sandbox's generator (lx_random), which is not a
 * cryptographic one; the book says so.
 */
static long random_read(struct thread *t, struct lx_file *f, unsigned long buf,
			unsigned long len, long off)
{
	u64 chunk[LX_CHUNK / 8];
	unsigned long done = 0, i;

	len = min(len, DEV_CHUNK_MAX);
	while (done < len) {
		unsigned long n = min_t(unsigned long, len - done, sizeof(chunk));

		for (i = 0; i < ARRAY_SIZE(chunk); i++)
			chunk[i] = lx_random();
		if (mem_user_copy(t->p, buf + done, chunk, n, MEM_WRITE))
			return lx_done_or(done, -EFAULT);
		done += n;
	}
	return done;
}

static long dev_stat(struct thread *t, struct lx_file *f, struct lx_kstat *ks)
{
	return lx_stat_node(ks, f->node);
}

static const struct lx_file_ops null_fops = {
	.read = null_read, .write = null_write, .lseek = dev_lseek, .stat = dev_stat,
};

static const struct lx_file_ops zero_fops = {
	.read = zero_read, .write = null_write, .lseek = dev_lseek, .stat = dev_stat,
};

static const struct lx_file_ops full_fops = {
	.read = zero_read, .write = full_write, .lseek = dev_lseek, .stat = dev_stat,
};

static const struct lx_file_ops random_fops = {
	.read = random_read, .write = null_write, .lseek = dev_lseek, .stat = dev_stat,
};

/* /dev/zero, which mmap maps as anonymous memory, as Linux's mmap_zero does. */
bool dev_is_zero(const struct lx_file *f)
{
	return f->ops == &zero_fops;
}

/* What a device node opens as; NULL for a number no device here has (-ENXIO). */
const struct lx_file_ops *dev_fops(u32 rdev)
{
	switch (rdev) {
	case DEV(1, 3):
		return &null_fops;
	case DEV(1, 5):
		return &zero_fops;
	case DEV(1, 7):
		return &full_fops;
	case DEV(1, 8):
	case DEV(1, 9):
		return &random_fops;
	case DEV(5, 0):
	case DEV(5, 1):
		return &lx_console_fops;
	}
	return NULL;
}
