// SPDX-License-Identifier: GPL-2.0
/*
 * The Linux functions the endovisor needs that Linux does not export.
 *
 * A stock kernel exports most of what the endovisor needs
 * (apply_to_page_range, vm_mmap, task_work_add, ...), but not the
 * functions below.  They are resolved once, at load, by name:
 * kallsyms_lookup_name is not exported either, so its address is taken from
 * a kprobe placed on it and removed at once: a well-known workaround since
 * Linux 5.7 unexported it, not an interface Linux promises to keep.  If any
 * of them is missing the module refuses to load and names it.
 *
 * The addresses are called indirectly.  A processor that enforces indirect
 * branch tracking (IBT, which this kernel is built to use) faults on an
 * indirect call that does not land on an ENDBR instruction, and the build
 * removes ENDBR from functions whose address Linux itself never takes, as
 * it does for these.  On such a processor the module refuses to load
 * rather than fault at its first call.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <asm/cpufeature.h>

#include "endovisor.h"

struct ev_linux ev_linux;

static const struct {
	const char *name;
	size_t offset;
} ev_needed[] = {
	{ "mm_alloc", offsetof(struct ev_linux, mm_alloc) },
	{ "flush_tlb_mm_range", offsetof(struct ev_linux, flush_tlb_mm_range) },
	{ "switch_mm_irqs_off", offsetof(struct ev_linux, switch_mm_irqs_off) },
	{ "__module_address", offsetof(struct ev_linux, module_address) },
};

int ev_symbols_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long (*lookup)(const char *name);
	unsigned int i;
	int ret;

	if (cpu_feature_enabled(X86_FEATURE_IBT)) {
		pr_err("endovisor: this processor enforces indirect branch tracking, and the unexported functions the endovisor calls may have no ENDBR; refusing to load\n");
		return -EOPNOTSUPP;
	}
	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("endovisor: cannot find kallsyms_lookup_name (%d)\n", ret);
		return ret;
	}
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	for (i = 0; i < ARRAY_SIZE(ev_needed); i++) {
		unsigned long addr = lookup(ev_needed[i].name);

		if (!addr) {
			pr_err("endovisor: this kernel has no %s; refusing to load\n",
			       ev_needed[i].name);
			return -ENOENT;
		}
		*(unsigned long *)((char *)&ev_linux + ev_needed[i].offset) = addr;
	}
	return 0;
}
