#!/bin/bash
# kmodline.sh - source lines of a kernel module's code as binutils reads
# them from the module's debuginfo (not as stap does), for the tests of
# symline() and statement probes in modules: check-run.sh runs it as a
# "# setup:" command, with KVER set.
#
# usage: kmodline.sh MODULE FILE FUNC CALLEE...
#   prints five shell words, each from `objdump -dl` or `addr2line` of
#   MODULE's .ko in the -dbg package (under each root of
#   $SYSTEMTAP_DEBUGINFO_PATH, else /usr/lib/debug):
#   1. "FUNC@FILE:L", L the line of FUNC's code where the line first
#      changes after its entry (a statement probe's spec);
#   2. the line of the code at the lowest address of FUNC where a
#      statement of line L starts (where the statement probe goes: the
#      row holding an address is the last one there, which may be
#      another line's: on 6.1 289 starts at brd_submit_bio+0x5 with
#      288 after it at the same address);
#   3. the line of the entry of CALLEE, the first of the CALLEE names
#      that is a function of the module (kernels name them differently);
#   4. the lines of the return addresses of FUNC's calls of CALLEE,
#      joined by commas (the line of the row that holds each);
#   5. that CALLEE.
# Every address must be in FILE (the path ends in /FILE).  The awk
# programs read all of their input: one that left early would fail the
# pipeline (pipefail) by killing its writer.

set -euo pipefail

if [ $# -lt 4 ] || [ -z "${KVER:-}" ]; then
	echo "usage: KVER=RELEASE $0 MODULE FILE FUNC CALLEE..." >&2
	exit 2
fi
mod=$1 file=$2 func=$3
shift 3

# the module's debuginfo, where stap looks for it
ko=
IFS=: read -r -a roots <<<"${SYSTEMTAP_DEBUGINFO_PATH:-/usr/lib/debug}"
for r in "${roots[@]}"; do
	r=${r#[+-]}
	case $r in /*) ;; *) continue ;; esac
	for d in "$r/lib/modules/$KVER" "$r/usr/lib/debug/lib/modules/$KVER"; do
		[ -d "$d" ] || continue
		ko=$(find "$d" \( -name "$mod.ko" -o -name "$mod.ko.debug" \) \
		     -print -quit)
		[ -z "$ko" ] || break 2
	done
done
if [ -z "$ko" ]; then
	echo "$0: no debuginfo of module $mod for $KVER (install" \
	     "linux-image-$KVER-dbg)" >&2
	exit 1
fi

# the value (offset in .text) of a function symbol, or nothing
sym_value()
{
	readelf -sW "$ko" | awk -v s="$1" '$4 == "FUNC" && $8 == s && !n++ {
		print "0x" $2 }'
}

# the line of a .text offset, checked to be in FILE
line_at()
{
	local where
	where=$(addr2line -e "$ko" -j .text "$1" | sed 's/ (discriminator.*//')
	case $where in
	*/"$file":[0-9]*) echo "${where##*:}" ;;
	*)
		echo "$0: $1 of $mod is at $where, not in $file" >&2
		exit 1 ;;
	esac
}

start=$(sym_value "$func")
if [ -z "$start" ]; then
	echo "$0: no function $func in $ko" >&2
	exit 1
fi
callee=
for c in "$@"; do
	cstart=$(sym_value "$c")
	if [ -n "$cstart" ]; then
		callee=$c
		break
	fi
done
if [ -z "$callee" ]; then
	echo "$0: none of $* is a function of $ko" >&2
	exit 1
fi

# the value and size of a function symbol, or nothing
sym_range()
{
	readelf -sW "$ko" | awk -v s="$1" '$4 == "FUNC" && $8 == s && !n++ {
		print "0x" $2, $3 }'
}

# FUNC's code with a "FILE:LINE" line before each change of line; the
# first after the entry's own
code=$(objdump -d -l --no-show-raw-insn -j .text "$ko" |
       awk -v f="$func" '$0 ~ "^[0-9a-f]+ <" f ">:$" { on = 1; next }
			 on && /^$/ { on = 0 }
			 on { print }')
stmt=$(awk '/:[0-9]+( \(discriminator [0-9]+\))?$/ && !/^ / {
		if (n++ == 1) { sub(/ \(discriminator.*/, ""); print; exit }
	}' <<<"$code")
case $stmt in
*/"$file":[0-9]*) line=${stmt##*:} ;;
*)
	echo "$0: $func has no second line in $file ($stmt)" >&2
	exit 1 ;;
esac

# A statement probe goes to the lowest address of FUNC where a row of
# the line starts that is a statement (readelf's "x"); the line there
# is the last row's at that address (what addr2line says).
read -r fstart fsize < <(sym_range "$func")
low=
while read -r a; do
	a=$((a))
	if [ "$a" -ge $((fstart)) ] && [ "$a" -lt $((fstart + fsize)) ] &&
	   { [ -z "$low" ] || [ "$a" -lt "$low" ]; }; then
		low=$a
	fi
done < <(readelf -W --debug-dump=decodedline "$ko" 2>/dev/null |
	 awk -v b="${file##*/}" -v l="$line" \
	     '$1 == b && $2 == l && $NF == "x" { print $3 }')
if [ -z "$low" ]; then
	echo "$0: no statement of $file:$line in $func" >&2
	exit 1
fi

# the instruction after each call of CALLEE is where it returns to
rets=$(awk -v c="$callee" '
	!/^ *[0-9a-f]+:/ { next }
	ret { sub(/:.*/, ""); gsub(/ /, ""); print "0x" $0; ret = 0 }
	$0 ~ "call +[0-9a-f]+ <" c ">$" { ret = 1 }
	' <<<"$code")
if [ -z "$rets" ]; then
	echo "$0: $func does not call $callee" >&2
	exit 1
fi
lines=
for a in $rets; do
	lines=${lines:+$lines,}$(line_at "$a")
done

echo "$func@$file:$line $(line_at "$(printf '0x%x' "$low")")" \
     "$(line_at "$cstart") $lines $callee"
