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
