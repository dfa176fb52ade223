#!/bin/sh
# test.sh - the transport tests inside the VM (busybox sh, run by
# check.sh as /tests/transport/run): staprun drives tptest.ko through
# every scenario; each check is a TAP line.  Needs ./staprun, ./tptest.ko,
# debugfs, and 2 CPUs for the bulk test.  The helpers are ../vmlib.sh.

SR=./staprun
KO=./tptest.ko
T=/tmp/transport
# shellcheck source-path=SCRIPTDIR source=../vmlib.sh
. ./vmlib.sh
mkdir -p $T

# show FILE...: a failed check's evidence, as TAP comments.
show()
{
	for f in "$@"; do
		echo "#   --- $f"
		head -n "${lines_shown:-15}" "$f" | sed 's/^/#   /'
	done
}

# a hang's evidence (sr_within) is in .err: all of it
show_last() { show "$T/$name.out"; lines_shown=200 show "$T/$name.err"; }

unloaded()
{
	! grep -q '^tptest ' /proc/modules &&
		[ ! -e /sys/kernel/debug/systemtap/tptest ]
}

has_out() { grep -qxF -- "$1" "$T/$name.out"; }
no_err() { [ ! -s "$T/$name.err" ]; }
now() { cut -d' ' -f1 /proc/uptime; }

# wait_lines FILE: until FILE has a "tick" line, for at most 20 s.
wait_lines()
{
	local i=0
	while [ $i -lt 100 ] && ! grep -q '^tick' "$1" 2>/dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
}

# The flood lines of FILES: COUNT well-formed ones, numbered 0..COUNT-1
# without a gap or a repeat (by count, sum and range).
flood_ok()
{
	count=$1
	shift
	cat "$@" | awk -v want="$count" '
		/^flood [0-9]+$/ {
			k++; s += $2
			if ($2 > max) max = $2
			next
		}
		/^(begin target=|flood: |end ticks=)/ { next }
		{ bad++ }
		END {
			if (k != want || bad || max != want - 1 ||
			    s != want * (want - 1) / 2) {
				printf "# %d lines, %d bad, max %d\n",
					k, bad, max
				exit 1
			}
		}'
}

# Burst lines: 64 bytes each, numbered from 0 with no gap (blank-padded:
# busybox awk reads a number with leading zeros as octal).
burst_ok()
{
	awk 'length($0) != 63 || $2 != NR - 1 { bad++ }
	     END {
		if (bad || NR == 0) {
			print "# " bad " bad lines"
			exit 1
		}
	     }' "$1"
}

if [ ! -x $SR ] || [ ! -f $KO ]; then
	echo "not ok 1 - staprun and tptest.ko are here"
	exit 1
fi

# ---- life cycle ---------------------------------------------------------
sr lines $KO mode=lines lines=5
printf 'begin target=0\ntick 1\ntick 2\ntick 3\ntick 4\ntick 5\nend ticks=5\n' \
	>$T/lines.want
check "exit() from a timer probe: begin, 5 ticks, end, status 0" \
	eval '[ $rc = 0 ] && cmp -s $T/lines.out $T/lines.want && no_err'
check "the module is unloaded after the run" unloaded

sr exitbegin $KO mode=exitbegin
check "exit() in begin: end runs, status 0" \
	eval '[ $rc = 0 ] && has_out "end ticks=0" && no_err && unloaded'

sr failstart $KO mode=failstart
check "a module that fails to start: message, status 1, unloaded" \
	eval '[ $rc = 1 ] &&
	      has_err "staprun: the module failed to start: No such device" &&
	      unloaded'

echo 'not a module' >$T/text_mod.ko
sr text $T/text_mod.ko
want="couldn't insert module '$T/text_mod.ko': "
check "a file that is no module: couldn't insert, status 1" \
	eval '[ $rc = 1 ] && has_err "$want"'

sr badparam $KO lines=many
want="couldn't insert module '$KO': Invalid argument"
check "a bad module argument fails the insert" \
	eval '[ $rc = 1 ] && has_err "$want" && unloaded'

