#!/bin/bash
# check.sh - the corpus of published-style scripts (testsuite/corpus):
# builds every NAME.stp with stap -p2 for each target kernel, and the
# scripts marked "# p4: yes" with -p4 (the module, with kbuild) too.
# TAP, one point per script, pass and kernel; any failure exits 1.

set -uo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"

usage()
{
	cat <<EOF
usage: $prog [-k KVER]... [-j N] [-P] [-v] [SCRIPT...]
  -k KVER  a kernel release to build for (repeatable); default: the
           kernels of testsuite/lib.sh (default_kernels), all required
  -j N     builds run in parallel (default 2)
  -P       pass 2 only: leave out the -p4 builds
  -v       show stap's output of passing scripts too
  SCRIPT   a script name or shell glob (default: every NAME.stp here)
Environment: STAP names the binary (default: the build tree's stap);
TAPIR_BUILDDIR the build tree whose testsuite/programs the uprobe
scripts probe (default: the directory of STAP).
Script headers (leading comment lines):
  # args: OPTIONS          more stap options (-g for guru mode)
  # script-args: WORDS     arguments after the script (\$1, @1)
  # p4: yes                also built with -p4 on each kernel
@PROGRAMS@ in both stands for the built test programs.
EOF
	exit 2
}

kvers=()
jobs=2
p4=1
verbose=
n=0
failed=0
tap_show=tap_comment
tap_lines=30

while getopts 'k:j:Pvh' opt; do
	case $opt in
	k) kvers+=("$OPTARG") ;;
	j) jobs=$OPTARG ;;
	P) p4= ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
patterns=("$@")
[ ${#patterns[@]} -gt 0 ] || patterns=('*')

if [ -z "${STAP:-}" ]; then
	for STAP in "$top/build/stap" "$top/stap"; do
		[ -x "$STAP" ] && break
	done
fi
programs=${TAPIR_BUILDDIR:-$(dirname "$STAP")}/testsuite/programs
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$top/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$top/runtime}
export LC_ALL=C
# Types from each kernel's usual source: no forced one, no debuginfo
# path from the caller.
unset TAPIR_KERNEL_TYPES SYSTEMTAP_DEBUGINFO_PATH
# A compiler warning in a generated module is a failure, as in run/.
export TAPIR_WERROR=1

missing_kernel()
{
	tap_result fail "no kernel of family $1 in /boot (apt-get install" \
		"$(family_packages "$1"))"
}
default_kernels missing_kernel

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-corpus.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# One cache for the run: each kernel's BTF and DWARF index is unpacked
# once, and no module comes from an earlier run.
export SYSTEMTAP_DIR=$tmp/stapdir
mkdir -p "$SYSTEMTAP_DIR"

# header KEY FILE: the value of "# KEY:" among the leading comment lines.
header()
{
	sed -n -e '/^#/!q' -e "s/^# $1:[[:space:]]*//p" "$2" | head -n 1
}

# words TEXT: TEXT split like shell words into the array w, with
# @PROGRAMS@ replaced.
words()
{
	w=()
	[ -n "$1" ] && eval "w=(${1//@PROGRAMS@/$programs})"
	return 0
}

# build SCRIPT PASS KVER ID: stap -pPASS for KVER, its output in
# $tmp/ID.out and "RC SECONDS" in $tmp/ID.rc (run in the background).
build()
{
	local f=$1 pass=$2 k=$3 id=$4 args sargs t0 rc
	words "$(header args "$f")"
	args=("${w[@]}")
	words "$(header script-args "$f")"
	sargs=("${w[@]}")
	t0=$SECONDS
	mkdir -p "$tmp/$id.d"
	(cd "$tmp/$id.d" && timeout 600 "$STAP" -r "$k" -p"$pass" \
		-m "corpus_$(basename "$f" .stp)" ${args[@]+"${args[@]}"} \
		"$f" ${sargs[@]+"${sargs[@]}"}) >"$tmp/$id.out" 2>&1 </dev/null
	rc=$?
	rm -rf "$tmp/$id.d"
	echo "$rc $((SECONDS - t0))" >"$tmp/$id.rc"
}

# report SCRIPT PASS KVER ID: the test point of a finished build.
report()
{
	local name rc secs
	name=$(basename "$1" .stp)
	read -r rc secs <"$tmp/$4.rc"
	if [ "$rc" = 0 ]; then
		tap_result ok "$name -p$2 $3 ($secs s)" \
			${verbose:+"$tmp/$4.out"}
	else
		tap_result fail "$name -p$2 $3 (exit status $rc)" \
			"$tmp/$4.out"
	fi
}

scripts=()
for pat in "${patterns[@]}"; do
	for f in "$here"/$pat.stp; do
		[ -f "$f" ] && scripts+=("$f")
	done
done
if [ ${#scripts[@]} = 0 ]; then
	tap_result fail "no script matches ${patterns[*]}"
	tap_finish corpus
fi

# The builds (script, pass, kernel), pass 2 of everything first; then
# their results in order.
tf=() tp=() tk=()
for k in "${kvers[@]}"; do
	for f in "${scripts[@]}"; do
		tf+=("$f") tp+=(2) tk+=("$k")
	done
done
if [ -n "$p4" ]; then
	for k in "${kvers[@]}"; do
		for f in "${scripts[@]}"; do
			[ "$(header p4 "$f")" = yes ] || continue
			tf+=("$f") tp+=(4) tk+=("$k")
		done
	done
fi
running=0
for i in "${!tf[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	build "${tf[$i]}" "${tp[$i]}" "${tk[$i]}" "$i" &
	running=$((running + 1))
done
wait
for i in "${!tf[@]}"; do
	report "${tf[$i]}" "${tp[$i]}" "${tk[$i]}" "$i"
done
tap_finish corpus
