#!/bin/bash
# test-exporter.sh - tapir-exporter's HTTP side and its handling of the
# scripts, on the host, under valgrind: a fake stap and staprun play the
# scripts (they write the metrics file under a --procfs directory of the
# test, or fail as staprun does), and raw requests, good and bad, go to
# it over TCP.  The real thing, modules in a kernel scraped by
# Prometheus, is testsuite/kernel/exporter.  Prints TAP.
#
# usage: test-exporter.sh EXPORTER [VALGRIND [STAP]]
# With STAP, a script that does not parse is run by the real stap.

set -u
exporter=${1:?usage: test-exporter.sh EXPORTER [VALGRIND [STAP]]}
valgrind=${2:-}
real_stap=${3:-}
case $exporter in /*) ;; *) exporter=$PWD/$exporter ;; esac
n=0
failed=0
pid=

tmp=$(mktemp -d "${TMPDIR:-/tmp}/exporter-test.XXXXXX") || exit 2
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	pkill_fakes
	rm -rf "$tmp"
}
trap cleanup EXIT

result()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		if [ -n "${3:-}" ] && [ -f "$3" ]; then
			sed 's/^/#   /' "$3" | head -n 30
		fi
	fi
}

# The fakes record their pids: only those are killed at the end.
pkill_fakes()
{
	local p

	for p in "$tmp"/pids/*; do
		[ -f "$p" ] && kill -KILL "$(cat "$p")" 2>/dev/null
	done
	return 0
}

# The fake stap and staprun: MODULE is the word after -m, else the
# .ko's name; what it does is the first word of the script's file.
mkdir -p "$tmp/scripts" "$tmp/proc" "$tmp/pids"
cat >"$tmp/fake" <<'EOF'
#!/bin/bash
args=("$@")
mod= file=
while [ $# -gt 0 ]; do
	case $1 in
	-m) mod=$2; shift ;;
	*.stp|*.ko) file=$1 ;;
	esac
	shift
done
[ -n "$mod" ] || mod=$(basename "$file" .ko)
echo "start $mod $file $PWD" >>"$FAKE_DIR/log"
echo $$ >"$FAKE_DIR/pids/$mod.$$"
read -r mode _ <"$file"
if [ "$mode" = // ]; then
	exec "$REAL_STAP" "${args[@]}"
fi
case $mode in
bad)	echo "staprun: couldn't insert module '$file': Invalid module format" >&2
	exit 1 ;;
slow)	exec sleep 600 ;;
esac
trap 'rm -rf "$FAKE_DIR/proc/$mod"; echo "term $mod" >>"$FAKE_DIR/log"; exit 0' TERM
mkdir -p "$FAKE_DIR/proc/$mod"
i=0
while :; do
	i=$((i + 1))
	printf 'calls{x="a"} %d\nno_newline 1' $i >"$FAKE_DIR/proc/$mod/__prometheus.new"
	mv "$FAKE_DIR/proc/$mod/__prometheus.new" "$FAKE_DIR/proc/$mod/__prometheus"
	if [ "$mode" = dies ] && [ $i -ge 3 ]; then
		rm -rf "$FAKE_DIR/proc/$mod"
		exit 0
	fi
	sleep 0.2
done
EOF
chmod +x "$tmp/fake"
export FAKE_DIR=$tmp REAL_STAP=$real_stap
echo good >"$tmp/scripts/good.ko"
echo bad >"$tmp/scripts/bad.ko"
echo good >"$tmp/scripts/counted.stp"
echo dies >"$tmp/scripts/dies.ko"
echo slow >"$tmp/scripts/slow.ko"
echo good >"$tmp/scripts/autostart_x.ko"
# for the real stap: an error of pass 1
printf '// real stap\nprobe begin { x = }\n' >"$tmp/scripts/typo.stp"
echo good >"$tmp/scripts/not_a_script.txt"
# an executable script: the exporter runs it with -m MODULE
cat >"$tmp/scripts/exec.stp" <<'EOF'
#!/bin/sh
exec "$FAKE_DIR/fake" "$FAKE_DIR/exec-mode.stp" "$@"
EOF
chmod +x "$tmp/scripts/exec.stp"
echo good >"$tmp/exec-mode.stp"

# ---------------------------------------------------- the command line
"$exporter" -V >"$tmp/out" 2>&1
result $? "-V exits 0" "$tmp/out"
grep -q '^tapir-exporter (tapir) ' "$tmp/out"
result $? "-V prints the version" "$tmp/out"
"$exporter" --help >"$tmp/out" 2>&1 && grep -q -- '--keepalive' "$tmp/out"
result $? "--help lists the options" "$tmp/out"
"$exporter" --no-such-option >"$tmp/out" 2>&1
[ $? = 2 ]
result $? "an unknown option exits 2" "$tmp/out"
"$exporter" -k soon >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "invalid number of seconds 'soon' for -k" "$tmp/out"
result $? "-k takes a number of seconds" "$tmp/out"
"$exporter" -s "$tmp/none" -p 0 >"$tmp/out" 2>&1
[ $? = 1 ] && grep -q "cannot open the script directory $tmp/none" \
	"$tmp/out"
result $? "a missing script directory is an error naming it" "$tmp/out"

# a port that something listens on
python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(10)' >"$tmp/busy" &
holder=$!
for _ in $(seq 50); do
	[ -s "$tmp/busy" ] && break
	sleep 0.1
done
busy=$(cat "$tmp/busy")
timeout 10 "$exporter" -a 127.0.0.1 -p "$busy" -s "$tmp/scripts" \
	>"$tmp/out" 2>&1
[ $? = 1 ] && grep -q "cannot listen on 127.0.0.1 port $busy" "$tmp/out"
result $? "a port in use is an error" "$tmp/out"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# ------------------------------------------------------------ the server
vg=()
if [ -n "$valgrind" ]; then
	vg=("$valgrind" -q --error-exitcode=99 --leak-check=full
	    --errors-for-leak-kinds=all --show-leak-kinds=all
	    --log-file="$tmp/vg.log")
fi
free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start_server: on a free port; another one if something took it first.
# Relative paths for the fakes: the exporter makes them absolute.
start_server()
{
	local try

	for try in 1 2 3; do
		port=$(free_port)
		(cd "$tmp" && exec "${vg[@]}" "$exporter" -a 127.0.0.1 \
			-p "$port" -s scripts --stap ./fake --staprun ./fake \
			--procfs "$tmp/proc" -w 2 -k 6 >"$tmp/server.out" \
			2>"$tmp/server.err") &
		pid=$!
		for _ in $(seq 100); do
			grep -q 'listening on' "$tmp/server.err" 2>/dev/null &&
				return 0
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && return 0
		wait "$pid"
		pid=
		grep -q 'cannot listen' "$tmp/server.err" || return 1
		echo "# port $port was taken (try $try)"
	done
	return 1
}
start_server

# req RAW: sends RAW (printf escapes) and prints the whole answer, the
# server closing or 3 s of silence ending it.
req()
{
	python3 - "$port" "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(float(sys.argv[3]) if len(sys.argv) > 3 else 8)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except socket.timeout:
    pass
sys.stdout.write(out.decode("latin-1"))
EOF
}

# get PATH: one GET on its own connection.
get()
{
	req "GET $1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
}

# check DESC FILE PATTERN...: every (grep -E) pattern is in FILE.
check()
{
	local desc=$1 file=$2 pat ok=0

	shift 2
	for pat; do
		grep -Eq -- "$pat" "$file" || ok=1
	done
	result $ok "$desc" "$file"
}

check "it listens on the address and port given" "$tmp/server.err" \
	"listening on 127.0.0.1 port $port"
check "it finds the .stp and .ko files of the directory" \
	"$tmp/server.err" '8 scripts in /'

get / >"$tmp/index"
check "/ lists the scripts" "$tmp/index" '^HTTP/1.1 200 OK' \
	'^/good.ko$' '^/counted.stp$' '^/exec.stp$'
grep -q not_a_script "$tmp/index"
result $((!$?)) "/ leaves out other files" "$tmp/index"

get /good.ko >"$tmp/good1"
check "the first request starts a module and waits for its metrics" \
	"$tmp/good1" '^HTTP/1.1 200 OK' \
	'^Content-Type: text/plain; version=0.0.4' \
	'^calls\{x="a"\} [0-9]+$'
grep -q '^no_newline 1$' "$tmp/good1"
result $? "a last line without a line feed gets one" "$tmp/good1"
check "the fake staprun ran NAME.ko in the working directory" "$tmp/log" \
	"^start good $tmp/scripts/good.ko ${TMPDIR:-/tmp}/tapir-exporter\\."
sleep 0.6
get /good.ko >"$tmp/good2"
v1=$(sed -n 's/^calls{x="a"} //p' "$tmp/good1" | tr -d '\r')
v2=$(sed -n 's/^calls{x="a"} //p' "$tmp/good2" | tr -d '\r')
[ -n "$v1" ] && [ -n "$v2" ] && [ "$v2" -gt "$v1" ]
result $? "a second request reads the same running script ($v1 < $v2)" \
	"$tmp/good2"
[ "$(grep -c '^start good ' "$tmp/log")" = 1 ]
result $? "the script was started once" "$tmp/log"

len=$(sed -n 's/^Content-Length: \([0-9]*\)\r$/\1/p' "$tmp/good2")
body=$(sed '1,/^\r$/d' "$tmp/good2" | wc -c)
[ -n "$len" ] && [ "$len" = "$body" ]
result $? "Content-Length is the body's length ($len)" "$tmp/good2"

req "HEAD /good.ko HTTP/1.1\r\nConnection: close\r\n\r\n" >"$tmp/head"
check "HEAD answers with the headers" "$tmp/head" '^HTTP/1.1 200 OK' \
	'^Content-Length: [1-9]'
! grep -q calls "$tmp/head"
result $? "HEAD sends no body" "$tmp/head"

get '/good.ko?x=1&y=2' >"$tmp/query"
check "the query of a URL is ignored" "$tmp/query" '^HTTP/1.1 200 OK' \
	'^calls'

get /counted.stp >"$tmp/stp"
check "a script is run with stap -m MODULE FILE" "$tmp/stp" \
	'^HTTP/1.1 200 OK' '^calls'
check "... with a module name of the exporter's" "$tmp/log" \
	"^start tapir_exporter_[0-9]+_[0-9]+ $tmp/scripts/counted.stp "

get /exec.stp >"$tmp/exec"
check "an executable script is run itself with -m MODULE" "$tmp/exec" \
	'^HTTP/1.1 200 OK' '^calls'

get /bad.ko >"$tmp/bad"
check "a module that does not load: 500 with staprun's message" \
	"$tmp/bad" '^HTTP/1.1 500 ' \
	'^bad.ko: exited with status 1 before its metrics appeared:' \
	"^staprun: couldn't insert module '.*/bad.ko': Invalid module format"
