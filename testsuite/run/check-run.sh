#!/bin/bash
# check-run.sh - the run-time tests: builds every testsuite/run/NAME.stp
# into t_NAME.ko with stap -p4 for each target kernel, runs them all with
# staprun in one VM boot per kernel, and compares the exit status, stdout
# and stderr of each run with NAME.expect.  TAP; any failure exits 1.

set -uo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vmdir=$top/testsuite/vm
# shellcheck source=testsuite/lib.sh
. "$top/testsuite/lib.sh"

usage()
{
	cat <<EOF
usage: $prog [-d DIR] [-H | -D] [-k KVER]... [-j N] [-t SECS] [-o DIR] [-C] [-v]
       [TEST...]
       $prog [-d DIR] -p PASS [-v] [TEST...]
  -d DIR   the tests are DIR/NAME.stp (default: this script's directory);
           the closing line is named after DIR
  -H       hostile mode (testsuite/hostile): a read/write workload runs
           in the guest during the runs, and after each run the guest
           must be alive, with nothing new in dmesg that shows a kernel
           problem, no kprobe and no t_* module left
  -D       the health check of -H after each run, without its workload:
           for scripts from elsewhere, whose results are not compared
  -k KVER  a kernel release to test (repeatable); default: the kernels
           of testsuite/lib.sh (default_kernels), all of them required
  -j N     module builds run in parallel (default 2)
  -t SECS  default time limit of one staprun run in the VM (default 20)
  -o DIR   keep each test's actual result in DIR/KVER/NAME.actual
  -A       every test on every kernel; without it, a test whose probes
           are only begin, end, error and never (the language and the
           tapset's functions) is left out on a PREEMPT_RT kernel when
           a kernel without it is tested too (not in hostile mode)
  -C       do not use the module cache (\$TAPIR_RUN_CACHE, default
           ~/.cache/tapir-check-run): rebuild every module
  -p PASS  only run stap -pPASS (1-3) on each test: no kernel, no VM
  -v       show build logs, the VM console and every result
  TEST     a test name or shell glob (default: every NAME.stp of DIR)
Environment: STAP and STAPRUN name the binaries (default: the build
tree, ./stap or build/stap, ./staprun or build/staprun).
TAPIR_RUN_DEFINES="NAME[=VAL] ..." adds -DNAME[=VAL] to every module's
build, e.g. STAP_USE_KPROBES to run the function probes as kprobes.
EOF
	exit 2
}

kvers=()
cases=$here
hostile=
watch=
jobs=2
limit=20
pass=
max_boots=4
keep=
use_cache=1
all_kernels=
verbose=
patterns=()
n=0
failed=0

# tap_result and tap_finish (testsuite/lib.sh) show a FILE with
# comment_file, and the closing line says no time.
tap_show=comment_file
tap_timed=

# comment_file FILE: FILE as TAP comment lines, cut short (not with -v).
comment_file()
{
	local lines=60
	[ -n "$verbose" ] && lines=100000
	head -n "$lines" "$1" | sed 's/^/#   /'
	local total
	total=$(wc -l <"$1")
	[ "$total" -le "$lines" ] || echo "#   ... ($((total - lines)) more lines)"
}

# ---- What to run --------------------------------------------------------

# The binary named by $1 (STAP or STAPRUN), else the first of the paths.
find_binary()
{
	local var=$1 p
	shift
	if [ -n "${!var:-}" ]; then
		case ${!var} in
		*/*) echo "${!var}" ;;
		*) command -v "${!var}" || echo "${!var}" ;;
		esac
		return
	fi
	for p in "$@"; do
		if [ -x "$p" ] && [ -f "$p" ]; then
			echo "$p"
			return
		fi
	done
	echo "$1"
}

# label KVER: "6.1" for 6.1.0-56-amd64, "6.12-rt" for a PREEMPT_RT
# 6.12 kernel, as the test points name it.
label()
{
	local a=${1%%-*} rt=
	local major=${a%%.*} rest=${a#*.}
	case $1 in
	*-rt-*) rt=-rt ;;
	esac
	echo "$major.${rest%%.*}$rt"
}

# need WHAT: one missing prerequisite, with what to do about it.
need()
{
	missing+=("$*")
}

# need_family FAMILY: no kernel of FAMILY (testsuite/lib.sh
# default_kernels) is installed.
need_family()
{
	local pkg=linux-image-amd64
	[ "$1" = 6.1 ] || pkg=linux-image-$1-amd64
	need "a $1 kernel with headers (apt-get install $pkg" \
	     "${pkg/image/headers})"
}

# Lists in $missing every prerequisite that is not there (for -p, only
# stap), choosing the kernels first unless -k named them.
check_prerequisites()
{
	local tool k
	missing=()
	[ -x "$stap" ] ||
		need "stap: '$stap' is not executable (build it, or set STAP)"
	[ -n "$pass" ] && return 0
	[ -x "$staprun" ] ||
		need "staprun: '$staprun' is not executable" \
		     "(build it, or set STAPRUN)"
	for tool in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		    cpio:cpio gzip:gzip base64:coreutils make:make gcc:gcc \
		    sha256sum:coreutils xz:xz-utils; do
		command -v "${tool%%:*}" >/dev/null ||
			need "${tool%%:*} (apt-get install ${tool#*:})"
	done
	default_kernels need_family
	for k in ${kvers[@]+"${kvers[@]}"}; do
		[ -r "/boot/vmlinuz-$k" ] ||
			need "/boot/vmlinuz-$k (apt-get install linux-image-$k)"
		[ -e "/lib/modules/$k/build/Makefile" ] ||
			need "the headers of $k (apt-get install" \
			     "linux-headers-$k)"
	done
}

selected()
{
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# ---- Test headers (as testsuite/golden.sh reads them) ---------------------

# header KEY FILE: the value of the first "# KEY:" among the leading
# comment lines.
header()
{
	sed -n -e '/^#/!q' -e 's/\r$//' -e "s/^# $1:[[:space:]]*//p" "$2" |
		head -n 1
}

# headers KEY FILE: every "# KEY:" value among the leading comment lines.
headers()
{
	sed -n -e '/^#/!q' -e 's/\r$//' -e "s/^# $1:[[:space:]]*//p" "$2"
}

# split_words ARRAY TEXT: TEXT split like shell words into ARRAY, with
# @PROGRAMS@ standing for the directory of the test programs.
split_words()
{
	local text=${2//@PROGRAMS@/\'$programs\'}
	eval "$1=($text)"
}

# setup_args KVER SCRIPT LOG: the output of the script's "# setup:"
# commands, run on the host in this directory with KVER and PROGRAMS
# (the test programs' directory) set (the first
# that fails stops them), appended to $sargs; on failure their stderr
# is in LOG and the status is 1.
setup_args()
{
	local cmd out more=()
	cmd=$(header setup "$2")
	[ -n "$cmd" ] || return 0
	if ! out=$(cd "$cases" && KVER=$1 PROGRAMS=$programs \
		   bash -e -c "$cmd" 2>"$3.err"); then
		{
			echo "setup for $1 failed: $cmd"
			cat "$3.err"
		} >"$3"
		return 1
	fi
	read -r -d '' -a more <<<"$out" || true
	sargs+=(${more[@]+"${more[@]}"})
}

# staprun_args: the staprun options and module arguments for the stap
# options in $args, as translator/main.c run_staprun() passes them.
staprun_args()
{
	local i a v
	sr_opts=()
	sr_vars=()
	for ((i = 0; i < ${#args[@]}; i++)); do
		a=${args[i]}
		case $a in
		-G | -o | -c | -x | -T | -s)
			v=${args[i + 1]:-}
			i=$((i + 1)) ;;
		-G* | -o* | -c* | -x* | -T* | -s*)
			v=${a:2}
			a=${a:0:2} ;;
		-b) sr_opts+=(-b); continue ;;
		*) continue ;;
		esac
		case $a in
		-G) sr_vars+=("$v") ;;
		*) sr_opts+=("$a" "$v") ;;
		esac
	done
}

