// SPDX-License-Identifier: GPL-2.0
/*
 * proc's loader: a tenant's ELF image from the kernel's own blobs, and its
 * stack, into fresh frames (memory.c's map_fresh).  The linux kernel loads
 * from its file system instead (kernels/linux/exec.c).
 */
#include <linux/elf.h>

#include "proc.h"

/*
 * Load an ELF executable: each PT_LOAD segment into fresh frames at its
 * address, with its permissions.  Everything is checked against the image's
 * size and the tenant region first; the image is ours, but a loader that
 * trusted its input would be the first hole in the kernel proper.
 */
long mem_load(struct proc *p, const char *image, unsigned long size, unsigned long *entry)
{
	const Elf64_Ehdr *eh = (const void *)image;
	const Elf64_Phdr *ph;
	unsigned int i;
	long err;

	if (size < sizeof(*eh) || eh->e_ident[EI_MAG0] != ELFMAG0 ||
	    eh->e_ident[EI_MAG1] != ELFMAG1 || eh->e_ident[EI_MAG2] != ELFMAG2 ||
	    eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_type != ET_EXEC || eh->e_phentsize != sizeof(*ph) ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(*ph) ||
	    !mem_in_region(eh->e_entry, 1))
		return -ENOEXEC;
	ph = (const void *)(image + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++, ph++) {
		unsigned long start, end, va;
		u8 prot = EV_PROT_READ;

		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		if (ph->p_filesz > ph->p_memsz || ph->p_offset > size ||
		    ph->p_filesz > size - ph->p_offset || !mem_in_region(ph->p_vaddr, ph->p_memsz))
			return -ENOEXEC;
		if (ph->p_flags & PF_W)
			prot |= EV_PROT_WRITE;
		if (ph->p_flags & PF_X)
			prot |= EV_PROT_EXEC;
		start = ph->p_vaddr & ~PAGE_MASK_LOW;
		end = (ph->p_vaddr + ph->p_memsz + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
		for (va = start; va < end; va += PAGE)
			if (page_find(p, va))
				return -ENOEXEC;	/* segments sharing a page: not ours */
		err = map_fresh(p, start, end - start, prot);
		if (err)
			return err;
		/* The file's bytes, page by page; the rest stays zero. */
		for (va = start; va < end; va += PAGE) {
			unsigned long lo = max_t(unsigned long, va, ph->p_vaddr);
			unsigned long hi = min(va + PAGE,
					       (unsigned long)(ph->p_vaddr + ph->p_filesz));

			if (lo < hi)
				vostd_memcpy((char *)page_find(p, va)->f->mem + (lo - va),
					     image + ph->p_offset + (lo - ph->p_vaddr), hi - lo);
		}
	}
	*entry = eh->e_entry;
	return 0;
}

long mem_stack(struct proc *p)
{
	return map_fresh(p, TENANT_STACK_TOP - TENANT_STACK_PAGES * PAGE,
			 TENANT_STACK_PAGES * PAGE, EV_PROT_READ | EV_PROT_WRITE);
}
