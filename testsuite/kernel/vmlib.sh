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

has_err() { grep -qF -- "$1" "$T/$name.err"; }

# done_testing: the plan; fails if a check did.
done_testing()
{
	echo "1..$n"
	[ $failed = 0 ]
}
