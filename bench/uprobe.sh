#!/bin/bash
# uprobe.sh - user-space probe overhead in instructions per hit: a loop
# of N calls of a noinline function work() in a static program, inside a
# QEMU guest run under -icount shift=0 (a guest nanosecond is one
# instruction), bare, then with each probe armed on work().  The floors
# are hand-written modules (bench/uprobe/bare_*.c: a uprobe and a
# uretprobe on work() by file offset, whose handlers only count); ours
# are stap's modules of process("...").function("work") and its
# .return, reported as a ratio to their floor.  One initramfs and one
# boot per kernel run every case.
#
#   bench/uprobe.sh STAP STAPRUN [KVER]
#
# KVER defaults to every kernel in /lib/modules.  Environment: N (work()
# calls per run), REPS (runs per case), BARE_ONLY=1 (floors only: no stap
# modules, STAP and STAPRUN unused).  The plumbing is bench/lib.sh.

set -euo pipefail
: "${1:?usage: uprobe.sh STAP STAPRUN [KVER]}"
: "${2:?usage: uprobe.sh STAP STAPRUN [KVER]}"
here=$(cd "$(dirname "$0")/.." && pwd)
bench=uprobe
goal=1.05
what='work()'
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/bench/lib.sh"
bench_setup "$@"
# The program sits at the same absolute path on the host (where stap
# reads its debuginfo) and in the guest (where the probes name it): not
# under /tmp, where the guest mounts a tmpfs of its own.
progdir=$(mktemp -d /var/tmp/tapir-uprobe.XXXXXX)
trap 'rm -rf "$tmp" "$progdir"' EXIT
prog=$progdir/work-loop
loop=$prog

# The cases (bench_cases adds the baseline runs): name, module, kind
# (bare or ours), floor (for ours), label.  Each bare module prints
# "NAME: hits=COUNT" when removed; ours prints its global n at the end.
bare_cases=(
	"uprobe bare_uprobe bare - bare_uprobe"
	"uretprobe bare_uretprobe bare - bare_uretprobe"
)
our_cases=(
	"func tu_func ours uprobe process.function"
	"full tu_full ours uprobe process.function_(full_handler)"
	"return tu_return ours uretprobe process.function.return"
)
bench_cases

# The scripts of ours, by module name.
script_of()
{
	local fn="process(\"$prog\").function(\"work\")"

	case $1 in
	tu_func) echo "global n; probe $fn { n++ }" ;;
	# a call makes the handler a full one: the whole context path
	tu_full) echo "global n; probe $fn { if (pid() > 0) n++ }" ;;
	tu_return) echo "global n; probe $fn.return { n++ }" ;;
	esac
}

# build_loop: the program, with debuginfo for stap; sets offset, the
# file offset of work()'s first instruction (the bare modules' probe
# point), from its address and the loadable segment that holds it.
build_loop()
{
	local addr type off va sz

	gcc -O2 -g -static -Wall -Wextra -o "$prog" \
		"$here/bench/uprobe/work-loop.c" ||
		die "cannot build work-loop (gcc -static needs libc6-dev)"
	addr=$(nm "$prog" | awk '$3 == "work" { print $1 }')
	[ -n "$addr" ] || die "work-loop: no symbol work"
	offset=
	while read -r type off va _ _ sz _; do
		[ "$type" = LOAD ] || continue
		if (( 16#$addr >= va && 16#$addr < va + sz )); then
			offset=$((16#$addr - va + off))
			break
		fi
	done < <(readelf -lW "$prog")
	[ -n "$offset" ] || die "work-loop: work() is in no loadable segment"
	printf "uprobe: work() at 0x%x, file offset 0x%x of %s: %s\n" \
		"$((16#$addr))" "$offset" "$prog" \
		"$(objdump -d --no-show-raw-insn "$prog" |
		   sed -n '/^[0-9a-f]* <work>:$/,/^$/p' |
		   sed -n '2,3s/^ *[0-9a-f]*:\t*//p' | tr -s ' \t' ' ' |
		   paste -sd ';' -)"
}

# The guest's own part (write_guest): where the bare modules probe.
guest_part()
{
	echo "BARE_ARGS='path=$prog offset=$offset'"
	cat <<'GUEST'
kplist()
{
	:
}
GUEST
}

bench_prerequisites
for tool in nm readelf objdump; do
	command -v $tool >/dev/null ||
		die "missing prerequisite: $tool (apt-get install binutils)"
done
build_loop
bench_kernels "$here/bench/uprobe" "$prog:$prog"
