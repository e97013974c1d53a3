// SPDX-License-Identifier: GPL-2.0
/*
 * segs: loads the user data selector into FS and GS, which also sets their
 * bases (to zero, that descriptor's base), and checks that its next trap
 * leaves both selectors zero again, and that a child it forks starts with
 * them zero.  The endovisor zeroes a tenant's FS and GS at every trap and
 * gives the launcher its own back when the carrier goes home; without that
 * the launcher would lose its thread-local storage, which lives at its FS
 * base, and die when the sandbox ends.
 */
#include "lib/tenant.h"

#define USER_DS	0x2b	/* Linux's __USER_DS on x86-64 */

static unsigned int fs_sel(void)
{
	unsigned short s;

	asm volatile("mov %%fs, %0" : "=r"(s));
	return s;
}

static unsigned int gs_sel(void)
{
	unsigned short s;

	asm volatile("mov %%gs, %0" : "=r"(s));
	return s;
}

int main(void)
{
	long child;

	if (fs_sel() || gs_sel()) {
		print("segs: started with fs %x gs %x", fs_sel(), gs_sel());
		return 1;
	}
	asm volatile("mov %0, %%fs\n\tmov %0, %%gs" : : "r"((unsigned short)USER_DS));
	if (fs_sel() != USER_DS || gs_sel() != USER_DS) {
		print("segs: could not load fs and gs (fs %x gs %x)", fs_sel(), gs_sel());
		return 2;
	}
	yield();
	if (fs_sel() || gs_sel()) {
		print("segs: fs %x gs %x after a trap", fs_sel(), gs_sel());
		return 3;
	}
	asm volatile("mov %0, %%fs" : : "r"((unsigned short)USER_DS));
	child = fork();
	if (child == 0)
		exit(fs_sel() || gs_sel() ? 4 : 0);
	if (wait(child) != 0) {
		print("segs: the child did not start with fs and gs zero");
		return 4;
	}
	print("segs: fs and gs loaded with %x, zero again after a trap and in a child", USER_DS);
	return 0;
}