# ---- messages -----------------------------------------------------------
sr warn $KO mode=warn
check "warn(): WARNING on stderr, status 0" \
	eval '[ $rc = 0 ] && has_err "WARNING: test warning 42" &&
	      ! grep -q WARNING $T/warn.out'

sr warn_w -w $KO mode=warn
check "-w suppresses warnings" eval '[ $rc = 0 ] && no_err'

sr error $KO mode=error
want="ERROR: division by 0 near operator '/' at tptest.stp:3:14"
check "a script error: ERROR near its place, error probe, status 1" \
	eval '[ $rc = 1 ] && has_err "$want" &&
	      has_err "WARNING: Number of errors: 1, skipped probes: 0" &&
	      has_out "tick 2" && ! has_out "tick 3" &&
	      has_out "error probe ran" && ! grep -q "^end" $T/error.out &&
	      unloaded'

sr skip $KO mode=skip
want="ERROR: Skipped too many probes, check MAXSKIPPED or try again with"
want="$want stap -t for more details."
check "past MAXSKIPPED: the established message and count, status 1" \
	eval '[ $rc = 1 ] && has_err "$want" &&
	      has_err "WARNING: Number of errors: 0, skipped probes: 101" &&
	      has_out "error probe ran"'

sr system $KO mode=system
check "system(): the command runs after the output before it" \
	eval '[ $rc = 0 ] && awk "/^before system\$/ { b = NR }
	      /^system ran\$/ { s = NR } END { exit !(b && s > b) }" \
	      $T/system.out'

# ---- options ------------------------------------------------------------
sr x -x 1 $KO mode=exitbegin
check "-x PID is target()" eval '[ $rc = 0 ] && has_out "begin target=1"'

sr c -c 'echo child=$$' $KO mode=forever
tpid=$(sed -n 's/^begin target=//p' $T/c.out)
check "-c CMD: target() is the command, the run ends with it" \
	eval '[ $rc = 0 ] && [ -n "$tpid" ] && [ "$tpid" != 0 ] &&
	      has_out "child=$tpid" && grep -q "^end ticks=" $T/c.out'

sr cbad -c 'no_such_command_here x' $KO mode=forever
check "-c with a command that cannot run: message, status 1, unloaded" \
	eval '[ $rc = 1 ] && has_err "cannot run '"'no_such_command_here'"'" &&
	      ! has_out "begin target=" && unloaded'

t0=$(now)
sr T -T 2 $KO mode=forever
t1=$(now)
check "-T 2 stops the script after 2 s" \
	eval '[ $rc = 0 ] && grep -q "^end ticks=[1-9]" $T/T.out &&
	      awk "BEGIN { d = $t1 - $t0; exit !(d >= 2 && d < 10) }"'

year=$(date +%Y)
rm -f $T/o-*.txt
sr o -o "$T/o-%Y.txt" $KO mode=lines lines=3
check "-o FILE with strftime escapes" \
	eval '[ $rc = 0 ] && [ ! -s $T/o.out ] &&
	      [ "$(wc -l <$T/o-$year.txt)" = 5 ]'

ncpus=$(grep -c '^processor' /proc/cpuinfo)
sr s -v -s 1 $KO mode=exitbegin
check "-s 1 sizes the buffers (1 MB over $ncpus CPUs, 8 sub-buffers)" \
	eval 'has_err "buffers: 8 x $((1048576 / ncpus / 8)) bytes per CPU"'

rm -f $T/bulk_*
sr bulk -b -o $T/bulk $KO mode=flood lines=20000
check "-b writes one file per CPU, every line in one of them" \
	eval '[ $rc = 0 ] && [ -e $T/bulk_0 ] &&
	      [ "$(ls $T/bulk_* | wc -l)" = "$ncpus" ] &&
	      flood_ok 20000 $T/bulk_*'

# ---- output volume ------------------------------------------------------
t0=$(now)
sr_within 180 flood -o $T/flood.txt $KO mode=flood lines=1000000
t1=$(now)
check "1,000,000 lines from a kthread arrive, none lost or mixed" \
	eval '[ $rc = 0 ] && no_err && flood_ok 1000000 $T/flood.txt'
