#!/bin/bash
# run-tests.sh - the driver behind `make check`: runs every component
# (host unit tests, staprun under valgrind, the golden suite, the -p3
# goldens, the fuzz corpus), shows their TAP and ends with "N passed, N
# failed".
#
# Inputs come from the environment (the Makefile sets them):
#   TAPIR_SRCDIR TAPIR_BUILDDIR STAP STAPRUN EXPORTER  paths (absolute)
#   UNIT_TESTS   unit test programs, relative to TAPIR_BUILDDIR
#   VALGRIND     valgrind binary, empty when configure found none
#   FUZZ_BIN     fuzz target, relative to TAPIR_BUILDDIR; empty when
#                configure found no clang with libFuzzer
# SYSTEMTAP_TAPSET and SYSTEMTAP_RUNTIME point stap at the source tree.

set -u
: "${TAPIR_SRCDIR:?}" "${TAPIR_BUILDDIR:?}" "${STAP:?}" "${STAPRUN:?}"
: "${EXPORTER:=$TAPIR_BUILDDIR/tapir-exporter}"
: "${UNIT_TESTS=}" "${VALGRIND=}" "${FUZZ_BIN=}"
export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$TAPIR_SRCDIR/tapset}
export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$TAPIR_SRCDIR/runtime}

passed=0
failed=0
skipped=0
times=""	# "# time: NAME N s" of the slow components, for the summary
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# A result of the driver's own, for what no component reports itself.
own_result()
{
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}

# component NAME CMD...: run CMD, show its TAP, add up its results.  A
# crash that reports nothing, or a plan that does not match the count,
# is one more failure: a component must not pass by saying nothing.
# room: the free space where the suites keep their files (a CI run
# once ran out of it)
room()
{
	df -h --output=avail "${TMPDIR:-/tmp}" | tail -n 1 | tr -d ' '
}

component()
{
	local name=$1 rc plan np nf ns t0=$SECONDS
	shift
	echo "# ---- $name"
	"$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	cat "$tmp/out"
	# at once too: a run stopped by a time limit shows where it went
	echo "# time: $name $((SECONDS - t0)) s, at $SECONDS s"
	if [ $((SECONDS - t0)) -ge 10 ]; then
		times="$times# time: $name $((SECONDS - t0)) s, then $(room) free
$(sed -n 's/^# \(pass 4: .*\|[^ ]*: boots and runs took .*\)/#   \1/p' \
	"$tmp/out")
"
	fi
	np=$(grep -Ec '^ok( |$)' "$tmp/out")
	nf=$(grep -Ec '^not ok( |$)' "$tmp/out")
	ns=$(grep -Eic '^ok( |$).*# skip' "$tmp/out")
	passed=$((passed + np - ns))
	failed=$((failed + nf))
	skipped=$((skipped + ns))
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$tmp/out" | tail -n 1)
	if [ -z "$plan" ]; then
		own_result fail "$name: no TAP plan (exit status $rc)"
	elif [ "$plan" != $((np + nf)) ]; then
		own_result fail "$name: planned $plan tests, ran $((np + nf))"
	fi
	if [ "$rc" != 0 ] && [ "$nf" = 0 ]; then
		own_result fail "$name: exit status $rc with no failed test"
	fi
}

unit_tests()
{
	local t
	for t in $UNIT_TESTS; do
		component "unit/${t##*/}" "$TAPIR_BUILDDIR/$t"
	done
	component "unit/test-staprun" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-staprun.sh" "$STAPRUN" \
		"$VALGRIND"
	component "unit/test-exporter" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-exporter.sh" "$EXPORTER" \
		"$VALGRIND" "$STAP"
	component "unit/test-json.sh" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-json.sh" \
		"$TAPIR_BUILDDIR/testsuite/unit/test-json"
	component "unit/test-process-pid" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-process-pid.sh" "$STAP"
	component "unit/test-cache-key" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-cache-key.sh" "$STAP" \
		"$TAPIR_SRCDIR"
	component "unit/test-listings" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-listings.sh" "$STAP" \
		"$TAPIR_SRCDIR"
	# stap's own sessions with a stand-in staprun or ssh (signals, -F,
	# --remote): they check how stap drives them, not what the tarball
	# holds (the goldens and test-cache-key translate and build from
	# its tapset and runtime), so make distcheck leaves them to the
	# main make check, as it does the kernel tests
	if [ "${TAPIR_DISTCHECK:-}" = 1 ]; then
		echo "# ---- unit/test-stap-signals, test-stap-flight," \
		     "test-remote: left to the main make check"
		return
	fi
	component "unit/test-stap-signals" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-stap-signals.sh" "$STAP"
	component "unit/test-stap-flight" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-stap-flight.sh" "$STAP"
	component "unit/test-remote" bash \
		"$TAPIR_SRCDIR/testsuite/unit/test-remote.sh" "$STAP"
}

