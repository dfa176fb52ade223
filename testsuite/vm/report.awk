# report.awk - reads the console log of one VM run and prints TAP: a test
# point per test between the init's markers, then one for the VM itself
# (clean boot, no kernel problem, power-off).  Plain POSIX awk (mawk).
# Variables: verbose, kver, qemu_rc (the exit status of timeout+QEMU), limit.

BEGIN {
	M = "@@tapir@@ "
	TAIL = 40
	n = 0
	failed = 0
	inside = 0
	# What the kernel prints when it is damaged; matched on kernel lines
	# only (they carry a "[  time]" stamp), so that a test may print the
	# words itself.
	problem = "Kernel panic|Oops|BUG:|WARNING:|general protection fault|" \
		  "Call Trace:|UBSAN:|KASAN:|KFENCE:|soft lockup|hard LOCKUP|" \
		  "blocked for more than|detected stall|double fault|" \
		  "Unable to handle kernel|stack is corrupted"
	kline = "\\[ *[0-9]+\\.[0-9]+\\] .*(" problem ")"
}

{
	last[NR % TAIL] = $0
}

$0 ~ kline && first_problem == "" {
	first_problem = $0
	sub(/^.*\[ *[0-9]+\.[0-9]+\] /, "", first_problem)
}

index($0, M) {
	marker(substr($0, index($0, M) + length(M)))
	next
}

inside {
	out[nout++] = $0
}

# field(S, KEY): the value of "KEY=value" among the words of S.
function field(s, key,    w, i, k)
{
	k = split(s, w, " ")
	for (i = 1; i <= k; i++)
		if (index(w[i], key "=") == 1)
			return substr(w[i], length(key) + 2)
	return ""
}

function vm_error(msg)
{
	errors = errors (errors == "" ? "" : "; ") msg
}

function marker(s,    w)
{
	split(s, w, " ")
	if (w[1] == "start") {
		started = 1
	} else if (w[1] == "begin") {
		if (inside)
			finish(cur, "", "began again before its end")
		cur = w[2]
		nout = 0
		inside = 1
	} else if (w[1] == "end") {
		if (inside && w[2] == cur)
			finish(cur, field(s, "status"), field(s, "timeout"))
		else
			vm_error("end marker of " w[2] " without its begin")
		inside = 0
	} else if (w[1] == "done") {
		done = 1
		tainted = field(s, "tainted")
	} else if (w[1] == "error") {
		vm_error("init: " substr(s, 7))
	}
}

# finish(NAME, STATUS, WHY): the test point of one test; WHY is a reason
# to fail, or the time limit in seconds that the test reached.
function finish(name, status, why,    desc, ok, i)
{
	if (why ~ /^[0-9]+$/)
		why = "timed out after " why " s"
	ok = status == "0" && why == ""
	if (status != "" && status != "0")
		why = why (why == "" ? "" : ", ") "exit status " status
	desc = name (why == "" ? "" : " (" why ")")
	gsub(/#/, "", desc)	# "#" would start a TAP directive
	n++
	print (ok ? "ok " : "not ok ") n " - " desc
	if (!ok)
		failed++
	if (!ok || verbose)
		for (i = 0; i < nout; i++)
			print "#   " out[i]
}

# The taint flags that mean damage: machine check (M, bit 4), bad page
# (B, 5), died (D, 7), warning (W, 9), soft lockup (L, 14).  Unsigned and
# out-of-tree modules (E, O) are what tests load: not damage.
function bad_taint(t,    bits, i, b)
{
	split("4 5 7 9 14", bits, " ")
	for (i = 1; i <= 5; i++) {
		b = bits[i]
		if (int(t / 2 ^ b) % 2)
			return 1
	}
	return 0
}

function vm_verdict(    why)
{
	why = ""
	if (qemu_rc == 124 || qemu_rc == 137)
		why = "timed out after " limit " s"
	else if (qemu_rc != 0)
		why = "QEMU failed with status " qemu_rc
	if (!started)
		why = why (why == "" ? "" : "; ") "the init never started"
	else if (!done)
		why = why (why == "" ? "" : "; ") \
		      "the init did not finish: the kernel died or hung"
	if (first_problem != "")
		why = why (why == "" ? "" : "; ") "kernel: " first_problem
	if (tainted != "" && bad_taint(tainted))
		why = why (why == "" ? "" : "; ") "kernel tainted " tainted
	if (errors != "")
		why = why (why == "" ? "" : "; ") errors
	return why
}

END {
	died_in = inside ? cur : ""
	if (inside)
		finish(cur, "", "no end marker: the kernel died or hung")
	why = vm_verdict()
	gsub(/#/, "", why)
	n++
	if (why == "") {
		print "ok " n " - vm " kver ": clean boot, tests, power-off"
	} else {
		print "not ok " n " - vm " kver ": " why
		failed++
		print_tail()
	}
	print "1.." n
	exit (failed ? 1 : 0)
}

# The end of the console, unless it is the output of the test during
# which the kernel died, shown already.
function print_tail(    i)
{
	if (died_in != "") {
		print "# the console ends with the output of " died_in " above"
		return
	}
	if (NR == 0) {
		print "# the console stayed empty"
		return
	}
	print "# the last lines of the console:"
	for (i = NR - TAIL + 1; i <= NR; i++)
		if (i > 0)
			print "#   " last[i % TAIL]
}
