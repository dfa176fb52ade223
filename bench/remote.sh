#!/bin/bash
# remote.sh - stap --remote to two hosts: the time from the command to
# the first line from each host.  The hosts are a 6.1 and a 6.12 QEMU
# guest with an ssh server (testsuite/kernel/remote/guests.sh), booted
# once.  Three runs of `stap --remote-prefix --remote A --remote B -e
# 'probe begin { println(...); exit() }'`: first ever (empty module
# cache: the kernel API probes, the runtime's core object and the module,
# for two releases at once), a new script (only the two modules to
# build) and the same script again (a cache hit: nothing to build).
# The floor is what ssh alone costs: `ssh HOST true` to each guest.
# Goal (issue 17): no more than one build per distinct release plus
# the copy, i.e. a cache hit within a few tenths of a second of the
# floor.
#
#   bench/remote.sh STAP STAPRUN [KVER61 KVER612]

set -euo pipefail
stap=$(readlink -f "${1:?usage: remote.sh STAP STAPRUN [KVER KVER]}")
STAPRUN=$(readlink -f "${2:?usage: remote.sh STAP STAPRUN [KVER KVER]}")
export STAPRUN
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$top/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$top/runtime}
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"
# shellcheck source=testsuite/kernel/remote/guests.sh
. "$top/testsuite/kernel/remote/guests.sh"
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	kvers=("$(newest_kernel 6.1)" "$(newest_kernel 6.12)")
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-remote.XXXXXX")
trap 'guests_kill; rm -rf "$tmp"' EXIT
export SYSTEMTAP_DIR=$tmp/stapdir

guests_init "$tmp/g" >/dev/null
export TAPIR_SSH="${guest_ssh[*]}"
p1=$(free_port)
p2=$(free_port)
while [ "$p2" = "$p1" ]; do p2=$(free_port); done
t0=$EPOCHREALTIME
guest_boot g1 "${kvers[0]}" "$p1"
guest_boot g2 "${kvers[1]}" "$p2"
if ! guest_wait g1 "$p1" 240 || ! guest_wait g2 "$p2" 240; then
	echo "remote: the guests did not answer ssh" >&2
	exit 1
fi
t1=$EPOCHREALTIME

# ms FROM TO
ms()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

echo "remote: both guests booted and answering ssh in" \
	"$(ms "$t0" "$t1") ms (${kvers[0]}, ${kvers[1]})"
for p in "$p1" "$p2"; do
	a=$EPOCHREALTIME
	"${guest_ssh[@]}" -p "$p" 127.0.0.1 true </dev/null
	echo "remote: floor: ssh 127.0.0.1:$p true in $(ms "$a" "$EPOCHREALTIME") ms"
done

# first_lines LABEL TEXT: one run, the time to each host's first line.
first_lines()
{
	local label=$1 text=$2 start line f0='' f1='' now

	start=$EPOCHREALTIME
	while IFS= read -r line; do
		now=$EPOCHREALTIME
		case $line in
		"0: "*) [ -n "$f0" ] || f0=$now ;;
		"1: "*) [ -n "$f1" ] || f1=$now ;;
		esac
	done < <("$stap" --remote-prefix --remote "127.0.0.1:$p1" \
		 --remote "127.0.0.1:$p2" \
		 -e "probe begin { println(\"$text\"); exit() }" 2>&1)
	printf 'remote: %-30s host 0 (%s) %6s ms, host 1 (%s) %6s ms\n' \
		"$label:" "${kvers[0]}" "${f0:+$(ms "$start" "$f0")}" \
		"${kvers[1]}" "${f1:+$(ms "$start" "$f1")}"
}

first_lines "first ever (empty cache)" "one"
first_lines "a new script (two builds)" "two"
first_lines "the same again (cache hit)" "two"
guest_stop g1 "$p1" >/dev/null || true
guest_stop g2 "$p2" >/dev/null || true
