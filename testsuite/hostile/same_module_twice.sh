#!/bin/sh
# same_module_twice.sh - the driver of same_module_twice.stp.
staprun "$@" >/tmp/a.out 2>/tmp/a.err &
a=$!
i=0
while ! grep -qs '^ready$' /tmp/a.out && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
timeout 20 staprun "$@" >/tmp/b.out 2>/tmp/b.err
echo "second: status $?"
cat /tmp/b.out /tmp/b.err
sleep 1
kill -INT $a
wait $a
echo "first: status $?"
cat /tmp/a.out /tmp/a.err
