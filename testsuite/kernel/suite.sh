# testsuite/kernel/suite.sh - the skeleton of the module suites
# (testsuite/kernel/transport/check.sh, testsuite/kernel/uprobe/check.sh):
# options, prerequisites, staprun and the test module built (W=1, no
# warning allowed) for the 6.1, 6.12 and 6.12-rt kernels, one boot per kernel under
# QEMU with testsuite/vm running the suite's test.sh (with vmlib.sh beside
# it), and its TAP renumbered into ours.  Sourced by bash, not run.
#
# The caller sets, before it calls suite_main "$@":
#   here           its directory (Kbuild, MODULE.c, test.sh)
#   suite          its name: the console markers, /tests/SUITE in the VM,
#                  the temporary directory and the closing line
#   module         the test module's name (MODULE.c, MODULE.ko)
#   default_limit  the default time limit of a boot, in seconds
#   suite_tools    more TOOL:PACKAGE prerequisites (may be empty)
#   suite_configs  the CONFIG_ options each kernel must have (=y)
#   stage_extra    more files of $tmp to put beside test.sh (may be empty)
# and may define these hooks, after it sourced this file (which defines
# them to do nothing):
#   suite_build         after staprun: what else the VM needs, built into
#                       $tmp; fails (after its test point) to stop here
#   suite_module_setup KVER
#                       before the module is built: may set the array
#                       module_make_args (more make arguments)
#   suite_module_note KVER
#                       prints what to add to the build's test point
#
# shellcheck shell=bash disable=SC2154 # variables set by the caller

# shellcheck source=testsuite/lib.sh
. "$here/../../lib.sh"

