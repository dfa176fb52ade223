#!/bin/sh
# out_closed.sh - the driver of out_closed.stp: staprun with stdout
# closed, into a pipe whose reader exits after one line, and into
# /dev/full; for each, how it ended.
mod=t_out_closed

# verdict WHAT STATUS: the contract for one run.
verdict()
{
	if grep -q "^$mod " /proc/modules; then
		echo "$1: module left loaded (exit status $2)"
		rmmod $mod 2>/dev/null
	elif [ "$2" -eq 0 ]; then
		echo "$1: exit status 0 although the output was lost"
	elif [ "$2" -gt 128 ]; then
		echo "$1: killed by signal $(($2 - 128))"
	elif [ ! -s /tmp/oc.err ]; then
		echo "$1: exit status $2 and no message"
	else
		echo "$1: message and exit status not 0"
	fi
}

staprun "$@" >&- 2>/tmp/oc.err
verdict "stdout closed" $?

rm -f /tmp/oc.fifo
mkfifo /tmp/oc.fifo
staprun "$@" >/tmp/oc.fifo 2>/tmp/oc.err &
pid=$!
head -n 1 </tmp/oc.fifo >/dev/null
wait $pid
verdict "reader gone" $?

staprun "$@" >/dev/full 2>/tmp/oc.err
verdict "device full" $?
