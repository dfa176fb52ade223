// SPDX-License-Identifier: GPL-2.0
/*
 * bare_uprobe.c - the floor of bench/uprobe.sh for
 * process().function(): a uprobe on work()'s entry whose handler only
 * counts.  The count is printed when the module is removed.
 *
 *   insmod bare_uprobe.ko path=/abs/work-loop offset=FILE_OFFSET
 */
#define BARE_NAME "bare_uprobe"
#include "bare_uprobe.h"

static int bare_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static struct uprobe_consumer bare_consumer = {
	.handler = bare_handler,
};

MODULE_DESCRIPTION("bench: a bare uprobe that counts");
