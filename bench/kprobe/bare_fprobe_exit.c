// SPDX-License-Identifier: GPL-2.0
/*
 * bare_fprobe_exit.c - the floor of bench/kprobe.sh for a function
 * return through fprobe (kernels with CONFIG_FPROBE; Kbuild builds it
 * only there): an fprobe on __x64_sys_getpid with an exit handler that
 * only counts and no entry handler, as bare_kretprobe.c is for
 * kretprobes.  The count is printed when the module is removed.
 */
#include <linux/atomic.h>
#include <linux/fprobe.h>
#include <linux/module.h>

#include "bare_addr.h"

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static void bare_exit_handler(struct fprobe *fp, unsigned long entry_ip,
			      unsigned long ret_ip, struct pt_regs *regs,
			      void *entry_data)
{
	atomic_long_inc(&hits);
}

static struct fprobe bare_fp = {
	.exit_handler = bare_exit_handler,
	/* as a kretprobe's default: enough for every CPU's nesting */
	.nr_maxactive = 0,
};

static int __init bare_init(void)
{
	unsigned long addr = bare_getpid_addr();

	if (!addr)
		return -ENOENT;
	return register_fprobe_ips(&bare_fp, &addr, 1);
}

static void __exit bare_exit(void)
{
	unregister_fprobe(&bare_fp);
	pr_info("bare_fprobe_exit: hits=%ld\n", atomic_long_read(&hits));
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_DESCRIPTION("bench: a bare fprobe exit handler on __x64_sys_getpid");
MODULE_LICENSE("GPL");
