#!/bin/bash
# check.sh - the transport tests end to end: builds staprun and tptest.ko
# (W=1, no warning allowed) for the 6.1 and 6.12 kernels, boots each
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
  -t SECS  time limit of each boot (default 1200)
  -v       show build logs and the whole test output
EOF
	exit 2
}

kvers=()
limit=1200
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
	echo "# transport: $((n - failed)) passed, $failed failed in" \
	     "$SECONDS s"
	exit $((failed > 0))
}

newest_kernel()
{
	local f

	for f in /boot/vmlinuz-"$1".*; do
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
		    busybox:busybox-static cpio:cpio gzip:gzip; do
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
		elif ! grep -q '^CONFIG_RELAY=y' "/boot/config-$k" ||
		     ! grep -q '^CONFIG_DEBUG_FS=y' "/boot/config-$k"; then
			missing "CONFIG_RELAY and CONFIG_DEBUG_FS in $k" \
				"a kernel built with them"
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

build_module()
{
	local k=$1 b=$tmp/$k/build

	mkdir -p "$b"
	cp "$here/Kbuild" "$here/tptest.c" "$b/"
	if make -C "/lib/modules/$k/build" M="$b" \
	   TAPIR_RUNTIME="$top/runtime" W=1 modules >"$b.log" 2>&1 &&
	   ! grep -qi 'warning' "$b.log"; then
		tap ok "$k: build tptest.ko (W=1, no warning)" "$b.log"
	else
		tap notok "$k: build tptest.ko (W=1, no warning)" "$b.log"
		return 1
	fi
}

# The TAP lines test.sh printed on the console, renumbered into ours.
merge_console()
{
	local k=$1 line

	awk '/@@tapir@@ begin transport/ { on = 1; next }
	     /@@tapir@@ end transport/ { on = 0 }
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
	local k=$1 stage=$tmp/$k/tests/transport

	mkdir -p "$stage"
	cp "$here/test.sh" "$stage/run"
	cp "$tmp/$k/build/tptest.ko" "$tmp/staprun" "$stage/"
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
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-transport.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	build_staprun || finish
	for k in "${kvers[@]}"; do
		build_module "$k"
	done
	for k in "${kvers[@]}"; do
		[ -e "$tmp/$k/build/tptest.ko" ] && boot "$k"
	done
	finish
}

main "$@"
