#!/bin/sh
# test.sh - the uprobe tests inside the VM (busybox sh, run by check.sh as
# /tests/uprobe/run): staprun runs uptest.ko, whose uprobes sit in
# uptarget at the offsets check.sh found (./offsets), with -c, -x and no
# target; each check is a TAP line.  Needs ./staprun, ./uptest.ko,
# ./uptarget, ./offsets.  The helpers are ../vmlib.sh.

SR=./staprun
KO=./uptest.ko
PROG=$PWD/uptarget
P=/sys/module/uptest/parameters
T=/tmp/uprobe
# shellcheck source-path=SCRIPTDIR source=../vmlib.sh
. ./vmlib.sh
mkdir -p $T

# show FILE...: a failed check's evidence, as TAP comments (NUL bytes,
# which no output should have, shown as @, and counted).
show()
{
	for f in "$@"; do
		echo "#   --- $f ($(wc -c <"$f") bytes," \
		     "$(tr -cd '\000' <"$f" | wc -c) NUL)"
		tr '\000' @ <"$f" | cut -c 1-200 | head -n 40 | sed 's/^/#   /'
	done
}

show_last() { show $T/$name.*; }

unloaded() { ! grep -q '^uptest ' /proc/modules; }
has() { grep -qxF -- "$2" "$T/$name.$1"; }
count() { grep -cxF -- "$2" "$T/$name.$1"; }
lacks() { ! grep -qF -- "$2" "$T/$name.$1"; }

# wait_state STATE: until the session is in STATE, for at most 20 s.
wait_state()
{
	i=0
	while [ "$(cat $P/state 2>/dev/null)" != "$1" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat $P/state 2>/dev/null)" = "$1" ]
}

if [ ! -x $SR ] || [ ! -f $KO ] || [ ! -x "$PROG" ] || [ ! -f offsets ]
then
	echo "not ok 1 - staprun, uptest.ko, uptarget and offsets are here"
	exit 1
fi
. ./offsets
OFFS="off_start=$off_start off_work=$off_work off_mark=$off_mark"
OFFS="$OFFS off_sem=$off_sem"

# ---- -c: probes armed before the command runs, limited to its tree ----
name=target
rm -f $T/go $T/done
mkfifo $T/go
# a process running the same file, outside the command's tree
$PROG wait $T/go $T/done 1000 >$T/target.other 2>&1 &
opid=$!
sr target -c "$PROG run 3 $T/go $T/done" $KO path=$PROG $OFFS
[ -e $T/done ] || kill $opid 2>/dev/null
wait $opid
check "-c: staprun succeeds, target() is the command" \
	eval '[ $rc = 0 ] && grep -q "^begin target=[1-9]" $T/target.out &&
	      [ ! -s $T/target.err ]'
check "-c: the first instruction of the command (_start) is seen" \
	eval 'has out "end start=1 work=7 ret=7 mark=1"'
check "-c: entry probe reads the argument and the user string" \
	eval 'has out "work x=0 s=hello" && has out "work x=1 s=hello" &&
	      has out "work x=2 s=hello"'
check "-c: a child and a thread of the command are in its tree" \
	eval 'has out "work x=500 s=child" && has out "ret 1001" &&
	      has out "work x=300 s=thread" && has out "ret 601"'
check "-c: a user string on a page not yet faulted in is read" \
	eval 'has out "work x=100 resident=0 s=fresh page string"'
check "-c: a bad user pointer is a fault, not an oops" \
	eval 'has out "work x=200 s=<fault>"'
check "-c: the return probe sees the return values" \
	eval 'has out "ret 1" && has out "ret 3" && has out "ret 5" &&
	      has out "ret 201" && has out "ret 401"'
check "-c: the USDT semaphore is set in the command, the probe fires" \
	eval 'has out "sem=1" && has out "mark arg=42 sp=ok"'
check "-c: a process outside the tree is not probed, semaphore unset" \
	eval 'lacks out "x=1000" && lacks out "ret 2001" &&
	      has other "sem=0" && has other "sum=6003"'

# The command is held after its exec, so it begins as uptarget (its
# parent staprun), as does the child it forks (its parent uptarget).
check "-c: process and thread events of the tree, each in its task" \
	eval 'has out "end begin=2 end=2 thread.begin=1 thread.end=1" &&
	      has out "process.begin parent=staprun leader=1 user=1" &&
	      has out "process.begin parent=uptarget leader=1 user=1" &&
	      grep -q "^process.thread.begin parent=.* leader=0 user=1\$" \
		$T/target.out'

