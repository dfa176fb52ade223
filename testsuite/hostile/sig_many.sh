#!/bin/sh
# sig_many.sh - the driver of sig_many.stp: SIGINT, SIGTERM and SIGHUP,
# each sent while the module registers its probes; prints the rounds
# that broke the contract and a count.  Its arguments are staprun's (no
# spaces in them).
mod=t_sig_many
args=$*
rounds=0
broken=0
# From the signal to staprun's exit, the module removed (doc/safety.md:
# the registration stops at the next probe and undoes itself, the end
# probe runs, the module is removed).  Measured under TCG with the
# workload: 0.1 to 0.3 s on 6.1, 6.12 and 6.12-rt, 2.8 s at most with
# three times as many probes on 6.12-rt.
BOUND=5

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk "BEGIN { printf \"%.2f\", $(now) - $1 }"; }
over() { awk "BEGIN { exit !($1 > $BOUND) }"; }

L=/sys/kernel/debug/kprobes/list
nkprobes() { grep -c . $L 2>/dev/null; }

# in_start PID: until the module of staprun PID registers its probes:
# it has not started yet and the kprobes list has grown (each function
# is first looked up as a disabled kprobe, and the .return probes are
# kretprobes).  At most 120 s: insertion of a module of this size takes
# a while under TCG.
in_start()
{
	i=0
	while [ $i -lt 1200 ]; do
		kill -0 "$1" 2>/dev/null || return 1
		[ "$(nkprobes)" -gt "$base" ] &&
		[ "$(cat /sys/module/$mod/parameters/_stp_state \
			2>/dev/null)" = starting ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# round SIG NUMBER DELAY: start a session, send SIG DELAY seconds into
# its registration, check how it ended.
round()
{
	rounds=$((rounds + 1))
	why=
	base=$(nkprobes)
	: >/tmp/sig.out
	: >/tmp/sig.err
	# shellcheck disable=SC2086 # the arguments, split on purpose
	staprun -v $args >/tmp/sig.out 2>/tmp/sig.err &
	pid=$!
	in_start $pid || why="$why, START not seen"
	sleep "$3"
	t_sig=$(now)
	kill -"$1" $pid 2>/dev/null
	( sleep 60; kill -9 $pid 2>/dev/null ) &
	dog=$!
	wait $pid 2>/dev/null
	st=$?
	took=$(since "$t_sig")
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
	if grep -q "^$mod " /proc/modules; then
		why="$why, module left"
		rmmod $mod 2>/dev/null
	fi
	grep -q "registration stopped for a signal" /tmp/sig.err ||
		why="$why, the signal did not stop the registration"
	grep -q '^begin$' /tmp/sig.out && grep -q '^end$' /tmp/sig.out ||
		why="$why, no begin and end"
	[ $st -eq 0 ] || why="$why, exit status $st"
	over "$took" && why="$why, staprun ended $took s after the signal"
	if [ -n "$why" ]; then
		broken=$((broken + 1))
		echo "SIG$1 $3 s into START:${why#,}"
		grep -v '^staprun: \(module\|inserting\|relay\|starting\)' \
			/tmp/sig.err | head -n 5
	fi
}

round INT 2 0
round TERM 15 0.3
round HUP 1 0.8
echo "$rounds rounds, $broken broken"