get /bad.ko >"$tmp/bad2"
check "... again on the next request" "$tmp/bad2" '^HTTP/1.1 500 ' \
	"Invalid module format"
[ "$(grep -c '^start bad ' "$tmp/log")" = 1 ]
result $? "... which does not start it again at once" "$tmp/log"

if [ -n "$real_stap" ]; then
	get /typo.stp >"$tmp/typo"
	check "a script that does not parse: 500 with stap's message" \
		"$tmp/typo" '^HTTP/1.1 500 ' \
		'^typo.stp: exited with status 1 before its metrics appeared:' \
		"^$tmp/scripts/typo.stp:2:19: error: " \
		'^ +probe begin \{ x = \}$'
else
	result 1 "a script that does not parse (no STAP given)"
fi

get /slow.ko >"$tmp/slow"
check "a script that is still starting: 503 with Retry-After" \
	"$tmp/slow" '^HTTP/1.1 503 ' '^Retry-After: 5' 'slow.ko: starting'

get /nope.stp >"$tmp/404"
check "an unknown script: 404" "$tmp/404" '^HTTP/1.1 404 Not Found' \
	'no script nope.stp in '
get /../good.ko >"$tmp/dotdot"
check "a path outside the directory: 404" "$tmp/dotdot" '^HTTP/1.1 404 '

