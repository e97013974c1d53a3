// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: what Linux keeps in the module's writable data, and the
 * registry.  Linux puts the module's symbol, string and type tables (the
 * ones /proc/kallsyms reads) in the same memory as the kernel's own
 * variables; services must write and read only the variables.  The tables
 * are found from THIS_MODULE's core_kallsyms, which this code, running in
 * kernel mode, may read directly.  Then the registry's two functions,
 * called from sandbox code while this sandbox runs: both are refused.
 */
#include "hostile.h"

#define VA		(EV_TENANT_BASE + 0x400000)

/* The kernel's own variables: the services' to write for it. */
static u64 own_out[2];
static char own_line[] = "hostile: a log line from the kernel's own data";
static struct ev_vm_op own_ops[1];
static struct ev_tenant_ctx own_ctx;

static long twin_entry(struct ev_vcpu_shared *shared)
{
	return 0;
}

/* A second kernel of this module, which sandbox code tries to register. */
static struct ev_kernel twin = {
	.name = "hostile_twin", .owner = THIS_MODULE, .entry = twin_entry,
};

static bool same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static bool data_symbol(char type)
{
	return type == 'd' || type == 'D' || type == 'b' || type == 'B';
}

/* The address of this module's symbol name, or 0. */
static unsigned long own_symbol(const char *name)
{
	const struct mod_kallsyms *ks = &THIS_MODULE->core_kallsyms;
	unsigned int i;

	for (i = 0; i < ks->num_symtab; i++)
		if (same(ks->strtab + ks->symtab[i].st_name, name))
			return ks->symtab[i].st_value;
	return 0;
}

/* Where the last of the kernel's data objects in MOD_DATA ends. */
static unsigned long last_object_end(void)
{
	const struct mod_kallsyms *ks = &THIS_MODULE->core_kallsyms;
	const struct module_memory *data = &THIS_MODULE->mem[MOD_DATA];
	unsigned long base = (unsigned long)data->base, end = base;
	unsigned long self = (unsigned long)THIS_MODULE;
	unsigned int i;

	for (i = 0; i < ks->num_symtab; i++) {
		const Elf_Sym *s = &ks->symtab[i];

		if (!data_symbol(ks->typetab[i]) || !s->st_size || s->st_value == self ||
		    s->st_value < base || s->st_value + s->st_size > base + data->size)
			continue;
		if (s->st_value + s->st_size > end)
			end = s->st_value + s->st_size;
	}
	return end;
}

static void table_cases(long vm)
{
	const struct mod_kallsyms *ks = &THIS_MODULE->core_kallsyms;
	const struct module_memory *data = &THIS_MODULE->mem[MOD_DATA];
	unsigned long symtab = (unsigned long)ks->symtab;
	unsigned long strtab = (unsigned long)ks->strtab;
	unsigned long typetab = (unsigned long)ks->typetab;
	unsigned long data_end = (unsigned long)data->base + data->size;
	unsigned long past = last_object_end();

	expect("grant_out_own_symtab", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, symtab, 0, 0));
	expect("grant_out_own_strtab", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, strtab, 0, 0));
	expect("grant_out_own_typetab", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, typetab, 0, 0));
	expect("grant_out_past_last_object", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, past, 0, 0));
	expect("grant_out_data_end", -EFAULT, call(EV_SVC_FRAME_GRANT, 1, data_end - 8, 0, 0));
	expect("grant_out_own_static", 1,
	       call(EV_SVC_FRAME_GRANT, 1, (unsigned long)own_out, 0, 0));

	expect("copy_from_into_own_symtab", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, symtab, VA, 8));
	expect("copy_from_into_own_strtab", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, strtab, VA, 8));
	expect("copy_from_into_own_typetab", -EFAULT,
	       call(EV_SVC_COPY_FROM_TENANT, vm, typetab, VA, 8));
	expect("copy_from_into_own_static", 0,
	       call(EV_SVC_COPY_FROM_TENANT, vm, (unsigned long)&own_out[1], VA, 8));
	expect("copy_to_from_own_symtab", -EFAULT,
	       call(EV_SVC_COPY_TO_TENANT, vm, VA, symtab, 8));

	expect("batch_ops_own_symtab", -EFAULT, call(EV_SVC_VM_BATCH, vm, symtab, 1, 0));
	expect("batch_ops_own_strtab", -EFAULT, call(EV_SVC_VM_BATCH, vm, strtab, 1, 0));
	own_ops[0] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RW, .va = VA + PAGE,
					.frame = own_out[0] };
	expect("batch_ops_own_static", 1,
	       call(EV_SVC_VM_BATCH, vm, (unsigned long)own_ops, 1, 0));

	expect("run_ctx_own_symtab", -EFAULT, call(EV_SVC_TENANT_RUN, vm, symtab, 0, 0));
	expect("run_ctx_own_strtab", -EFAULT, call(EV_SVC_TENANT_RUN, vm, strtab, 0, 0));
	/* Past the ownership check, to the registers' own: a kernel rip. */
	own_ctx.rip = ~0UL;
	expect("run_ctx_own_static", -EINVAL,
	       call(EV_SVC_TENANT_RUN, vm, (unsigned long)&own_ctx, 0, 0));

	expect("log_from_own_symtab", -EFAULT, call(EV_SVC_LOG, symtab, 8, 0, 0));
	expect("log_from_own_strtab", -EFAULT, call(EV_SVC_LOG, strtab, 8, 0, 0));
	expect("log_across_last_object_end", -EFAULT, call(EV_SVC_LOG, past - 4, 8, 0, 0));
	expect("log_from_own_static", 0,
	       call(EV_SVC_LOG, (unsigned long)own_line, sizeof(own_line) - 1, 0, 0));
}

/* The registry's functions, called by this sandbox's own code. */
static void registry_cases(void)
{
	struct ev_kernel *own = (struct ev_kernel *)own_symbol("vostd_ev_kernel");
	long r;

	expect("unregister_own_kernel_running", -EBUSY,
	       own ? ev_unregister_kernel(own) : -ENOENT);
	expect("unregister_unknown_from_sandbox", -EBUSY, ev_unregister_kernel(&twin));
	r = ev_register_kernel(&twin);
	if (!r)		/* it should not have been: take it back */
		ev_unregister_kernel(&twin);
	expect("register_from_sandbox", -EPERM, r);
	/* The record this sandbox runs on is still there, and still says the same. */
	expect("log_from_own_static_after", 0,
	       call(EV_SVC_LOG, (unsigned long)own_line, sizeof(own_line) - 1, 0, 0));
}

void hostile_registry_cases(void)
{
	void *frame = vostd_frame_alloc();
	long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

	if (!frame || vostd_is_err(vm) ||
	    call(EV_SVC_VM_MAP, vm, VA, (unsigned long)frame, RW)) {
		expect("registry_setup", 0, -ENOMEM);
		return;
	}
	table_cases(vm);
	registry_cases();
	call(EV_SVC_VM_UNMAP, vm, VA, 2, 0);
	call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	vostd_frame_free(frame);
}
