// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of sandbox kernels.  A sandbox kernel is a module that
 * registers itself by name at load; a sandbox created for that name pins the
 * module for its whole life, so the kernel's code cannot go away under it.
 *
 * The module's struct ev_kernel, and the struct module Linux keeps for it,
 * both lie in the module's writable data, which services may write for the
 * sandbox (sandbox.c).  So the endovisor copies what it needs at
 * registration into a record of its own, and every later check reads that:
 * the name, the entry, and the ranges of the module's code and data.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
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

static struct ev_range ev_mod_range(struct module *mod, enum mod_mem_type type)
{
	unsigned long start = (unsigned long)mod->mem[type].base;

	return (struct ev_range){ start, start + mod->mem[type].size };
}

/* The module's writable data, less its struct module, which lies in it. */
static void ev_kernel_ranges(struct ev_kernel_rec *k, struct module *mod)
{
	k->text = ev_mod_range(mod, MOD_TEXT);
	k->data = ev_mod_range(mod, MOD_DATA);
	k->self = (struct ev_range){ (unsigned long)mod,
				     (unsigned long)mod + sizeof(*mod) };
	k->rodata[0] = ev_mod_range(mod, MOD_RODATA);
	k->rodata[1] = ev_mod_range(mod, MOD_RO_AFTER_INIT);
}

int ev_register_kernel(struct ev_kernel *decl)
{
	struct ev_kernel_rec *k;
	int ret = 0;

	if (!decl->name || !decl->entry || !decl->owner ||
	    strnlen(decl->name, EV_KERNEL_NAME_MAX) >= EV_KERNEL_NAME_MAX)
		return -EINVAL;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->decl = decl;
	k->owner = decl->owner;
	k->entry = decl->entry;
	strscpy(k->name, decl->name, sizeof(k->name));
	ev_kernel_ranges(k, decl->owner);
	mutex_lock(&ev_registry_lock);
	if (ev_kernel_find(k->name)) {
		ret = -EEXIST;
	} else {
		list_add(&k->node, &ev_registry);
		pr_info("endovisor: sandbox kernel '%s' registered\n", k->name);
	}
	mutex_unlock(&ev_registry_lock);
	if (ret)
		kfree(k);
	return ret;
}
EXPORT_SYMBOL_GPL(ev_register_kernel);

/* From the module's exit: no sandbox holds it, or it could not unload. */
void ev_unregister_kernel(struct ev_kernel *decl)
{
	struct ev_kernel_rec *k, *found = NULL;

	mutex_lock(&ev_registry_lock);
	list_for_each_entry(k, &ev_registry, node) {
		if (k->decl == decl) {
			list_del(&k->node);
			found = k;
			break;
		}
	}
	mutex_unlock(&ev_registry_lock);
	kfree(found);
}
EXPORT_SYMBOL_GPL(ev_unregister_kernel);

/* Finds a kernel by name and pins its module; NULL if there is none. */
struct ev_kernel_rec *ev_kernel_get(const char *name)
{
	struct ev_kernel_rec *k;

	mutex_lock(&ev_registry_lock);
	k = ev_kernel_find(name);
	if (k && !try_module_get(k->owner))
		k = NULL;
	mutex_unlock(&ev_registry_lock);
	return k;
}

void ev_kernel_put(struct ev_kernel_rec *k)
{
	module_put(k->owner);
}