# throughput LABEL T0 T1 FILE: lines/s of the whole run and of the
# producer alone (its own clock, from the "flood:" line).
throughput()
{
	awk -v l="$1" -v t0="$2" -v t1="$3" \
	    -v f="$(sed -n 's/^flood: //p' "$4")" -v b="$(wc -c <"$4")" \
	'BEGIN { d = t1 - t0; split(f, w, " ")
		 printf "# throughput, %s: %d lines (%d bytes) in %.2f s, " \
			"%d lines/s from load to unload; producer %d lines/s\n",
			l, w[1], b, d, w[1] / d,
			w[4] ? w[1] / (w[4] / 1e6) : 0 }'
}

throughput "1 line per probe hit" $t0 $t1 $T/flood.txt
rm -f $T/flood.txt

t0=$(now)
sr_within 180 flood16 -o $T/flood.txt $KO mode=flood lines=1000000 \
	batch=16
t1=$(now)
check "1,000,000 lines, 16 per probe hit, none lost or mixed" \
	eval '[ $rc = 0 ] && no_err && flood_ok 1000000 $T/flood.txt'
throughput "16 lines per probe hit" $t0 $t1 $T/flood.txt
rm -f $T/flood.txt

name=pipe
$SR $KO mode=flood lines=100000 2>$T/pipe.err | wc -l >$T/pipe.out
rc=$?
check "100,000 lines through a pipe" \
	eval '[ "$(cat $T/pipe.out)" = 100003 ] && no_err'

# burst NAME KB: a burst of KB kilobytes from one probe hit while staprun
# is stopped, so that nothing is read meanwhile: 2 MB fit in the relay
# buffer (8 x 256 KB) and 64 KB in the overflow area; the rest is lost.
burst()
{
	name=$1
	$SR -o $T/$1.txt $KO mode=burst burst_kb=$2 >$T/$1.out 2>$T/$1.err &
	pid=$!
	i=0
	while [ "$(cat $P/state 2>/dev/null)" != running ] && [ $i -lt 100 ]
	do
		sleep 1
		i=$((i + 1))
	done
	kill -STOP $pid
	echo 1 >$P/burst_now
	kill -CONT $pid
	wait $pid
	rc=$?
	lost=$(sed -n "s/^WARNING: \([0-9]*\) bytes of output .*/\1/p" \
		"$T/$1.err")
	got=$(wc -c <$T/$1.txt)
	echo "# burst of $2 KB: $got bytes kept, ${lost:-0} lost"
}

P=/sys/module/tptest/parameters
kept=$((2048 * 1024 + 64 * 1024))
burst burst1 2080
check "a burst past the relay buffer waits in the overflow area" \
	eval '[ $rc = 0 ] && has_err "WARNING: burst sent 2129920 bytes" &&
	      ! has_err "lost" && [ "$got" = 2129920 ] &&
	      burst_ok $T/burst1.txt'
burst burst2 4096
check "past the overflow area the loss is counted to the byte, status 1" \
	eval '[ $rc = 1 ] && has_err "WARNING: burst sent 4194304 bytes" &&
	      [ "$got" = $kept ] && [ "$lost" = $((4194304 - kept)) ] &&
	      burst_ok $T/burst2.txt'
rm -f $T/burst*.txt

# ---- signals ------------------------------------------------------------
name=int
$SR $KO mode=forever >$T/int.out 2>$T/int.err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: end probes run, status 0, module unloaded" \
	eval '[ $rc = 0 ] && grep -q "^end ticks=[1-9]" $T/int.out && unloaded'

name=usr2
rm -f $T/sw.txt*
$SR -o $T/sw.txt $KO mode=forever >$T/usr2.out 2>$T/usr2.err &
pid=$!
# Signal only once output flows (a loaded machine may take more than a
# second to load the module), and stop once the new file has some too.
wait_lines $T/sw.txt
kill -USR2 $pid
wait_lines $T/sw.txt.1
kill -INT $pid
wait $pid
rc=$?
check "SIGUSR2 switches to the next -o file" \
	eval '[ $rc = 0 ] && grep -q "^tick" $T/sw.txt &&
	      grep -q "^end ticks=" $T/sw.txt.1'

