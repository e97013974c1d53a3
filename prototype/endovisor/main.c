// SPDX-License-Identifier: GPL-2.0
/*
 * The endovisor: hosts sandbox kernels inside a stock Linux.
 *
 * /dev/endovisor is its only door.  One open file is one sandbox
 * (abi/ev_ioctl.h); its live counts are in
 * /sys/class/misc/endovisor/live, so a test can see that teardown left
 * nothing behind.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "endovisor.h"
#include "ev_ioctl.h"
#include "tenant.h"
#include "kick.h"

struct ev_file {
	struct mutex lock;	/* creation */
	struct ev_sandbox *sb;
};

static int ev_open(struct inode *inode, struct file *file)
{
	struct ev_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int ev_release(struct inode *inode, struct file *file)
{
	struct ev_file *f = file->private_data;

	if (f->sb)
		ev_sandbox_destroy(f->sb);
	kfree(f);
	return 0;
}

static long ev_ioctl_create(struct ev_file *f, void __user *arg)
{
	struct ev_create c;
	struct ev_sandbox *sb;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.flags & ~EV_CREATE_FLAGS || !memchr(c.kernel, '\0', sizeof(c.kernel)) ||
	    !memchr(c.args, '\0', sizeof(c.args)))
		return -EINVAL;
	mutex_lock(&f->lock);
	if (f->sb) {
		mutex_unlock(&f->lock);
		return -EBUSY;
	}
	sb = ev_sandbox_create(c.kernel, c.nr_vcpus, c.args, c.flags);
	if (!IS_ERR(sb))
		smp_store_release(&f->sb, sb);	/* pairs with ev_ioctl, ev_read */
	mutex_unlock(&f->lock);
	return PTR_ERR_OR_ZERO(sb);
}

/*
 * The statistics are large (a record per vCPU): on the heap, zeroed so
 * that no padding carries old memory to the caller, and out of
 * ev_ioctl's frame, which a KASAN build's redzones took past 2 KiB.
 */
static long ev_ioctl_stats(struct ev_sandbox *sb, void __user *arg)
{
	struct ev_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	long ret;

	if (!st)
		return -ENOMEM;
	ev_stats_read(sb, st);
	ret = copy_to_user(arg, st, sizeof(*st)) ? -EFAULT : 0;
	kfree(st);
	return ret;
}

static long ev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ev_file *f = file->private_data;
	struct ev_sandbox *sb;

	if (cmd == EV_CREATE)
		return ev_ioctl_create(f, (void __user *)arg);
	sb = smp_load_acquire(&f->sb);	/* pairs with ev_ioctl_create */
	if (!sb)
		return -ENXIO;
	switch (cmd) {
	case EV_RUN_VCPU:
		return ev_sandbox_run_vcpu(sb, file, arg);
	case EV_STATS:
		return ev_ioctl_stats(sb, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static ssize_t ev_read(struct file *file, char __user *buf, size_t count,
		       loff_t *pos)
{
	struct ev_file *f = file->private_data;
	/* Pairs with ev_ioctl_create: a sandbox seen is whole. */
	struct ev_sandbox *sb = smp_load_acquire(&f->sb);

	if (!sb)
		return -ENXIO;
	return ev_log_read(&sb->log, buf, count, pos);
}

static const struct file_operations ev_fops = {
	.owner = THIS_MODULE,
	.open = ev_open,
	.release = ev_release,
	.unlocked_ioctl = ev_ioctl,
	.read = ev_read,
};

static ssize_t live_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return ev_live_show(buf);
}
static DEVICE_ATTR_RO(live);

static struct attribute *ev_attrs[] = {
	&dev_attr_live.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ev);

static struct miscdevice ev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "endovisor",
	.fops = &ev_fops,
	.groups = ev_groups,
	.mode = 0600,
};

static int __init ev_init(void)
{
	int ret;

	ret = ev_symbols_init();
	if (ret)
		return ret;
	ret = ev_calibrate_init();
	if (ret)
		return ret;
	ev_vm_module_init();
	ret = ev_kick_module_init();
	if (ret)
		goto no_kick;
	ret = ev_trap_module_init();
	if (ret)
		goto no_trap;
	preempt_notifier_inc();
	ret = misc_register(&ev_misc);
	if (ret)
		goto no_misc;
	pr_info("endovisor: loaded, ABI %d, %s preemption\n", EV_ABI_VERSION,
		preempt_model_full() ? "full" : "partial");
	return 0;
no_misc:
	preempt_notifier_dec();
	ev_trap_module_exit();
no_trap:
	ev_kick_module_exit();
no_kick:
	ev_calibrate_exit();
	return ret;
}

static void __exit ev_exit(void)
{
	misc_deregister(&ev_misc);
	preempt_notifier_dec();
	ev_trap_module_exit();
	ev_kick_module_exit();
	ev_calibrate_exit();
	rcu_barrier();		/* grant.c's call_rcu callbacks are this module's code */
	ev_live_check_none();
	pr_info("endovisor: unloaded\n");
}

module_init(ev_init);
module_exit(ev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("endovisor: sandbox kernels inside a stock Linux");
