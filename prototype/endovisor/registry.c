// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of sandbox kernels.  A sandbox kernel is a module that
 * registers itself by name at load; a sandbox created for that name pins the
 * module for its whole life, so the kernel's code cannot go away under it.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "endovisor.h"

static DEFINE_MUTEX(ev_registry_lock);
static struct ev_kernel *ev_registry;

static struct ev_kernel *ev_kernel_find(const char *name)
{
	struct ev_kernel *k;

	for (k = ev_registry; k; k = k->next)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

int ev_register_kernel(struct ev_kernel *k)
{
	int ret = 0;

	if (!k->name || !k->entry || !k->owner ||
	    strnlen(k->name, EV_KERNEL_NAME_MAX) >= EV_KERNEL_NAME_MAX)
		return -EINVAL;
	mutex_lock(&ev_registry_lock);
	if (ev_kernel_find(k->name)) {
		ret = -EEXIST;
	} else {
		k->next = ev_registry;
		ev_registry = k;
		pr_info("endovisor: sandbox kernel '%s' registered\n", k->name);
	}
	mutex_unlock(&ev_registry_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ev_register_kernel);

void ev_unregister_kernel(struct ev_kernel *k)
{
	struct ev_kernel **pp;

	mutex_lock(&ev_registry_lock);
	for (pp = &ev_registry; *pp; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	}
	mutex_unlock(&ev_registry_lock);
}
EXPORT_SYMBOL_GPL(ev_unregister_kernel);

/* Finds a kernel by name and pins its module; NULL if there is none. */
struct ev_kernel *ev_kernel_get(const char *name)
{
	struct ev_kernel *k;

	mutex_lock(&ev_registry_lock);
	k = ev_kernel_find(name);
	if (k && !try_module_get(k->owner))
		k = NULL;
	mutex_unlock(&ev_registry_lock);
	return k;
}

void ev_kernel_put(struct ev_kernel *k)
{
	module_put(k->owner);
}
