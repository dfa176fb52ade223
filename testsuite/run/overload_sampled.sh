#!/bin/sh
# overload_sampled.sh - the driver of overload_sampled.stp: staprun, then
# the end of the command's dd, which outlives the session it overloaded
# (a command that runs is the user's); left running, it would slow the
# tests that come next.  Status and output are staprun's.
staprun "$@"
st=$?
killall dd 2>/dev/null
while pidof dd >/dev/null; do
	sleep 1
done
exit $st
