# json_cpus.sh - staprun of json_cpus with both CPUs busy; prints a
# summary of its output (the JSON lines themselves vary with timing).
(while :; do :; done) &
b1=$!
(while :; do :; done) &
b2=$!
staprun "$@" >json_cpus.out 2>json_cpus.err
rc=$?
kill $b1 $b2
wait $b1 $b2 2>/dev/null
total=$(wc -l <json_cpus.out)
good=$(grep -c -E "^\{\"type\":\"printf\",\"probe\":\"timer\.profile[a-z.]*\",\"cpu\":([01]),\"time_ns\":[0-9]+,\"data\":\"x{200} cpu=[01]\"\}\$" json_cpus.out)
cpu0=$(grep -c '"cpu":0,.* cpu=0"}$' json_cpus.out)
cpu1=$(grep -c '"cpu":1,.* cpu=1"}$' json_cpus.out)
echo "staprun: $rc"
[ "$total" -gt 0 ] && echo "lines: some"
[ "$good" = "$total" ] && echo "well-formed: all" ||
	echo "well-formed: $good of $total"
[ $((cpu0 + cpu1)) = "$total" ] && echo "cpu field: right" ||
	echo "cpu field: $cpu0 + $cpu1 of $total"
[ "$cpu0" -gt 0 ] && echo "cpu 0: some"
[ "$cpu1" -gt 0 ] && echo "cpu 1: some"
cat json_cpus.err
