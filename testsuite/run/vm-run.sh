#!/bin/sh
# vm-run.sh - the head of /tests/stap-run/run, the script that runs the
# run-time tests inside the VM (busybox sh); check-run.sh appends one
# "t NAME SECS staprun ARGS..." line per test and a closing "finish".
#
# Results go to the VM's second serial port, which QEMU writes to a
# file on the host: the console carries kernel messages that could cut
# into them.  Each result is a block of lines:
#   @@run@@ begin NAME / status N / [loaded] / stdout / BASE64...
#   / stderr / BASE64... / end NAME
# The console gets "@@run@@ start NAME" before each run, so that a run
# that kills the kernel can be named.

chan=/dev/ttyS1
workload=
after=
health=
orphan=

# The port must pass bytes as they are (no CR before LF, no echo).
if ! stty -F "$chan" raw -echo -onlcr 2>/tmp/stty.err; then
	echo "stap-run: no results channel $chan: $(cat /tmp/stty.err)"
	exit 1
fi

# k NAME FILE ARGS...: load the kernel module NAME (from FILE, with
# its parameters) that the next run probes.  A module that does not
# load is put at the head of that run's stderr, which fails the test.
k()
{
	kname=$1
	shift
	if ! insmod "$@" 2>/tmp/kerr; then
		echo "check-run: cannot load module $kname: $(cat /tmp/kerr)" \
			>>/tmp/pre.err
	fi
}

# u NAME: remove the kernel module NAME after a run, if it is loaded.
u()
{
	if grep -q "^$1 " /proc/modules; then
		rmmod "$1" 2>/dev/null
	fi
	return 0
}

# a CMD: a shell command for the next run to run after staprun ended
# and its module is gone (within the same time limit), its output added
# to the run's: what a running program does once the script stopped.
a()
{
	after=$1
}

# hostile: the mode of testsuite/hostile.  A read/write workload runs in
# the background from here on (vfs_read and vfs_write are hot on both
# CPUs), and after each run check_health reports what is wrong with the
# guest.  What dmesg held before is the boot's, not a run's.
hostile()
{
	health=1
	(
		while :; do
			dd if=/dev/zero of=/tmp/workload bs=4k count=64 \
				2>/dev/null
			cat /tmp/workload /proc/self/status >/dev/null
		done
	) </dev/null >/dev/null 2>&1 &
	workload=$!
	dmesg -c >/dev/null
	cat /sys/kernel/debug/kprobes/list >/tmp/kprobes.base 2>/dev/null
}

# watch: the health check of hostile after each run, without the
# workload (check-run.sh -D).
watch()
{
	health=1
	dmesg -c >/dev/null
	cat /sys/kernel/debug/kprobes/list >/tmp/kprobes.base 2>/dev/null
}

# check_health: what is wrong with the guest after a run, one line each,
# into /tmp/health (empty: nothing): a kernel problem in the messages
# since the last check, a kprobe or a t_* module left, damage taint
# bits, a guest that cannot start a process or lost its workload.
check_health()
{
	: >/tmp/health
	dmesg -c >/tmp/dmesg 2>/dev/null
	grep -E 'BUG|Oops|WARNING|[Ll]ockup|LOCKUP|stall|blocked for more than|Call Trace|general protection|Unable to handle|double fault|UBSAN|KASAN|kfence' \
		/tmp/dmesg | head -n 20 | sed 's/^/dmesg: /' >>/tmp/health
	cat /sys/kernel/debug/kprobes/list >/tmp/kprobes 2>/dev/null
	grep -v -x -F -f /tmp/kprobes.base /tmp/kprobes | head -n 10 |
		sed 's/^/kprobe left: /' >>/tmp/health
	# the shared ftrace_ops of function entry probes (named by its
	# module when it is a function's only ftrace user)
	grep -F ' [t_' /sys/kernel/debug/tracing/enabled_functions \
		2>/dev/null | head -n 10 | sed 's/^/ftrace probe left: /' \
		>>/tmp/health
	grep '^t_' /proc/modules | sed 's/^/module left: /' >>/tmp/health
	read -r taint </proc/sys/kernel/tainted
	# machine check, bad page, died, warning, soft lockup
	if [ $((taint & 0x42b0)) -ne 0 ]; then
		echo "kernel tainted $taint" >>/tmp/health
	fi
	if [ "$(echo alive | timeout 10 cat)" != alive ]; then
		echo "the guest cannot run a process" >>/tmp/health
	fi
	if [ -n "$workload" ] && ! kill -0 "$workload" 2>/dev/null; then
		echo "the workload is gone" >>/tmp/health
	fi
	# what a run left must not spoil the next ones: a staprun that
	# outlived its driver, then its module
	for p in $(pidof staprun); do
		echo "staprun left running: $(tr '\0' ' ' </proc/"$p"/cmdline)" \
			>>/tmp/health
		kill -9 "$p"
		sleep 1
	done
	for m in $(sed -n 's/^\(t_[a-z0-9_]*\) .*/\1/p' /proc/modules); do
		rmmod "$m" 2>/dev/null
	done
}

# o CMD: a shell command for the next run to run as soon as staprun
# ended, before the check that its module is gone: for the tests that
# kill staprun, whose module stays, stopped, until CMD removes it
# (staprun -d).  Its output is added to the run's.
o()
{
	orphan=$1
}

# t NAME SECS CMD...: one run, stdout and stderr apart, with a time
# limit; a module still loaded afterwards is reported and removed so
# that it cannot disturb the next runs.
t()
{
	name=$1
	secs=$2
	shift 2
	echo "@@run@@ start $name"
	timeout -k 5 "$secs" "$@" </dev/null >/tmp/out 2>/tmp/err
	status=$?
	if [ -s /tmp/pre.err ]; then
		cat /tmp/pre.err /tmp/err >/tmp/err2
		mv /tmp/err2 /tmp/err
	fi
	rm -f /tmp/pre.err
	if [ -n "$orphan" ]; then
		timeout -k 5 "$secs" sh -c "$orphan" </dev/null >>/tmp/out \
			2>>/tmp/err
		orphan=
	fi
	loaded=
	if grep -q "^t_$name " /proc/modules; then
		loaded=1
		rmmod "t_$name" 2>/dev/null
	fi
	if [ -n "$after" ]; then
		timeout -k 5 "$secs" sh -c "$after" </dev/null >>/tmp/out \
			2>>/tmp/err
		after=
	fi
	[ -n "$health" ] && check_health
	# Closing the port waits until the block has left it, so nothing
	# is lost when the VM powers off after the last run.
	{
		echo "@@run@@ begin $name"
		echo "@@run@@ status $status"
		[ -n "$loaded" ] && echo "@@run@@ loaded"
		echo "@@run@@ stdout"
		base64 /tmp/out
		echo "@@run@@ stderr"
		base64 /tmp/err
		if [ -n "$health" ]; then
			echo "@@run@@ health"
			base64 /tmp/health
		fi
		echo "@@run@@ end $name"
	} >"$chan"
}

finish()
{
	echo "@@run@@ finished"
	exit 0
}

cd "$(dirname "$0")" || exit 1