req "POST /good.ko HTTP/1.1\r\nContent-Length: 0\r\n\r\n" >"$tmp/post"
check "POST: 405 with Allow" "$tmp/post" '^HTTP/1.1 405 ' \
	'^Allow: GET, HEAD' '^Connection: close'
req "HELLO\r\n\r\n" >"$tmp/junk"
check "a line that is no request: 400" "$tmp/junk" '^HTTP/1.1 400 '
req "GET /good.ko HTTP/2.0\r\n\r\n" >"$tmp/v2"
check "HTTP/2.0: 505" "$tmp/v2" '^HTTP/1.1 505 '
req "GET good.ko HTTP/1.1\r\n\r\n" >"$tmp/rel"
check "a path not starting with /: 400" "$tmp/rel" '^HTTP/1.1 400 '
req "GET /$(printf 'a%.0s' $(seq 300)) HTTP/1.1\r\n\r\n" >"$tmp/long"
check "a path too long: 414" "$tmp/long" '^HTTP/1.1 414 '
req "GET / HTTP/1.1\r\nX: $(printf 'b%.0s' $(seq 9000))\r\n\r\n" \
	>"$tmp/big"
check "a head too large: 431" "$tmp/big" '^HTTP/1.1 431 '
req "GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" >"$tmp/body"
check "a request with a body: 400" "$tmp/body" '^HTTP/1.1 400 '
req "GET / HTTP/1.1\r\nno colon here\r\n\r\n" >"$tmp/field"
check "a header line without a colon: 400" "$tmp/field" \
	'^HTTP/1.1 400 '
