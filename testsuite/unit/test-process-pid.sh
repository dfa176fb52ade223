#!/bin/bash
# test-process-pid.sh - process(PID) probe points resolve the program of
# a running process of this machine (/proc/PID/exe) and are limited to
# that process (a bare process under -x PID too); a dead PID and --vm
# are errors.  The probes themselves
# run in the VM tests, where host PIDs mean nothing: this checks the
# translation (stap -l, -p2, -p3).  Prints TAP.
#
# usage: test-process-pid.sh STAP

set -u
stap=${1:?usage: test-process-pid.sh STAP}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pid-test.XXXXXX") || exit 2
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# has NAME TEXT -- CMD...: CMD's output (both streams) has TEXT.
has()
{
	local name=$1 text=$2
	shift 3
	"$@" >"$tmp/out" 2>&1
	grep -qF -- "$text" "$tmp/out"
	result $? "$name"
}

cat >"$tmp/waiter.c" <<'C'
#include <stdio.h>

__attribute__((noinline)) int tick(int n)
{
	return n + 1;
}

int main(void)
{
	int c, n = 0;

	while ((c = getchar()) != EOF)
		n = tick(n);
	return n == 1000;
}
C
if ! gcc -g -O0 -o "$tmp/waiter" "$tmp/waiter.c" 2>"$tmp/out"; then
	result 1 "gcc builds the waiting program"
	echo "1..$n"
	exit 1
fi
mkfifo "$tmp/fifo"
"$tmp/waiter" <"$tmp/fifo" &
pid=$!
exec 3>"$tmp/fifo"

has "stap -l lists the process's functions by PID" \
	"process($pid).function(\"tick@$tmp/waiter.c:3\")" -- \
	"$stap" -l "process($pid).function(\"*\")"
has "-L gives their variables" '$n:int' -- \
	"$stap" -L "process($pid).function(\"tick\")"
has "-p3 places the probe in the program" ".path = \"$tmp/waiter\"" -- \
	"$stap" -p3 -e "probe process($pid).function(\"tick\") { println(\$n) }"
has "-p3 limits it to the process" ".pid = $pid," -- \
	"$stap" -p3 -e "probe process($pid).function(\"tick\") { println(\$n) }"
has "process(PID).begin is limited to it" ".pid = $pid," -- \
	"$stap" -p3 -e "probe process($pid).begin { println(pid()) }"
has "a bare process under -x is process(PID)" \
	"process($pid).function(\"tick@$tmp/waiter.c:3\")" -- \
	"$stap" -x "$pid" -l 'process.function("tick")'
has "its probes are limited to the process" ".pid = $pid," -- \
	"$stap" -x "$pid" -p3 -e 'probe process.plt { println($$name) }'
has "--vm refuses a PID of this machine" "(--vm): name the program" -- \
	"$stap" --vm -p2 -e "probe process($pid).function(\"tick\") {}"

exec 3>&-
wait "$pid"
dead=$pid
pid=
has "a PID no process has is an error" "process($dead): no such process" -- \
	"$stap" -p2 -e "probe process($dead).function(\"tick\") {}"
has "with file:line:col" "<input>:1:15: error" -- \
	"$stap" -p2 -e "probe process($dead).function(\"tick\") {}"
has "process(0) is no process ID" "process(0): not a process ID" -- \
	"$stap" -p2 -e 'probe process(0).function("tick") {}'

echo "1..$n"
echo "# process(PID): $((n - failed)) passed, $failed failed"
exit $((failed > 0))
