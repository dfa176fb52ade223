#!/bin/sh
# hot_insert_remove.sh - the driver of hot_insert_remove.stp: 40 runs,
# the ones that went wrong, then a count.
mod=t_hot_insert_remove
bad=0
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	timeout 30 staprun "$@" >/tmp/hir.out 2>/tmp/hir.err
	st=$?
	if [ $st -ne 0 ] || [ "$(cat /tmp/hir.out)" != fired ] ||
	   [ -s /tmp/hir.err ] || grep -q "^$mod " /proc/modules; then
		bad=$((bad + 1))
		echo "run $i: status $st, output $(head -c 200 /tmp/hir.out)"
		head -n 5 /tmp/hir.err
		rmmod $mod 2>/dev/null
	fi
done
echo "$i runs, $bad went wrong"