# The loss is reported: a message and exit status 1 (doc/staprun.8).
name=pipeclose
{ $SR $KO mode=forever 2>$T/pipeclose.err; echo $? >$T/pipeclose.rc; } |
	head -n 3 >$T/pipeclose.out
rc=$(cat $T/pipeclose.rc)
check "a closed output pipe stops the run, says so, exits 1, unloads" \
	eval '[ "$(wc -l <$T/pipeclose.out)" = 3 ] && [ "$rc" = 1 ] &&
	      grep -q "cannot write the output: Broken pipe" \
		$T/pipeclose.err && unloaded'

name=kill
$SR $KO mode=forever period_us=1000 >$T/kill.out 2>$T/kill.err &
pid=$!
sleep 1
kill -KILL $pid
wait $pid
i=0
while [ "$(cat $P/state 2>/dev/null)" != stopped ] && [ $i -lt 50 ]; do
	sleep 1
	i=$((i + 1))
done
state=$(cat $P/state 2>/dev/null)
t1=$(cat $P/ticks 2>/dev/null)
sleep 1
t2=$(cat $P/ticks 2>/dev/null)
refcnt=$(cat /sys/module/tptest/refcnt 2>/dev/null)
check "SIGKILL of staprun: the module stops itself (state $state)" \
	eval '[ "$state" = stopped ] && [ -n "$t1" ] && [ "$t1" = "$t2" ] &&
	      [ "$t1" -gt 0 ] && [ "$refcnt" = 0 ]'
check "... and rmmod works afterwards" eval 'rmmod tptest && unloaded'

# ---- death of staprun at each stage (doc/safety.md) ---------------------
# Each way staprun ends (INT, TERM, HUP, KILL, its output pipe closing)
# at each stage of the run: module init, registration, a long begin
# probe, the run, a long end.  A staprun that lives to see it unloads the
# module; a killed one leaves it stopped ("stopped, orphaned", no probe
# armed) within 1 s of its death (plus the rest of a begin handler or
# end probe it was running), or unstarted when it died inside module
# init, until staprun -d or the next staprun of the name removes it.

