# guest.sh - runs in the test VM: every /opt/tapir/ex_N.args with the
# module it names, as the example's test_installcheck command would
# (a -x PID of the host becomes this shell's), at most 45 s each, and
# says whether the module was left loaded.
cd /opt/tapir
for a in ex_*.args; do
	n=${a%.args}
	echo "=== $n $(cat $n.name)"
	in=/dev/null
	[ -s $n.stdin ] && in=/opt/tapir/$n.stdin
	args=$(sed "s/'-x' '[0-9]*'/'-x' '$$'/" $a)
	start=$(cut -d' ' -f1 /proc/uptime)
	(cd /tmp && eval "timeout -s INT 45 staprun $args" <$in >/tmp/o 2>/tmp/e)
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	echo "rc=$rc time=$start-$end lines=$(wc -l </tmp/o)"
	head -c 600 /tmp/e | sed 's/^/E: /'
	head -n 3 /tmp/o | cut -c1-120 | sed 's/^/O: /'
	m=$(cat $n.mod)
	if lsmod | grep -q "^$m "; then
		echo "LEFT LOADED"
		staprun -d $m
	fi
done
echo "=== all done"