prog=${0##*/}
top=$(cd "$here/../../.." && pwd)
vm=$top/testsuite/vm
kvers=()
limit=$default_limit
verbose=
n=0
failed=0
tap_lines=40
module_make_args=()

usage()
{
	cat <<EOF
usage: $prog [-k KVER]... [-t SECS] [-v]
  -k KVER  a kernel release (repeatable); default: the newest 6.1,
           6.12 and 6.12-rt kernels in /boot, all required
  -t SECS  time limit of each boot (default $default_limit)
  -v       show build logs and the whole test output
EOF
	exit 2
}

# kernel_configs KVER: a missing prerequisite if KVER lacks one of
# suite_configs.
kernel_configs()
{
	local k=$1 c what='' lack=''

	for c in "${suite_configs[@]}"; do
		what=${what:+$what and }CONFIG_$c
		grep -q "^CONFIG_$c=y" "/boot/config-$k" || lack=1
	done
	[ -n "$lack" ] || return 0
	if [ ${#suite_configs[@]} -gt 1 ]; then
		missing "$what in $k" "a kernel built with them"
	else
		missing "$what in $k" "a kernel built with it"
	fi
}

# no_kernel FAMILY: the missing prerequisite of default_kernels.
no_kernel()
{
	missing "a $1 kernel in /boot" "apt-get install $(family_packages "$1")"
}

prerequisites()
{
	local k

	absent=0
	# shellcheck disable=SC2086 # suite_tools split on purpose
	missing_tools missing gcc:gcc make:make \
		qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		cpio:cpio gzip:gzip ${suite_tools:-}
	default_kernels no_kernel
	for k in ${kvers[@]+"${kvers[@]}"}; do
		if [ ! -r "/boot/vmlinuz-$k" ] ||
		   [ ! -e "/lib/modules/$k/build/Makefile" ]; then
			missing "kernel $k and its headers" \
				"apt-get install linux-{image,headers}-$k"
		else
			kernel_configs "$k"
		fi
	done
	[ $absent = 0 ] && tap_result ok "prerequisites: ${kvers[*]}"
	return $absent
}

# The same warnings as the build of the tree, and none allowed.
build_staprun()
{
	if gcc -O2 -g -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror \
	       -DTAPIR_VERSION='"check"' -o "$tmp/staprun" \
	       "$top"/loader/*.c >"$tmp/staprun.log" 2>&1; then
		tap_result ok "build staprun" "$tmp/staprun.log"
	else
		tap_result notok "build staprun" "$tmp/staprun.log"
		return 1
	fi
}

# The default hooks.
suite_build() { :; }
suite_module_setup() { :; }
suite_module_note() { :; }

build_module()
{
	local k=$1
	local b=$tmp/$k/build desc="$k: build $module.ko (W=1, no warning"

	mkdir -p "$b"
	module_make_args=()
	suite_module_setup "$k"
	cp "$here/Kbuild" "$here/$module.c" "$b/"
	if make -C "/lib/modules/$k/build" M="$b" \
	   TAPIR_RUNTIME="$top/runtime" \
	   ${module_make_args[@]+"${module_make_args[@]}"} \
	   W=1 modules >"$b.log" 2>&1 &&
	   ! grep -qi 'warning' "$b.log"; then
		tap_result ok "$desc$(suite_module_note "$k"))" "$b.log"
	else
		tap_result notok "$desc)" "$b.log"
		return 1
	fi
}

# renumber KVER FILE: the TAP lines of FILE as our test points, named
# with the kernel; its comments as they are.
renumber()
{
	local k=$1 line

	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*)
			tap_result ok "$k: ${line#ok * - }" ;;
		"not ok "[0-9]*)
			tap_result notok "$k: ${line#not ok * - }" ;;
		"Bail out!"*)
			tap_result notok "$k: ${line#Bail out! }" ;;
		"#"*)
			echo "$line" ;;
		esac
	done <"$2"
}

# The TAP lines test.sh printed on the console, renumbered into ours.
merge_console()
{
	local k=$1

	awk -v begin="@@tapir@@ begin $suite" -v end="@@tapir@@ end $suite" '
	     index($0, begin) { on = 1; next }
	     index($0, end) { on = 0 }
	     on' "$tmp/$k/console.log" >"$tmp/$k/test.out"
	renumber "$k" "$tmp/$k/test.out"
}

# boot KVER: the suite's guest for KVER; its results stay in files
# (boot_report shows them), so that two guests can run at once.
boot()
{
	local k=$1 f
	local stage=$tmp/$k/tests/$suite

	mkdir -p "$stage"
	cp "$here/test.sh" "$stage/run"
	cp "$here/../vmlib.sh" "$stage/"
	cp "$tmp/$k/build/$module.ko" "$tmp/staprun" "$stage/"
	for f in ${stage_extra:-}; do
		cp "$tmp/$f" "$stage/"
	done
	if ! "$vm/mkinitramfs.sh" -o "$tmp/$k/initrd" -r "$k" \
	     -t "$tmp/$k/tests" >"$tmp/$k/mkinitramfs.log" 2>&1; then
		touch "$tmp/$k/no-initrd"
		return
	fi
	"$vm/run-vm.sh" -k "$k" -i "$tmp/$k/initrd" -t "$limit" \
		-u $((limit - 60)) -l "$tmp/$k/console.log" \
		${verbose:+-v} >"$tmp/$k/vm.tap"
}

boot_report()
{
	local k=$1

	if [ -e "$tmp/$k/no-initrd" ]; then
		tap_result notok "$k: mkinitramfs" "$tmp/$k/mkinitramfs.log"
		return
	fi
	merge_console "$k"
	renumber "$k" "$tmp/$k/vm.tap"
}

# boot_all: a guest for each kernel whose module built, two at a time
# (each keeps one host CPU busy: single-threaded TCG), results in the
# kernels' order.
boot_all()
{
	local k running=0 booted=()

	for k in "${kvers[@]}"; do
		[ -e "$tmp/$k/build/$module.ko" ] || continue
		if [ $running -ge 2 ]; then
			wait -n
			running=$((running - 1))
		fi
		boot "$k" &
		running=$((running + 1))
		booted+=("$k")
	done
	wait
	for k in ${booted[@]+"${booted[@]}"}; do
		boot_report "$k"
	done
}

suite_main()
{
	local k

	kernel_options "$@"
	[ ${#operands[@]} -eq 0 ] || usage
	prerequisites || tap_finish "$suite"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-$suite.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	build_staprun || tap_finish "$suite"
	suite_build || tap_finish "$suite"
	for k in "${kvers[@]}"; do
		build_module "$k"
	done
	boot_all
	tap_finish "$suite"
}
