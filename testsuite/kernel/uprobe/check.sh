#!/bin/bash
# check.sh - the uprobe tests end to end: builds staprun, the static test
# program uptarget (and finds the file offsets of its probe sites), and
# uptest.ko (W=1, no warning allowed) against the kernel API facts of the
# translator's compile probes, for the 6.1 and 6.12 kernels; boots each
# kernel under QEMU with testsuite/vm and runs test.sh there.  Prints TAP;
# a missing prerequisite is a failing test point, never a skip.

set -uo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
vm=$top/testsuite/vm

usage()
{
	cat <<EOF
usage: $prog [-k KVER]... [-t SECS] [-v]
  -k KVER  a kernel release (repeatable); default: the newest 6.1 and
           6.12 kernels in /boot, both required
  -t SECS  time limit of each boot (default 600)
  -v       show build logs and the whole test output
EOF
	exit 2
}

kvers=()
limit=600
verbose=
n=0
failed=0

# tap OK DESC [FILE]: a test point; FILE is shown when it failed.
tap()
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	if [ -n "${3:-}" ] && { [ "$1" != ok ] || [ -n "$verbose" ]; }; then
		sed 's/^/#   /' "$3" | tail -n 40
	fi
}

finish()
{
	echo "1..$n"
	echo "# uprobe: $((n - failed)) passed, $failed failed in $SECONDS s"
	exit $((failed > 0))
}

newest_kernel()
{
	local f

	for f in /boot/vmlinuz-"$1".*[0-9]-amd64; do
		[ -e "$f" ] && echo "${f#/boot/vmlinuz-}"
	done | sort -V | tail -n 1
}

# missing WHAT HOW: a failing test point for a missing prerequisite.
missing()
{
	tap notok "prerequisite: $1 ($2)"
	absent=1
}

