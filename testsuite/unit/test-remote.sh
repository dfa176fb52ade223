#!/bin/bash
# test-remote.sh - stap --remote without a network: TAPIR_SSH is a
# stand-in ssh that runs the remote command here with sh, with a uname
# that answers the kernel its port stands for and a stand-in staprun
# that reports what it got (the module's name and size, its arguments)
# and stops on SIGINT as staprun does.  The modules are real, built for
# two kernels whose headers are installed.  Checks the relay and the
# prefixes, SIGINT, the errors naming a host (unreachable, no staprun,
# another architecture, a kernel without headers) while the others run,
# the worst exit status, -c quoting, -p4, and direct://.  The real ssh
# servers are testsuite/kernel/remote's.  Prints TAP.
#
# usage: test-remote.sh STAP

set -u
stap=${1:?usage: test-remote.sh STAP}
case $stap in
/*) ;;
*) stap=$PWD/$stap ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stap-remote.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=testsuite/unit/tap.sh
. "$(dirname "$0")/tap.sh"

# Two kernels with headers, not PREEMPT_RT.
need_kernels 2
k1=${kvers[0]}
k2=${kvers[1]}

# The stand-in ssh: [opts] -T [-l USER] [-p PORT] -- HOST CMD.  The port
# says the kernel (1: k1, 2: k2, 3: k1 and staprun exits 3), the host
# "refused" cannot be reached, "arm" is an aarch64 machine, "old" runs
# a kernel without headers here (and answers a second late on port 2).
mkdir -p "$tmp/bin" "$tmp/remote-tmp"
cat >"$tmp/ssh" <<EOS
#!/bin/bash
port=
while [ \$# -gt 0 ]; do
	case \$1 in
	-T) shift ;;
	-l | -F) shift 2 ;;
	-o) [ "\$2" = BatchMode=yes ] && batch=1; shift 2 ;;
	-p) port=\$2; shift 2 ;;
	--) shift; break ;;
	*) echo "ssh: unexpected \$1" >&2; exit 255 ;;
	esac
done
host=\$1 cmd=\$2
[ -n "\${batch:-}" ] || { echo "ssh: no -o BatchMode=yes" >&2; exit 255; }
FAKE_MACH=x86_64 FAKE_RC=0
case \$port in
3) FAKE_KVER=$k1 FAKE_RC=3 ;;
2) FAKE_KVER=$k2 ;;
*) FAKE_KVER=$k1 ;;
esac
case \$host in
refused) echo "ssh: connect to host \$host port \${port:-22}: Connection refused" >&2
	exit 255 ;;
arm) FAKE_MACH=aarch64 ;;
old) FAKE_KVER=4.19.0-99-amd64
	[ "\$port" = 2 ] && sleep 1 ;;
esac
export FAKE_KVER FAKE_MACH FAKE_RC
TMPDIR=$tmp/remote-tmp PATH=$tmp/bin:\$PATH exec /bin/sh -c "\$cmd"
EOS
cat >"$tmp/bin/uname" <<'EOS'
#!/bin/sh
echo "${FAKE_KVER:-@K1@} ${FAKE_MACH:-x86_64}"
EOS
sed -i "s/@K1@/$k1/" "$tmp/bin/uname"
cat >"$tmp/bin/staprun" <<'EOS'
#!/bin/sh
for a; do
	case $a in
	*.ko) m=$a ;;
	*) echo "arg [$a]" ;;
	esac
done
echo "module ${m##*/} of $(wc -c <"$m") bytes on ${FAKE_KVER:-here}"
echo "a line on stderr" >&2
trap 'echo "end probes on ${FAKE_KVER:-here}"; exit ${FAKE_RC:-0}' INT
printf 'no newline'
sleep 0.2
echo ' at first'
i=0
while [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "no SIGINT came"
exit ${FAKE_RC:-0}
EOS
chmod +x "$tmp/ssh" "$tmp/bin/uname" "$tmp/bin/staprun"
export TAPIR_SSH="$tmp/ssh -F /dev/null" SYSTEMTAP_DIR=$tmp/stapdir
script='probe begin { println("hi") }'

# run NAME ARGS...: stap in the background (job control: SIGINT is not
# ignored there), interrupted once every "module" line of the hosts
# that must run is out.  Sets rc.
run_stopped()
{
	local want=$1 i=0 pid
	shift
	: >"$tmp/out"
	: >"$tmp/err"
	set -m
	"$stap" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
	pid=$!
	set +m
	while [ "$(grep -c ' at first$' "$tmp/out")" -lt "$want" ] &&
	      kill -0 $pid 2>/dev/null &&
	      [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(grep -c ' at first$' "$tmp/out")" -ge "$want" ] ||
		echo "(the hosts did not all start)" >>"$tmp/err"
	kill -INT $pid 2>/dev/null
	rc=0
	wait $pid || rc=$?
}

# Three hosts, one unreachable: prefixes, whole lines, SIGINT, status.
run_stopped 2 --remote-prefix --remote "h:1" --remote "ssh://u@h:2" \
	--remote refused:9 -e "$script"
modre='module stap_[0-9a-f]{16}\.ko of [1-9][0-9]* bytes on'
grep -Eq "^0: $modre $k1\$" "$tmp/out" &&
	grep -Eq "^1: $modre ${k2//+/\\+}\$" "$tmp/out"
result $? "each host gets the module of its kernel, under its prefix"
grep -q '^0: arg \[_stp_remote_id=0\]$' "$tmp/out" &&
	grep -q '^0: arg \[_stp_remote_uri=h:1\]$' "$tmp/out" &&
	grep -q '^1: arg \[_stp_remote_id=1\]$' "$tmp/out" &&
	grep -q '^1: arg \[_stp_remote_uri=ssh://u@h:2\]$' "$tmp/out"
result $? "each host's index and URL, for remote_id() and remote_uri()"
grep -q '^0: no newline at first$' "$tmp/out" &&
	grep -q '^1: no newline at first$' "$tmp/out"
result $? "a line written in two pieces comes out whole"
grep -q "^0: end probes on $k1\$" "$tmp/out" &&
	grep -q "^1: end probes on $k2\$" "$tmp/out"
result $? "SIGINT stops every host through its staprun"
grep -q '^0: a line on stderr$' "$tmp/err" &&
	grep -q '^1: a line on stderr$' "$tmp/err" &&
	grep -q '^stap: error: remote host 2 (refused:9): cannot connect: ssh: connect to host refused port 9: Connection refused$' "$tmp/err"
result $? "stderr relayed; the unreachable host is an error naming it"
[ $rc -eq 1 ]
result $? "exit status 1 (the unreachable host) (got $rc)"
# by the watcher the remote shell left, once staprun is gone
i=0
while [ -n "$(ls -A "$tmp/remote-tmp")" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -z "$(ls -A "$tmp/remote-tmp")" ]
result $? "the hosts' copies of the module are removed"

# The worst status wins; -c reaches staprun word for word.
run_stopped 2 --remote h:1 --remote h:3 -c "echo 'a  b' \"\$HOME\"" \
	-e "$script"
[ $rc -eq 3 ]
result $? "exit status: the worst of the hosts' (3; got $rc)"
[ "$(grep -c "^arg \[echo 'a  b' \"\$HOME\"\]\$" "$tmp/out")" = 2 ] &&
	[ "$(grep -c '^arg \[-c\]$' "$tmp/out")" = 2 ]
result $? "-c CMD applies on each host, quoted as given"
grep -q '^no newline at first$' "$tmp/out" &&
	! grep -q '^[0-9]: ' "$tmp/out"
result $? "no prefix without --remote-prefix"

# Errors that name the host while the others run.
run_stopped 1 --remote-prefix --remote arm:1 --remote h:2 \
	--remote old:1 -e "$script"
grep -q "^1: end probes on $k2\$" "$tmp/out" &&
	grep -q '^stap: error: remote host 0 (arm:1): its architecture aarch64 is not supported (only x86_64)$' "$tmp/err" &&
	grep -q '^stap: error: remote host 2 (old:1): no module for its kernel 4.19.0-99-amd64$' "$tmp/err" &&
	[ $rc -eq 1 ]
result $? "another architecture and a kernel without headers: errors naming the host"
run_stopped 1 --remote-prefix --remote-staprun=/nonexistent/staprun \
	--remote h:1 -e "$script"
grep -q '^stap: error: remote host 0 (h:1): no /nonexistent/staprun there; install staprun on it, or name it with --remote-staprun$' "$tmp/err" &&
	[ $rc -eq 1 ]
result $? "a host without staprun is an error naming it"

# A host whose release failed to build before it answered.
"$stap" --remote old:1 --remote old:2 -e "$script" >"$tmp/out" \
	2>"$tmp/err" </dev/null
rc=$?
grep -q '^stap: error: remote host 0 (old:1): no module for its kernel 4.19.0-99-amd64$' "$tmp/err" &&
	grep -q '^stap: error: remote host 1 (old:2): no module for its kernel 4.19.0-99-amd64$' "$tmp/err" &&
	[ $rc -eq 1 ]
result $? "a release that failed to build fails its late host too"

# -m NAME: one release only, since NAME.ko is one file.
(cd "$tmp" && run_stopped 1 --remote-prefix --remote h:1 --remote old:2 \
	-m remote_m -e "$script")
grep -q "^0: module remote_m.ko of [0-9]* bytes on $k1\$" "$tmp/out" &&
	grep -q "^stap: error: remote host 1 (old:2): -m remote_m: its kernel 4.19.0-99-amd64 is not the release remote_m.ko is built for ($k1)\$" "$tmp/err"
result $? "-m NAME with hosts of two kernels: an error naming the second"

# -p4: one module per release, printed.
"$stap" -p4 --remote h:1 --remote h:2 --remote h:3 -e "$script" \
	>"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '\.ko$' "$tmp/out")" = 2 ] &&
	[ "$(sort -u "$tmp/out" | wc -l)" = 2 ]
result $? "-p4: built once per kernel release"

# direct://: the same commands through sh here.
PATH=$tmp/bin:$PATH FAKE_KVER=$k2 run_stopped 1 --remote direct:// \
	--remote-staprun="$tmp/bin/staprun" -e "$script"
grep -Eq "^$modre ${k2//+/\\+}\$" "$tmp/out" &&
	grep -q "^end probes on $k2\$" "$tmp/out" && [ $rc -eq 0 ]
result $? "direct:// runs here through the same path"

echo "1..$n"
[ "$failed" = 0 ]
