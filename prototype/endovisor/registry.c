// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of sandbox kernels.  A sandbox kernel is a module that
 * registers itself by name at load; a sandbox created for that name pins the
 * module for its whole life, so the kernel's code cannot go away under it,
 * and holds the endovisor's record of it, so the record cannot either.
 *
 * A module's writable data (MOD_DATA) is not all the sandbox's.  Linux
 * puts its own things there: the struct module, and the symbol, string and
 * type tables that /proc/kallsyms reads.  What the sandbox owns is what the
 * sandbox kernel itself declares: its data objects, as the module's own
 * symbols name them.  So at registration the endovisor copies into a record
 * of its own the name, the entry, the ranges of the module's code and
 * read-only data, and the ranges of the kernel's data objects, and every
 * later check reads that record, never memory the sandbox can write.
 */
#include <linux/elf.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "endovisor.h"

static DEFINE_MUTEX(ev_registry_lock);
static LIST_HEAD(ev_registry);

static struct ev_kernel_rec *ev_kernel_find(const char *name)
{
	struct ev_kernel_rec *k;

	list_for_each_entry(k, &ev_registry, node)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

static struct ev_kernel_rec *ev_kernel_find_owner(const struct module *owner)
{
	struct ev_kernel_rec *k;

	list_for_each_entry(k, &ev_registry, node)
		if (k->owner == owner)
			return k;
	return NULL;
}

static struct ev_range ev_mod_range(struct module *mod, enum mod_mem_type type)
{
	unsigned long start = (unsigned long)mod->mem[type].base;

