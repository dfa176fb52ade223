#!/bin/bash
# compile.sh - pass 4 wall time of a hello-world script: cold (empty
# module cache; the kernel API probes and the runtime's core object,
# which the first build for a kernel makes, already cached), first ever
# (nothing cached), and a cache hit; then the syscall tapset,
# probe syscall.* { n[name]++ } (every system call of the kernel), cold.
# Goals: cold under 3 s, hit under 0.2 s, syscall.* under 5 s.
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

script='probe begin { printf("hello world\n"); exit() }'
first=$(ms "$stap" -r "$kver" -p4 -e "$script")
rm -rf "$SYSTEMTAP_DIR"/cache/??
cold=$(ms "$stap" -r "$kver" -p4 -e "$script")
hit=$(ms "$stap" -r "$kver" -p4 -e "$script")
echo "compile: kernel $kver, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo "compile: first ever (API probes + module) ${first} ms"
echo "compile: cold -p4 (module cache empty)     ${cold} ms (goal < 3000)"
echo "compile: cache hit                          ${hit} ms (goal < 200)"
sys='global n; probe syscall.* { n[name]++ }'
rm -rf "$SYSTEMTAP_DIR"/cache/??
syscalls=$(ms "$stap" -r "$kver" -p4 -e "$sys")
echo "compile: cold -p4 of syscall.* { n[name]++ } ${syscalls} ms (goal < 5000)"