# wait_phase PHASE: until tptest is in PHASE, for at most 30 s.
wait_phase()
{
	local i=0
	while [ "$(cat $P/phase 2>/dev/null)" != "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# wait_stopped: until the orphaned module has stopped, for at most 10 s;
# $stop_s is how long it took since $t_kill.
wait_stopped()
{
	local i=0
	while [ "$(cat $S 2>/dev/null)" != "stopped, orphaned" ] &&
	      [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	stop_s=$(awk "BEGIN { printf \"%.2f\", $(now) - $t_kill }")
}

# within SECS: $stop_s <= SECS.
within() { awk "BEGIN { exit !($stop_s <= $1) }"; }

# dmesg_clean: nothing the kernel said since the mark is a warning.
dmesg_clean()
{
	! dmesg | sed -n '/tptest-death-mark/,$p' |
		grep -qE 'WARNING|BUG|Oops|refcount|list_(add|del)|stall'
}

S=/sys/module/tptest/parameters/_stp_state
echo tptest-death-mark >/dev/kmsg
mkfifo $T/fifo

# die STAGE HOW: a run ended by HOW (INT TERM HUP KILL or pipe) at STAGE.
die()
{
	local stage=$1 how=$2 args rpid
	name=die_${stage}_$how
	args="mode=forever period_us=1000"
	[ "$stage" != run ] && args="$args stall=$stage stall_ms=1500"
	cat $T/fifo >$T/$name.out &
	rpid=$!
	# shellcheck disable=SC2086 # the module arguments are words
	$SR $KO $args >$T/fifo 2>$T/$name.err &
	pid=$!
	if [ "$stage" = end ]; then
		wait_phase running
		kill -INT $pid
	fi
	wait_phase "$(echo $stage | sed 's/^run$/running/')"
	t_kill=$(now)
	if [ "$how" = pipe ]; then
		kill $rpid
	else
		kill -$how $pid
	fi
	wait $pid
	rc=$?
	stop_s=$(awk "BEGIN { printf \"%.2f\", $(now) - $t_kill }")
	kill $rpid 2>/dev/null
	wait $rpid 2>/dev/null
	if [ "$how" != KILL ]; then
		# a lost reader is a lost output: status 1 and a message
		check "$how at $stage: staprun stops the script and unloads" \
			eval '{ [ $rc = 0 ] || { [ $how = pipe ] &&
			      [ $rc = 1 ] && has_err "cannot write"; }; } &&
			      unloaded'
		[ "$stage" = register ] &&
			echo "# $how at register: staprun ended ${stop_s} s" \
			     "after the signal"
		# the 1.5 s stall of the registration stops at the signal
		# (_stp_start_interrupted()); begin ran, so end runs
		[ "$stage" = register ] && [ "$how" != pipe ] &&
			check "$how at register: cut short, end runs" \
				eval 'within 1 && has_out "end ticks=0"'
		return
	fi
	if [ "$stage" = init ]; then
		# Killed inside finit_module(): the module comes up (or not)
		# once its init is over, with nothing armed, and nobody ever
		# opened its control file.
		check "KILL at init: the module is left unstarted, if at all" \
			eval '! grep -q "^tptest " /proc/modules ||
			      [ "$(cat $S)" = starting ]'
		if grep -q "^tptest " /proc/modules; then
			sr ${name}_d -d tptest
			check "... and staprun -d tptest removes it" \
				eval '[ $rc = 0 ] && no_err && unloaded'
		fi
		return
	fi
	wait_stopped
	local t1 t2
	t1=$(cat $P/ticks 2>/dev/null)
	sleep 0.3
	t2=$(cat $P/ticks 2>/dev/null)
	# A killed staprun cannot cut short the begin handler or the end
	# probes it runs (in its write() of START or EXIT): what remains of
	# their 1.5 s comes on top.
	bound=1
	case $stage in begin | end) bound=2.5 ;; esac
	echo "# KILL at $stage: stopped ${stop_s} s after the kill"
	check "KILL at $stage: the module stops by itself within $bound s" \
		eval '[ -n "$t1" ] && [ "$t1" = "$t2" ] && within $bound &&
		      [ "$(cat /sys/module/tptest/refcnt)" = 0 ] &&
		      grep -q "^tptest " /proc/modules'
	sr ${name}_d -d tptest
	check "... and staprun -d tptest removes it at once" \
		eval '[ $rc = 0 ] && no_err && unloaded'
}

for stage in init register begin run end; do
	for how in INT TERM HUP KILL pipe; do
		die $stage $how
	done
done

# Right after a SIGKILL, before the module finished stopping.
name=kill_d
$SR $KO mode=forever period_us=1000 >$T/kill_d.out 2>$T/kill_d.err &
pid=$!
wait_phase running
kill -KILL $pid
wait $pid
sr kill_d -d tptest
check "staprun -d right after a SIGKILL: status 0, unloaded" \
	eval '[ $rc = 0 ] && no_err && unloaded'

# The next staprun of that name takes the orphan's place.
$SR $KO mode=forever period_us=1000 >/dev/null 2>&1 &
pid=$!
wait_phase running
kill -KILL $pid
wait $pid
sr next $KO mode=lines lines=3
check "the next staprun of the name removes the orphan and runs" \
	eval '[ $rc = 0 ] && has_out "end ticks=3" && no_err && unloaded'

# -d refuses what is not an orphaned tapir module.
$SR $KO mode=forever >/dev/null 2>&1 &
pid=$!
wait_phase running
sr busy_d -d tptest
check "staprun -d refuses a module that a staprun is attached to" \
	eval '[ $rc = 1 ] && has_err "in use by a running staprun" &&
	      grep -q "^tptest " /proc/modules'
kill -INT $pid
wait $pid
sr none_d -d tptest
check "staprun -d of a module that is not loaded fails" \
	eval '[ $rc = 1 ] && has_err "no module tptest is loaded"'