	return (struct ev_range){ start, start + mod->mem[type].size };
}

static bool ev_ranges_overlap(const struct ev_range *a, const struct ev_range *b)
{
	return a->start < b->end && b->start < a->end;
}

static int ev_range_cmp(const void *a, const void *b)
{
	const struct ev_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * A symbol that names one of the kernel's data objects: data or bss, sized,
 * wholly in the module's writable data, and clear of what Linux keeps
 * there (its struct module and its symbol tables).
 */
static bool ev_kernel_object(const struct mod_kallsyms *ks, unsigned int i,
			     const struct ev_range *data,
			     const struct ev_range *linux_own, unsigned int nr_linux,
			     struct ev_range *obj)
{
	const Elf_Sym *sym = &ks->symtab[i];
	unsigned int j;

	switch (ks->typetab[i]) {
	case 'd': case 'D': case 'b': case 'B':
		break;
	default:
		return false;
	}
	if (!sym->st_size || sym->st_value + sym->st_size < sym->st_value)
		return false;
	*obj = (struct ev_range){ sym->st_value, sym->st_value + sym->st_size };
	if (!ev_range_holds(data, obj->start, obj->end))
		return false;
	for (j = 0; j < nr_linux; j++)
		if (ev_ranges_overlap(obj, &linux_own[j]))
			return false;
	return true;
}

/*
 * The kernel's own data: its data objects, sorted and merged where they
 * touch.  The symbols are those Linux kept for the module (core_kallsyms,
 * filled at load, before the module's init registers it; the guest kernel
 * keeps data symbols, CONFIG_KALLSYMS_ALL).
 */
static int ev_kernel_objects(struct ev_kernel_rec *k, struct module *mod)
{
	const struct mod_kallsyms *ks = &mod->core_kallsyms;
	struct ev_range data = ev_mod_range(mod, MOD_DATA);
	unsigned long tables = (unsigned long)ks->symtab;
	struct ev_range linux_own[] = {
		{ (unsigned long)mod, (unsigned long)mod + sizeof(*mod) },
		/* symtab, strtab, typetab: laid out in this order, to typetab's end */
		{ tables, (unsigned long)ks->typetab + ks->num_symtab },
	};
	struct ev_range *r, obj;
	unsigned int i, n = 0, m;

	for (i = 0; i < ks->num_symtab; i++)
		if (ev_kernel_object(ks, i, &data, linux_own, ARRAY_SIZE(linux_own), &obj))
			n++;
	if (!n)
		return 0;
	r = kmalloc_array(n, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	for (i = 0, m = 0; i < ks->num_symtab && m < n; i++)
		if (ev_kernel_object(ks, i, &data, linux_own, ARRAY_SIZE(linux_own), &obj))
			r[m++] = obj;
	sort(r, m, sizeof(*r), ev_range_cmp, NULL);
	for (i = 1, n = 1; i < m; i++) {
		if (r[i].start <= r[n - 1].end)
			r[n - 1].end = max(r[n - 1].end, r[i].end);
		else
			r[n++] = r[i];
	}
	k->objects = r;
	k->nr_objects = n;
	return 0;
}

static int ev_kernel_ranges(struct ev_kernel_rec *k, struct module *mod)
{
	k->text = ev_mod_range(mod, MOD_TEXT);
	k->rodata[0] = ev_mod_range(mod, MOD_RODATA);
	k->rodata[1] = ev_mod_range(mod, MOD_RO_AFTER_INIT);
	return ev_kernel_objects(k, mod);
}

/* Is the caller sandbox code, on a vCPU's carrier? */
static bool ev_called_from_sandbox(void)
{
	struct ev_vcpu *v;
	bool in;

	preempt_disable();
	v = this_cpu_read(ev_cur_vcpu);
	in = v && v->carrier == current;
	preempt_enable();
	return in;
}

/*
 * Is decl a module's own declaration, made from that module's init: decl
 * in the module's memory, its entry in the module's text?
 */
static bool ev_decl_valid(const struct ev_kernel *decl)
{
	struct module *mod;

	preempt_disable();
	mod = ev_linux.module_address((unsigned long)decl);
	preempt_enable();
	if (!mod || mod != decl->owner || mod->state != MODULE_STATE_COMING)
		return false;
	return decl->name && strnlen(decl->name, EV_KERNEL_NAME_MAX) < EV_KERNEL_NAME_MAX &&
	       within_module_mem_type((unsigned long)decl->entry, mod, MOD_TEXT);
}

/*
 * From a module's init only: -EINVAL if decl is not that module's own,
 * -EPERM from sandbox code, -EEXIST if the name or the module has a kernel.
 */
int ev_register_kernel(struct ev_kernel *decl)
{
	struct ev_kernel_rec *k;
	int ret;

	if (ev_called_from_sandbox())
		return -EPERM;
	if (!ev_decl_valid(decl))
		return -EINVAL;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->decl = decl;
	k->owner = decl->owner;
	k->entry = decl->entry;
	strscpy(k->name, decl->name, sizeof(k->name));
	ret = ev_kernel_ranges(k, decl->owner);
	if (ret)
		goto fail;
	mutex_lock(&ev_registry_lock);
	if (ev_kernel_find(k->name) || ev_kernel_find_owner(k->owner)) {
		ret = -EEXIST;
	} else {
		list_add(&k->node, &ev_registry);
		pr_info("endovisor: sandbox kernel '%s' registered\n", k->name);
	}
	mutex_unlock(&ev_registry_lock);
	if (!ret)
		return 0;
fail:
	kfree(k->objects);
	kfree(k);
	return ret;
}
EXPORT_SYMBOL_GPL(ev_register_kernel);

/*
 * From the module's exit, where no sandbox holds it (sandboxes pin the
 * module).  -EBUSY from sandbox code, or while a sandbox holds the record;
 * -ENOENT if decl is not registered.
 */
int ev_unregister_kernel(struct ev_kernel *decl)
{
	struct ev_kernel_rec *k, *found = NULL;
	int ret = -ENOENT;

	if (ev_called_from_sandbox())
		return -EBUSY;
	mutex_lock(&ev_registry_lock);
	list_for_each_entry(k, &ev_registry, node) {
		if (k->decl != decl)
			continue;
		if (k->users) {
			ret = -EBUSY;
		} else {
			list_del(&k->node);
			found = k;
			ret = 0;
		}
		break;
	}
	mutex_unlock(&ev_registry_lock);
	if (found) {
		kfree(found->objects);
		kfree(found);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(ev_unregister_kernel);

/* Finds a kernel by name, pins its module and holds its record; or NULL. */
struct ev_kernel_rec *ev_kernel_get(const char *name)
{
	struct ev_kernel_rec *k;

	mutex_lock(&ev_registry_lock);
	k = ev_kernel_find(name);
	if (k && try_module_get(k->owner))
		k->users++;
	else
		k = NULL;
	mutex_unlock(&ev_registry_lock);
	return k;
}

/* The record is let go before the module: its exit frees the record. */
void ev_kernel_put(struct ev_kernel_rec *k)
{
	struct module *owner = k->owner;

	mutex_lock(&ev_registry_lock);
	k->users--;
	mutex_unlock(&ev_registry_lock);
	module_put(owner);
}
