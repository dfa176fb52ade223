#!/bin/bash
# check-vm.sh - the kernel tests: builds the modules of testsuite/kernel/*
# for every target kernel, then boots each kernel once under QEMU (TCG) and
# runs the tests there.  TAP; a failure or a missing prerequisite exits 1.

set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
kernel_tests=$(cd "$here/../kernel" && pwd)
# tap_result, tap_finish, kernel_options, missing_tools, default_kernels
# shellcheck source=testsuite/lib.sh
. "$here/../lib.sh"

usage()
{
	cat <<EOF
usage: $prog [-k KVER]... [-t SECS] [-v] [TEST...]
  -k KVER  a kernel release to test (repeatable); default: the newest
           6.1, 6.12 and 6.12-rt kernels in /boot, all required
  -t SECS  time limit of each boot (default 240)
  -v       show the build logs, the consoles and every test's output
  TEST     a directory of testsuite/kernel/ (default: all those with a run
           script); the runner's self-tests always run
EOF
	exit 2
}

kvers=()
limit=240
verbose=
tests=()
n=0
failed=0

# need WHAT HOW, no_kernel FAMILY: what check_prerequisites lists (called
# by missing_tools and default_kernels).
# shellcheck disable=SC2317
need()
{
	missing+=("$1 ($2)")
}

# shellcheck disable=SC2317
no_kernel()
{
	missing+=("a $1 kernel (apt-get install $(family_packages "$1"))")
}

# Lists in $missing every prerequisite that is not there, choosing the
# kernels first unless -k named them.
check_prerequisites()
{
	local k hint

	missing=()
	missing_tools need qemu-system-x86_64:qemu-system-x86 \
		busybox:busybox-static cpio:cpio gzip:gzip xz:xz-utils \
		zstd:zstd make:make gcc:gcc base64:coreutils
	default_kernels no_kernel
	for k in ${kvers[@]+"${kvers[@]}"}; do
		hint="apt-get install linux-image-$k"
		[ -r "/boot/vmlinuz-$k" ] ||
			missing+=("/boot/vmlinuz-$k ($hint)")
		hint="apt-get install linux-headers-$k"
		[ -e "/lib/modules/$k/build/Makefile" ] ||
			missing+=("the headers of $k ($hint)")
	done
}

# build_test KVER NAME: the modules of one test, for one kernel, staged
# with the rest of the test in $tmp/KVER/tests/NAME.
build_test()
{
	local k=$1 name=$2 src=$kernel_tests/$2
	local build=$tmp/$k/build/$name stage=$tmp/$k/tests/$name

	mkdir -p "$stage"
	cp -R "$src/." "$stage/"
	[ -e "$src/Kbuild" ] || return 0
	rm -f "$stage"/Kbuild "$stage"/Makefile "$stage"/*.[ch]
	mkdir -p "$build"
	cp -R "$src/." "$build/"
	if make -C "/lib/modules/$k/build" M="$build" modules \
	   >"$build.log" 2>&1 && ! grep -qi 'warning' "$build.log"; then
		cp "$build"/*.ko "$stage/"
		tap_result ok "$k: build $name" "$build.log"
	else
		tap_result notok "$k: build $name (errors or warnings)" \
			   "$build.log"
	fi
}

# Names of the runner's own tests, as they appear in the VM.
stage_selftests()
{
	local k=$1 dir

	for dir in "$here"/selftest/*/; do
		dir=${dir%/}
		cp -R "$dir" "$tmp/$k/tests/vm-${dir##*/}"
	done
}

# tap_merge KVER FILE: the TAP of one run-vm.sh, renumbered into ours,
# each description prefixed with the kernel (said once).
tap_merge()
{
	local line desc

	while IFS= read -r line; do
		desc=${line#*ok [0-9]* - }
		desc="$1: ${desc/#vm $1: /vm: }"
		case $line in
		"ok "[0-9]*)
			tap_result ok "$desc" ;;
		"not ok "[0-9]*)
			tap_result notok "$desc" ;;
		"Bail out!"*)
			tap_result notok "$1: ${line#Bail out! }" ;;
		1..*) ;;
		*) echo "$line" ;;
		esac
	done <"$2"
}

boot_kernel()
{
	local k=$1
	local out=$tmp/$k/tap

	if ! "$here/mkinitramfs.sh" -o "$tmp/$k/initrd" -r "$k" \
	     -t "$tmp/$k/tests" -f "$(command -v env):/usr/local/bin/host-env" \
	     >"$tmp/$k/mkinitramfs.log" 2>&1; then
		tap_result notok "$k: mkinitramfs" "$tmp/$k/mkinitramfs.log"
		return
	fi
	"$here/run-vm.sh" -k "$k" -i "$tmp/$k/initrd" -t "$limit" \
		${verbose:+-v} >"$out" || true
	tap_merge "$k" "$out"
}

# The runner must see a kernel warning: load hello with warn=1 and
# expect the run to fail, naming the warning.
selftest_warning()
{
	local k=$1
	local out=$tmp/$k/warn.tap

	if "$here/run-vm.sh" -k "$k" -i "$tmp/$k/initrd" -t "$limit" \
	   -c 'insmod /tests/hello/hello.ko warn=1' >"$out"; then
		tap_result notok "$k: a kernel warning fails the run" "$out"
	elif grep -q '^not ok .* - vm .*kernel: WARNING' "$out"; then
		tap_result ok "$k: a kernel warning fails the run" "$out"
	else
		tap_result notok "$k: a kernel warning fails the run" \
			   "$out"
	fi
}

main()
{
	local k name

	kernel_options "$@"
	tests=(${operands[@]+"${operands[@]}"})
	if [ ${#tests[@]} -eq 0 ]; then
		for name in "$kernel_tests"/*/run; do
			[ -e "$name" ] || continue
			name=${name%/run}
			tests+=("${name##*/}")
		done
	fi
	for name in ${tests[@]+"${tests[@]}"}; do
		if [ ! -x "$kernel_tests/$name/run" ]; then
			echo "$prog: no test $kernel_tests/$name/run" >&2
			exit 2
		fi
	done

	check_prerequisites
	if [ ${#missing[@]} -gt 0 ]; then
		for name in "${missing[@]}"; do
			tap_result notok "prerequisite: $name"
		done
		tap_finish check-vm
	fi
	tap_result ok "prerequisites: ${kvers[*]}"

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-check-vm.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	for k in "${kvers[@]}"; do
		for name in ${tests[@]+"${tests[@]}"}; do
			build_test "$k" "$name"
		done
		stage_selftests "$k"
	done
	for k in "${kvers[@]}"; do
		boot_kernel "$k"
	done
	if [ -e "$tmp/${kvers[0]}/tests/hello/hello.ko" ]; then
		selftest_warning "${kvers[0]}"
	fi
	tap_finish check-vm
}

main "$@"