# ---- flight recorder: -L, -A, -D (stap -F) ------------------------------
# -L starts the script and leaves it running with its output in the
# module; -A attaches to it (SIGINT ends it with the end probes, SIGQUIT
# detaches again); -D -o FILE is a daemon that writes FILE until killed.
M=/sys/module/tptest/parameters
# ticks_of FILE: the numbers of FILE's tick lines, first and last.
first_tick() { grep '^tick ' "$1" | head -n 1 | cut -d' ' -f2; }
last_tick() { grep '^tick ' "$1" | tail -n 1 | cut -d' ' -f2; }
# wait_unloaded: until the module is gone, for at most 20 s.
wait_unloaded()
{
	local i=0
	while [ $i -lt 100 ] && ! unloaded; do
		sleep 0.2
		i=$((i + 1))
	done
}

sr L -L $KO mode=forever period_us=20000
check "-L: status 0, says how to attach and remove, the module runs on" \
	eval '[ $rc = 0 ] && has_err "staprun -A tptest" &&
	      has_err "staprun -d tptest" &&
	      [ "$(cat $M/_stp_state)" = running ] &&
	      [ "$(cat $M/_stp_reader)" = 0 ] && [ ! -s $T/L.out ]'
sleep 1
name=A
$SR -A tptest >$T/A.out 2>$T/A.err &
pid=$!
wait_lines $T/A.out
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
check "-A: the output kept since -L, begin first; SIGINT runs end, unloads" \
	eval '[ $rc = 0 ] && [ "$(head -n 1 $T/A.out)" = "begin target=0" ] &&
	      [ "$(first_tick $T/A.out)" = 1 ] &&
	      tail -n 1 $T/A.out | grep -q "^end ticks=" && no_err &&
	      unloaded'

sr L2 -L $KO mode=forever period_us=20000
name=Aq
$SR -A tptest >$T/Aq.out 2>$T/Aq.err &
pid=$!
wait_lines $T/Aq.out
kill -QUIT $pid
wait $pid
rc=$?
check "SIGQUIT detaches -A: status 0, no end, the module runs on" \
	eval '[ $rc = 0 ] && has_err "staprun -A tptest" &&
	      ! grep -q "^end" $T/Aq.out &&
	      [ "$(cat $M/_stp_state)" = running ] &&
	      [ "$(cat $M/_stp_reader)" = 0 ]'
sleep 0.5
name=A2
$SR -A tptest >$T/A2.out 2>$T/A2.err &
pid=$!
wait_lines $T/A2.out
kill -INT $pid
wait $pid
rc=$?
check "a second -A goes on where the first left off, end, unloads" \
	eval '[ $rc = 0 ] && [ -n "$(last_tick $T/Aq.out)" ] &&
	      [ "$(first_tick $T/A2.out)" = $(($(last_tick $T/Aq.out) + 1)) ] &&
	      tail -n 1 $T/A2.out | grep -q "^end ticks=" && no_err &&
	      unloaded'

sr Anone -A tptest
check "-A of a module that is not loaded: a clear error, status 1" \
	eval '[ $rc = 1 ] && has_err "no module tptest is loaded"'

$SR $KO mode=forever >/dev/null 2>&1 &
pid=$!
wait_phase running
sr Abusy -A tptest
check "-A of a module that a staprun reads: refused, status 1" \
	eval '[ $rc = 1 ] && has_err "has a staprun attached already (pid $pid)"'
kill -INT $pid
wait $pid

sr D -D -o $T/D.txt $KO mode=forever period_us=20000
dpid=$(cat $T/D.out)
check "-D -o: status 0 at once, the daemon's pid on stdout" \
	eval '[ $rc = 0 ] && [ -n "$dpid" ] && kill -0 "$dpid" &&
	      [ "$(cat $M/_stp_reader)" = "$dpid" ] && no_err'
wait_lines $T/D.txt
t1=$(last_tick $T/D.txt)
sleep 1
t2=$(last_tick $T/D.txt)
check "-D -o: the file grows while nobody waits for staprun" \
	eval '[ -n "$t1" ] && [ "$t2" -gt "$t1" ]'
sr Dd -d tptest
check "-d refuses the daemon's module and names the daemon" \
	eval '[ $rc = 1 ] && has_err "in use by a running staprun (pid $dpid)"'
