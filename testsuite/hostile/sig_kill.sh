#!/bin/sh
# sig_kill.sh - the driver of sig_kill.stp: staprun killed with SIGKILL
# after several delays.  Within 1 s of the kill no probe of the module
# may be armed (its vfs_read kprobe gone from the kprobes list, or its
# ftrace callback from enabled_functions, the
# state "stopped, orphaned", or "starting" when it died inside module
# init); the module stays listed with a reference count of 0, and
# staprun -d removes it at once.  Prints the rounds that broke that and
# a count.
mod=t_sig_kill
S=/sys/module/$mod/parameters/_stp_state
L=/sys/kernel/debug/kprobes/list
rounds=0
broken=0

now() { cut -d' ' -f1 /proc/uptime; }
F=/sys/kernel/debug/tracing/enabled_functions
# the kprobes on vfs_read and the module's ftrace callback there (the
# workload's own: none)
nprobes()
{
	k=$(grep -c ' vfs_read+' $L 2>/dev/null)
	f=$(grep -c "^vfs_read .*\[$mod\]" $F 2>/dev/null)
	echo $((${k:-0} + ${f:-0}))
}
loaded() { grep -q "^$mod " /proc/modules; }
# loading: listed, its init not over
loading() { grep -q "^$mod .* Loading " /proc/modules; }
# idle: nothing of the module can fire
idle()
{
	[ "$(nprobes)" = "$base" ] || return 1
	loaded || return 0
	state=$(cat $S 2>/dev/null)
	[ "$state" = "stopped, orphaned" ] || [ "$state" = starting ]
}

for d in 0 0.2 0.5 1 2 3; do
	rounds=$((rounds + 1))
	why=
	base=$(nprobes)
	staprun "$@" >/tmp/kill.out 2>/tmp/kill.err &
	pid=$!
	sleep $d
	armed=$(nprobes)
	kill -9 $pid 2>/dev/null
	# by 3 s the session runs: its kprobe must show in the list, or
	# the checks below would prove nothing
	[ $d = 3 ] && [ "$armed" = "$base" ] &&
		why="$why, no kprobe of the module seen while it ran"
	wait $pid 2>/dev/null
	t_kill=$(now)
	# Killed inside finit_module(): the bound counts from the end of
	# module init, which the kill cannot cut short.
	i=0
	while loading && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -gt 0 ] && t_kill=$(now)
	i=0
	while ! idle && [ $i -lt 400 ]; do
		sleep 0.025
		i=$((i + 1))
	done
	stop_s=$(awk "BEGIN { printf \"%.2f\", $(now) - $t_kill }")
	if ! idle; then
		why="$why, not stopped 10 s after the kill (state"
		why="$why '${state:-}', $(nprobes) kprobes on vfs_read)"
	elif ! awk "BEGIN { exit !($stop_s <= 1) }"; then
		why="$why, stopped only $stop_s s after the kill"
	fi
	# Still stopped a while later: nothing re-armed, nothing fires.
	sleep 0.5
	idle || why="$why, probes armed again after the stop"
	if loaded; then
		[ "$(cat /sys/module/$mod/refcnt)" = 0 ] ||
			why="$why, reference count $(cat /sys/module/$mod/refcnt)"
		staprun -d $mod >/tmp/kill.d 2>&1
		st=$?
		[ $st -eq 0 ] || why="$why, staprun -d exit status $st"
		[ -s /tmp/kill.d ] && why="$why, staprun -d said something"
		if loaded; then
			why="$why, still loaded after staprun -d"
			rmmod $mod 2>/dev/null
		fi
	fi
	[ "$(nprobes)" = "$base" ] || why="$why, kprobes left"
	if [ -n "$why" ]; then
		broken=$((broken + 1))
		echo "SIGKILL after $d s:${why#,}"
		head -n 5 /tmp/kill.d 2>/dev/null
	fi
	rm -f /tmp/kill.d
done
echo "$rounds rounds, $broken broken"