golden()
{
	local g=$TAPIR_SRCDIR/testsuite/golden.sh
	if [ -f "$g" ]; then
		component golden bash "$g" "$STAP" "$TAPIR_SRCDIR"
	else
		echo "# ---- golden"
		own_result fail "golden: $g is missing"
	fi
}

# The -p3 goldens: the generated C of a script per construct and probe
# family (testsuite/codegen/README.md).
codegen()
{
	component codegen bash "$TAPIR_SRCDIR/testsuite/codegen/check.sh" \
		"$STAP" "$TAPIR_SRCDIR"
}

# The fuzz target once over every script in the testsuite, no fuzzing:
# a fast check that no known input crashes the front end under ASan.
fuzz_corpus()
{
	local list=$tmp/corpus n last
	echo "# ---- fuzz corpus"
	if [ -z "$FUZZ_BIN" ]; then
		own_result fail "fuzz corpus: no clang with libFuzzer at" \
			"configure time (run scripts/setup-deps, configure)"
		return
	fi
	# An in-tree `make fuzz` leaves its corpus under testsuite/fuzz/.
	find "$TAPIR_SRCDIR/testsuite" -path '*/testsuite/fuzz/corpus' -prune \
		-o -name '*.stp' -type f -print | LC_ALL=C sort >"$list"
	n=$(wc -l <"$list")
	if [ "$n" = 0 ]; then
		own_result fail "fuzz corpus: no .stp files under testsuite/"
		return
	fi
	if xargs -d '\n' "$TAPIR_BUILDDIR/$FUZZ_BIN" <"$list" \
		>"$tmp/fuzz.log" 2>&1; then
		own_result ok "fuzz corpus: $n scripts, no crash"
	else
		last=$(sed -n 's/^Running: //p' "$tmp/fuzz.log" | tail -n 1)
		own_result fail "fuzz corpus: the target failed on $last"
		grep -v '^Running: \|^Executed ' "$tmp/fuzz.log" | tail -n 40 |
			sed 's/^/# /'
	fi
}

# The kernel tests: modules built for Debian's 6.1, 6.12 and 6.12-rt
# kernels and run in QEMU guests (testsuite/vm).  A missing prerequisite
# is a failed test there, never a skip.
kernel_tests()
{
	component vm bash "$TAPIR_SRCDIR/testsuite/vm/check-vm.sh"
	component transport env STAPRUN="$STAPRUN" bash \
		"$TAPIR_SRCDIR/testsuite/kernel/transport/check.sh"
	# the runtime's uprobes, user memory and -c/-x, without the translator
	component uprobe bash "$TAPIR_SRCDIR/testsuite/kernel/uprobe/check.sh"
	# stap --remote to a 6.1 and a 6.12 guest at once, over ssh
	component remote env STAP="$STAP" STAPRUN="$STAPRUN" bash \
		"$TAPIR_SRCDIR/testsuite/kernel/remote/check.sh"
	# tapir-exporter in a 6.12 guest, scraped by Prometheus here
	component exporter env STAP="$STAP" STAPRUN="$STAPRUN" \
		EXPORTER="$EXPORTER" bash \
		"$TAPIR_SRCDIR/testsuite/kernel/exporter/check.sh"
	# stap --monitor --vm in a tmux terminal: the view and its keys
	component monitor env STAP="$STAP" STAPRUN="$STAPRUN" bash \
		"$TAPIR_SRCDIR/testsuite/kernel/monitor/check.sh"
	# scripts run end to end with exact expected output
	component run env STAP="$STAP" STAPRUN="$STAPRUN" bash \
		"$TAPIR_SRCDIR/testsuite/run/check-run.sh"
	# published-style scripts of every family: -p2 for each kernel,
	# -p4 for the ones marked so
	component corpus env STAP="$STAP" TAPIR_BUILDDIR="$TAPIR_BUILDDIR" \
		bash "$TAPIR_SRCDIR/testsuite/corpus/check.sh"
	# the never-crash suite: hostile scripts and sessions under a
	# workload, the guest's health checked after each
	component hostile env STAP="$STAP" STAPRUN="$STAPRUN" bash \
		"$TAPIR_SRCDIR/testsuite/hostile/check.sh"
}

unit_tests
golden
codegen
fuzz_corpus
# make distcheck checks the tarball: it builds and passes the host
# tests; the kernel tests of the same sources run in the main make check
# (.ci/run does both), so distcheck leaves them out rather than count
# them twice.
if [ "${TAPIR_DISTCHECK:-}" = 1 ]; then
	echo "# ---- kernel tests: left to the main make check"
else
	kernel_tests
fi

# Where the time went, just above the closing line (a CI log shows its
# tail): components that took at least 10 s, then the whole run.
printf '%s' "$times" | grep -v '^$'
echo "# time: all $SECONDS s"
if [ -n "${TAPIR_CI_BEFORE:-}" ]; then
	echo "# time: .ci/run before make check $TAPIR_CI_BEFORE s"
fi
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
# A skipped test is a test that did not run: it does not pass.
[ "$failed" = 0 ] && [ "$skipped" = 0 ]
