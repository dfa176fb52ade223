#!/bin/bash
# check.sh - tapir-exporter scraped by a real Prometheus server: a module
# counting system calls by program is built here (stap -p4 -m) for a
# 6.12 guest, which has no compiler; the guest (the ssh guest of
# testsuite/kernel/remote/guests.sh, with the exporter's port forwarded
# too) runs tapir-exporter on a directory holding that module and a
# broken one.  Checks the answers over the forwarded port (metrics, 404,
# the 500 carrying staprun's message), lets Prometheus (Debian's
# `prometheus`) scrape twice or more, asks its HTTP API for the series
# of the exporter's own system calls and checks that it grew; then that
# SIGTERM stops the exporter and unloads the module, and that the guest
# powers off cleanly.  Prints TAP; a missing prerequisite is a failing
# test point, never a skip.
#
# usage: check.sh [-k KVER] [-v]
# STAP, STAPRUN and EXPORTER: the binaries (default: the build tree's).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"
# shellcheck source=testsuite/kernel/remote/guests.sh
. "$top/testsuite/kernel/remote/guests.sh"

n=0
failed=0
kvers=()
limit=900
verbose=
STAP=${STAP:-$top/build/stap}
STAPRUN=${STAPRUN:-$top/build/staprun}
EXPORTER=${EXPORTER:-$top/build/tapir-exporter}
export STAPRUN
prom_pid=

usage()
{
	echo "usage: ${0##*/} [-k KVER] [-v]" >&2
	exit 2
}

kernel_options "$@"
session_tmp tapir-exporter-vm
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null
	guests_kill
	rm -rf "$tmp"
}
trap cleanup EXIT

absent=
missing_tools missing qemu-system-x86_64:qemu-system-x86 \
	dropbear:dropbear-bin dropbearkey:dropbear-bin ssh:openssh-client \
	ssh-keygen:openssh-client python3:python3 busybox:busybox-static \
	cpio:cpio xz:xz-utils prometheus:prometheus
