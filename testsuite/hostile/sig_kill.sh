#!/bin/sh
# sig_kill.sh - the driver of sig_kill.stp: staprun killed with SIGKILL
# after several delays; the module must be gone 10 s later.
mod=t_sig_kill
rounds=0
broken=0
for d in 0 0.2 0.5 1 2 3; do
	rounds=$((rounds + 1))
	staprun "$@" >/tmp/kill.out 2>/tmp/kill.err &
	pid=$!
	sleep $d
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	i=0
	while grep -q "^$mod " /proc/modules && [ $i -lt 20 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if grep -q "^$mod " /proc/modules; then
		broken=$((broken + 1))
		echo "SIGKILL after $d s: module still loaded 10 s later"
		# clean up for the next rounds, as staprun -d would
		staprun -d $mod >/dev/null 2>&1 || rmmod $mod 2>/dev/null
	fi
done
echo "$rounds rounds, $broken broken"