req "GET / HTTP/1.1\r\n\x00\r\n\r\n" >"$tmp/nul"
check "a NUL byte: 400" "$tmp/nul" '^HTTP/1.1 400 '

req "GET / HTTP/1.1\r\n\r\nGET /good.ko HTTP/1.1\r\nConnection: close\r\n\r\n" \
	>"$tmp/pipe"
[ "$(grep -c '^HTTP/1.1 200 OK' "$tmp/pipe")" = 2 ] &&
	grep -q '^/good.ko' "$tmp/pipe" && grep -q '^calls' "$tmp/pipe"
result $? "two requests in one packet get two answers in order" \
	"$tmp/pipe"
req "GET / HTTP/1.0\r\n\r\n" >"$tmp/v10"
check "HTTP/1.0 gets Connection: close" "$tmp/v10" '^HTTP/1.1 200 ' \
	'^Connection: close'
req "\r\nGET / HTTP/1.1\r\nConnection: close\r\n\r\n" >"$tmp/crlf"
check "an empty line before a request is skipped" "$tmp/crlf" \
	'^HTTP/1.1 200 '
# a client that sends half a request and goes away
python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /goo")
s.close()' "$port"
get / >"$tmp/after"
check "it still serves after a client left mid-request" "$tmp/after" \
	'^HTTP/1.1 200 '

# a script that exits after its metrics appeared is started again
get /dies.ko >"$tmp/dies"
check "dies.ko publishes" "$tmp/dies" '^HTTP/1.1 200 '
for _ in $(seq 60); do
	[ "$(grep -c '^start dies ' "$tmp/log")" -ge 2 ] && break
	sleep 0.2
done
[ "$(grep -c '^start dies ' "$tmp/log")" -ge 2 ]
result $? "a script that exits is restarted" "$tmp/server.err"

grep -q '^start autostart_x ' "$tmp/log"
result $? "an autostart script runs without a request" "$tmp/log"

# -k 6: good.ko is stopped once unused for 6 s, autostart_x is not
for _ in $(seq 100); do
	grep -q '^term good$' "$tmp/log" && break
	sleep 0.2
done
check "-k stops a script unused for so long" "$tmp/log" '^term good$'
! grep -q '^term autostart_x$' "$tmp/log"
result $? "... but not an autostart one" "$tmp/log"
get /good.ko >"$tmp/again"
check "... and the next request starts it again" "$tmp/again" \
	'^HTTP/1.1 200 '

kill -TERM "$pid"
t0=$SECONDS
wait "$pid"
rc=$?
[ "$rc" = 0 ]
result $? "SIGTERM: it exits 0 (exit status $rc, $((SECONDS - t0)) s)" \
	"$tmp/server.err"
check "... after stopping its scripts" "$tmp/log" '^term autostart_x$' \
	'^term tapir_exporter_'
[ -z "$(ls "$tmp/proc")" ]
result $? "... whose metrics files are gone" "$tmp/log"
wd=$(sed -n 's/^start good [^ ]* //p' "$tmp/log" | head -n 1)
[ -n "$wd" ] && [ ! -e "$wd" ]
result $? "... and its working directory ($wd) removed" "$tmp/log"
pid=
if [ -n "$valgrind" ]; then
	[ "$rc" != 99 ] && [ ! -s "$tmp/vg.log" ]
	result $? "valgrind: no memory error, no leak" "$tmp/vg.log"
else
	result 1 "valgrind: not installed (run scripts/setup-deps)"
fi

echo "1..$n"
[ "$failed" = 0 ]