missing_files "build tapir first" "$STAP" "$STAPRUN" "$EXPORTER"
if [ ${#kvers[@]} -eq 0 ]; then
	k=$(newest_kernel 6.12)
	if [ -n "$k" ]; then
		kvers+=("$k")
	else
		missing "a 6.12 kernel" "$(family_packages 6.12)"
	fi
fi
if [ -n "$absent" ]; then
	tap_finish exporter
fi
[ ${#kvers[@]} -eq 1 ] || usage
k=${kvers[0]}

# The module, built here for the guest's kernel: the guest has staprun
# and the exporter, no compiler.
mkdir -p "$tmp/scripts"
(cd "$tmp/scripts" &&
 "$STAP" -r "$k" -p4 -m tapir_syscalls "$here/syscalls.stp") \
	>"$tmp/build.log" 2>&1
if [ -s "$tmp/scripts/tapir_syscalls.ko" ]; then
	tap_result ok "stap -r $k -p4 -m tapir_syscalls" "$tmp/build.log"
else
	tap_result notok "stap -r $k -p4 -m tapir_syscalls" "$tmp/build.log"
	tap_finish exporter
fi
echo 'not a module' >"$tmp/scripts/broken.ko"

if ! guests_init "$tmp/g" >"$tmp/init.log" 2>&1; then
	tap_result notok "keys and ssh configuration for the run" \
		"$tmp/init.log"
	tap_finish exporter
fi
p_ssh=$(free_port)
p_http=$(free_port)
p_prom=$(free_port)
while [ "$p_http" = "$p_ssh" ]; do p_http=$(free_port); done
while [ "$p_prom" = "$p_ssh" ] || [ "$p_prom" = "$p_http" ]; do
	p_prom=$(free_port)
done
# shellcheck disable=SC2034 # read by guest_boot
guest_files=(-f "$EXPORTER:/usr/local/bin/tapir-exporter"
	     -f "$tmp/scripts/tapir_syscalls.ko:/opt/tapir/exporter/tapir_syscalls.ko"
	     -f "$tmp/scripts/broken.ko:/opt/tapir/exporter/broken.ko")
# shellcheck disable=SC2034 # read by guest_boot
guest_hostfwd=",hostfwd=tcp:127.0.0.1:$p_http-:9900"

t0=$SECONDS
guest_boot g "$k" "$p_ssh"
if guest_wait g "$p_ssh" 240; then
	tap_result ok "the $k guest answers ssh after $((SECONDS - t0)) s"
else
	cat "$tmp/g/g.tap" "$tmp/g/g.console" >"$tmp/why" 2>/dev/null
	tap_result notok "the $k guest answers ssh" "$tmp/why"
	tap_finish exporter
fi

gssh()
{
	timeout 60 "${guest_ssh[@]}" -p "$p_ssh" 127.0.0.1 "$@" </dev/null
}

gssh 'setsid /usr/local/bin/tapir-exporter -p 9900 -s /opt/tapir/exporter \
	--staprun /usr/local/bin/staprun </dev/null >/tmp/exporter.log 2>&1 &
	echo started' >"$tmp/start" 2>&1
if grep -q '^started' "$tmp/start"; then
	tap_result ok "the exporter starts in the guest"
else
	tap_result notok "the exporter starts in the guest" "$tmp/start"
fi

# get PATH FILE: the answer to one request over the forwarded port.
get()
{
	python3 - "$p_http" "$1" >"$2" 2>&1 <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
c.request("GET", sys.argv[2])
r = c.getresponse()
print(r.status)
sys.stdout.write(r.read().decode("utf-8", "replace"))
EOF
}

# until the module is loaded: 503 while staprun starts, then 200
t0=$SECONDS
while :; do
	get /tapir_syscalls.ko "$tmp/first"
	[ "$(head -n 1 "$tmp/first")" = 200 ] && break
	[ $((SECONDS - t0)) -lt 120 ] || break
	sleep 1
done
if grep -q '^tapir_syscalls_total{execname="tapir-exporter"} [1-9]' \
   "$tmp/first"; then
	tap_result ok "/tapir_syscalls.ko: the module's metrics after $((SECONDS - t0)) s" \
		"$tmp/first"
else
	gssh 'cat /tmp/exporter.log' >>"$tmp/first" 2>&1
	tap_result notok "/tapir_syscalls.ko: the module's metrics" \
		"$tmp/first"
fi
get /broken.ko "$tmp/broken"
if [ "$(head -n 1 "$tmp/broken")" = 500 ] &&
   grep -q "^staprun: .*broken.ko" "$tmp/broken"; then
	tap_result ok "/broken.ko: 500 with staprun's message" "$tmp/broken"
else
	tap_result notok "/broken.ko: 500 with staprun's message" \
		"$tmp/broken"
fi
get /nothing.stp "$tmp/404"
if [ "$(head -n 1 "$tmp/404")" = 404 ]; then
	tap_result ok "/nothing.stp: 404"
else
	tap_result notok "/nothing.stp: 404" "$tmp/404"
fi

# Prometheus here scrapes the guest's exporter every second.
mkdir -p "$tmp/prom"
cat >"$tmp/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tapir
    metrics_path: /tapir_syscalls.ko
    static_configs:
      - targets: ['127.0.0.1:$p_http']
EOF
prometheus --config.file="$tmp/prom/prometheus.yml" \
	--storage.tsdb.path="$tmp/prom/data" \
	--web.listen-address="127.0.0.1:$p_prom" \
	>"$tmp/prom/log" 2>&1 &
prom_pid=$!

# query PROMQL: the result of an instant query, as "value value ..." of
# its first series (the samples of a range vector, in time order).
query()
{
	python3 - "$p_prom" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (
    sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
except Exception as e:
    print("error", e, file=sys.stderr)
    sys.exit(1)
res = d["data"]["result"]
if not res:
    sys.exit(1)
s = res[0]
vals = s["values"] if "values" in s else [s["value"]]
print(" ".join(v[1] for v in vals))
EOF
}

series='tapir_syscalls_total{job="tapir",execname="tapir-exporter"}'
t0=$SECONDS
grew=
while [ $((SECONDS - t0)) -lt 90 ]; do
	if kill -0 "$prom_pid" 2>/dev/null &&
	   query "${series}[5m]" >"$tmp/samples" 2>>"$tmp/prom/query.log"; then
		read -r -a v <"$tmp/samples"
		if [ ${#v[@]} -ge 2 ] &&
		   awk -v a="${v[0]}" -v b="${v[${#v[@]}-1]}" \
		       'BEGIN { exit !(b > a) }'; then
			grew=1
			break
		fi
	fi
	kill -0 "$prom_pid" 2>/dev/null || break
	sleep 1
done
cat "$tmp/samples" "$tmp/prom/query.log" "$tmp/prom/log" \
	>"$tmp/prom/why" 2>/dev/null
if [ -n "$grew" ]; then
	tap_result ok "Prometheus scraped ${#v[@]} samples of $series, growing from ${v[0]} to ${v[${#v[@]}-1]}"
else
	tap_result notok "Prometheus: a growing $series" "$tmp/prom/why"
fi
if query "up{job=\"tapir\"}" >"$tmp/up" 2>&1 && [ "$(cat "$tmp/up")" = 1 ]
then
	tap_result ok "Prometheus: up{job=\"tapir\"} is 1"
else
	tap_result notok "Prometheus: up{job=\"tapir\"} is 1" "$tmp/prom/why"
fi
kill "$prom_pid" 2>/dev/null
wait "$prom_pid" 2>/dev/null
prom_pid=

# SIGTERM: the exporter stops its module (unloaded) and exits.
# shellcheck disable=SC2016 # for the guest's shell
gssh 'kill $(pidof tapir-exporter); i=0
	while pidof tapir-exporter >/dev/null && [ $i -lt 100 ]; do
		sleep 0.2; i=$((i + 1)); done
	pidof tapir-exporter >/dev/null && echo "still running"
	grep tapir_syscalls /proc/modules
	cat /tmp/exporter.log' >"$tmp/stop" 2>&1
if ! grep -q '^still running' "$tmp/stop" &&
   ! grep -q '^tapir_syscalls ' "$tmp/stop" &&
   grep -q 'tapir_syscalls.ko: exited with status 0' "$tmp/stop"; then
	tap_result ok "SIGTERM: the exporter unloads the module and exits" \
		"$tmp/stop"
else
	tap_result notok "SIGTERM: the exporter unloads the module and exits" \
		"$tmp/stop"
fi

if guest_stop g "$p_ssh"; then
	tap_result ok "the $k guest: clean run and power-off" "$tmp/g/g.tap"
else
	tap_result notok "the $k guest: clean run and power-off" \
		"$tmp/g/g.tap"
fi
tap_finish exporter
