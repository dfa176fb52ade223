// SPDX-License-Identifier: GPL-2.0
/*
 * hello.c - the smallest module the VM tests load: proves that kbuild,
 * insmod and rmmod work for a target kernel.  It logs at load and unload
 * and shows one read-only debugfs file, /sys/kernel/debug/tapir_hello.
 */
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/module.h>

#define HELLO_TEXT "hello from tapir\n"

/*
 * The VM runner's own test sets this to check that a kernel warning
 * fails the run; nothing else should.
 */
static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "raise a kernel warning at load (runner self-test)");

static struct dentry *hello_file;

static ssize_t hello_read(struct file *file, char __user *buf, size_t len,
			  loff_t *pos)
{
	return simple_read_from_buffer(buf, len, pos, HELLO_TEXT,
				       sizeof(HELLO_TEXT) - 1);
}

static const struct file_operations hello_fops = {
	.owner = THIS_MODULE,
	.read = hello_read,
	.llseek = default_llseek,
};

static int __init hello_init(void)
{
	hello_file = debugfs_create_file("tapir_hello", 0444, NULL, NULL,
					 &hello_fops);
	/* debugfs may be disabled at boot; a test that needs it says so. */
	if (IS_ERR(hello_file))
		return PTR_ERR(hello_file);
	WARN(warn, "hello: warning requested by warn=1\n");
	pr_info("hello: loaded\n");
	return 0;
}

static void __exit hello_exit(void)
{
	debugfs_remove(hello_file);
	pr_info("hello: unloaded\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tapir VM test: load, debugfs file, unload");