# A word for busybox sh, single-quoted.
shell_quote()
{
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}

# ---- Pass 4 for every test ------------------------------------------------

# The hash of everything outside a test that goes into its module.
tool_hash()
{
	{
		# contents, not paths: $stap is a copy in this run's $tmp
		sha256sum <"$stap"
		(cd "$top" && find runtime tapset -type f -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum)
		gcc --version 2>&1 | head -n 1
		# process probes hold offsets into the test programs
		find "$programs" -maxdepth 1 -type f -print0 2>/dev/null |
			LC_ALL=C sort -z | xargs -0 -r sha256sum
		echo "tapir-check-run 1"
	} | sha256sum | cut -c1-64
}

is_rt()
{
	grep -q '^CONFIG_PREEMPT_RT=y' "/lib/modules/$1/build/.config" \
		2>/dev/null
}

kernel_hash()
{
	cat "/lib/modules/$1/build/.config" \
	    "/lib/modules/$1/build/include/config/kernel.release" \
	    2>/dev/null | sha256sum | cut -c1-16
}

# has_debuginfo KVER: whether the kernel's DWARF is where stap looks:
# /usr/lib/debug, or under a root that $SYSTEMTAP_DEBUGINFO_PATH names
# (a debug tree, or an unpacked -dbg package holding one in
# usr/lib/debug), as translator/debuginfo/kmod.c reads it.
has_debuginfo()
{
	local k=$1 roots=() root sub IFS=:

	if [ -n "${SYSTEMTAP_DEBUGINFO_PATH:-}" ]; then
		for root in $SYSTEMTAP_DEBUGINFO_PATH; do
			root=${root##[+-]}
			root=${root##[+-]}
			case $root in /*) roots+=("$root") ;; esac
		done
	else
		roots=(/usr/lib/debug)
	fi
	for root in ${roots[@]+"${roots[@]}"}; do
		for sub in "" /usr/lib/debug; do
			[ -f "$root$sub/boot/vmlinux-$k" ] ||
				[ -f "$root$sub/lib/modules/$k/vmlinux" ] &&
				return 0
		done
	done
	return 1
}

# language_only SCRIPT: whether its probe points are all begin, end,
# error and never: no kernel event, the language and the tapset's
# functions only (the points of each "probe" up to its "{").
language_only()
{
	awk '
	/^probe[ \t]/ { inp = 1; sub(/^probe[ \t]+/, "") }
	inp {
		t = $0
		done = sub(/\{.*/, "", t)
		pts = pts "," t
		if (done) inp = 0
	}
	END {
		n = split(pts, a, ",")
		for (i = 1; i <= n; i++) {
			gsub(/^[ \t]+|[ \t]+$/, "", a[i])
			if (a[i] == "") continue
			if (a[i] !~ /^(begin|end|error|never)([ \t]*\(.*\))?$/)
				exit 1
		}
	}' "$1"
}

