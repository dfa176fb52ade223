#!/bin/bash
# golden.sh - the golden test runner: runs every testsuite/{parse,preproc,
# semantic,diag,uprobe}/NAME.stp through stap, compares exit status,
# stdout and stderr with NAME.expect, checks that -p1 output parses back
# to itself.
#
# usage: golden.sh STAP SRCDIR [--update] [PATTERN...]
#   PATTERN (a shell glob on "dir/name") restricts the run, e.g. 'parse/prec_*'.
#   --update rewrites the .expect files from the actual output: review
#   every change with "git diff" before committing it.  A script with a
#   line "# golden: keep" has a hand-written golden that --update leaves
#   alone (the tool is known to be wrong there).
#
# Script headers (leading comment lines of NAME.stp):
#   # args: <stap options>          default -p1 (parse, preproc), -p2 (others)
#   # script-args: <script args>    words after the script name
# Both are split like shell words; @FAKEKERNEL@ becomes the fake kernel tree,
# @DBGKERNEL@ the newest kernel release whose -dbg package (DWARF) is here,
# @KERNEL612@ the newest 6.12 kernel release in /boot (not -rt), for
# tests of what that kernel's BTF resolves,
# @PROGRAMS@ the test programs built by make check (BUILDDIR/testsuite/
# programs, BUILDDIR being $TAPIR_BUILDDIR or the directory of STAP).
# Options that list probes (-l, -L) run without the script file.
# Output is TAP, closed by "# golden: N passed, N failed".

set -u

# shellcheck source=testsuite/golden-args.sh
. "$(dirname "$0")/golden-args.sh"
golden_args "$@"
tdir=$srcdir/testsuite
fakekernel=$(find "$tdir/fake-kernel" -mindepth 1 -maxdepth 1 -type d |
	     sort | head -n 1)
# Without any -dbg package a release that has none, so that the tests
# needing DWARF fail rather than pass by saying nothing.
dbgkernel=$(find /usr/lib/debug/boot -maxdepth 1 -name 'vmlinux-*' \
	    -printf '%f\n' 2>/dev/null | sed 's/^vmlinux-//' | sort -V |
	    tail -n 1)
[ -n "$dbgkernel" ] || dbgkernel=no-kernel-debuginfo
# Likewise a release that is not there when no 6.12 kernel is installed.
kernel612=$(find /boot -maxdepth 1 -name 'vmlinuz-6.12.*-amd64' \
	    -printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' |
	    grep -v -e '-rt-' -e '-cloud-' | sort -V | tail -n 1)
[ -n "$kernel612" ] || kernel612=no-kernel-6.12
programs=${TAPIR_BUILDDIR:-$(dirname "$stap")}/testsuite/programs

if [ ! -x "$stap" ]; then
	echo "golden.sh: $stap is not executable" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# Keep the host out of the results: no rc file from ~/.systemtap, no
# locale-dependent messages, nothing from the caller's SYSTEMTAP_* settings.
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

ok()
{
	ntest=$((ntest + 1))
	npass=$((npass + 1))
	echo "ok $ntest - $1"
}

not_ok()
{
	ntest=$((ntest + 1))
	nfail=$((nfail + 1))
	echo "not ok $ntest - $1"
}

# Print a file as a TAP comment, cut short: a failure should point at
# the difference, not flood the log.
comment_file()
{
	head -n 40 "$1" | sed 's/^/# /'
	local n
	n=$(wc -l < "$1")
	[ "$n" -le 40 ] || echo "# ... ($((n - 40)) more lines)"
}

# Escape a string for use as a literal in a sed regex.
sed_quote()
{
	printf '%s\n' "$1" | sed 's/[][\.*^$/]/\\&/g'
}

# Absolute paths differ between machines; the goldens name them by token.
norm_fk="s/$(sed_quote "$fakekernel")/@FAKEKERNEL@/g"
norm_sd="s/$(sed_quote "$srcdir")/@SRCDIR@/g"
norm_dk="s/$(sed_quote "$dbgkernel")/@DBGKERNEL@/g"
norm_k612="s/$(sed_quote "$kernel612")/@KERNEL612@/g"
# first: the build tree may be inside the source tree
norm_pg="s/$(sed_quote "$programs")/@PROGRAMS@/g"
# -v reports each pass's memory and time, which no two runs share: the
# goldens of -p2 -v (its analysis section) leave those lines out.
norm_clock='/^Pass [1-5]: .* using [0-9]*res kb, in [0-9]*usr\/[0-9]*sys\/[0-9]*real ms\.$/d'
normalise()
{
	sed -e "$norm_pg" -e "$norm_fk" -e "$norm_sd" -e "$norm_dk" \
	    -e "$norm_k612" -e "$norm_clock" "$1"
}

# Append one output section; a missing final newline is made visible
# so that it cannot hide in the golden file.
section()
{
	echo "--- $1"
	normalise "$2"
	if [ -s "$2" ] && [ -n "$(tail -c 1 "$2")" ]; then
		echo
		echo '\ No newline at end of output'
	fi
}

# header KEY FILE: the value of "# KEY:" among the leading comment lines.
header()
{
	sed -n -e '/^#/!q' -e 's/\r$//' -e "s/^# $1:[[:space:]]*//p" "$2" |
		head -n 1
}

