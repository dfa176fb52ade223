#!/bin/bash
# test-stap-flight.sh - stap -F runs staprun as the flight recorder:
# -L (load, start, detach) without -o, -D (a daemon writing the file)
# with -o FILE; stap -S MB,N passes -S on.  staprun is a stand-in here
# (SYSTEMTAP_STAPRUN) that prints its arguments; the module is built
# once (then cached) for a kernel whose headers are installed.  What
# staprun does with -L, -A and -D is tested in the VM:
# testsuite/kernel/transport.  Prints TAP.
#
# usage: test-stap-flight.sh STAP

set -u
stap=${1:?usage: test-stap-flight.sh STAP}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stap-flight.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

need_kernels 1
kver=${kvers[0]}

# The stand-in: its arguments, one a line, the module as "MODULE".
cat >"$tmp/staprun" <<'EOS'
#!/bin/sh
for a in "$@"; do
	case $a in
	*.ko) echo MODULE ;;
	*) echo "$a" ;;
	esac
done
EOS
chmod +x "$tmp/staprun"
export SYSTEMTAP_STAPRUN=$tmp/staprun SYSTEMTAP_DIR=$tmp/cache

"$stap" -F -r "$kver" -e 'probe begin { println("hi") }' >"$tmp/out" \
	2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "-L MODULE " ]
result $? "stap -F runs staprun -L MODULE"

"$stap" -F -o "$tmp/fr.txt" -r "$kver" -e 'probe begin { println("hi") }' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] &&
	[ "$(tr '\n' ' ' <"$tmp/out")" = "-D -o $tmp/fr.txt MODULE " ]
result $? "stap -F -o FILE runs staprun -D -o FILE MODULE"

"$stap" -o "$tmp/x.txt" -S 2,3 -r "$kver" -e 'probe begin { println("hi") }' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] &&
	[ "$(tr '\n' ' ' <"$tmp/out")" = "-o $tmp/x.txt -S 2,3 MODULE " ]
result $? "stap -o FILE -S 2,3 runs staprun -o FILE -S 2,3 MODULE"

"$stap" -r "$kver" -e 'probe begin { println("hi") }' >"$tmp/out" \
	2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "MODULE " ]
result $? "without -F, neither -L nor -D"

echo "1..$n"
[ "$failed" = 0 ]
