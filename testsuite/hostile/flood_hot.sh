#!/bin/sh
# flood_hot.sh - the driver of flood_hot.stp: the lines that arrived
# against the count the script printed at its end.
staprun "$@" >/tmp/flood.out 2>/tmp/flood.err
st=$?
got=$(grep -c '^hit [0-9]* [0-9]* abcdefghijklmnopqrstuvwxyz$' /tmp/flood.out)
want=$(sed -n 's/^printed \([0-9]*\)$/\1/p' /tmp/flood.out)
if [ -n "$want" ] && [ "$got" -eq "$want" ] && [ "$want" -gt 0 ] &&
   [ $st -eq 0 ]; then
	echo "contract kept"	# every line printed arrived, exit status 0
elif [ $st -ne 0 ] && [ -s /tmp/flood.err ]; then
	echo "contract kept"	# the loss reported, exit status not 0
else
	echo "contract broken: $got lines of ${want:-?} printed, exit status $st, stderr:"
	head -n 20 /tmp/flood.err
fi