prerequisites()
{
	local tool k family

	absent=0
	for tool in gcc:gcc make:make qemu-system-x86_64:qemu-system-x86 \
		    busybox:busybox-static cpio:cpio gzip:gzip \
		    readelf:binutils nm:binutils; do
		command -v "${tool%%:*}" >/dev/null ||
			missing "${tool%%:*}" "apt-get install ${tool#*:}"
	done
	if [ ${#kvers[@]} -eq 0 ]; then
		for family in 6.1 6.12; do
			k=$(newest_kernel "$family")
			if [ -n "$k" ]; then
				kvers+=("$k")
			else
				missing "a $family kernel in /boot" \
					"see testsuite/vm/README.md"
			fi
		done
	fi
	for k in ${kvers[@]+"${kvers[@]}"}; do
		if [ ! -r "/boot/vmlinuz-$k" ] ||
		   [ ! -e "/lib/modules/$k/build/Makefile" ]; then
			missing "kernel $k and its headers" \
				"apt-get install linux-{image,headers}-$k"
		elif ! grep -q '^CONFIG_UPROBES=y' "/boot/config-$k"; then
			missing "CONFIG_UPROBES in $k" "a kernel built with it"
		fi
	done
	[ $absent = 0 ] && tap ok "prerequisites: ${kvers[*]}"
	return $absent
}

# The same warnings as the build of the tree, and none allowed.
build_staprun()
{
	if gcc -O2 -g -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror \
	       -DTAPIR_VERSION='"check"' -o "$tmp/staprun" \
	       "$top"/loader/*.c >"$tmp/staprun.log" 2>&1; then
		tap ok "build staprun" "$tmp/staprun.log"
	else
		tap notok "build staprun" "$tmp/staprun.log"
		return 1
	fi
}

# file_offset FILE SYMBOL: the file offset of SYMBOL's address, through
# the PT_LOAD segment that holds it, as 0x... (what uprobes want).
file_offset()
{
	local addr type off va pa fsz rest

	addr=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$addr" ] || return 1
	addr=$((16#$addr))
	while read -r type off va pa fsz rest; do
		[ "$type" = LOAD ] || continue
		if [ $addr -ge $((va)) ] && [ $addr -lt $((va + fsz)) ]; then
			printf '0x%x\n' $((addr - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

# Static, so that the VM needs no C library for it and _start is the
# first instruction the process runs.
build_program()
{
	local p=$tmp/uptarget s v

	if ! gcc -static -pthread -O2 -g -Wall -Wextra -Werror -o "$p" \
	     "$here/uptarget.c" >"$tmp/uptarget.log" 2>&1; then
		tap notok "build uptarget (static)" "$tmp/uptarget.log"
		return 1
	fi
	: >"$tmp/offsets"
	for s in _start:off_start work:off_work mark:off_mark \
		 uptarget_sem:off_sem; do
		if ! v=$(file_offset "$p" "${s%%:*}"); then
			echo "no offset for ${s%%:*}" >>"$tmp/uptarget.log"
			tap notok "build uptarget (static)" "$tmp/uptarget.log"
			return 1
		fi
		echo "${s#*:}=$v" >>"$tmp/offsets"
	done
	tap ok "build uptarget (static): $(paste -sd ' ' "$tmp/offsets")"
}

# The kernel API facts, as translator/kbuild.c's compile probes find
# them for stapconf.h: the same questions, asked of this kernel.
stapconf()
{
	local k=$1 d=$tmp/$k/conf

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

build_module()
{
	local k=$1 b=$tmp/$k/build facts

	mkdir -p "$b"
	stapconf "$k"
	cp "$here/Kbuild" "$here/uptest.c" "$b/"
	if make -C "/lib/modules/$k/build" M="$b" \
	   TAPIR_RUNTIME="$top/runtime" TAPIR_STAPCONF="$tmp/$k/stapconf.h" \
	   W=1 modules >"$b.log" 2>&1 &&
	   ! grep -qi 'warning' "$b.log"; then
		facts=$(grep -o 'STAPCONF_[A-Z_]*' "$tmp/$k/stapconf.h" |
			paste -sd ' ' -)
		tap ok "$k: build uptest.ko (W=1, no warning${facts:+; $facts})" \
		       "$b.log"
	else
		tap notok "$k: build uptest.ko (W=1, no warning)" "$b.log"
		return 1
	fi
}

# The TAP lines test.sh printed on the console, renumbered into ours.
merge_console()
{
	local k=$1 line

	awk '/@@tapir@@ begin uprobe/ { on = 1; next }
	     /@@tapir@@ end uprobe/ { on = 0 }
	     on' "$tmp/$k/console.log" >"$tmp/$k/test.out"
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*)
			tap ok "$k: ${line#ok * - }" ;;
		"not ok "[0-9]*)
			tap notok "$k: ${line#not ok * - }" ;;
		"#"*)
			echo "$line" ;;
		esac
	done <"$tmp/$k/test.out"
}

boot()
{
	local k=$1 stage=$tmp/$k/tests/uprobe

	mkdir -p "$stage"
	cp "$here/test.sh" "$stage/run"
	cp "$tmp/$k/build/uptest.ko" "$tmp/staprun" "$tmp/uptarget" \
	   "$tmp/offsets" "$stage/"
	if ! "$vm/mkinitramfs.sh" -o "$tmp/$k/initrd" -r "$k" \
	     -t "$tmp/$k/tests" >"$tmp/$k/mkinitramfs.log" 2>&1; then
		tap notok "$k: mkinitramfs" "$tmp/$k/mkinitramfs.log"
		return
	fi
	"$vm/run-vm.sh" -k "$k" -i "$tmp/$k/initrd" -t "$limit" \
		-u $((limit - 60)) -l "$tmp/$k/console.log" \
		${verbose:+-v} >"$tmp/$k/vm.tap"
	merge_console "$k"
	# run-vm.sh's own verdicts: the test's exit status, the kernel.
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*)
			tap ok "$k: ${line#ok * - }" ;;
		"not ok "[0-9]*)
			tap notok "$k: ${line#not ok * - }" ;;
		"Bail out!"*)
			tap notok "$k: ${line#Bail out! }" ;;
		"# "*)
			echo "$line" ;;
		esac
	done <"$tmp/$k/vm.tap"
}

main()
{
	local opt k

	while getopts 'k:t:vh' opt; do
		case $opt in
		k) kvers+=("$OPTARG") ;;
		t) limit=$OPTARG ;;
		v) verbose=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 0 ] || usage
	prerequisites || finish
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-uprobe.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	build_staprun || finish
	build_program || finish
	for k in "${kvers[@]}"; do
		build_module "$k"
	done
	for k in "${kvers[@]}"; do
		[ -e "$tmp/$k/build/uptest.ko" ] && boot "$k"
	done
	finish
}

main "$@"