# ---- no target: every process running the file ------------------------
name=all
$SR $KO path=$PROG $OFFS >$T/all.out 2>$T/all.err &
spid=$!
wait_state running
$PROG run 2 - - >$T/all.prog 2>&1
$PROG run 1 - - >>$T/all.prog 2>&1
kill -INT $spid
wait $spid
rc=$?
check "no target: every process is probed" \
	eval '[ $rc = 0 ] && has out "begin target=0" &&
	      has out "end start=2 work=11 ret=11 mark=2" &&
	      has out "end begin=2 end=4 thread.begin=2 thread.end=2" &&
	      [ "$(count prog sem=1)" = 2 ] &&
	      [ "$(count out "work x=0 s=hello")" = 2 ] &&
	      [ "$(count out "work x=100 resident=0 s=fresh page string")" = 2 ]'

# ---- -x PID: the probes follow a process that runs already (it begins
# at its next system call, as every process running at the start does) -
name=pid
rm -f $T/done
$PROG wait $T/go $T/done 1000 >$T/pid.other 2>&1 &
opid=$!
$SR -x $opid $KO path=$PROG $OFFS >$T/pid.out 2>$T/pid.err &
spid=$!
wait_state running
$PROG run 2 $T/go $T/done >$T/pid.prog 2>&1
wait $opid
kill -INT $spid
wait $spid
rc=$?
check "-x PID: target() is PID, only its hits count" \
	eval '[ $rc = 0 ] && has out "begin target=$opid" &&
	      [ "$(count out "work x=1000 s=other")" = 3 ] &&
	      [ "$(count out "ret 2001")" = 3 ] &&
	      has out "end start=0 work=3 ret=3 mark=0" &&
	      has out "end begin=1 end=1 thread.begin=0 thread.end=0" &&
	      lacks out "x=0 " && lacks out "x=500"'
check "-x PID: its semaphore is set, not the other process's" \
	eval 'has other "sem=1" && has prog "sem=0"'

# ---- registration errors: all or nothing, path and offset named -------
sr nofile $KO path=/nonexistent $OFFS
check "a missing file: error names it and the offset, status 1" \
	eval '[ $rc = 1 ] &&
	      has_err "cannot probe process(\"uptarget\").function(\"_start\"): /nonexistent at offset $off_start: no such file" &&
	      unloaded'
sr badoff $KO path=$PROG off_start=$off_start off_work=$off_work \
	off_mark=0x7fffffff off_sem=$off_sem
check "an offset past the end: error, status 1" \
	eval '[ $rc = 1 ] && has_err "at offset 0x7fffffff: the offset is past" &&
	      unloaded'
$PROG run 1 - - >$T/badoff.prog 2>&1
rc=$?
check "... and the probes registered before it were taken out" \
	eval '[ $rc = 0 ] && has prog "sem=0"'

# ---- staprun killed: the module unregisters, the program goes on ------
name=kill
$SR -c "$PROG loop" $KO path=$PROG $OFFS >$T/kill.out 2>$T/kill.err &
spid=$!
wait_state running
i=0
while [ "$(cut -d' ' -f2 $P/hits 2>/dev/null)" -lt 5 ] 2>/dev/null &&
      [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
lpid=$(pidof uptarget)
kill -KILL $spid
wait $spid
wait_state stopped
state=$(cat $P/state 2>/dev/null)
h1=$(cat $P/hits 2>/dev/null)
sleep 0.5
h2=$(cat $P/hits 2>/dev/null)
refcnt=$(cat /sys/module/uptest/refcnt 2>/dev/null)
check "SIGKILL of staprun: the module stops, no hit after (state $state)" \
	eval '[ "$state" = stopped ] && [ -n "$h1" ] && [ "$h1" = "$h2" ] &&
	      [ "$refcnt" = 0 ]'
check "... rmmod works, the probed program still runs" \
	eval 'rmmod uptest && unloaded && [ -n "$lpid" ] &&
	      kill -0 $lpid && sleep 0.3 && kill -0 $lpid'
[ -n "$lpid" ] && kill $lpid 2>/dev/null

done_testing
