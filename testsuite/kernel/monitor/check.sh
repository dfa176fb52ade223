#!/bin/bash
# check.sh - stap --monitor in a terminal: runs `stap --monitor=1 --vm`
# inside a detached tmux session (the guest's staprun draws on the
# terminal through the VM's second serial port) and reads the screen
# with capture-pane: the view shows the probes with their hit counts
# and a global; `p` pauses the probes (the counts stop), `c` resets the
# global, `q` quits, the end probe's output follows the view and stap
# exits with 0.  One boot, of the newest 6.12 kernel unless -k names
# one.  Prints TAP; a missing prerequisite is a failing test point,
# never a skip.
#
# usage: check.sh [-k KVER] [-t SECS] [-v]
# STAP and STAPRUN: the binaries (default: the build tree's).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"

n=0
failed=0
kvers=()
limit=240		# -t: seconds for the build and the boot
verbose=
STAP=${STAP:-$top/build/stap}
STAPRUN=${STAPRUN:-$top/build/staprun}

usage()
{
	echo "usage: ${0##*/} [-k KVER] [-t SECS] [-v]" >&2
	exit 2
}

kernel_options "$@"
session_tmp tapir-monitor
sock=tapir-monitor-$$
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	tmux -L "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

absent=
missing_tools missing tmux:tmux qemu-system-x86_64:qemu-system-x86 \
	busybox:busybox-static