# build_one KVER NAME: t_NAME.ko in $tmp/KVER/build/NAME, from the cache
# when it has it; the verdict goes to NAME.status for the TAP pass.
build_one()
{
	local k=$1 name=$2 bdir=$tmp/$1/build/$2 key cdir rc
	local script=$cases/$2.stp

	local types dbg=no
	mkdir -p "$bdir"
	cp "$script" "$bdir/$name.stp"
	split_words args "$(header args "$script")"
	split_words sargs "$(header script-args "$script")"
	types=$(header types "$script")
	has_debuginfo "$k" && dbg=yes
	# "types: dwarf" tests run where the kernel's debuginfo is
	if [ "$types" = dwarf ] && [ $dbg = no ]; then
		echo na >"$bdir/status"
		return
	fi
	# a test of the language alone runs on the kernels without
	# PREEMPT_RT; on that one the tests with kernel events do
	if [ -n "${rt_only_events[$k]:-}" ] && language_only "$script"; then
		echo na >"$bdir/status"
		return
	fi
	if ! setup_args "$k" "$script" "$bdir/build.log"; then
		echo failed >"$bdir/status"
		return
	fi
	# every module of the run built with these too (-DSTAP_USE_KPROBES)
	for d in ${TAPIR_RUN_DEFINES-}; do
		args+=("-D$d")
	done
	key=$( {
		echo "$thash ${khash[$k]} $k $name dbg=$dbg"
		printf '%s\n' ${args[@]+"${args[@]}"} -- \
			${sargs[@]+"${sargs[@]}"}
		cat "$script"
	} | sha256sum | cut -c1-40)
	cdir=$cache/$k/${key:0:2}/$key
	if [ -n "$use_cache" ] && [ -f "$cdir/t_$name.ko" ]; then
		cp "$cdir/t_$name.ko" "$bdir/"
		strip --strip-debug "$bdir/t_$name.ko"
		echo cached >"$bdir/status"
		return
	fi
	(cd "$bdir" && TAPIR_KERNEL_TYPES=$types TAPIR_WERROR=1 \
		exec timeout 600 "$stap" -p4 -r "$k" -m "t_$name" \
		${args[@]+"${args[@]}"} "$name.stp" ${sargs[@]+"${sargs[@]}"} \
		</dev/null >build.out 2>build.err)
	rc=$?
	if [ $rc -eq 0 ] && [ -f "$bdir/t_$name.ko" ]; then
		echo built >"$bdir/status"
		# without its DWARF (as INSTALL_MOD_STRIP does): five
		# times smaller, here, in the cache and in the guest, where
		# some 900 MB of a run's modules unpacked once filled a 2 GB
		# 6.12 guest; a whole run's unstripped modules (2.5 MB each
		# on 6.12) once filled a CI machine's disk
		strip --strip-debug "$bdir/t_$name.ko" 2>>"$bdir/build.err"
		if [ -n "$use_cache" ] && mkdir -p "$cdir"; then
			cp "$bdir/t_$name.ko" "$cdir/t_$name.ko.tmp" &&
				mv "$cdir/t_$name.ko.tmp" "$cdir/t_$name.ko"
		fi
	else
		{
			echo "stap -p4 exited with status $rc:"
			cat "$bdir/build.err" "$bdir/build.out"
		} >"$bdir/build.log"
		echo failed >"$bdir/status"
	fi
}

