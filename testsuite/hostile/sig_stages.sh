#!/bin/sh
# sig_stages.sh - the driver of sig_stages.stp: one session per signal
# and delay; prints the rounds that broke the contract and a count.
# Its arguments are staprun's (no spaces in them).
mod=t_sig_stages
args=$*
rounds=0
broken=0

# taken PID: until staprun PID blocks SIGINT (SigBlk bit 2 of
# /proc/PID/status): it has taken the stop signals over and reads them
# from its signalfd.  At most 5 s.
taken()
{
	i=0
	while [ $i -lt 500 ]; do
		blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/"$1"/status \
			2>/dev/null)
		[ -z "$blk" ] && return	# gone already
		[ $((0x$blk & 2)) -ne 0 ] && return
		sleep 0.01
		i=$((i + 1))
	done
}

# round SIG NUMBER DELAY [SECOND]: start a session, send SIG after DELAY
# seconds (and again SECOND seconds later), check how it ended.  DELAY
# "0" counts from the moment staprun has taken the signals over; "now"
# sends SIG at once.
round()
{
	rounds=$((rounds + 1))
	# emptied here: a signal sent "now" can end the child before its
	# own redirections, and the last round's output must not count
	: >/tmp/sig.out
	: >/tmp/sig.err
	# shellcheck disable=SC2086 # the arguments, split on purpose
	staprun $args >/tmp/sig.out 2>/tmp/sig.err &
	pid=$!
	case $3 in
	now) ;;
	0) taken $pid ;;
	*) sleep "$3" ;;
	esac
	kill -"$1" $pid 2>/dev/null
	if [ -n "${4:-}" ]; then
		sleep "$4"
		kill -"$1" $pid 2>/dev/null
	fi
	( sleep 20; kill -9 $pid 2>/dev/null ) &
	dog=$!
	wait $pid 2>/dev/null
	st=$?
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
	why=
	if grep -q "^$mod " /proc/modules; then
		why="$why, module left"
		rmmod $mod 2>/dev/null
	fi
	if grep -q '^begin$' /tmp/sig.out; then
		grep -q '^end$' /tmp/sig.out || why="$why, begin without end"
		[ $st -eq 0 ] || why="$why, exit status $st after begin"
	else
		grep -q '^end$' /tmp/sig.out && why="$why, end without begin"
		[ $st -eq 0 ] || [ $st -eq $((128 + $2)) ] ||
			why="$why, exit status $st"
	fi
	[ $st -eq 137 ] && why="$why, still running after 20 s"
	if [ -n "$why" ]; then
		broken=$((broken + 1))
		echo "SIG$1 after $3 s${4:+, again $4 s later}:${why#,}"
		head -n 5 /tmp/sig.err
	fi
}

for d in 0 0.3 1 2.5; do
	round INT 2 $d
	round TERM 15 $d
	round HUP 1 $d
done
round TERM 15 now
round HUP 1 now
round INT 2 1.5 0.05
round INT 2 1.5 0.3
echo "$rounds rounds, $broken broken"