[ ${#kvers[@]} -gt 0 ] || kvers=("$(newest_kernel 6.12)")
kver=${kvers[0]}
if [ -z "$kver" ] || [ ! -r "/boot/vmlinuz-$kver" ]; then
	missing "kernel ${kver:-6.12}" "scripts/setup-deps --vm"
fi
[ -z "$absent" ] || tap_finish monitor

# A timer that counts into a global, a kernel function (staprun's own
# reads of the output and of the view's report hit it), a probe that
# prints, and an end probe whose output must follow the view.
cat >"$tmp/mon.stp" <<'EOF'
global ticks, reads, cpus, lat
probe timer.ms(50) { ticks++; cpus[cpu()]++; lat <<< 7 }
probe kernel.function("vfs_read") { reads++ }
probe timer.s(1) { printf("tick line %d\n", ticks) }
probe end { printf("end probe ran: %s\n", ticks > 0 ? "counted" : "none") }
EOF

screen=$tmp/screen
# The screen, read again until two reads 0.4 s apart agree: a read in
# the middle of a frame's drawing is not taken.
snap()
{
	local try

	for try in 1 2 3 4 5 6; do
		[ "$try" -gt 1 ] && sleep 0.2
		tmux -L "$sock" capture-pane -p -t mon >"$screen.1" 2>/dev/null
		sleep 0.4
		tmux -L "$sock" capture-pane -p -t mon >"$screen" 2>/dev/null
		cmp -s "$screen" "$screen.1" && return 0
	done
	return 0
}

# wait_for SECS REGEX: until the screen matches (egrep), or time out.
wait_for()
{
	local end=$((SECONDS + $1))

	while [ $SECONDS -lt "$end" ]; do
		snap
		grep -Eq -- "$2" "$screen" && return 0
		sleep 1
	done
	return 1
}

# The hits of a probe (default timer.ms(50)) on the screen: its row
# of the probe table, index hits avg min max point.
hits()
{
	snap
	awk -v pp="${1:-timer.ms(50)}" \
		'$NF == pp && $1 ~ /^[0-9]+$/ { print $2; exit }' "$screen"
}

# The global's value as the view shows it ("ticks=N").
ticks()
{
	snap
	sed -n 's/.*ticks=\([0-9]*\).*/\1/p' "$screen" | head -n 1
}

point()
{
	if [ "$1" = ok ]; then
		tap_result ok "$2"
	else
		cp "$screen" "$tmp/shown" 2>/dev/null
		tap_result notok "$2" "$tmp/shown"
	fi
}

tmux -L "$sock" -f /dev/null new-session -d -s mon -x 100 -y 30 \
	"cd '$tmp' && '$STAP' --monitor=1 --vm='$kver' mon.stp \
	 2>stap.err; echo \"stap exit status \$?\"; sleep 600"

# the build and the boot come first
if wait_for "$limit" 'timer\.ms\(50\)'; then
	point ok "the view shows the probes"
else
	point notok "the view shows the probes"
	cat "$tmp/stap.err" >>"$screen" 2>/dev/null
	tap_comment "$screen"
	tap_finish monitor
fi

# counts that grow, and the global
h1=$(hits)
sleep 3
h2=$(hits)
if [ -n "$h1" ] && [ -n "$h2" ] && [ "$h2" -gt "$h1" ]; then
	point ok "hit counts grow ($h1, then $h2)"
else
	point notok "hit counts grow ('$h1', then '$h2')"
fi
k=$(hits 'kernel.function("vfs_read")')
if [ -n "$k" ] && [ "$k" -gt 0 ]; then
	point ok "a kernel function's hits are counted ($k)"
else
	point notok "a kernel function's hits are counted ('$k')"
fi
t=$(ticks)
if grep -Eq 'cpus: [12] elements' "$screen" &&
   grep -Eq 'lat: @count=[1-9][0-9]* @sum=[1-9][0-9]*' "$screen"; then
	point ok "an array's size and a statistic's count and sum are shown"
else
	point notok "an array's size and a statistic's count and sum are shown"
fi
if [ -n "$t" ] && [ "$t" -gt 0 ] && grep -q 'end' "$screen" &&
   grep -q 'timer\.s(1)' "$screen" && grep -q 'tick line' "$screen"; then
	point ok "the global, every probe and the output are shown"
else
	point notok "the global, every probe and the output are shown"
fi

# h: the keys' help, and h again: the output
tmux -L "$sock" send-keys -t mon h
if wait_for 10 'q  quit: stop the script' &&
   tmux -L "$sock" send-keys -t mon h && wait_for 10 '^--- output'; then
	point ok "h shows the keys, and hides them"
else
	point notok "h shows the keys, and hides them"
fi

# p: paused, the counts stand still over two refreshes
tmux -L "$sock" send-keys -t mon p
if wait_for 10 '^\[paused\]' && wait_for 10 '(^| )paused( |$)'; then
	sleep 2
	h1=$(hits)
	sleep 3
	h2=$(hits)
	if [ -n "$h1" ] && [ "$h1" = "$h2" ]; then
		point ok "p pauses the probes ($h1 hits, still)"
	else
		point notok "p pauses the probes ('$h1', then '$h2')"
	fi
else
	point notok "p pauses the probes (no paused state shown)"
fi

# c: the global and the counts start again from 0 (still paused)
tmux -L "$sock" send-keys -t mon c
if wait_for 10 'ticks=0( |$)' && [ "$(hits)" = 0 ] &&
   grep -q 'cpus: 0 elements' "$screen" &&
   grep -q 'lat: @count=0 ' "$screen"; then
	point ok "c resets the global and the counts"
else
	point notok "c resets the global and the counts"
fi

# p again: running, counting again
tmux -L "$sock" send-keys -t mon p
sleep 4
h1=$(hits)
if [ -n "$h1" ] && [ "$h1" -gt 0 ] && grep -q '^keys:' "$screen"; then
	point ok "p again resumes them ($h1 hits)"
else
	point notok "p again resumes them ('$h1' hits)"
fi

# q: the view closes, the end probe's output follows, status 0
tmux -L "$sock" send-keys -t mon q
if wait_for 60 '^stap exit status'; then
	if grep -q '^end probe ran: counted$' "$screen" &&
	   ! grep -q 'timer\.ms(50)' "$screen"; then
		point ok "q quits: the view closes, the end probe's output follows"
	else
		point notok "q quits: the view closes, the end probe's output follows"
	fi
	if grep -q '^stap exit status 0$' "$screen"; then
		point ok "stap --monitor exits with status 0"
	else
		cat "$tmp/stap.err" >>"$screen" 2>/dev/null
		point notok "stap --monitor exits with status 0"
	fi
else
	point notok "q quits: stap did not end"
fi

tap_finish monitor
