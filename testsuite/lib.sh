# testsuite/lib.sh - what the bash test harnesses share (testsuite/vm/
# check-vm.sh, testsuite/run/check-run.sh, testsuite/kernel/suite.sh):
# TAP test points, the closing lines, the kernels' options, the choice of
# the kernels and the tools they need.  Sourced by bash, not run; safe
# under set -eu.
#
# The caller owns these globals:
#   n, failed   the test points so far and how many failed (start at 0)
#   verbose     not empty: show the FILE of a passing point too
#   kvers, limit  (for kernel_options) the kernels named, a time limit
# and may set these:
#   tap_lines   tap_comment shows only the last tap_lines lines of a FILE
#               (default: all of it)
#   tap_show    the function that shows a FILE (default tap_comment)
#   tap_timed   empty: tap_finish does not say how long the run took
#
# shellcheck shell=bash disable=SC2034 # variables shared with the caller

# tap_result OK DESC [FILE]: one test point, a pass if OK is "ok"; FILE
# (if it has something) is shown as "#   " comment lines when the point
# failed, or with -v.
tap_result()
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	if [ -n "${3:-}" ] && [ -s "$3" ] &&
	   { [ "$1" != ok ] || [ -n "${verbose:-}" ]; }; then
		"${tap_show:-tap_comment}" "$3"
	fi
	return 0
}

# tap_comment FILE: FILE as TAP comment lines, the last $tap_lines only
# if that is set.
tap_comment()
{
	if [ -n "${tap_lines:-}" ]; then
		sed 's/^/#   /' "$1" | tail -n "$tap_lines"
	else
		sed 's/^/#   /' "$1"
	fi
}

# tap_finish LABEL: the plan, "# LABEL: N passed, N failed in S s" and
# exit, with 1 if a point failed.
tap_finish()
{
	local counts="$((n - failed)) passed, $failed failed"

	echo "1..$n"
	if [ -n "${tap_timed-1}" ]; then
		echo "# $1: $counts in $SECONDS s"
	else
		echo "# $1: $counts"
	fi
	exit $((failed > 0))
}

# The kernel families every kernel harness covers by default: Debian's
# 6.1, 6.12 and 6.12 PREEMPT_RT (where spinlock_t and rwlock_t sleep).
# shellcheck disable=SC2034 # used by the harnesses that source this
kernel_families=(6.1 6.12 6.12-rt)

# family_packages FAMILY: the Debian packages that bring it.
family_packages()
{
	case $1 in
	6.1) echo "linux-image-amd64 linux-headers-amd64" ;;
	*) echo "linux-image-$1-amd64 linux-headers-$1-amd64" ;;
	esac
}

# family_match FAMILY: filters release names (one a line) down to the
# family's: FAMILY.*-amd64 without the -rt or -cloud flavours, or for
# FAMILY-rt the -rt flavour only.
family_match()
{
	local base=${1%-rt}

	if [ "$base" != "$1" ]; then
		grep -E "^${base//./\\.}\.[0-9].*-rt-amd64\$"
	else
		grep -E "^${base//./\\.}\.[0-9].*-amd64\$" |
			grep -v -e '-rt-' -e '-cloud-'
	fi
}

# newest_kernel FAMILY: the newest release of FAMILY in /boot, or
# nothing.
newest_kernel()
{
	local f

	for f in /boot/vmlinuz-*; do
		[ -e "$f" ] && echo "${f#/boot/vmlinuz-}"
	done | family_match "$1" | sort -V | tail -n 1
}

# missing_tools FN TOOL:PACKAGE...: FN TOOL "apt-get install PACKAGE"
# for each TOOL that is not on the PATH.
missing_tools()
{
	local fn=$1 tool

	shift
	for tool; do
		command -v "${tool%%:*}" >/dev/null ||
			"$fn" "${tool%%:*}" "apt-get install ${tool#*:}"
	done
	return 0
}

# missing WHAT HOW: a failing test point for a missing prerequisite;
# absent is set to say there was one.
missing()
{
	tap_result notok "prerequisite: $1 ($2)"
	absent=1
}

# missing_files HOW FILE...: missing FILE HOW for each FILE that is not
# an executable file.
missing_files()
{
	local how=$1 f

	shift
	for f; do
		[ -x "$f" ] || missing "$f" "$how"
	done
	return 0
}

# session_tmp NAME: a new temporary directory in tmp (the caller's trap
# removes it), and the environment that makes stap keep its files there
# and use this tree's tapset and runtime.
session_tmp()
{
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
	export SYSTEMTAP_DIR=$tmp/stapdir SYSTEMTAP_TAPSET=$top/tapset \
		SYSTEMTAP_RUNTIME=$top/runtime LC_ALL=C
}

# default_kernels FN: unless kvers names some, the newest kernel of each
# of kernel_families in /boot, into kvers; FN FAMILY for a family that
# has none.
default_kernels()
{
	local family k

	[ ${#kvers[@]} -eq 0 ] || return 0
	for family in "${kernel_families[@]}"; do
		k=$(newest_kernel "$family")
		if [ -n "$k" ]; then
			kvers+=("$k")
		else
			"$1" "$family"
		fi
	done
}

# kernel_options "$@": the options of the kernel harnesses, -k KVER
# (repeatable: kvers), -t SECS (limit) and -v (verbose); any other
# calls the caller's usage.  The operands are left in the array operands.
kernel_options()
{
	local opt OPTIND=1

	while getopts 'k:t:vh' opt; do
		case $opt in
		k) kvers+=("$OPTARG") ;;
		t) limit=$OPTARG ;;
		v) verbose=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	operands=("$@")
}
