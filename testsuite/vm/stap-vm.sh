#!/bin/bash
# stap-vm.sh - pass 5 of `stap --vm`: runs staprun on a module inside a
# throwaway QEMU guest booted with the module's kernel, and gives back
# the script's output and exit status as if it had run here.
#
#   stap-vm.sh KVER MODULE.ko STAPRUN [OPTIONS...] [-- MODULE-ARGS...]
#
# OPTIONS go to staprun before the module, MODULE-ARGS (name=value, as
# from stap -G) after it.
#
# The guest's console carries the output base64-encoded between markers,
# so kernel messages cannot mix with it.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

if [ $# -lt 3 ]; then
	echo "usage: ${0##*/} KVER MODULE.ko STAPRUN [OPTIONS...]" >&2
	exit 2
fi
kver=$1
ko=$2
staprun=$3
shift 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stapvm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The guest command line: staprun with its options, quoted for sh.
quote()
{
	printf " '%s'" "${1//\'/\'\\\'\'}"
}
opts=
margs=
after=
for a in "$@"; do
	if [ -z "$after" ] && [ "$a" = -- ]; then
		after=1
	elif [ -n "$after" ]; then
		margs+=$(quote "$a")
	else
		opts+=$(quote "$a")
	fi
done
mod=/opt/tapir/$(basename "$ko")
# -i (input probes): the guest's staprun reads what comes here on
# standard input, taken whole before the boot (a pipe or a file); a
# terminal's keys cannot reach the guest, which then reads nothing.
files=(-f "$ko")
input=
case " $opts " in
*" '-i' "*)
	if [ -t 0 ]; then
		echo "stap: warning: --vm: the terminal's input does not" \
			"reach the guest: input probes get none" >&2
		: >"$tmp/stdin"
	else
		cat >"$tmp/stdin"
	fi
	files+=(-f "$tmp/stdin")
	input=" </opt/tapir/stdin"
	;;
esac
# -M (stap --monitor): the live view needs the terminal itself.  The
# guest's second serial port is this terminal (QEMU opens the tty and
# passes the keys raw); the guest's staprun draws on it and prints the
# end probes' output there.  Its size goes along, as a serial line has
# none.  Without a terminal here there is no view: staprun runs as
# without -M.  A watched run may last an hour (other runs: a minute).
qemu_tty=
redirect=" >/tmp/out"
case " $opts " in
*" '-M' "*)
	if [ -t 0 ] && [ -t 1 ] && host_tty=$(tty 2>/dev/null); then
		read -r rows cols < <(stty size 2>/dev/null || echo 24 80)
		qemu_tty="-chardev tty,id=term,path=$host_tty -serial chardev:term"
		input=" </dev/ttyS1"
		redirect=" >/dev/ttyS1"
		pre=": >/tmp/out; stty -F /dev/ttyS1 rows $rows cols $cols"
		pre+=" 2>/dev/null; LINES=$rows COLUMNS=$cols"
		pre+=" TERM=${TERM:-vt100}; export LINES COLUMNS TERM; "
	fi
	;;
esac
cmd="${pre:-}staprun$opts $mod$margs$input$redirect 2>/tmp/err; rc=\$?"
cmd+="; echo @@stapvm@@ out; base64 /tmp/out"
cmd+="; echo @@stapvm@@ err; base64 /tmp/err"
cmd+="; echo @@stapvm@@ rc=\$rc"

"$here/mkinitramfs.sh" -o "$tmp/initrd" -r "$kver" -f "$staprun:/usr/local/bin/staprun" \
	"${files[@]}" >"$tmp/mkinitramfs.log" 2>&1 || {
	cat "$tmp/mkinitramfs.log" >&2
	echo "stap: error: could not build the VM's initramfs" >&2
	exit 1
}

set +e
saved_tty=
if [ -n "$qemu_tty" ]; then
	saved_tty=$(stty -g)
	trap 'stty "$saved_tty" 2>/dev/null; rm -rf "$tmp"' EXIT
	stty raw -echo
fi
"$here/run-vm.sh" -k "$kver" -i "$tmp/initrd" -l "$tmp/console" \
	${qemu_tty:+-F -u 3600 -t 3660 -q "$qemu_tty"} -c "$cmd" \
	>"$tmp/tap" 2>&1
vm_rc=$?
[ -n "$saved_tty" ] && stty "$saved_tty" 2>/dev/null
set -e

# Strip console noise: kernel lines start with "[", markers with "@@".
section()
{
	awk -v want="$1" '
		/^@@stapvm@@ / { cur = $2; next }
		/^@@tapir@@ / { cur = ""; next }
		cur == want && !/^\[/ { sub(/\r$/, ""); print }
	' "$tmp/console"
}

rc_line=$(grep -a '^@@stapvm@@ rc=' "$tmp/console" | tail -1 | tr -d '\r' || true)
if [ -z "$rc_line" ]; then
	cat "$tmp/tap" >&2
	echo "stap: error: the VM did not finish the script" >&2
	exit 1
fi
section out | base64 -d
section err | base64 -d >&2
if [ $vm_rc -ne 0 ]; then
	grep -a '^not ok\|^#' "$tmp/tap" >&2 || true
	echo "stap: error: the VM reported a kernel problem" >&2
	exit 1
fi
exit "${rc_line#@@stapvm@@ rc=}"
