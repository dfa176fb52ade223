#!/bin/bash
# kaddr.sh - a link-time address of the kernel a run test is built for,
# for the tests of kernel.statement(ADDR) and kernel.function(ADDR):
# check-run.sh runs it as a "# setup:" command, with KVER set.
#
# usage: kaddr.sh SYMBOL [N]
#   prints the address of SYMBOL as System.map has it or, with N, the
#   address where the N-th change of source line after SYMBOL's entry
#   starts, as `objdump -dl` of vmlinux shows it (a statement's start).
# Both come from the kernel's -dbg package.

set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "${KVER:-}" ]; then
	echo "usage: KVER=RELEASE $0 SYMBOL [N]" >&2
	exit 2
fi
dbg=/usr/lib/debug/boot
map=$dbg/System.map-$KVER
vmlinux=$dbg/vmlinux-$KVER
for f in "$map" "$vmlinux"; do
	if [ ! -r "$f" ]; then
		echo "$0: no $f (apt-get install linux-image-$KVER-dbg)" >&2
		exit 1
	fi
done

# the symbol's address and the next symbol's, where its code ends
read -r addr end < <(awk -v s="$1" '
	a && $1 != a { print a, $1; a = ""; exit }
	!a && $3 == s && $2 ~ /^[tT]$/ { a = $1 }
	END { if (a) print a, a }' "$map") || true
if [ -z "${addr:-}" ]; then
	echo "$0: no function $1 in $map" >&2
	exit 1
fi
if [ $# -eq 1 ]; then
	echo "0x$addr"
	exit 0
fi

# A line "FILE:LINE" (maybe with a discriminator) comes before the first
# instruction of each new line; count them from the entry's own.
objdump -d -l --no-show-raw-insn --start-address="0x$addr" \
	--stop-address="0x$end" "$vmlinux" |
	awk -v n="$2" '
	/^[^ \t].*:[0-9]+( \(discriminator [0-9]+\))?$/ { mark = 1; next }
	mark && !found && /^ *[0-9a-f]+:/ {
		mark = 0
		if (k++ == n) {
			sub(/:.*/, "")
			gsub(/ /, "")
			print "0x" $0
			found = 1
		}
	}
	END { if (!found) exit 1 }' || {
	echo "$0: $1 has no line $2 in $vmlinux" >&2
	exit 1
}
