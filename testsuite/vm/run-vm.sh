#!/bin/bash
# run-vm.sh - boots a kernel under QEMU with software emulation (TCG) and
# an initramfs from mkinitramfs.sh, captures the console and turns the
# markers of the VM's init into TAP; an oops, warning, panic or hang fails.

set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)

usage()
{
	cat <<EOF
usage: $prog (-k KVER | -b IMAGE) -i INITRD [options]
  -k KVER     boot /boot/vmlinuz-KVER (unpacked first: see extract-vmlinux.sh)
  -b IMAGE    boot this kernel image as it is (bzImage or ELF vmlinux)
  -i INITRD   the initramfs, from mkinitramfs.sh
  -c CMD      run this shell command as the only test, named "cmd"
  -T A,B      run only these tests of /tests, in this order
  -t SECS     time limit of the whole run (default 300)
  -u SECS     time limit of each test, in the guest (default 60)
  -l LOG      keep the console log in LOG
  -a ARGS     more kernel command line
  -q ARGS     more QEMU arguments (split on blanks)
  -I          count instructions (-icount shift=0): guest time becomes
              exact and repeatable; for benchmarks; implies -s 1
  -m MEM      guest memory (default 2G)
  -s CPUS     guest CPUs (default 2)
  -v          show the console on stderr as it runs, and every output
  -x          interactive: console on the terminal, a shell after the
              tests, no time limit (Ctrl-A x quits QEMU)
  -F          QEMU uses the terminal (a tty chardev in -q): it runs in
              the terminal's foreground process group
TAP on stdout; exit status 0 when every test and the VM itself passed.
EOF
	exit 2
}

# A failure of the runner itself, in TAP so that a harness counts it.
bail()
{
	echo "Bail out! $prog: $*"
	exit 1
}

kver=
image=
initrd=
cmd=
only=
limit=300
test_limit=60
log=
append=
qemu_extra=
icount=
mem=2G
cpus=2
verbose=
interactive=
foreground=
unpacked=

parse_options()
{
	local opt
	while getopts 'k:b:i:c:T:t:u:l:a:q:Im:s:vxFh' opt; do
		case $opt in
		k) kver=$OPTARG ;;
		b) image=$OPTARG ;;
		i) initrd=$OPTARG ;;
		c) cmd=$OPTARG ;;
		T) only=$OPTARG ;;
		t) limit=$OPTARG ;;
		u) test_limit=$OPTARG ;;
		l) log=$OPTARG ;;
		a) append=$OPTARG ;;
		q) qemu_extra=$OPTARG ;;
		I) icount=1 ;;
		m) mem=$OPTARG ;;
		s) cpus=$OPTARG ;;
		v) verbose=1 ;;
		x) interactive=1 ;;
		F) foreground=--foreground ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 0 ] && [ -n "$initrd" ] || usage
	[ -n "$kver$image" ] || usage
	case $limit$test_limit in
	*[!0-9]*) usage ;;
	esac
	# QEMU 7.2 with -icount hangs while Linux brings up a second CPU;
	# and one CPU is what a repeatable measurement wants anyway.
	[ -n "$icount" ] && cpus=1
	return 0
}

check_prerequisites()
{
	command -v qemu-system-x86_64 >/dev/null ||
		bail "missing prerequisite: qemu-system-x86_64" \
		     "(apt-get install qemu-system-x86)"
	[ -r "$initrd" ] || bail "cannot read the initramfs $initrd"
	if [ -z "$image" ]; then
		[ -r "/boot/vmlinuz-$kver" ] ||
			bail "missing prerequisite: /boot/vmlinuz-$kver" \
			     "(apt-get install linux-image-$kver)"
	else
		[ -r "$image" ] || bail "cannot read the kernel image $image"
	fi
}

# The kernel to hand to QEMU.  An unpacked vmlinux boots through its PVH
# entry: the guest skips decompressing itself, which under TCG takes
# longer than the rest of the boot (10 s for the xz kernel of 6.1).
choose_kernel()
{
	[ -n "$image" ] && return
	if "$here/extract-vmlinux.sh" "/boot/vmlinuz-$kver" \
	   "$tmp/vmlinux" 2>"$tmp/extract.err"; then
		image=$tmp/vmlinux
		unpacked=1
	else
		echo "# cannot unpack /boot/vmlinuz-$kver, booting it as it is:"
		sed 's/^/#   /' "$tmp/extract.err"
		image=/boot/vmlinuz-$kver
	fi
}

