/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bare_addr.h - the ftrace location of __x64_sys_getpid for the ftrace
 * and fprobe floors.  Filtering by name does not work there: the
 * function shares its address with __do_sys_getpid and
 * __ia32_sys_getpid, and ftrace knows the record by one of the other
 * names.  A disabled kprobe on the symbol, registered and removed at
 * once, gives the address of its fentry call (kprobes put it there).
 */
#ifndef BARE_ADDR_H
#define BARE_ADDR_H

#include <linux/kprobes.h>

static unsigned long bare_getpid_addr(void)
{
	struct kprobe kp = {
		.symbol_name = "__x64_sys_getpid",
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

#endif