# Split header text into the array named by $1, shell-style.
split_words()
{
	local text=$2
	text=${text//@FAKEKERNEL@/\'$fakekernel\'}
	text=${text//@DBGKERNEL@/\'$dbgkernel\'}
	text=${text//@KERNEL612@/\'$kernel612\'}
	text=${text//@PROGRAMS@/\'$programs\'}
	eval "$1=($text)"
}

# Whether the options list probes: -l and -L take no script file.
lists_probes()
{
	local a
	for a in "$@"; do
		case $a in
		-l | -L | -l?* | -L?*) return 0 ;;
		esac
	done
	return 1
}

# run_stap OUTBASE DIR ARGS... -- script and script args come in ARGS.
run_stap()
{
	local out=$1 dir=$2
	shift 2
	(cd "$dir" && exec timeout 10 "$stap" "$@" </dev/null \
		>"$out.out" 2>"$out.err")
	echo $? > "$out.rc"
}

# The -p1 form of a test's options: every -p N becomes -p1.
p1_args()
{
	local -n src=$1 dst=$2
	local i skip=0 seen=0
	dst=()
	for ((i = 0; i < ${#src[@]}; i++)); do
		if [ $skip = 1 ]; then
			skip=0
			dst+=(1)
			continue
		fi
		case ${src[i]} in
		-p) skip=1; seen=1; dst+=(-p) ;;
		-p[0-9]) seen=1; dst+=(-p1) ;;
		*) dst+=("${src[i]}") ;;
		esac
	done
	[ $seen = 1 ] || dst=(-p1 "${dst[@]}")
}

# Lines "# ..." in -p1 output name the input file, which differs
# between the file and stdin; they take no part in the comparison.
strip_header()
{
	grep -v '^# ' "$1"
}

# roundtrip TESTNAME DIR NAME: -p1 output must parse back to itself.
roundtrip()
{
	local label=$1 dir=$2 name=$3 same=1 i
	local rargs=()
	p1_args args rargs
	[ ${#rargs[@]} = ${#args[@]} ] || same=0
	for ((i = 0; same && i < ${#args[@]}; i++)); do
		[ "${rargs[i]}" = "${args[i]}" ] || same=0
	done
	if [ $same = 1 ]; then
		cp "$tmp/run.out" "$tmp/p1.out"
		cp "$tmp/run.rc" "$tmp/p1.rc"
	else
		run_stap "$tmp/p1" "$dir" "${rargs[@]}" "$name.stp" \
			"${sargs[@]}"
	fi
	[ "$(cat "$tmp/p1.rc")" = 0 ] || return 0

	(cd "$dir" && exec timeout 10 "$stap" "${rargs[@]}" - "${sargs[@]}" \
		<"$tmp/p1.out" >"$tmp/p1b.out" 2>"$tmp/p1b.err")
	local rc=$?
	strip_header "$tmp/p1.out" > "$tmp/p1.cmp"
	strip_header "$tmp/p1b.out" > "$tmp/p1b.cmp"
	if [ $rc = 0 ] && cmp -s "$tmp/p1.cmp" "$tmp/p1b.cmp"; then
		ok "roundtrip/$label"
		return 0
	fi
	not_ok "roundtrip/$label"
	echo "# second -p1 run: exit $rc"
	diff -u --label first --label second "$tmp/p1.cmp" "$tmp/p1b.cmp" \
		> "$tmp/p1.diff"
	comment_file "$tmp/p1.diff"
	comment_file "$tmp/p1b.err"
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

# run_test SUBDIR NAME
run_test()
{
	local sub=$1 name=$2 dir=$tdir/$1 label=$1/$2 defargs
	local script=$dir/$name.stp expect=$dir/$name.expect
	case $sub in
	parse | preproc) defargs=-p1 ;;
	*) defargs=-p2 ;;
	esac
	local h
	h=$(header args "$script")
	split_words args "${h:-$defargs}"
	h=$(header script-args "$script")
	split_words sargs "$h"

	if lists_probes "${args[@]}"; then
		run_stap "$tmp/run" "$dir" "${args[@]}" "${sargs[@]}"
	else
		run_stap "$tmp/run" "$dir" "${args[@]}" "$name.stp" \
			"${sargs[@]}"
	fi
	{
		echo "exit: $(cat "$tmp/run.rc")"
		section stdout "$tmp/run.out"
		section stderr "$tmp/run.err"
	} > "$tmp/actual"

	if [ $update = 1 ]; then
		if cmp -s "$tmp/actual" "$expect"; then
			:
		elif grep -q '^# golden: keep' "$script"; then
			echo "# kept hand-written $label.expect (output differs)"
		else
			cp "$tmp/actual" "$expect"
			echo "# updated $label.expect"
		fi
		ok "$label"
	elif [ ! -f "$expect" ]; then
		not_ok "$label"
		echo "# missing $name.expect: run with --update, then review it"
	elif cmp -s "$expect" "$tmp/actual"; then
		ok "$label"
	else
		not_ok "$label"
		diff -u --label "$name.expect" --label actual "$expect" \
			"$tmp/actual" > "$tmp/diff"
		comment_file "$tmp/diff"
	fi
	lists_probes "${args[@]}" || roundtrip "$label" "$dir" "$name"
}

for sub in parse preproc semantic diag uprobe; do
	for script in "$tdir/$sub"/*.stp; do
		[ -f "$script" ] || continue
		name=$(basename "$script" .stp)
		selected "$sub/$name" || continue
		args=()
		sargs=()
		run_test "$sub" "$name"
	done
done

echo "1..$ntest"
echo "# golden: $npass passed, $nfail failed"
[ $nfail = 0 ]
