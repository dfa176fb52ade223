#!/bin/sh
# overload_hot.sh - the driver of overload_hot.stp: two readers of small
# blocks (one a vCPU) make vfs_read hot on both CPUs whatever the
# suite's workload does at the time, so that each CPU spends most of its
# time in the heavy handler and the overload check must trip.  Its
# output and exit status are staprun's, but for stderr: each CPU may
# trip the check before the session stops, so one line stands for the
# same error repeated and the count of errors is N.
dd if=/dev/zero of=/dev/null bs=64 count=100000000 2>/dev/null &
r1=$!
dd if=/dev/zero of=/dev/null bs=64 count=100000000 2>/dev/null &
r2=$!
staprun "$@" 2>/tmp/overload.err
st=$?
sed -e 's/overhead ([0-9]* cycles)/overhead (N cycles)/' \
    -e 's/in last [0-9]* cycles/in last M cycles/' \
    -e 's/^WARNING: Number of errors: [0-9]*,/WARNING: Number of errors: N,/' \
    /tmp/overload.err | uniq >&2
kill $r1 $r2 2>/dev/null
wait $r1 $r2 2>/dev/null
exit $st
