/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bare_uprobe.h - the part the floors of bench/uprobe.sh share: one
 * uprobe consumer on the file PATH at file OFFSET (module parameters
 * path= and offset=), registered on load and removed on unload, on the
 * 6.1 API (by inode and offset) or the 6.12 one (a struct uprobe
 * handle, unregistered without and then with synchronization).  The
 * including file fills in bare_consumer's handler or ret_handler and
 * defines BARE_NAME.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/uprobes.h>
#include <linux/version.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the executable to probe (absolute path)");
static unsigned long offset;
module_param(offset, ulong, 0444);
MODULE_PARM_DESC(offset, "the file offset of the probed instruction");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);
static struct uprobe_consumer bare_consumer;
static struct path bare_path;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static struct uprobe *bare_uprobe;
#endif

static int __init bare_init(void)
{
	struct inode *inode;
	int err;

	if (!path || !offset)
		return -EINVAL;
	err = kern_path(path, LOOKUP_FOLLOW, &bare_path);
	if (err)
		return err;
	inode = d_inode(bare_path.dentry);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	bare_uprobe = uprobe_register(inode, offset, 0, &bare_consumer);
	err = IS_ERR(bare_uprobe) ? PTR_ERR(bare_uprobe) : 0;
#else
	err = uprobe_register(inode, offset, &bare_consumer);
#endif
	if (err)
		path_put(&bare_path);
	return err;
}

static void __exit bare_exit(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(bare_uprobe, &bare_consumer);
	uprobe_unregister_sync();
#else
	uprobe_unregister(d_inode(bare_path.dentry), offset, &bare_consumer);
#endif
	path_put(&bare_path);
	pr_info(BARE_NAME ": hits=%ld\n", atomic_long_read(&hits));
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_LICENSE("GPL");
