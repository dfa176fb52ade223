# testsuite/kernel/vmlib.sh - what the in-VM halves of the module suites
# (transport/test.sh, uprobe/test.sh) share; busybox sh, sourced by them
# (suite.sh puts it beside the test in the VM).  TAP test points, and
# staprun runs whose output is kept for them.
#
# The test sets SR (staprun), T (a directory for the runs' files) and
# defines show_last, which shows the evidence of the last run when a
# check failed.  Each run is named ($name) and sets $rc.
#
# shellcheck shell=sh disable=SC2034 # variables shared with the test

n=0
failed=0

pass()
{
	n=$((n + 1))
	echo "ok $n - $*"
}

fail()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $*"
}

# check DESC CMD...: one test point; on failure the last run's files.
check()
{
	desc=$1
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc"
		show_last
		echo "#   exit status $rc"
	fi
}

# sr NAME ARGS...: staprun with its output in $T/NAME.{out,err}.
sr()
{
	name=$1
	shift
	$SR "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
}

# sr_within SECS NAME ARGS...: sr, but a staprun still running after
# SECS is a hang: where its threads and the kernel's blocked tasks wait
# goes to $T/NAME.err (and so into the failed check's evidence), then
# staprun is killed (rc 137) and the module removed, so that the suite
# goes on instead of waiting for its time limit.
sr_within()
{
	secs=$1
	name=$2
	shift 2
	$SR "$@" >"$T/$name.out" 2>"$T/$name.err" &
	pid=$!
	t=0
	while [ $t -lt "$secs" ] && kill -0 $pid 2>/dev/null; do
		sleep 1
		t=$((t + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		{
			echo "HANG: staprun still running after $secs s"
			for task in /proc/$pid/task/*; do
				echo "staprun thread ${task##*/}:" \
				     "$(cat "$task/wchan" 2>/dev/null)"
				cat "$task/stack" 2>/dev/null
			done
			echo w >/proc/sysrq-trigger
			sleep 1
			dmesg | tail -n 80
		} >>"$T/$name.err" 2>&1
		kill -9 $pid 2>/dev/null
	fi
	wait $pid
	rc=$?
	$SR -d "${MODNAME:-tptest}" >/dev/null 2>&1
}

has_err() { grep -qF -- "$1" "$T/$name.err"; }

# done_testing: the plan; fails if a check did.
done_testing()
{
	echo "1..$n"
	[ $failed = 0 ]
}
