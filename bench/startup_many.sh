#!/bin/bash
# startup_many.sh - arm and disarm time of thousands of function entry
# probes: kernel.function("*@fs/*.c") and kernel.function("*@mm/*.c")
# (.call: the functions themselves, about 3,000 and 2,000 of them),
# through the shared ftrace_ops (default) and through kprobes
# (-DSTAP_USE_KPROBES).  The file patterns need the kernel's DWARF (its
# -dbg package, in /usr/lib/debug or under a root that
# SYSTEMTAP_DEBUGINFO_PATH names): for a kernel without it, the same
# function names, taken from 6.1, are probed by name (each optional).
# staprun holds the -c command until the probes are armed, so the
# command's uptime marks it; the uptime after staprun returns marks the
# end of the disarming and the module's removal.  Guest time under
# -icount shift=0; the goal is under 1 s each way.
#
#   bench/startup_many.sh STAP STAPRUN [KVER...]   (default: 6.1 and 6.12)
#   STARTUP_MODES="ftrace kprobes" (default: both)

set -euo pipefail
stap=$(readlink -f "${1:?usage: startup_many.sh STAP STAPRUN [KVER...]}")
staprun=$(readlink -f "${2:?usage: startup_many.sh STAP STAPRUN [KVER...]}")
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$here/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$here/runtime}
# shellcheck source=testsuite/lib.sh
. "$here/testsuite/lib.sh"
modes=${STARTUP_MODES:-ftrace kprobes}
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	for f in 6.1 6.12; do
		k=$(newest_kernel "$f")
		[ -n "$k" ] && kvers+=("$k")
	done
fi
dbgk=$(newest_kernel 6.1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names of a file pattern's functions, from the 6.1 DWARF.
names_of()
{
	"$stap" -r "$dbgk" -p2 -e "probe kernel.function(\"$1\").call {}" |
		sed -n 's/^kernel.function("\([^"@]*\).*/\1/p' | sort -u
}

# Whether the DWARF of kernel $1 is where stap looks for it.
has_dbg()
{
	local root IFS=:

	for root in ${SYSTEMTAP_DEBUGINFO_PATH:-/usr/lib/debug}; do
		[ -f "$root/boot/vmlinux-$1" ] ||
			[ -f "$root/usr/lib/debug/boot/vmlinux-$1" ] &&
			return 0
	done
	return 1
}

script_for()
{
	local k=$1 dir=$2 out=$3
	{
		echo 'global n'
		if has_dbg "$k"; then
			echo "probe kernel.function(\"*@$dir/*.c\").call? { n++ }"
		else
			names_of "*@$dir/*.c" >"$tmp/$dir.names"
			sed 's/.*/probe kernel.function("&").call? { n++ }/' \
				"$tmp/$dir.names"
		fi
		echo 'probe syscall.exit_group { if (pid() == target()) exit() }'
		echo 'probe end { printf("hits %d\n", n) }'
	} >"$out"
}

for k in "${kvers[@]}"; do
	d=$tmp/$k
	mkdir -p "$d"
	files=()
	cmd=''
	for dir in fs mm; do
		script_for "$k" "$dir" "$d/$dir.stp"
		for m in $modes; do
			def=()
			[ "$m" = kprobes ] && def=(-DSTAP_USE_KPROBES)
			(cd "$d" && "$stap" -v -r "$k" -p4 -m "${dir}_$m" \
				${def[@]+"${def[@]}"} "$d/$dir.stp" 2>&1 >/dev/null |
				grep '^Function probes' | sed "s/^/$k ${dir}_$m: /")
			files+=(-f "$d/${dir}_$m.ko")
			cmd+="t0=\$(cut -d' ' -f1 /proc/uptime); "
			cmd+="o=\$(staprun -c 'cut -d\" \" -f1 /proc/uptime' "
			cmd+="/opt/tapir/${dir}_$m.ko); "
			cmd+="t2=\$(cut -d' ' -f1 /proc/uptime); "
			cmd+="t1=\$(echo \"\$o\" | sed -n 1p); "
			cmd+="h=\$(echo \"\$o\" | sed -n 's/^hits //p'); "
			cmd+="echo \"@@bench@@ ${dir}_$m \$t0 \$t1 \$t2 \$h\"; "
		done
	done
	"$here/testsuite/vm/mkinitramfs.sh" -o "$d/initrd" -r "$k" \
		-f "$staprun:/usr/local/bin/staprun" "${files[@]}" >/dev/null
	"$here/testsuite/vm/run-vm.sh" -k "$k" -i "$d/initrd" -I -v -t 3000 \
		-c "$cmd" >"$d/tap" 2>"$d/console" || true
	if ! grep -aq '^@@bench@@' "$d/console"; then
		echo "startup_many: $k: the runs did not finish" >&2
		tail -n 20 "$d/console" >&2
		exit 1
	fi
	tr -d '\r' <"$d/console" | awk -v k="$k" '
		$1 == "@@bench@@" {
			if ($4 == "" || $5 == "") {
				printf "startup_many %s: %s did not run\n", k, $2
				next
			}
			printf "startup_many %s: %s armed in %.0f ms, disarmed and removed in %.0f ms (goal < 1000 ms each), %s hits\n",
			       k, $2, ($4 - $3) * 1000, ($5 - $4) * 1000, $6 == "" ? "no" : $6
		}'
	grep -aE 'WARNING|BUG|ERROR|hung|blocked for' "$d/console" |
		head -n 5 | sed "s/^/startup_many $k console: /" || true
done