# build_kernel KVER JOBS: every test's module for KVER, JOBS builds at
# a time; JOBS + 1 while $tmp/vm-idle exists (no guest is running).
build_kernel()
{
	local k=$1 name running=0 lim
	for name in "${tests[@]}"; do
		lim=$2
		[ -f "$tmp/vm-idle" ] && lim=$(($2 + 1))
		while [ $running -ge "$lim" ]; do
			wait -n
			running=$((running - 1))
		done
		build_one "$k" "$name" &
		running=$((running + 1))
	done
	wait
}

# ---- The VM ---------------------------------------------------------------

# stage_kmod STAGE NAME: the kernel's module NAME, as modules.dep of
# $kver finds it, uncompressed into STAGE/kmod/NAME.ko (the VM has no
# /lib/modules).  Nothing when it is not found: the test's insmod fails
# in the VM, and with it the test.
stage_kmod()
{
	local src rel
	[ -f "$1/kmod/$2.ko" ] && return 0
	rel=$(sed -n "s#^\([^:]*/$2\.ko\(\.[a-z]*\)\{0,1\}\):.*#\1#p" \
	      "/lib/modules/$kver/modules.dep" 2>/dev/null | head -n 1)
	[ -n "$rel" ] || return 0
	src=/lib/modules/$kver/$rel
	mkdir -p "$1/kmod"
	case $src in
	*.xz) xz -dc <"$src" ;;
	*.zst) zstd -dcq <"$src" ;;
	*.gz) gzip -dc <"$src" ;;
	*) cat "$src" ;;
	esac >"$1/kmod/$2.ko" || rm -f "$1/kmod/$2.ko"
}

