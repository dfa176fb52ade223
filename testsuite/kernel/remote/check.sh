#!/bin/bash
# check.sh - stap --remote against real ssh servers: boots a 6.1 and a
# 6.12 guest at once under QEMU, each with dropbear on a port of
# 127.0.0.1 (QEMU user networking), with host and client keys made for
# this run, and runs stap here with --remote to both (and to a closed
# port).  Checks each host's output and prefix, that each host ran a
# module built for its own kernel, that SIGINT stops both with their end
# probes, the error naming the unreachable host, -c and -x on each host,
# and the exit statuses.  Prints TAP; a missing prerequisite is a
# failing test point, never a skip.
#
# usage: check.sh [-k KVER61 -k KVER612] [-v]
# STAP and STAPRUN: the binaries (default: the build tree's).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"
# shellcheck source=testsuite/kernel/remote/guests.sh
. "$here/guests.sh"

n=0
failed=0
kvers=()
limit=900
verbose=
tap_lines=60
STAP=${STAP:-$top/build/stap}
STAPRUN=${STAPRUN:-$top/build/staprun}
export STAPRUN

usage()
{
	echo "usage: ${0##*/} [-k KVER61 -k KVER612] [-v]" >&2
	exit 2
}

kernel_options "$@"
session_tmp tapir-remote
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	guests_kill
	rm -rf "$tmp"
}
trap cleanup EXIT

absent=
missing_tools missing qemu-system-x86_64:qemu-system-x86 \
	dropbear:dropbear-bin dropbearkey:dropbear-bin ssh:openssh-client \
	ssh-keygen:openssh-client python3:python3 busybox:busybox-static \
	cpio:cpio xz:xz-utils
