// SPDX-License-Identifier: GPL-2.0
/*
 * bare_ftrace.c - the floor of bench/kprobe.sh for a function entry
 * through ftrace: an ftrace_ops filtered to __x64_sys_getpid whose
 * callback only counts.  No flags: ftrace passes its ftrace_regs (the
 * arguments) without saving a whole pt_regs, and puts no recursion
 * guard or RCU check in front of a callback that only increments a
 * counter.  The count is printed when the module is removed.
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>

#include "bare_addr.h"

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static void notrace bare_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&hits);
}

static struct ftrace_ops bare_ops = {
	.func = bare_cb,
};

static int __init bare_init(void)
{
	unsigned long addr = bare_getpid_addr();
	int rc;

	if (!addr)
		return -ENOENT;
	rc = ftrace_set_filter_ip(&bare_ops, addr, 0, 0);
	if (rc)
		return rc;
	rc = register_ftrace_function(&bare_ops);
	if (rc)
		ftrace_free_filter(&bare_ops);
	return rc;
}

static void __exit bare_exit(void)
{
	unregister_ftrace_function(&bare_ops);
	ftrace_free_filter(&bare_ops);
	pr_info("bare_ftrace: hits=%ld\n", atomic_long_read(&hits));
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_DESCRIPTION("bench: a bare ftrace callback on __x64_sys_getpid");
MODULE_LICENSE("GPL");
