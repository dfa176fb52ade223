#!/bin/bash
# startup.sh - from staprun's start to armed probes: the syscall tapset
# (probe syscall.* { n[name]++ }, every system call of the kernel, one
# tracepoint callback each way) and, for comparison, one kprobe.
# staprun holds the -c command until the probes are armed, so the
# command's first line, the guest's uptime, marks the moment they are.
# Runs in a QEMU guest under -icount shift=0 (guest time counts
# instructions: the figure repeats); the goal is under 1 s.
#
#   bench/startup.sh STAP STAPRUN [KVER...]   (default: 6.1 and 6.12)

set -euo pipefail
stap=$(readlink -f "${1:?usage: startup.sh STAP STAPRUN [KVER...]}")
staprun=$(readlink -f "${2:?usage: startup.sh STAP STAPRUN [KVER...]}")
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$here/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$here/runtime}
# shellcheck source=testsuite/lib.sh
. "$here/testsuite/lib.sh"
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	for f in 6.1 6.12; do
		k=$(newest_kernel "$f")
		[ -n "$k" ] && kvers+=("$k")
	done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/sysall.stp" <<'STP'
global n
probe syscall.* { n[name]++ }
probe syscall.exit_group { if (pid() == target()) exit() }
STP
cat >"$tmp/onek.stp" <<'STP'
global n
probe kernel.function("vfs_read") { n++ }
probe syscall.exit_group { if (pid() == target()) exit() }
STP

for k in "${kvers[@]}"; do
	d=$tmp/$k
	mkdir -p "$d"
	for s in sysall onek; do
		(cd "$d" && "$stap" -r "$k" -p4 -m "$s" "$tmp/$s.stp" >/dev/null)
	done
	"$here/testsuite/vm/mkinitramfs.sh" -o "$d/initrd" -r "$k" \
		-f "$staprun:/usr/local/bin/staprun" -f "$d/sysall.ko" \
		-f "$d/onek.ko" >/dev/null
	cmd=''
	for s in sysall onek sysall onek sysall onek; do
		cmd+="t0=\$(cut -d' ' -f1 /proc/uptime); "
		cmd+="t1=\$(staprun -c 'cut -d\" \" -f1 /proc/uptime' "
		cmd+="/opt/tapir/$s.ko | sed -n 1p); "
		cmd+="echo \"@@bench@@ $s \$t0 \$t1\"; "
	done
	"$here/testsuite/vm/run-vm.sh" -k "$k" -i "$d/initrd" -I -v -t 900 \
		-c "$cmd" >"$d/tap" 2>"$d/console" || true
	if ! grep -aq '^@@bench@@' "$d/console"; then
		echo "startup: $k: the runs did not finish" >&2
		tail -n 20 "$d/console" >&2
		exit 1
	fi
	tr -d '\r' <"$d/console" | awk -v k="$k" '
		$1 == "@@bench@@" { ms = ($4 - $3) * 1000
			if (!($2 in best) || ms < best[$2]) best[$2] = ms
			runs[$2] = runs[$2] " " sprintf("%.0f", ms) }
		END {
			printf "startup %s: syscall.* (every system call) armed in %.0f ms (runs:%s ms), one kprobe in %.0f ms (runs:%s ms); goal < 1000 ms of guest time\n",
			       k, best["sysall"], runs["sysall"], best["onek"], runs["onek"]
		}'
done