missing_files "build tapir first" "$STAP" "$STAPRUN"
if [ ${#kvers[@]} -eq 0 ]; then
	for family in 6.1 6.12; do
		k=$(newest_kernel "$family")
		if [ -n "$k" ]; then
			kvers+=("$k")
		else
			missing "a $family kernel" "$(family_packages "$family")"
		fi
	done
fi
[ ${#kvers[@]} -eq 2 ] || [ -n "$absent" ] || usage
if [ -n "$absent" ]; then
	tap_finish remote
fi
k1=${kvers[0]}
k2=${kvers[1]}

if ! guests_init "$tmp/g" >"$tmp/init.log" 2>&1; then
	tap_result notok "keys and ssh configuration for the run" \
		"$tmp/init.log"
	tap_finish remote
fi
export TAPIR_SSH="${guest_ssh[*]}"
p1=$(free_port)
p2=$(free_port)
p3=$(free_port)		# nothing listens there
while [ "$p2" = "$p1" ]; do p2=$(free_port); done
while [ "$p3" = "$p1" ] || [ "$p3" = "$p2" ]; do p3=$(free_port); done

# Both guests boot at once; one host thread each.
t0=$SECONDS
guest_boot g1 "$k1" "$p1"
guest_boot g2 "$k2" "$p2"
up=1
for g in "g1 $k1 $p1" "g2 $k2 $p2"; do
	read -r name k port <<<"$g"
	if guest_wait "$name" "$port" 240; then
		tap_result ok "ssh to the $k guest on 127.0.0.1:$port"
	else
		cat "$tmp/g/$name.tap" "$tmp/g/$name.console" \
			>"$tmp/$name.why" 2>/dev/null
		tap_result notok "ssh to the $k guest on 127.0.0.1:$port" \
			"$tmp/$name.why"
		up=
	fi
done
echo "# both guests answered ssh after $((SECONDS - t0)) s"
if [ -z "$up" ]; then
	tap_finish remote
fi

# expect DESC FILE PATTERN...: a point that passes when FILE has a line
# matching each (grep -E) pattern.
expect()
{
	local desc=$1 file=$2 pat ok=ok

	shift 2
	for pat; do
		grep -Eq -- "$pat" "$file" || ok=notok
	done
	cat "$tmp/run.out" "$tmp/run.err" >"$tmp/both" 2>/dev/null
	tap_result $ok "$desc" "$tmp/both"
}

# The release each module was built for, by the preprocessor.
built_for="%( kernel_vr == \"$k1\" %? \"$k1\" %: %( kernel_vr == \"$k2\" %? \"$k2\" %: \"another kernel\" %) %)"
script_a="probe begin { printf(\"begin: %s built for %s\\n\", module_name(), $built_for)
  printf(\"id: %d %s\\n\", remote_id(), remote_uri()) }
probe end { println(\"end probe ran\") }"
h1=ssh://root@127.0.0.1:$p1
h2=127.0.0.1:$p2
h3=root@127.0.0.1:$p3

# Run A: three hosts, one unreachable; stopped by SIGINT once both ran
# their begin probes.  Job control: a background job would start with
# SIGINT ignored.
# (the files exist before the job opens them: the loop below reads
# run.out at once, and a loaded machine may start the job late)
: >"$tmp/run.out"
: >"$tmp/run.err"
set -m
"$STAP" --remote-prefix --remote "$h1" --remote "$h2" --remote "$h3" \
	-e "$script_a" >>"$tmp/run.out" 2>>"$tmp/run.err" </dev/null &
pid=$!
set +m
t0=$SECONDS
while [ "$(grep -c '^[01]: begin: ' "$tmp/run.out")" -lt 2 ] &&
      kill -0 $pid 2>/dev/null && [ $((SECONDS - t0)) -lt 400 ]; do
	sleep 0.5
done
echo "# run A: both hosts' begin probes after $((SECONDS - t0)) s" \
	"(two module builds, in parallel)"
kill -INT $pid 2>/dev/null
t1=$SECONDS
rc=0
wait $pid || rc=$?
echo "# run A: stopped $((SECONDS - t1)) s after SIGINT"
expect "run A: each host's begin probe, prefixed with its index" \
	"$tmp/run.out" '^0: begin: stap_[0-9a-f]+ built for ' \
	'^1: begin: stap_[0-9a-f]+ built for '
expect "run A: host 0 ran a module built for its $k1" "$tmp/run.out" \
	"^0: begin: .* built for ${k1//./\\.}\$"
expect "run A: host 1 ran a module built for its $k2" "$tmp/run.out" \
	"^1: begin: .* built for ${k2//+/\\+}\$"
m0=$(sed -n 's/^0: begin: \(stap_[0-9a-f]*\) .*/\1/p' "$tmp/run.out")
m1=$(sed -n 's/^1: begin: \(stap_[0-9a-f]*\) .*/\1/p' "$tmp/run.out")
if [ -n "$m0" ] && [ "$m0" != "$m1" ]; then
	tap_result ok "run A: one module per kernel release ($m0, $m1)"
else
	tap_result notok "run A: one module per kernel release" "$tmp/both"
fi
expect "run A: remote_id() and remote_uri() name each host" \
	"$tmp/run.out" "^0: id: 0 ${h1//./\\.}\$" "^1: id: 1 ${h2//./\\.}\$"
expect "run A: SIGINT ran both hosts' end probes" "$tmp/run.out" \
	'^0: end probe ran$' '^1: end probe ran$'
expect "run A: the unreachable host is an error naming it" "$tmp/run.err" \
	"^stap: error: remote host 2 \\($h3\\): cannot connect: .*(refused|closed|reset)"
if [ $rc -eq 1 ]; then
	tap_result ok "run A: exit status 1, the worst of the hosts'"
else
	echo "exit status $rc" >>"$tmp/run.err"
	tap_result notok "run A: exit status 1, the worst of the hosts'" \
		"$tmp/run.err"
fi
if grep -v -e '^stap: error: remote host 2 ' "$tmp/run.err" |
   grep -q .; then
	tap_result notok "run A: nothing else on stderr" "$tmp/run.err"
else
	tap_result ok "run A: nothing else on stderr"
fi

# Runs B and C: -c and -x on each host, the same module for both.
script_b='probe begin { printf("target %d\n", target()) }
probe timer.ms(1500) { exit() }
probe end { println("end") }'
rc=0
# shellcheck disable=SC2016 # expanded by the hosts' shells
timeout 600 "$STAP" --remote-prefix --remote "$h1" --remote "$h2" \
	-c 'echo hello from the target of $(uname -r)' -e "$script_b" \
	>"$tmp/run.out" 2>"$tmp/run.err" </dev/null || rc=$?
expect "run B: -c runs the command on each host" "$tmp/run.out" \
	"^0: hello from the target of ${k1//./\\.}\$" \
	"^1: hello from the target of ${k2//+/\\+}\$" \
	'^0: target [1-9][0-9]*$' '^1: target [1-9][0-9]*$' '^0: end$' '^1: end$'
if [ $rc -eq 0 ] && ! [ -s "$tmp/run.err" ]; then
	tap_result ok "run B: exit status 0, nothing on stderr"
else
	echo "exit status $rc" >>"$tmp/run.err"
	tap_result notok "run B: exit status 0, nothing on stderr" \
		"$tmp/run.err"
fi
rc=0
timeout 600 "$STAP" --remote "$h1" --remote "$h2" -x 1 -e "$script_b" \
	>"$tmp/run.out" 2>"$tmp/run.err" </dev/null || rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^target 1$' "$tmp/run.out")" = 2 ] &&
   [ "$(grep -c '^end$' "$tmp/run.out")" = 2 ]; then
	tap_result ok "run C: -x 1 on each host, no prefix, exit status 0"
else
	echo "exit status $rc" >>"$tmp/run.err"
	cat "$tmp/run.out" "$tmp/run.err" >"$tmp/both"
	tap_result notok "run C: -x 1 on each host, no prefix, exit status 0" \
		"$tmp/both"
fi

# What the runs left there: no module copy, no module loaded.
for g in "g1 $k1 $p1" "g2 $k2 $p2"; do
	read -r name k port <<<"$g"
	left=
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		left=$(timeout 30 "${guest_ssh[@]}" -p "$port" 127.0.0.1 \
		       'ls -d /tmp/tapir.* 2>/dev/null; grep "^stap_" /proc/modules; exit 0' \
		       </dev/null 2>&1) || left="ssh failed: $left"
		[ -z "$left" ] && break
		sleep 0.5
	done
	echo "$left" >"$tmp/left"
	if [ -z "$left" ]; then
		tap_result ok "the $k guest: no module copy or module left"
	else
		tap_result notok "the $k guest: no module copy or module left" \
			"$tmp/left"
	fi
done

# The guests power off cleanly: no oops, warning or taint of ours.
for g in "g1 $k1 $p1" "g2 $k2 $p2"; do
	read -r name k port <<<"$g"
	if guest_stop "$name" "$port"; then
		tap_result ok "the $k guest: clean run and power-off" \
			"$tmp/g/$name.tap"
	else
		tap_result notok "the $k guest: clean run and power-off" \
			"$tmp/g/$name.tap"
	fi
done
tap_finish remote
