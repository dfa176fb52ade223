#!/bin/sh
# two_sessions.sh - the driver of two_sessions.stp: it and
# two_sessions_b at the same time; their outputs and statuses in a
# fixed order.
staprun t_two_sessions_b.ko >/tmp/b.out 2>/tmp/b.err &
b=$!
staprun "$@" >/tmp/a.out 2>/tmp/a.err
a=$?
wait $b
b=$?
echo "a: status $a"
cat /tmp/a.out /tmp/a.err
echo "b: status $b"
cat /tmp/b.out /tmp/b.err
