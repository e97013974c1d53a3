// SPDX-License-Identifier: GPL-2.0
/*
 * The file system's first contents: the cpio image the guest pipeline
 * built from prototype/rootfs/ (and Debian's busybox), parsed once at the
 * sandbox's start into fs.c's tree.  A file's data points into the image,
 * which stays where it is for the sandbox's life, until the file is first
 * changed.
 */
#include <linux/stat.h>

#include "linux.h"

extern const char lx_rootfs_start[], lx_rootfs_end[];

static unsigned long hex8(const char *s, bool *bad)
{
	unsigned long v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			*bad = true;
	}
	return v;
}

/*
 * Link a new node for one entry of the image at name (relative to the
 * root), in a directory an earlier entry made: the image is the
 * pipeline's, which writes a directory before what is in it.
 */
static long add_entry(const char *name, u32 mode, const char *data, unsigned long size,
		      u32 rdev)
{
	char last[LX_NAME_MAX + 1];
	struct lx_node *nd = fs_node_new(mode), *dir;
	unsigned int len;
	long err = 0;

	if (!nd)
		return -ENOSPC;
	if (!S_ISDIR(mode)) {
		nd->data = data;
		nd->size = size;
	}
	nd->rdev = rdev;
	fs_lock();
	dir = fs_walk_locked(lx()->root, lx()->root, name, false, last, &len, &err);
	if (dir && (!len || fs_find_locked(dir, last, len)))
		err = -EINVAL;
	else if (dir)
		err = fs_link_locked(dir, last, len, nd);
	fs_unlock();
	node_put(nd);		/* the entry holds it now, or it goes */
	return err;
}

/*
 * Parse the newc cpio image into the tree.  Every field is checked
 * against the image's end: the image is the pipeline's, but a parser that
 * trusted it would be the first hole here.
 */
long fs_init(void)
{
	struct lx_globals *g = lx();
	const char *at = lx_rootfs_start, *end = lx_rootfs_end;
	struct lx_node *root = fs_node_new(S_IFDIR | 0755);

	if (!root)
		return -ENOMEM;
	root->parent = root;
	root->nlink = 2;
	g->root = root;
	while (end - at >= 110) {
		bool bad = false;
		unsigned long mode, size, namesize, off, rdev;
		const char *name;
		long err;

		if (!vostd_has_prefix(at, "070701"))
			return -EINVAL;
		mode = hex8(at + 14, &bad);
		size = hex8(at + 54, &bad);
		rdev = hex8(at + 78, &bad) << 8 | hex8(at + 86, &bad);
		namesize = hex8(at + 94, &bad);
		if (bad || namesize < 2 || namesize > (unsigned long)(end - at) - 110)
			return -EINVAL;
		name = at + 110;
		if (name[namesize - 1])
			return -EINVAL;
		if (vostd_has_prefix(name, "TRAILER!!!"))
			break;
		off = (110 + namesize + 3) & ~3UL;
		if (off > (unsigned long)(end - at) || size > (unsigned long)(end - at) - off)
			return -EINVAL;
		/* "./x" and "x" are both "/x"; "." is the root, already there. */
		if (name[0] == '.' && name[1] == '/')
			name++;
		else if (name[0] == '.' && !name[1])
			name = NULL;
		if (name && name[0] == '/')
			name++;
		if (name && *name) {
			if (S_ISLNK(mode) && size >= LX_PATH_MAX)
				return -EINVAL;
			err = add_entry(name, mode, at + off, size, rdev);
			if (err)
				return err;
		}
		at += (off + size + 3) & ~3UL;
	}
	return 0;
}

/* The sandbox is ending: the tree goes (the image is the module's). */
void fs_exit(void)
{
	struct lx_globals *g = lx();

	if (g->root)
		fs_node_free_all(g->root);
	g->root = NULL;
	/* Every process has gone: a node or a frame still held is a leak of ours. */
	if (g->fs_nodes || g->fs_frames)
		vostd_println("linux: FAIL: %u nodes and %lu frames of files left", g->fs_nodes,
			      g->fs_frames);
}
