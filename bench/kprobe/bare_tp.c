// SPDX-License-Identifier: GPL-2.0
/*
 * bare_tp.c - the floor of bench/kprobe.sh for kernel.trace(): a probe
 * on the raw_syscalls:sys_enter tracepoint that only counts.  The
 * tracepoint is found by name among the kernel's own; the count is
 * printed when the module is removed.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static atomic_long_t hits = ATOMIC_LONG_INIT(0);
static struct tracepoint *sys_enter_tp;

static void bare_probe(void *data, struct pt_regs *regs, long id)
{
	atomic_long_inc(&hits);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		*(struct tracepoint **)priv = tp;
}

static int __init bare_init(void)
{
	for_each_kernel_tracepoint(find_tp, &sys_enter_tp);
	if (!sys_enter_tp) {
		pr_err("bare_tp: no tracepoint sys_enter\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(sys_enter_tp, bare_probe, NULL);
}

static void __exit bare_exit(void)
{
	tracepoint_probe_unregister(sys_enter_tp, bare_probe, NULL);
	tracepoint_synchronize_unregister();
	pr_info("bare_tp: hits=%ld\n", atomic_long_read(&hits));
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_DESCRIPTION("bench: a bare probe on raw_syscalls:sys_enter that counts");
MODULE_LICENSE("GPL");
