#!/bin/bash
# check.sh - the -p3 goldens: runs stap -p3 on every testsuite/codegen/
# NAME.stp and compares the C it prints with NAME.c, so that a change to
# the generated C is reviewed as a diff of these files (README.md).
#
# usage: check.sh STAP SRCDIR [--update] [PATTERN...]
#   PATTERN (a shell glob on NAME) restricts the run, e.g. 'kprobe_*'.
#   --update rewrites NAME.c from what stap prints: review every change
#   with "git diff" before committing it.
#
# Script headers (leading comment lines of NAME.stp), split like shell
# words:
#   # args: <stap options>     default -p3; the runner adds -m NAME
#   # script-args: <args>      words after the script name
# @KERNEL612@ stands for the newest 6.12 kernel release in /boot (not
# -rt), @DBGKERNEL@ for the newest one with its -dbg package (DWARF),
# @PROGRAMS@ for the test programs (BUILDDIR/testsuite/programs, built
# by make check, run from a copy under /tmp).  In NAME.c the programs' directory is written
# @PROGRAMS@ and the kernel releases as their tokens; no other absolute
# path may appear there.
# Output is TAP, closed by "# codegen: N passed, N failed".

set -u

# shellcheck source=testsuite/golden-args.sh
. "$(dirname "$0")/../golden-args.sh"
golden_args "$@"
dir=$srcdir/testsuite/codegen
builddir=${TAPIR_BUILDDIR:-$(dirname "$stap")}
builddir=$(cd "$builddir" && pwd) || exit 2
programs=$builddir/testsuite/programs
kernel612=$(find /boot -maxdepth 1 -name 'vmlinuz-6.12.*-amd64' \
	    -printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' |
	    grep -v -e '-rt-' -e '-cloud-' | sort -V | tail -n 1)
[ -n "$kernel612" ] || kernel612=no-kernel-6.12
dbgkernel=$(find /usr/lib/debug/boot -maxdepth 1 -name 'vmlinux-*' \
	    -printf '%f\n' 2>/dev/null | sed 's/^vmlinux-//' | sort -V |
	    tail -n 1)
[ -n "$dbgkernel" ] || dbgkernel=no-kernel-debuginfo

if [ ! -x "$stap" ]; then
	echo "check.sh: $stap is not executable" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/codegen.XXXXXX") || exit 2
# The test programs are copied to a path of the same length wherever
# the build tree is (/tmp/cgp.XXXXXX/p, whatever TMPDIR says): -p3
# breaks long lines, so the C must not depend on that path's length.
ptmp=$(mktemp -d /tmp/cgp.XXXXXX) || exit 2
trap 'rm -rf "$tmp" "$ptmp"' EXIT
built=$programs	# named in the programs' DWARF: normalised too
if [ -d "$programs" ]; then
	cp -a "$programs" "$ptmp/p" || exit 2
	programs=$ptmp/p
fi

# Nothing of the host in the C: no rc file, no locale, no SYSTEMTAP_*.
mkdir -p "$tmp/stapdir"
export SYSTEMTAP_DIR=$tmp/stapdir
export SYSTEMTAP_TAPSET=$srcdir/tapset
export SYSTEMTAP_RUNTIME=$srcdir/runtime
export LC_ALL=C
unset SYSTEMTAP_REMOTE SYSTEMTAP_COLOR SYSTEMTAP_PATH
unset SYSTEMTAP_DEBUGINFO_PATH SYSTEMTAP_SYSROOT

ntest=0
npass=0
nfail=0

result()
{
	ntest=$((ntest + 1))
	if [ "$1" = ok ]; then
		npass=$((npass + 1))
		echo "ok $ntest - codegen/$2"
	else
		nfail=$((nfail + 1))
		echo "not ok $ntest - codegen/$2"
	fi
}

# Print a file as a TAP comment, cut short.
comment_file()
{
	head -n 60 "$1" | sed 's/^/# /'
	local n
	n=$(wc -l < "$1")
	[ "$n" -le 60 ] || echo "# ... ($((n - 60)) more lines)"
}

sed_quote()
{
	printf '%s\n' "$1" | sed 's/[][\.*^$/]/\\&/g'
}

header()
{
	sed -n -e '/^#/!q' -e 's/\r$//' -e "s/^# $1:[[:space:]]*//p" "$2" |
		head -n 1
}

split_words()
{
	local text=$2
	text=${text//@KERNEL612@/\'$kernel612\'}
	text=${text//@DBGKERNEL@/\'$dbgkernel\'}
	text=${text//@PROGRAMS@/\'$programs\'}
	eval "$1=($text)"
}

normalise()
{
	sed -e "s/$(sed_quote "$programs")/@PROGRAMS@/g" \
	    -e "s/$(sed_quote "$built")/@PROGRAMS@/g" \
	    -e "s/$(sed_quote "$kernel612")/@KERNEL612@/g" \
	    -e "s/$(sed_quote "$dbgkernel")/@DBGKERNEL@/g" "$1"
}

selected()
{
	local p
	[ ${#patterns[@]} = 0 ] && return 0
	for p in "${patterns[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

run_test()
{
	local name=$1 h rc
	local args=() sargs=()

	h=$(header args "$dir/$name.stp")
	split_words args "${h:--p3}"
	h=$(header script-args "$dir/$name.stp")
	split_words sargs "$h"
	(cd "$dir" && exec timeout 60 "$stap" "${args[@]}" -m "$name" \
		"$name.stp" "${sargs[@]}" </dev/null >"$tmp/out" 2>"$tmp/err")
	rc=$?
	if [ $rc != 0 ] || [ -s "$tmp/err" ]; then
		result fail "$name"
		echo "# stap -p3 exited $rc; its messages:"
		comment_file "$tmp/err"
		return
	fi
	normalise "$tmp/out" > "$tmp/actual"
	# The paths the goldens must not hold: they differ between trees.
	if grep -n -e "$srcdir" -e "$builddir" -e "$HOME" "$tmp/actual" \
		> "$tmp/paths"; then
		result fail "$name"
		echo "# the C names a path of this machine:"
		comment_file "$tmp/paths"
		return
	fi
	if [ $update = 1 ]; then
		if ! cmp -s "$tmp/actual" "$dir/$name.c"; then
			cp "$tmp/actual" "$dir/$name.c"
			echo "# updated codegen/$name.c"
		fi
		result ok "$name"
	elif [ ! -f "$dir/$name.c" ]; then
		result fail "$name"
		echo "# missing $name.c: run with --update, then review it"
	elif cmp -s "$dir/$name.c" "$tmp/actual"; then
		result ok "$name"
	else
		result fail "$name"
		diff -u --label "$name.c" --label actual "$dir/$name.c" \
			"$tmp/actual" > "$tmp/diff"
		comment_file "$tmp/diff"
	fi
}

for script in "$dir"/*.stp; do
	[ -f "$script" ] || continue
	name=$(basename "$script" .stp)
	selected "$name" || continue
	run_test "$name"
done

echo "1..$ntest"
echo "# codegen: $npass passed, $nfail failed"
[ $nfail = 0 ]
