#!/bin/sh
# flood_handler.sh - the driver of flood_handler.stp: runs it and says
# whether the output contract held (all 40000 lines in order and exit
# status 0, or a reported loss and a status that is not 0).
staprun "$@" >/tmp/flood.out 2>/tmp/flood.err
st=$?
awk -v want=40000 '
	$0 != sprintf("%05d abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstu", NR - 1) && !bad { bad = NR }
	END { printf "%d %d\n", NR, bad }' /tmp/flood.out >/tmp/flood.n
read -r got bad </tmp/flood.n
if [ "$got" -eq 40000 ] && [ "$bad" -eq 0 ] && [ $st -eq 0 ]; then
	echo "contract kept"	# every line, in order, exit status 0
elif [ $st -ne 0 ] && [ -s /tmp/flood.err ]; then
	echo "contract kept"	# the loss reported, exit status not 0
else
	echo "contract broken: $got of 40000 lines (first wrong line: $bad), exit status $st, stderr:"
	cat /tmp/flood.err
fi
