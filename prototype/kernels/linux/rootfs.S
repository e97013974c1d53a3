/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file system's image: a newc cpio archive tools/guest builds from
 * prototype/rootfs/ and Debian's busybox-static, carried in the module's
 * read-only data and parsed by fs.c.  The include path (Kbuild) points at
 * the build's tenants directory, where the pipeline puts it.
 */
	.section .rodata.rootfs, "a"
	.balign 16
	.globl lx_rootfs_start
lx_rootfs_start:
	.incbin "rootfs.cpio"
	.globl lx_rootfs_end
lx_rootfs_end:
