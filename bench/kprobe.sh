#!/bin/bash
# kprobe.sh - probe overhead in instructions per hit: a loop of N
# getpid() calls inside a QEMU guest run under -icount shift=0 (a guest
# nanosecond is one instruction), bare, then with each probe armed.  The
# floors are hand-written modules (bench/kprobe/bare_*.c: a kprobe, a
# kretprobe, an ftrace callback and, where the kernel has fprobe, an
# fprobe entry and an fprobe exit handler on __x64_sys_getpid, a probe
# on raw_syscalls:sys_enter); ours are stap's modules of the same
# probes, reported as a ratio to each of their floors.  One initramfs
# and one boot per kernel run every case.
#
#   bench/kprobe.sh STAP STAPRUN [KVER]
#
# KVER defaults to every kernel in /lib/modules.  Environment: N (getpid
# calls per run), REPS (runs per case), BARE_ONLY=1 (floors only: no stap
# modules, STAP and STAPRUN unused), CASES=kprobe,full,... (only those
# cases, by the first word of their lines below, and the baselines).  The plumbing is bench/lib.sh.

set -euo pipefail
: "${1:?usage: kprobe.sh STAP STAPRUN [KVER]}"
: "${2:?usage: kprobe.sh STAP STAPRUN [KVER]}"
here=$(cd "$(dirname "$0")/.." && pwd)
bench=kprobe
goal=1.15
what='getpid()'
loop=getpid-loop
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/bench/lib.sh"
bench_setup "$@"

# The cases (bench_cases adds the baseline runs): name, module, kind
# (bare or ours), floor (for ours), label.  Each bare module prints
# "NAME: hits=COUNT" when removed; ours prints its global n at the end.
# A FLOOR list names every floor a case is compared with, the first
# one against the goal; the fprobe floors exist only on kernels with
# fprobe (6.12), the others on both.
bare_cases=(
	"kprobe bare_kprobe bare - bare_kprobe"
	"ftrace bare_ftrace bare - bare_ftrace_callback"
	"fprobe bare_fprobe bare - bare_fprobe_entry"
	"kretprobe bare_kretprobe bare - bare_kretprobe"
	"fprobe_exit bare_fprobe_exit bare - bare_fprobe_exit"
	"tracepoint bare_tp bare - bare_tracepoint"
)
our_cases=(
	"func tk_func ours kprobe,ftrace,fprobe kernel.function"
	"ffunc tk_ffunc ours kprobe,ftrace,fprobe kernel.function_(ftrace)"
	"full tk_full ours kprobe kernel.function_(full_handler)"
	"exec tk_exec ours kprobe kernel.function_c[execname()]++"
	"return tk_return ours kretprobe,fprobe_exit kernel.function.return"
	"trace tk_trace ours tracepoint kernel.trace"
)
bench_cases

# The scripts of ours, by module name.
script_of()
{
	local fn='kernel.function("__x64_sys_getpid")'
	local tp='kernel.trace("raw_syscalls:sys_enter")'

	case $1 in
	tk_func) echo "global n; probe $fn { n++ }" ;;
	# the same through the shared ftrace_ops (-D STP_FTRACE_MIN=1)
	tk_ffunc) echo "global n; probe $fn { n++ }" ;;
	# a call makes the handler a full one: the whole context path
	tk_full) echo "global n; probe $fn { if (pid() > 0) n++ }" ;;
	# the most common idiom: a map update with a string key
	tk_exec) echo "global n, c; probe $fn { c[execname()]++ }" \
		"probe end { foreach (k in c) n += c[k] }" ;;
	tk_return) echo "global n; probe $fn.return { n++ }" ;;
	tk_trace) echo "global n; probe $tp { n++ }" ;;
	esac
}

# A getpid() loop spends most of its time in the probe: for the map
# update, that passes the overload threshold (half the CPU) by design.
opts_of()
{
	case $1 in
	tk_exec) echo "-D STP_NO_OVERLOAD" ;;
	tk_ffunc) echo "-D STP_FTRACE_MIN=1" ;;
	esac
}

build_loop()
{
	gcc -O2 -static -Wall -Wextra -o "$tmp/getpid-loop" \
		"$here/bench/kprobe/getpid-loop.c" ||
		die "cannot build getpid-loop (gcc -static needs libc6-dev)"
}

# The guest's own part (write_guest): the kprobes list while a probe is
# armed, the optimizer's setting and the names at the probed address.
guest_part()
{
	cat <<'GUEST'
kplist()
{
	grep getpid /sys/kernel/debug/kprobes/list 2>/dev/null |
		sed "s/^/$M kplist $1 /"
}

echo "$M kprobes-optimization - $(cat /proc/sys/debug/kprobes-optimization)"
# Which names share the probed address (reading kallsyms takes a while
# under TCG, but it is outside the measured loops).
grep -i ' t .*sys_getpid$' /proc/kallsyms | grep -v __pfx_ |
	sed "s/^/$M kallsyms - /"
GUEST
}

bench_prerequisites
build_loop
bench_kernels "$here/bench/kprobe" \
	"$tmp/getpid-loop:/usr/local/bin/getpid-loop"