kill -TERM "$dpid"
wait_unloaded
check "the daemon stops on SIGTERM: end probes in the file, unloaded" \
	eval 'unloaded && ! kill -0 "$dpid" 2>/dev/null &&
	      [ "$(head -n 1 $T/D.txt)" = "begin target=0" ] &&
	      tail -n 1 $T/D.txt | grep -q "^end ticks="'

# A staprun -A that dies without DETACH stops the session as any
# reader's death does; then -A refuses the stopped module, -d removes it.
sr Lk -L $KO mode=forever period_us=20000
$SR -A tptest >/dev/null 2>&1 &
pid=$!
wait_phase running
sleep 0.5
t_kill=$(now)
kill -KILL $pid
wait $pid
wait_stopped
check "SIGKILL of staprun -A: the session stops by itself" \
	eval '[ "$(cat $M/_stp_state)" = "stopped, orphaned" ]'
sr Astopped -A tptest
check "-A of a stopped module: refused, says to remove it" \
	eval '[ $rc = 1 ] && has_err "module tptest has stopped" &&
	      has_err "staprun -d tptest"'
sr Lkd -d tptest
check "... and staprun -d removes it" eval '[ $rc = 0 ] && no_err && unloaded'

sr L3 -L $KO mode=forever period_us=20000
sr Ld -d tptest
check "-d removes a detached module" \
	eval '[ $rc = 0 ] && no_err && unloaded'

# Detached, the buffers keep the newest output: a 4 MB burst into the
# 2 MB of a CPU leaves its end, without a gap, and nothing is reported
# lost (the first line may be cut where the oldest part was dropped).
sr Lb -L $KO mode=burst burst_kb=4096
echo 1 >$M/burst_now
name=Ab
$SR -A tptest >$T/Ab.out 2>$T/Ab.err &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
echo "# burst while detached: $(wc -l <$T/Ab.out) lines kept"
check "-L overwrites the oldest output when the buffers are full" \
	eval '[ $rc = 0 ] && has_err "WARNING: burst sent 4194304 bytes" &&
	      ! has_err "lost" && unloaded &&
	      sed 1d $T/Ab.out | awk "
		!/^burst +[0-9]+\$/ || (NR > 1 && \$2 != last + 1) { bad++ }
		{ last = \$2 }
		END { exit !(!bad && NR >= 8192 && last == 65535) }"'
rm -f $T/D.txt

# ---- -S: rotated output files -------------------------------------------
# -S 1,2: FILE.0, FILE.1, ... a new one every MB, at most 2 kept; the
# kept ones hold the newest lines, none lost in between.  In bulk mode
# each CPU has its own series.
sr S -o $T/S.txt -S 1,2 $KO mode=flood lines=300000
echo "# -S 1,2: $(ls $T/S.txt* | tr '\n' ' ')"
check "-S 1,2: at most 2 files of about 1 MB, the newest lines, no gap" \
	eval '[ $rc = 0 ] && no_err && [ ! -e $T/S.txt ] &&
	      [ ! -e $T/S.txt.0 ] && [ "$(ls $T/S.txt.* | wc -l)" = 2 ] &&
	      last=$(ls $T/S.txt.* | sed "s/.*\.//" | sort -n | tail -n 1) &&
	      [ "$(wc -c <$T/S.txt.$((last - 1)))" -ge 1048576 ] &&
	      [ "$(wc -c <$T/S.txt.$((last - 1)))" -le 1310720 ] &&
	      cat $T/S.txt.$((last - 1)) $T/S.txt.$last | awk "
		/^flood [0-9]+\$/ {
			if (k++ && \$2 != prev + 1) bad++
			prev = \$2
		}
		END { exit !(!bad && k > 50000 && prev == 299999) }"'
sr SB -b -o $T/SB -S 1 $KO mode=flood lines=300000
check "-b -S 1: each CPU's series, FILE_cpuC.N, every line once" \
	eval '[ $rc = 0 ] && no_err && [ -e $T/SB_cpu0.0 ] &&
	      [ ! -e $T/SB_0 ] && flood_ok 300000 $T/SB_cpu*'
rm -f $T/S.txt* $T/SB*

check "the kernel log is clean after the death tests" dmesg_clean

done_testing
