// SPDX-License-Identifier: GPL-2.0
/*
 * bare_uretprobe.c - the floor of bench/uprobe.sh for
 * process().function().return: a uretprobe on work() (a consumer with
 * only a ret_handler, placed at the entry) whose handler only counts.
 * The count is printed when the module is removed.
 *
 *   insmod bare_uretprobe.ko path=/abs/work-loop offset=FILE_OFFSET
 */
#define BARE_NAME "bare_uretprobe"
#include "bare_uprobe.h"

static int bare_ret_handler(struct uprobe_consumer *self, unsigned long func,
			    struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static struct uprobe_consumer bare_consumer = {
	.ret_handler = bare_ret_handler,
};

MODULE_DESCRIPTION("bench: a bare uretprobe that counts");
