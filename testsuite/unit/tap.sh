# tap.sh - the TAP test points of the host unit tests written in bash,
# sourced by them after they set $tmp.  result STATUS DESCRIPTION counts
# a point (STATUS 0 passes); a failed one shows the evidence the test
# left in $tmp/out and $tmp/err (those that exist, the first
# ${TAP_LINES:-20} lines of each).  The test prints "1..$n" at its end
# and exits non-zero when $failed is not 0.
# shellcheck shell=bash disable=SC2034 # n and failed are the test's

n=0
failed=0

result()
{
	local f

	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n - $2"
	for f in "$tmp/out" "$tmp/err"; do
		[ -f "$f" ] && sed 's/^/#   /' "$f" | head -n "${TAP_LINES:-20}"
	done
}

# header_kernels: the releases of the kernels whose headers are
# installed (not PREEMPT_RT), into the array kvers.  need_kernels N: a
# failed point and the end of the test unless there are N of them.
header_kernels()
{
	local d k

	kvers=()
	for d in /lib/modules/*/build/Makefile; do
		k=$(basename "$(dirname "$(dirname "$d")")")
		case $k in *-rt-*) continue ;; esac
		[ -f "$d" ] && kvers+=("$k")
	done
	return 0
}

need_kernels()
{
	header_kernels
	[ ${#kvers[@]} -ge "$1" ] && return 0
	: >"$tmp/out"
	: >"$tmp/err"
	result 1 "kernels with headers to build for: $1 (scripts/setup-deps --vm)"
	echo "1..$n"
	exit 1
}
