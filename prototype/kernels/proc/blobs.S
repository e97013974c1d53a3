/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tenant images, as tools/guest built them from prototype/tenants/:
 * static ELF executables, carried in the module's read-only data and
 * loaded by memory.c into the address spaces the kernel proper creates.
 * The include path (Kbuild) points at the build's tenants directory.
 */
#define TENANT(name, file)				\
	.section .rodata.tenants, "a";			\
	.balign 16;					\
	.globl tenant_##name##_start;			\
tenant_##name##_start:					\
	.incbin file;					\
	.globl tenant_##name##_end;			\
tenant_##name##_end:

TENANT(hello, "hello.elf")
TENANT(fpcheck, "fpcheck.elf")
TENANT(badaddr, "badaddr.elf")
TENANT(nullptr, "nullptr.elf")
TENANT(badsys, "badsys.elf")
TENANT(threads, "threads.elf")
TENANT(yield, "yield.elf")
TENANT(spin, "spin.elf")
TENANT(calls, "calls.elf")
TENANT(cow, "cow.elf")
TENANT(rowrite, "rowrite.elf")
TENANT(badop, "badop.elf")
TENANT(segs, "segs.elf")
