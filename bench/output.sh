#!/bin/bash
# output.sh - output throughput: a timer probe prints 1,000,000 lines in
# bursts of 1,000; staprun writes them to a file inside a QEMU guest run
# under -icount shift=0 (guest time counts instructions, so the figure
# is repeatable).  Prints lines per second of guest time and how many
# lines were lost (the goal is none).
#
#   bench/output.sh STAP STAPRUN [KVER]
#   STAP_OPTS=--json bench/output.sh ...   (stap options, e.g. JSON output)

set -euo pipefail
stap=${1:?usage: output.sh STAP STAPRUN [KVER]}
staprun=${2:?usage: output.sh STAP STAPRUN [KVER]}
kver=${3:-$(ls /lib/modules | sort -V | head -n 1)}
here=$(cd "$(dirname "$0")/.." && pwd)
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$here/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$here/runtime}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# BURST lines every millisecond (default 1000): a smaller burst leaves
# the reader more of the guest's time.
burst=${BURST:-1000}
cat >"$tmp/out.stp" <<STP
global n
probe timer.ms(1) {
	for (i = 0; i < $burst; i++)
		printf("line %d\\n", n++)
	if (n >= 1000000)
		exit()
}
STP
# shellcheck disable=SC2086
(cd "$tmp" && "$stap" -r "$kver" -p4 -m bout -D MAXACTION=100000 -D STP_NO_OVERLOAD \
	${STAP_OPTS:-} out.stp >/dev/null)
"$here/testsuite/vm/mkinitramfs.sh" -o "$tmp/initrd" -r "$kver" \
	-f "$staprun:/usr/local/bin/staprun" -f "$tmp/bout.ko" >/dev/null
cmd='t0=$(cut -d" " -f1 /proc/uptime); staprun -o /tmp/o /opt/tapir/bout.ko'
cmd+='; t1=$(cut -d" " -f1 /proc/uptime); echo "@@bench@@ $t0 $t1 $(wc -l </tmp/o)"'
"$here/testsuite/vm/run-vm.sh" -k "$kver" -i "$tmp/initrd" -I -v -t 900 \
	-c "$cmd" >"$tmp/tap" 2>"$tmp/console" || true
line=$(grep -a '^@@bench@@' "$tmp/console" | tail -n 1 | tr -d '\r')
grep -a -i "warning\|error" "$tmp/console" | head -5 >&2 || true
if [ -z "$line" ]; then
	echo "output: the run did not finish" >&2
	tail -n 20 "$tmp/tap" >&2
	exit 1
fi
set -- $line
awk -v t0="$2" -v t1="$3" -v n="$4" 'BEGIN {
	printf "output: %d lines in %.2f s of guest time (-icount shift=0): "\
	       "%.0f lines/s, %d lost\n", n, t1 - t0, n / (t1 - t0), 1000000 - n
}'