kernel_cmdline()
{
	local line="console=ttyS0 quiet printk.time=1"

	# Any kernel problem stops the VM at once, with its report on the
	# console, instead of letting later tests run on a damaged kernel.
	line+=" panic=-1 oops=panic panic_on_warn=1"
	# The boot's check that the timer interrupt reaches the IO-APIC
	# counts on time the emulated CPU does not get on a loaded host
	# ("IO-APIC + timer doesn't work!", a panic before init); QEMU's
	# timer wiring is known good.
	line+=" no_timer_check"
	line+=" tapir.timeout=$test_limit"
	[ -n "$cmd" ] && line+=" tapir.cmd64=$(printf '%s' "$cmd" | base64 -w0)"
	[ -n "$only" ] && line+=" tapir.tests=$only"
	[ -n "$interactive" ] && line+=" tapir.shell=1"
	[ -n "$append" ] && line+=" $append"
	echo "$line"
}

qemu_command()
{
	local serial=stdio cmdline

	cmdline=$(kernel_cmdline)
	# x86 truncates a longer command line (COMMAND_LINE_SIZE).
	[ ${#cmdline} -lt 2048 ] ||
		bail "kernel command line too long (${#cmdline} bytes):" \
		     "put a long -c command in a test file instead"

	[ -n "$interactive" ] && serial=mon:stdio
	# One host thread runs every vCPU in turn (thread=single): QEMU 7.2's
	# multi-threaded TCG oopses a guest by itself (a jump to address 0 in
	# a system call) when a kprobe is inserted and removed on a function
	# that another vCPU runs; a bare hand-written kprobe module shows it.
	# The guest still has $cpus CPUs that interleave at any instruction.
	qemu=(qemu-system-x86_64 -accel tcg,thread=single -cpu max
	      -smp "$cpus" -m "$mem"
	      -nographic -nodefaults -no-user-config -no-reboot
	      -serial "$serial" -kernel "$image" -initrd "$initrd"
	      -append "$cmdline")
	# qboot goes straight to the kernel; SeaBIOS spends a second or two
	# under TCG before it does.
	if [ -r /usr/share/qemu/qboot.rom ]; then
		qemu+=(-bios /usr/share/qemu/qboot.rom)
	fi
	[ -n "$icount" ] && qemu+=(-icount shift=0)
	# shellcheck disable=SC2206 # split on purpose
	[ -n "$qemu_extra" ] && qemu+=($qemu_extra)
	return 0
}

# Copies the console to the log, without the carriage returns of the
# serial line, and notes the wall time at which the init first spoke.
capture()
{
	local line

	while IFS= read -r line || [ -n "$line" ]; do
		line=${line//$'\r'/}
		printf '%s\n' "$line"
		[ -n "$verbose" ] && printf '%s\n' "$line" >&2
		if [ ! -e "$tmp/t_init" ] && [[ $line == *"@@tapir@@ start"* ]]
		then
			echo "$EPOCHREALTIME" >"$tmp/t_init"
		fi
	done >"$log"
}

boot()
{
	t_boot=$EPOCHREALTIME
	{
		local rc=0
		timeout $foreground -k 5 "$limit" "${qemu[@]}" </dev/null \
			2>"$tmp/qemu.err" || rc=$?
		echo "$rc" >"$tmp/qemu.rc"
	} | capture
	t_exit=$EPOCHREALTIME
}

# The TAP of the tests and of the VM itself, from the console log.
report()
{
	awk -v verbose="$verbose" -v kver="${kver:-$image}" \
	    -v qemu_rc="$(cat "$tmp/qemu.rc")" -v limit="$limit" \
	    -f "$here/report.awk" "$log"
}

# secs FROM TO: the difference of two $EPOCHREALTIME values.
secs()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

timings()
{
	local up name=${kver:-$image}

	up=$(sed -n 's/.*@@tapir@@ start .*uptime=\([0-9.]*\).*/\1/p' \
	     "$log" | head -n 1)
	if [ -e "$tmp/t_init" ]; then
		echo "# $name: init after $(secs "$t_boot" "$(cat "$tmp/t_init")")" \
		     "s wall (guest uptime ${up:-?} s)," \
		     "$(secs "$t_boot" "$t_exit") s wall in all${unpacked:+,}" \
		     "${unpacked:+$(secs "$t_unpack" "$t_boot") s to unpack}"
	else
		echo "# $name: $(secs "$t_boot" "$t_exit") s wall," \
		     "the init never started"
	fi
}

main()
{
	parse_options "$@"
	check_prerequisites
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-vm.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	[ -n "$log" ] || log=$tmp/console.log
	t_unpack=$EPOCHREALTIME
	choose_kernel
	qemu_command
	if [ -n "$interactive" ]; then
		"${qemu[@]}"
		return
	fi
	boot
	local rc=0
	report || rc=$?
	if [ "$rc" -ne 0 ] && [ -s "$tmp/qemu.err" ]; then
		echo "# QEMU said:"
		sed 's/^/#   /' "$tmp/qemu.err"
	fi
	timings
	return "$rc"
}

main "$@"
