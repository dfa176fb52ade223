// SPDX-License-Identifier: GPL-2.0
/*
 * bare_kprobe.c - the floor of bench/kprobe.sh for kernel.function():
 * a kprobe on __x64_sys_getpid whose pre_handler only counts.  The
 * count is printed when the module is removed.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int bare_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static struct kprobe bare_kp = {
	.symbol_name = "__x64_sys_getpid",
	.pre_handler = bare_pre,
};

static int __init bare_init(void)
{
	return register_kprobe(&bare_kp);
}

static void __exit bare_exit(void)
{
	unregister_kprobe(&bare_kp);
	pr_info("bare_kprobe: hits=%ld\n", atomic_long_read(&hits));
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_DESCRIPTION("bench: a bare kprobe on __x64_sys_getpid that counts");
MODULE_LICENSE("GPL");