# stage_run_line NAME: the lines of the run script for one test: its
# kernel modules ("# kmod: NAME PARAMS..." loaded before the run, "#
# kmod-file: NAME..." only there for the test to load), the command to run
# after it ("# after: CMD"), the one to run once a killed staprun is
# gone ("# orphan: CMD"), the run, and the removal of those modules
# afterwards.
stage_run_line()
{
	local name=$1 t a kmod kfile words after
	kmod=$(header kmod "$cases/$name.stp")
	kfile=$(header kmod-file "$cases/$name.stp")
	if [ -n "$kmod" ]; then
		split_words words "$kmod"
		stage_kmod "$stage" "${words[0]}"
		printf 'k %s kmod/%s.ko' "${words[0]}" "${words[0]}"
		for a in "${words[@]:1}"; do
			printf ' %s' "$(shell_quote "$a")"
		done
		printf '\n'
	fi
	for a in $kfile; do
		stage_kmod "$stage" "$a"
	done
	after=$(header after "$cases/$name.stp")
	if [ -n "$after" ]; then
		after=${after//@PROGRAMS@/$programs}
		printf 'a %s\n' "$(shell_quote "$after")"
	fi
	after=$(header orphan "$cases/$name.stp")
	if [ -n "$after" ]; then
		after=${after//@PROGRAMS@/$programs}
		printf 'o %s\n' "$(shell_quote "$after")"
	fi
	split_words args "$(header args "$cases/$name.stp")"
	staprun_args
	t=$(header timeout "$cases/$name.stp")
	t=${t:-$limit}
	stage_secs=$((stage_secs + t))
	# NAME.sh, when there is one, runs instead of staprun: a driver for
	# what one staprun cannot show (signals, two sessions, closed output)
	if [ -f "$cases/$name.sh" ]; then
		cp "$cases/$name.sh" "$stage/$name.sh"
		printf 't %s %s sh ./%s.sh' "$name" "$t" "$name"
	else
		printf 't %s %s staprun' "$name" "$t"
	fi
	for a in ${sr_opts[@]+"${sr_opts[@]}"} "t_$name.ko" \
		 ${sr_vars[@]+"${sr_vars[@]}"}; do
		printf ' %s' "$(shell_quote "$a")"
	done
	printf '\n'
	# the modules a test loaded itself go in the reverse order, users
	# before what they use
	for a in ${kmod:+"${words[0]}"} $(printf '%s\n' $kfile | tac); do
		printf 'u %s\n' "${a//-/_}"
	done
}

# stage DIR NAME...: the modules of the named tests and the run script,
# as one test of the VM runner: DIR/tests/stap-run/run.
stage()
{
	local dir=$1 name stage=$1/tests/stap-run
	shift
	mkdir -p "$stage"
	stage_secs=0
	{
		cat "$here/vm-run.sh"
		[ -n "$hostile" ] && echo 'hostile'
		[ -n "$watch" ] && echo 'watch'
		# the modules were stripped when built (build_one)
		for name in "$@"; do
			cp "$tmp/$kver/build/$name/t_$name.ko" "$stage/"
			stage_run_line "$name"
		done
		echo 'finish'
	} >"$stage/run"
	chmod +x "$stage/run"
	echo "$stage_secs" >"$dir/secs"
}

# program_files: -f options putting the test programs (the executables
# and libraries build.sh made) in the VM at the same absolute paths, for
# the process probes and -c commands that name them.
program_files()
{
	local f
	for f in "$programs"/*; do
		[ -f "$f" ] && [ -x "$f" ] && printf -- '-f\n%s:%s\n' "$f" "$f"
	done
}

# boot DIR NTESTS [APPEND]: one VM with the tests staged in DIR, APPEND
# added to the kernel's command line; the console log, the VM runner's
# TAP and the results channel stay in DIR.
boot()
{
	local d=$1 secs progs=() append=${3:-}
	mapfile -t progs < <(program_files)
	if ! "$vmdir/mkinitramfs.sh" -o "$d/initrd" -r "$kver" -t "$d/tests" \
	     -f "$staprun:/usr/local/bin/staprun" ${progs[@]+"${progs[@]}"} \
	     >"$d/mkinitramfs.log" 2>&1
	then
		return 1
	fi
	# Boot, then every test at its limit at worst: the VM's own time
	# limits only stop a hung kernel.
	secs=$((120 + $2 * 5))
	[ -n "$hostile$watch" ] && secs=$((120 + $(cat "$d/secs")))
	: >"$d/results"
	"$vmdir/run-vm.sh" -k "$kver" -i "$d/initrd" -T stap-run \
		-u "$secs" -t $((secs + 60)) -l "$d/console.log" \
		-q "-serial file:$d/results" ${verbose:+-v} \
		${append:+-a "$append"} >"$d/vm.tap" 2>"$d/vm.err"
	return 0
}

# split_results DIR: the results channel of one boot (the VM's second
# serial port) into $tmp/KVER/res/NAME.{status,stdout,stderr,loaded,done}.
split_results()
{
	local d=$tmp/$kver
	mkdir -p "$d/res"
	tr -d '\r' <"$1/results" | awk -v dir="$d/res" '
		$1 == "@@run@@" && $2 == "begin" { name = $3; sec = ""; next }
		$1 == "@@run@@" && $2 == "status" {
			print $3 > (dir "/" name ".status"); next }
		$1 == "@@run@@" && $2 == "loaded" {
			print "1" > (dir "/" name ".loaded"); next }
		$1 == "@@run@@" && ($2 == "stdout" || $2 == "stderr" ||
				    $2 == "health") {
			sec = $2
			printf "" > (dir "/" name "." sec ".b64")
			next }
		$1 == "@@run@@" && $2 == "end" {
			print "1" > (dir "/" name ".done"); sec = ""; next }
		sec != "" { print > (dir "/" name "." sec ".b64") }'
	local f
	for f in "$d"/res/*.b64; do
		[ -e "$f" ] || continue
		base64 -d "$f" >"${f%.b64}" 2>/dev/null ||
			echo "(undecodable result)" >"${f%.b64}"
	done
}

# ---- Comparing ------------------------------------------------------------

# section NAME FILE: one part of a result, in the format of the .expect
# files (testsuite/golden.sh): a missing final newline is made visible.
section()
{
	echo "--- $1"
	[ -f "$2" ] && cat "$2"
	if [ -s "$2" ] && [ -n "$(tail -c 1 "$2")" ]; then
		echo
		echo '\ No newline at end of output'
	fi
}

# normalise SCRIPT: the "# sed:" expressions of the test, in order.
normalise()
{
	# tapset files are named wherever they are installed
	local e cmd=(sed -e "s#$programs#@PROGRAMS@#g"
		     -e 's#[^ ]*/tapset/\([^ /]*\.stp\)#TAPSET/\1#g')
	while IFS= read -r e; do
		cmd+=(-e "$e")
	done < <(headers sed "$1")
	"${cmd[@]}"
}

check_one()
{
	local name=$1 lab r=$tmp/$kver/res/$1
	local script=$cases/$1.stp expect=$cases/$1.expect
	lab="$(label "$kver")/$name"

	# not for this kernel (no debuginfo): dwarf_coverage checks that
	# some kernel ran it
	[ "$(cat "$tmp/$kver/build/$name/status")" = na ] && return
	if [ "$(cat "$tmp/$kver/build/$name/status")" = failed ]; then
		tap_result notok "$lab (stap -p4 failed)" \
			   "$tmp/$kver/build/$name/build.log"
		return
	fi
	if [ -f "$r.died" ]; then
		tap_result notok "$lab (the VM died during this run)" "$r.died"
		return
	fi
	if [ ! -f "$r.done" ]; then
		tap_result notok "$lab (no result from the VM)"
		return
	fi
	{
		echo "exit: $(cat "$r.status")"
		section stdout "$r.stdout"
		section stderr "$r.stderr"
	} | normalise "$script" >"$r.actual"
	if [ -n "$keep" ]; then
		mkdir -p "$keep/$kver"
		cp "$r.actual" "$keep/$kver/$name.actual"
	fi
	if [ -f "$r.loaded" ]; then
		{
			echo "the module was still loaded after staprun ended"
			[ -s "$r.health" ] && cat "$r.health"
		} >"$r.diff"
		tap_result notok "$lab (module left loaded)" "$r.diff"
	elif [ -s "$r.health" ]; then
		{
			echo "the guest after the run:"
			cat "$r.health"
			if ! cmp -s "$expect" "$r.actual"; then
				echo "and the result differs:"
				diff -u --label "$name.expect" --label actual \
					"$expect" "$r.actual"
			fi
		} >"$r.diff"
		tap_result notok "$lab (guest unhealthy after the run)" \
			   "$r.diff"
	elif [ ! -f "$expect" ]; then
		tap_result notok "$lab (no $name.expect)" "$r.actual"
	elif cmp -s "$expect" "$r.actual"; then
		tap_result ok "$lab" "$r.actual"
	else
		diff -u --label "$name.expect" --label actual "$expect" \
			"$r.actual" >"$r.diff"
		tap_result notok "$lab" "$r.diff"
	fi
}

# vm_verdict DIR NUMBER: the test point of one boot (clean boot, no
# kernel problem, power-off).  When the VM failed, the run it was in
# (the last "start" without a result) gets a .died report, and
# $culprit names it.
vm_verdict()
{
	local d=$1 line report=$1/vm.report
	culprit=
	line=$(grep -E '^(not )?ok [0-9]+ - vm ' "$d/vm.tap" | tail -n 1)
	if [ -n "$line" ] && [ "${line#ok }" != "$line" ]; then
		tap_result ok \
			"$(label "$kver")/vm$2: clean boot, runs, power-off" \
			"$d/vm.tap"
		return 0
	fi
	culprit=$(sed -n 's/.*@@run@@ start \([a-z0-9_]*\).*/\1/p' \
		  "$d/console.log" 2>/dev/null | tail -n 1)
	if [ -n "$culprit" ] && [ -f "$tmp/$kver/res/$culprit.done" ]; then
		culprit=
	fi
	[ -n "$line" ] || line="run-vm.sh gave no verdict"
	{
		cat "$d/vm.tap" "$d/vm.err"
		echo "--- the end of the console:"
		tail -n 40 "$d/console.log" 2>/dev/null
	} >"$report"
	[ -n "$culprit" ] && cp "$report" "$tmp/$kver/res/$culprit.died"
	tap_result notok "$(label "$kver")/vm$2: ${line#*- vm }" "$report"
	return 1
}

# run_group APPEND NAME...: the named tests, in as few boots with APPEND
# on the kernel's command line as the kernel allows: when a run kills the
# VM, or the VM fails before the runs (a boot can fail under TCG), the
# tests without a result go to a new boot (at most $max_boots).  The
# boots are numbered on from $nboot.
run_group()
{
	local append=$1 name d todo rest tries=1
	shift
	todo=("$@")
	while [ ${#todo[@]} -gt 0 ] && [ $tries -le $max_boots ]; do
		d=$tmp/$kver/boot$nboot
		mkdir -p "$d"
		stage "$d" "${todo[@]}"
		if ! boot "$d" "${#todo[@]}" "$append"; then
			tap_result notok "$(label "$kver")/vm$nboot: mkinitramfs" \
				   "$d/mkinitramfs.log"
			nboot=$((nboot + 1))
			break
		fi
		split_results "$d"
		# the image and its staged modules are spent: a run's boots
		# would otherwise keep some 150 MB each until the end
		rm -rf "$d/initrd" "$d/tests"
		vm_verdict "$d" "$nboot" && { nboot=$((nboot + 1)); break; }
		rest=()
		for name in "${todo[@]}"; do
			[ -f "$tmp/$kver/res/$name.done" ] ||
			[ -f "$tmp/$kver/res/$name.died" ] || rest+=("$name")
		done
		todo=(${rest[@]+"${rest[@]}"})
		nboot=$((nboot + 1))
		tries=$((tries + 1))
	done
}

# run_kernel: every test that built, a boot for the tests of each "#
# boot:" command line (most have none and share one, the first).
run_kernel()
{
	local name a b t0=$SECONDS appends=("") group seen
	nboot=1
	for name in "${tests[@]}"; do
		a=$(header boot "$cases/$name.stp")
		seen=
		for b in "${appends[@]}"; do
			[ "$a" = "$b" ] && seen=1
		done
		[ -n "$seen" ] || appends+=("$a")
	done
	for a in "${appends[@]}"; do
		group=()
		for name in "${tests[@]}"; do
			case $(cat "$tmp/$kver/build/$name/status") in
			failed | na) continue ;;
			esac
			[ "$(header boot "$cases/$name.stp")" = "$a" ] &&
				group+=("$name")
		done
		[ ${#group[@]} -gt 0 ] && run_group "$a" "${group[@]}"
	done
	vm_secs=$((SECONDS - t0))
}

# translate_only PASS: stap -pPASS for every test, no kernel needed.
translate_only()
{
	local name rc
	for name in "${tests[@]}"; do
		split_words args "$(header args "$cases/$name.stp")"
		split_words sargs "$(header script-args "$cases/$name.stp")"
		if ! setup_args "$(uname -r)" "$cases/$name.stp" \
		     "$tmp/$name.log"; then
			tap_result notok "p$pass/$name" "$tmp/$name.log"
			continue
		fi
		(cd "$cases" && exec timeout 60 "$stap" -p"$pass" \
			${args[@]+"${args[@]}"} "$name.stp" \
			${sargs[@]+"${sargs[@]}"} </dev/null >/dev/null \
			2>"$tmp/$name.err")
		rc=$?
		if [ $rc -eq 0 ]; then
			tap_result ok "p$pass/$name"
		else
			echo "stap -p$pass exited with status $rc:" >"$tmp/$name.log"
			cat "$tmp/$name.err" >>"$tmp/$name.log"
			tap_result notok "p$pass/$name" "$tmp/$name.log"
		fi
	done
}

# The tests named by the patterns, in name order.
select_tests()
{
	local name
	tests=()
	for name in "$cases"/*.stp; do
		name=${name##*/}
		name=${name%.stp}
		selected "$name" && tests+=("$name")
	done
	with_tests
	for name in ${tests[@]+"${tests[@]}"}; do
		if ! [[ $name =~ ^[a-z0-9_]{1,50}$ ]]; then
			echo "$prog: '$name': test names are [a-z0-9_]{1,50}" \
			     "(they name modules)" >&2
			exit 2
		fi
	done
}

# with_tests: the tests that a selected test names in "# with: NAME..."
# (its driver runs their modules too) are selected as well, in name
# order.
with_tests()
{
	local name w more=() all
	for name in ${tests[@]+"${tests[@]}"}; do
		for w in $(header with "$cases/$name.stp"); do
			[ -f "$cases/$w.stp" ] || {
				echo "$prog: $name: '# with: $w': no $w.stp" >&2
				exit 2
			}
			selected "$w" || more+=("$w")
		done
	done
	[ ${#more[@]} -gt 0 ] || return 0
	mapfile -t all < <(printf '%s\n' "${tests[@]}" "${more[@]}" |
			   LC_ALL=C sort -u)
	tests=("${all[@]}")
}

# Keep the host out of the modules: no rc file, no caller settings;
# stap's own cache of kernel API probes is kept between runs.
setup_env()
{
	cache=${TAPIR_RUN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tapir-check-run}
	mkdir -p "$cache/stapdir"
	export SYSTEMTAP_DIR=$cache/stapdir
	export SYSTEMTAP_TAPSET=$top/tapset
	export SYSTEMTAP_RUNTIME=$top/runtime
	export LC_ALL=C
	unset SYSTEMTAP_REMOTE SYSTEMTAP_COLOR SYSTEMTAP_PATH
}

parse_options()
{
	local opt
	while getopts 'd:HDk:j:t:o:p:ACvh' opt; do
		case $opt in
		A) all_kernels=1 ;;
		d) cases=$OPTARG ;;
		H) hostile=1 ;;
		D) watch=1 ;;
		k) kvers+=("$OPTARG") ;;
		j) jobs=$OPTARG ;;
		t) limit=$OPTARG ;;
		o) keep=$OPTARG ;;
		p) pass=$OPTARG ;;
		C) use_cache= ;;
		v) verbose=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	patterns=("$@")
	case $jobs$limit$pass in
	*[!0-9]*) usage ;;
	esac
	case $pass in
	'' | [123]) ;;
	*) usage ;;
	esac
	[ -z "$keep" ] || keep=$(mkdir -p "$keep" && cd "$keep" && pwd)
	cases=$(cd "$cases" && pwd) || usage
	suite=${cases##*/}
	return 0
}

