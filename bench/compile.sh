#!/bin/bash
# compile.sh - pass 4 wall time of a hello-world script: cold (empty
# module cache; the kernel API probes and the runtime's core object,
# which the first build for a kernel makes, already cached), first ever
# (nothing cached), and a cache hit; then the syscall tapset,
# probe syscall.* { n[name]++ } (every system call of the kernel), cold.
# Last, a wildcard over a subsystem's functions,
# probe kernel.function("*@fs/*.c") { n++ } (thousands of probes; needs
# the kernel's DWARF): the size of its C (-p3) and the CPU time of its
# cold -p4, and, when ESTABLISHED names the established tool's stap
# (ESTABLISHED_ARGS: options it needs here, such as -R RUNTIME), the
# same for it, as ratios (goals: the C at most half, the build at most
# a third).
# Goals: cold under 3 s, hit under 0.2 s, syscall.* under 5 s.  CPU
# time (user + system, the compiler's included) of the cold build is
# compared with the floor: kbuild building a trivial one-function
# module for the same kernel (goal: at most 1.5 times it).
#
#   bench/compile.sh STAP [KVER]

set -euo pipefail
stap=${1:?usage: compile.sh STAP [KVER]}
kver=${2:-$(ls /lib/modules | sort -V | head -n 1)}
here=$(cd "$(dirname "$0")/.." && pwd)
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$here/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$here/runtime}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SYSTEMTAP_DIR=$tmp/dir

ms()
{
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

# CPU seconds (user + system of the command and its children) of "$@"
cpu()
{
	/usr/bin/time -o "$tmp/cpu" -f '%U %S' "$@" >/dev/null 2>&1
	awk '{ printf "%.2f", $1 + $2 }' "$tmp/cpu"
}

ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}

# The floor: a module of one function, built twice (the first warms the
# page cache with the kernel's headers), the second timed.
mkdir -p "$tmp/floor"
cat >"$tmp/floor/floor.c" <<'EOF2'
#include <linux/module.h>
static int __init floor_init(void) { return 0; }
module_init(floor_init);
MODULE_LICENSE("GPL");
EOF2
echo 'obj-m := floor.o' >"$tmp/floor/Kbuild"
make -C "/lib/modules/$kver/build" M="$tmp/floor" modules >/dev/null 2>&1
make -C "/lib/modules/$kver/build" M="$tmp/floor" clean >/dev/null 2>&1
floor=$(cpu make -C "/lib/modules/$kver/build" M="$tmp/floor" modules)

script='probe begin { printf("hello world\n"); exit() }'
first=$(ms "$stap" -r "$kver" -p4 -e "$script")
rm -rf "$SYSTEMTAP_DIR"/cache/??
cold=$(ms "$stap" -r "$kver" -p4 -e "$script")
rm -rf "$SYSTEMTAP_DIR"/cache/??
cold_cpu=$(cpu "$stap" -r "$kver" -p4 -e "$script")
hit=$(ms "$stap" -r "$kver" -p4 -e "$script")
echo "compile: kernel $kver, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo "compile: first ever (API probes + module) ${first} ms"
echo "compile: cold -p4 (module cache empty)     ${cold} ms (goal < 3000)"
echo "compile: kbuild floor (one-function module) ${floor} s CPU"
echo "compile: cold -p4 ${cold_cpu} s CPU, $(ratio "$cold_cpu" "$floor")x the floor (goal <= 1.5)"
echo "compile: cache hit                          ${hit} ms (goal < 200)"
sys='global n; probe syscall.* { n[name]++ }'
rm -rf "$SYSTEMTAP_DIR"/cache/??
syscalls=$(ms "$stap" -r "$kver" -p4 -e "$sys")
echo "compile: cold -p4 of syscall.* { n[name]++ } ${syscalls} ms (goal < 5000)"
rm -rf "$SYSTEMTAP_DIR"/cache/??
sys_cpu=$(cpu "$stap" -r "$kver" -p4 -e "$sys")
echo "compile: cold -p4 of syscall.* ${sys_cpu} s CPU, $(ratio "$sys_cpu" "$floor")x the floor (goal < 3 s)"

# the wildcard script, ours and the established tool's
wild='global n; probe kernel.function("*@fs/*.c") { n++ }'
if ! "$stap" -r "$kver" -p2 -e "$wild" >/dev/null 2>&1; then
	echo "compile: *@fs/*.c: no DWARF for $kver (linux-image-$kver-dbg)"
	exit 0
fi
wild_c=$("$stap" -r "$kver" -p3 -e "$wild" | wc -c)
rm -rf "$SYSTEMTAP_DIR"/cache/??
wild_cpu=$(cpu "$stap" -r "$kver" -p4 -e "$wild")
echo "compile: *@fs/*.c: $((wild_c / 1024)) KiB of C, cold -p4 ${wild_cpu} s CPU"
if [ -n "${ESTABLISHED:-}" ]; then
	# in its own cache directory; as for ours, what it caches per
	# kernel (its compile probes) is there, the module is not
	read -r -a eargs <<<"${ESTABLISHED_ARGS:-}"
	theirs=(env -u SYSTEMTAP_TAPSET -u SYSTEMTAP_RUNTIME
		SYSTEMTAP_DIR="$tmp/established" "$ESTABLISHED"
		${eargs[@]+"${eargs[@]}"} -r "$kver")
	theirs_c=$("${theirs[@]}" -p3 -e "$wild" 2>/dev/null | wc -c)
	"${theirs[@]}" -p4 -e "$script" >/dev/null 2>&1 || true
	rm -rf "$tmp/established"/cache/??
	theirs_cpu=$(cpu "${theirs[@]}" -p4 -e "$wild")
	[ -n "$(ls "$tmp/established"/cache/??/*.ko 2>/dev/null)" ] ||
		echo "compile: the established tool's build failed"
	echo "compile: *@fs/*.c, the established tool: $((theirs_c / 1024))" \
	     "KiB of C, cold -p4 ${theirs_cpu} s CPU"
	echo "compile: *@fs/*.c: C $(ratio "$wild_c" "$theirs_c")x (goal <=" \
	     "0.5), build CPU $(ratio "$wild_cpu" "$theirs_cpu")x (goal" \
	     "<= 0.33) the established tool's"
fi
