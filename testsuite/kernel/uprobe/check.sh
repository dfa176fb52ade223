#!/bin/bash
# check.sh - the uprobe tests end to end: builds staprun, the static test
# program uptarget (and finds the file offsets of its probe sites), and
# uptest.ko (W=1, no warning allowed) against the kernel API facts of the
# translator's compile probes, for the 6.1 and 6.12 kernels; boots each
# kernel under QEMU with testsuite/vm and runs test.sh there.  Prints TAP;
# a missing prerequisite is a failing test point, never a skip.  The
# skeleton is ../suite.sh.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
suite=uprobe
module=uptest
default_limit=600
suite_tools="readelf:binutils nm:binutils"
suite_configs=(UPROBES)
stage_extra="uptarget offsets"

# shellcheck source=testsuite/kernel/suite.sh
. "$here/../suite.sh"

# file_offset FILE SYMBOL: the file offset of SYMBOL's address, through
# the PT_LOAD segment that holds it, as 0x... (what uprobes want).
file_offset()
{
	local addr type off va fsz

	addr=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$addr" ] || return 1
	addr=$((16#$addr))
	while read -r type off va _ fsz _; do
		[ "$type" = LOAD ] || continue
		if [ $addr -ge $((va)) ] && [ $addr -lt $((va + fsz)) ]; then
			printf '0x%x\n' $((addr - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

# suite_build: uptarget and its offsets.  Static, so that the VM needs no
# C library for it and _start is the first instruction the process runs.
suite_build()
{
	local p=$tmp/uptarget s v

	if ! gcc -static -pthread -O2 -g -Wall -Wextra -Werror -o "$p" \
	     "$here/uptarget.c" >"$tmp/uptarget.log" 2>&1; then
		tap_result notok "build uptarget (static)" \
			   "$tmp/uptarget.log"
		return 1
	fi
	: >"$tmp/offsets"
	for s in _start:off_start work:off_work mark:off_mark \
		 uptarget_sem:off_sem; do
		if ! v=$(file_offset "$p" "${s%%:*}"); then
			echo "no offset for ${s%%:*}" >>"$tmp/uptarget.log"
			tap_result notok "build uptarget (static)" \
				   "$tmp/uptarget.log"
			return 1
		fi
		echo "${s#*:}=$v" >>"$tmp/offsets"
	done
	tap_result ok \
		"build uptarget (static): $(paste -sd ' ' "$tmp/offsets")"
}

# The kernel API facts, as translator/kbuild.c's compile probes find
# them for stapconf.h: the same questions, asked of this kernel.
stapconf()
{
	local k=$1
	local d=$tmp/$k/conf

	mkdir -p "$d"
	cat >"$d/t0.c" <<'EOF'
#include <linux/module.h>
#include <linux/uprobes.h>
struct uprobe *t(struct inode *i, struct uprobe_consumer *c);
struct uprobe *t(struct inode *i, struct uprobe_consumer *c)
{ struct uprobe *u = uprobe_register(i, 0, 0, c);
  uprobe_unregister_nosync(u, c); uprobe_unregister_sync();
  return u; }
MODULE_LICENSE("GPL");
EOF
	cat >"$d/t1.c" <<'EOF'
#include <linux/module.h>
#include <linux/uprobes.h>
_Static_assert(__same_type(((struct uprobe_consumer *)0)->filter,
 bool (*)(struct uprobe_consumer *, struct mm_struct *)), "");
MODULE_LICENSE("GPL");
EOF
	cat >"$d/t2.c" <<'EOF'
#include <linux/module.h>
#include <linux/uprobes.h>
_Static_assert(__same_type(((struct uprobe_consumer *)0)->handler,
 int (*)(struct uprobe_consumer *, struct pt_regs *, __u64 *)), "");
MODULE_LICENSE("GPL");
EOF
	printf 'obj-m += t0.o t1.o t2.o\n' >"$d/Kbuild"
	make -C "/lib/modules/$k/build" M="$d" -k modules >"$d/log" 2>&1
	{
		echo "/* kernel API facts found by compile probes */"
		[ -e "$d/t0.o" ] && echo "#define STAPCONF_UPROBE_REGISTER_UPROBE 1"
		[ -e "$d/t1.o" ] && echo "#define STAPCONF_UPROBE_FILTER_MM 1"
		[ -e "$d/t2.o" ] && echo "#define STAPCONF_UPROBE_HANDLER_DATA 1"
	} >"$tmp/$k/stapconf.h"
}

# uptest.ko is built against the facts of its kernel, which its test
# point names.
suite_module_setup()
{
	stapconf "$1"
	module_make_args=(TAPIR_STAPCONF="$tmp/$1/stapconf.h")
}

suite_module_note()
{
	local facts

	facts=$(grep -o 'STAPCONF_[A-Z_]*' "$tmp/$1/stapconf.h" |
		paste -sd ' ' -)
	echo "${facts:+; $facts}"
}

suite_main "$@"