main()
{
	local k t0 t1 nbuilt ncached nfail item i next bpid bsecs
	parse_options "$@"
	stap=$(find_binary STAP "$top/stap" "$top/build/stap")
	staprun=$(find_binary STAPRUN "$top/staprun" \
		  "$top/build/staprun")
	programs=${TAPIR_BUILDDIR:-$(cd "$(dirname "$stap")" 2>/dev/null &&
				     pwd)}/testsuite/programs
	check_prerequisites
	if [ ${#missing[@]} -gt 0 ]; then
		for item in "${missing[@]}"; do
			tap_result notok "prerequisite: $item"
		done
		tap_finish "$suite"
	fi
	select_tests
	if [ ${#tests[@]} -eq 0 ]; then
		tap_result notok "no test matches: ${patterns[*]}"
		tap_finish "$suite"
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-check-run.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# Copies: the build tree may be rebuilt while the suite runs.
	mkdir -p "$tmp/bin"
	echo "# stap: $stap"
	cp "$stap" "$tmp/bin/stap" && stap=$tmp/bin/stap
	setup_env
	if [ -n "$pass" ]; then
		translate_only
		tap_finish "$suite"
	fi
	echo "# staprun: $staprun"
	cp "$staprun" "$tmp/bin/staprun" && staprun=$tmp/bin/staprun
	echo "# kernels: ${kvers[*]}; ${#tests[@]} tests"
	thash=$(tool_hash)
	declare -gA khash rt_only_events
	for k in "${kvers[@]}"; do
		khash[$k]=$(kernel_hash "$k")
	done
	# On a PREEMPT_RT kernel beside one without it, only the tests
	# with kernel events (-A: all): the others test the language and
	# the tapset's functions, which the same runtime code runs in
	# staprun's begin and end on every kernel.
	local nonrt=
	for k in "${kvers[@]}"; do
		is_rt "$k" || nonrt=1
	done
	if [ -z "$all_kernels$hostile$watch" ] && [ -n "$nonrt" ]; then
		for k in "${kvers[@]}"; do
			is_rt "$k" && rt_only_events[$k]=1
		done
	fi

	# The first kernel's modules with every job; then each kernel's
	# guest (one host CPU: single-threaded TCG) runs while the next
	# kernel's modules build on the other CPUs.
	t0=$SECONDS
	build_kernel "${kvers[0]}" "$jobs"
	bsecs=$((SECONDS - t0))
	for i in "${!kvers[@]}"; do
		kver=${kvers[$i]}
		next=${kvers[$((i + 1))]:-}
		bpid=
		if [ -n "$next" ]; then
			rm -f "$tmp/vm-idle"
			( t1=$SECONDS
			  build_kernel "$next" $((jobs > 1 ? jobs - 1 : 1))
			  echo $((SECONDS - t1)) >"$tmp/$next.bsecs" ) &
			bpid=$!
		fi
		run_kernel
		for item in "${tests[@]}"; do
			check_one "$item"
		done
		echo "# $(label "$kver"): boots and runs took $vm_secs s;" \
		     "$(du -sm "$tmp" | cut -f1) MB in the run's directory"
		# this kernel's modules are spent too
		rm -f "$tmp/$kver"/build/*/t_*.ko
		if [ -n "$verbose" ]; then
			for item in "$tmp/$kver"/boot*/console.log; do
				[ -f "$item" ] && comment_file "$item"
			done
		fi
		if [ -n "$bpid" ]; then
			t1=$SECONDS
			touch "$tmp/vm-idle"
			wait "$bpid"
			echo "# $(label "$next"): pass 4 went on $((SECONDS - t1))" \
			     "s after the guest of $(label "$kver")"
			bsecs=$((bsecs + SECONDS - t1))
		fi
	done
	nbuilt=$(cat "$tmp"/*/build/*/status | grep -c '^built$')
	ncached=$(cat "$tmp"/*/build/*/status | grep -c '^cached$')
	nfail=$(cat "$tmp"/*/build/*/status | grep -c '^failed$')
	echo "# pass 4: $nbuilt built, $ncached from the cache, $nfail" \
	     "failed; $bsecs s not overlapped with a guest (-j $jobs)"
	dwarf_coverage
	echo "# total: $SECONDS s"
	tap_finish "$suite"
}

# A "types: dwarf" test that no kernel could run (no -dbg package
# anywhere) is a failure, not a skip.
dwarf_coverage()
{
	local name k ran
	for name in "${tests[@]}"; do
		[ "$(header types "$cases/$name.stp")" = dwarf ] || continue
		ran=
		for k in "${kvers[@]}"; do
			[ "$(cat "$tmp/$k/build/$name/status")" = na ] || ran=1
		done
		[ -n "$ran" ] && continue
		tap_result notok "$name: needs kernel debuginfo for one of the kernels (scripts/setup-deps --dbg installs linux-image-KVER-dbg for 6.1)"
	done
}

main "$@"
