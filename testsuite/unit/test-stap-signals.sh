#!/bin/bash
# test-stap-signals.sh - stap in pass 5 passes SIGINT, SIGTERM, SIGHUP
# and SIGQUIT sent to it on to staprun, which stops the script in order,
# and does not die of them itself (doc/safety.md, "Death of staprun").
# staprun is a stand-in here (SYSTEMTAP_STAPRUN) that reports the signal
# it gets; the module is built once for a kernel whose headers are
# installed.  Prints TAP.
#
# usage: test-stap-signals.sh STAP

set -u
stap=${1:?usage: test-stap-signals.sh STAP}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stap-signals.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# The first kernel with headers (the PREEMPT_RT ones are not a target
# of this test).
need_kernels 1
kver=${kvers[0]}

# The stand-in: says when it runs, then which signal ended it.
cat >"$tmp/staprun" <<'EOS'
#!/bin/sh
for s in INT TERM HUP QUIT; do
	trap "echo staprun got $s; exit 0" $s
done
echo ready >&2
i=0
while [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "staprun got no signal"
EOS
chmod +x "$tmp/staprun"
export SYSTEMTAP_STAPRUN=$tmp/staprun SYSTEMTAP_DIR=$tmp/cache

# Job control: a background job of a script would start with SIGINT
# and SIGQUIT ignored, which a shell cannot trap again.  And this test
# may itself run with them ignored (started in the background by a
# script): env puts every signal back to its default for stap, whose
# staprun, here a shell script, inherits what stap did not catch.
set -m
for sig in INT TERM HUP QUIT; do
	: >"$tmp/err"
	env --default-signal "$stap" -r "$kver" \
		-e 'probe begin { exit() }' >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	i=0
	while ! grep -q '^ready' "$tmp/err" && kill -0 $pid 2>/dev/null &&
	      [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -"$sig" $pid
	wait $pid
	rc=$?
	[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "staprun got $sig" ]
	result $? "SIG$sig to stap in pass 5 reaches staprun once, stap exits 0"
done

echo "1..$n"
[ "$failed" = 0 ]
