// SPDX-License-Identifier: GPL-2.0
/*
 * bare_kretprobe.c - the floor of bench/kprobe.sh for
 * kernel.function().return: a kretprobe on __x64_sys_getpid whose
 * handler only counts.  The count, and the returns missed for want of
 * an instance, are printed when the module is removed.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int bare_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static struct kretprobe bare_krp = {
	.kp.symbol_name = "__x64_sys_getpid",
	.handler = bare_ret,
};

static int __init bare_init(void)
{
	return register_kretprobe(&bare_krp);
}

static void __exit bare_exit(void)
{
	unregister_kretprobe(&bare_krp);
	pr_info("bare_kretprobe: hits=%ld missed=%d\n",
		atomic_long_read(&hits), bare_krp.nmissed);
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_DESCRIPTION("bench: a bare kretprobe on __x64_sys_getpid that counts");
MODULE_LICENSE("GPL");
