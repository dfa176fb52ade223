# bench/lib.sh - what bench/kprobe.sh and bench/uprobe.sh share: their
# arguments and environment, building the floors (hand-written modules)
# and stap's modules ("ours") for a kernel, the guest's script, one boot
# per kernel in QEMU under -icount shift=0 (a guest nanosecond is one
# instruction), and the report of instructions per hit.  Sourced by
# bash, not run.
#
# The caller sets these before it calls the functions here:
#   bench   its name, for messages ("kprobe")
#   here    the top of the source tree
#   goal    the ratio to its floor that ours aims at
#   what    what the loop program calls N times ("getpid()")
#   loop    the loop program's name in the guest ("getpid-loop"), which
#           takes N and prints the nanoseconds its loop took
#   bare_cases, our_cases
#           the floors and ours, each "NAME MODULE KIND FLOOR LABEL"
#           (KIND bare or ours; FLOOR, for ours, the NAME of its bare
#           case, or several NAME,NAME: the ratio to each, the first
#           against the goal; LABEL with _ for blanks), from which
#           bench_cases makes cases, the cases in the order they run.  A
#           bare module prints "MODULE: hits=COUNT" when removed, ours
#           prints its global n at the end.  A bare case whose module
#           the kernel's kbuild did not build (a Kbuild line under
#           ifdef CONFIG_...) is left out on that kernel, and said so.
# and defines
#   script_of MODULE   the script of one of ours
#   opts_of MODULE     (optional) stap options for it, word-split
#   guest_part         prints the caller's part of the guest's script
#                      (busybox sh), run before the cases: BARE_ARGS
#                      (insmod's arguments for the bare modules), a
#                      function kplist CASE (what to note about the
#                      probes while a case is armed) and any set-up.
#
# shellcheck shell=bash disable=SC2154,SC2034 # variables shared with the caller

die()
{
	echo "$bench: $*" >&2
	exit 1
}

# bench_setup "$@" (STAP STAPRUN [KVER]): stap, staprun, n, reps,
# bare_only, kvers and a temporary directory tmp, removed on exit.
bench_setup()
{
	stap=$1
	staprun=$2
	# Absolute: stap runs in a build directory of its own.
	case $stap in
	*/*) stap=$(cd "$(dirname "$stap")" && pwd)/${stap##*/} ;;
	esac
	case $staprun in
	*/*) staprun=$(cd "$(dirname "$staprun")" && pwd)/${staprun##*/} ;;
	esac
	export SYSTEMTAP_TAPSET=${SYSTEMTAP_TAPSET:-$here/tapset}
	export SYSTEMTAP_RUNTIME=${SYSTEMTAP_RUNTIME:-$here/runtime}
	n=${N:-1000000}
	reps=${REPS:-5}
	bare_only=${BARE_ONLY:-}
	if [ $# -ge 3 ]; then
		kvers=("$3")
	else
		# shellcheck disable=SC2012 # kernel release names have no blanks
		mapfile -t kvers < <(ls /lib/modules | sort -V)
	fi
	case $n$reps in
	*[!0-9]*) echo "$bench: N and REPS must be numbers" >&2; exit 2 ;;
	esac
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# bench_cases: cases, after bench_setup: the baseline, the floors, ours
# (not with BARE_ONLY) and the baseline again.
# CASES=NAME,NAME... keeps only those (and the baselines): a floor named
# by a case that runs is not added, name it too.
bench_cases()
{
	local c all=("${bare_cases[@]}")

	[ -n "$bare_only" ] || all+=("${our_cases[@]}")
	cases=("base - base - baseline")
	for c in "${all[@]}"; do
		case ,${CASES:-${c%% *}}, in
		*,"${c%% *}",*) cases+=("$c") ;;
		esac
	done
	cases+=("base2 - base - baseline_again")
}

# bench_prerequisites: gcc, and staprun unless BARE_ONLY (made absolute).
bench_prerequisites()
{
	local p

	command -v gcc >/dev/null || die "missing prerequisite: gcc"
	if [ -z "$bare_only" ]; then
		case $staprun in
		/*) ;;
		*) p=$(command -v "$staprun") || die "no staprun: $staprun"
		   staprun=$p ;;
		esac
		[ -x "$staprun" ] || die "no staprun: $staprun"
	fi
}

# build_bare KVER DIR SRC: the floors, SRC/bare_* and SRC/Kbuild, with
# the kernel's kbuild; a warning is an error (the Kbuild adds -Werror,
# modpost's are caught here).
build_bare()
{
	local k=$1 dir=$2/bare src=$3

	mkdir -p "$dir"
	cp "$src"/bare_* "$src/Kbuild" "$dir/"
	if ! make -C "/lib/modules/$k/build" M="$dir" modules \
	     >"$dir.log" 2>&1 || grep -qi 'warning' "$dir.log"; then
		cat "$dir.log" >&2
		die "$k: the bare modules do not build cleanly"
	fi
}

# build_ours KVER DIR: stap's modules; a failure is fatal, not a skip.
build_ours()
{
	local k=$1 dir=$2/ours c mod opts

	mkdir -p "$dir"
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086 # split on purpose
		set -- $c
		[ "$3" = ours ] || continue
		mod=$2
		opts=
		if declare -F opts_of >/dev/null; then opts=$(opts_of "$mod"); fi
		# shellcheck disable=SC2086 # split on purpose
		if ! (cd "$dir" && "$stap" -r "$k" -p4 -m "$mod" $opts \
		      -e "$(script_of "$mod")" >"$mod.log" 2>&1); then
			cat "$dir/$mod.log" >&2
			die "$k: stap -p4 failed for: $(script_of "$mod")" \
			    "(BARE_ONLY=1 measures the floors alone)"
		fi
	done
}

# write_guest DIR: the guest's side, DIR/tests/kbench/run (busybox sh).
# Results are lines "@@kb@@ WHAT CASE VALUE..." on the console.
write_guest()
{
	local dir=$1/tests/kbench c

	mkdir -p "$dir"
	{
		echo '#!/bin/sh'
		echo "N=$n"
		echo "REPS=$reps"
		echo "LOOP=$loop"
		echo 'CASES="'
		for c in "${cases[@]}"; do
			# shellcheck disable=SC2086 # split on purpose
			set -- $c
			echo "$1 $2 $3"
		done
		echo '"'
		cat <<'GUEST'
M=@@kb@@
BARE_ARGS=

fail()
{
	echo "$M fail $*"
	exit 1
}

runs()
{
	i=0
	while [ $i -lt "$REPS" ]; do
		ns=$("$LOOP" "$N") || fail "$1 $LOOP failed"
		echo "$M ns $1 $ns"
		i=$((i + 1))
	done
}

bare()
{
	# shellcheck disable=SC2086 # split on purpose
	insmod "/opt/tapir/$2.ko" $BARE_ARGS || fail "$1 insmod $2"
	kplist "$1"
	sleep 1		# let the kprobe optimizer do its work first
	runs "$1"
	rmmod "$2" || fail "$1 rmmod $2"
	line=$(dmesg | grep "$2: hits=" | tail -n 1)
	echo "$M count $1 ${line#*hits=}"
}

ours()
{
	staprun -v -o "/tmp/$2.out" "/opt/tapir/$2.ko" 2>"/tmp/$2.err" &
	pid=$!
	t=0
	while ! grep -q 'the script is running' "/tmp/$2.err"; do
		kill -0 $pid 2>/dev/null || break
		[ $t -lt 600 ] || break
		sleep 0.1
		t=$((t + 1))
	done
	if ! grep -q 'the script is running' "/tmp/$2.err"; then
		kill -INT $pid 2>/dev/null
		wait $pid
		sed "s/^/$M stderr $1 /" "/tmp/$2.err"
		fail "$1 staprun $2 did not start"
	fi
	kplist "$1"
	sleep 1
	runs "$1"
	kill -INT $pid
	wait $pid
	echo "$M status $1 $?"
	grep -v '^staprun: ' "/tmp/$2.err" | sed "s/^/$M stderr $1 /"
	echo "$M count $1 $(sed -n 's/^n=//p' "/tmp/$2.out")"
}

# Kernel messages at info level would reach the serial console, which
# under TCG costs time; warnings and worse still show.
dmesg -n 5
GUEST
		guest_part
		cat <<'GUEST'
echo "$CASES" | while read -r name mod kind; do
	[ -n "$name" ] || continue
	case $kind in
	base) runs "$name" ;;
	bare) bare "$name" "$mod" ;;
	ours) ours "$name" "$mod" ;;
	esac
done || exit 1
echo "$M done -"
GUEST
	} >"$dir/run"
	chmod +x "$dir/run"
}

# boot KVER DIR [SRC:DEST]...: one boot runs every case, with the bare
# and our modules, staprun and the files given; the console goes to
# DIR/console, the results to DIR/results.
boot()
{
	local k=$1 dir=$2 files=() f rc=0

	shift 2
	for f in "$@"; do
		files+=(-f "$f")
	done
	for f in "$dir"/bare/*.ko "$dir"/ours/*.ko; do
		[ -e "$f" ] && files+=(-f "$f")
	done
	[ -z "$bare_only" ] && files+=(-f "$staprun:/usr/local/bin/staprun")
	"$here/testsuite/vm/mkinitramfs.sh" -o "$dir/initrd" -r "$k" \
		-t "$dir/tests" "${files[@]}" >/dev/null
	"$here/testsuite/vm/run-vm.sh" -k "$k" -i "$dir/initrd" -I \
		-T kbench -u 3000 -t 3600 -l "$dir/console" \
		>"$dir/tap" 2>&1 || rc=$?
	tr -d '\r' <"$dir/console" | grep -a '^@@kb@@ ' |
		cut -d' ' -f2- >"$dir/results" || true
	if [ "$rc" -ne 0 ] || ! grep -q '^done ' "$dir/results"; then
		grep -a '^not ok\|^#' "$dir/tap" | head -n 40 >&2
		grep '^fail ' "$dir/results" >&2 || true
		die "$k: the run in the VM failed"
	fi
}

# report KVER DIR: the figures, from DIR/results: per case (median run -
# median baseline run) / N instructions per hit, the runs' range, and
# for ours the ratio to its floor.  Fails on a probe that fired fewer
# than REPS * N times, on a missing run and on staprun's failure.
report()
{
	local k=$1 dir=$2 c

	for c in "${cases[@]}"; do
		echo "case $c"
	done | cat - "$dir/results" |
	awk -v k="$k" -v n="$n" -v reps="$reps" -v goal="$goal" \
	    -v bench="$bench" -v what="$what" '
	function median(c,    m, i, j, t, v) {
		m = cnt[c]
		for (i = 1; i <= m; i++)
			v[i] = ns[c, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		lo[c] = v[1]; hi[c] = v[m]
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	$1 == "case" {
		order[++ncase] = $2; kind[$2] = $4; floor[$2] = $5
		label[$2] = $6; gsub(/_/, " ", label[$2])
		next
	}
	$1 == "ns" { ns[$2, ++cnt[$2]] = $3 + 0 }
	$1 == "count" { count[$2] = $3; s = $0
			sub(/^count [^ ]* [^ ]* ?/, "", s); note[$2] = s }
	$1 == "status" { status[$2] = $3 }
	$1 == "stderr" { s = $0; sub(/^stderr [^ ]* /, "", s)
			 err[$2] = err[$2] "  " s "\n" }
	$1 == "kplist" { s = $0; sub(/^kplist [^ ]* /, "", s)
			 where[$2] = where[$2] (where[$2] == "" ? "" : "; ") s }
	# kprobe.sh: the kprobe optimizer setting and the probed names
	$1 == "kprobes-optimization" { opt = $3; kp = 1 }
	$1 == "kallsyms" { syms = syms (syms == "" ? "" : ", ") $5 "@" $3
			   kp = 1 }
	END {
		# The baseline: every run of both baseline cases.
		nb = 0
		for (i = 1; i <= cnt["base"]; i++)
			ns["all", ++nb] = ns["base", i]
		for (i = 1; i <= cnt["base2"]; i++)
			ns["all", ++nb] = ns["base2", i]
		cnt["all"] = nb
		if (nb == 0) {
			print bench ": " k ": no baseline runs" > "/dev/stderr"
			exit 1
		}
		b = median("all")
		printf "%s: N=%d %s calls per run, %d runs per case, " \
		       "-icount shift=0 (1 guest ns = 1 instruction)%s\n",
		       k, n, what, reps,
		       kp ? ", kprobes-optimization=" opt : ""
		printf "%s baseline: %.0f ns per run median, %.1f insns per " \
		       "%s, spread %.2f%% (%.0f..%.0f)\n", k, b, b / n, what,
		       100 * (hi["all"] - lo["all"]) / b, lo["all"], hi["all"]
		if (kp)
			printf "%s kallsyms: %s\n", k, syms
		bad = 0
		for (i = 1; i <= ncase; i++) {
			c = order[i]
			if (kind[c] == "base")
				continue
			if (cnt[c] < reps) {
				printf "%s: %s %s: %d of %d runs\n", bench, k,
				       label[c], cnt[c], reps > "/dev/stderr"
				bad = 1
				continue
			}
			m = median(c)
			ipc[c] = (m - b) / n
			line = sprintf("%s %s: %.0f insns/hit", k, label[c],
				       ipc[c])
			nf = split(floor[c], fl, ",")
			for (j = 1; kind[c] == "ours" && j <= nf; j++) {
				f = fl[j]
				if (!(f in ipc))
					continue	# not on this kernel
				line = line sprintf(", %s %.0f, ratio %.2f",
					label[f], ipc[f],
					ipc[f] > 0 ? ipc[c] / ipc[f] : 0)
				if (j == 1)
					line = line " (goal <= " goal ")"
			}
			line = line sprintf("; runs %.1f..%.1f insns/hit " \
				"(spread %.2f%% of the run); fired %s times",
				(lo[c] - b) / n, (hi[c] - b) / n,
				100 * (hi[c] - lo[c]) / m, count[c])
			print line
			if (note[c] != "")
				printf "%s %s: %s\n", k, label[c], note[c]
			if (where[c] != "")
				printf "%s %s: kprobes/list: %s\n", k,
				       label[c], where[c]
			if (err[c] != "")
				printf "%s %s: stderr:\n%s", k, label[c],
				       err[c]
			if (count[c] !~ /^[0-9]+$/ || count[c] + 0 < reps * n) {
				printf "%s: %s %s: the probe fired %s " \
				       "times, fewer than %d\n", bench, k,
				       label[c],
				       count[c] == "" ? "?" : count[c],
				       reps * n > "/dev/stderr"
				bad = 1
			}
			if (c in status && status[c] + 0 != 0) {
				printf "%s: %s %s: staprun exited with " \
				       "%s\n", bench, k, label[c], status[c] \
				       > "/dev/stderr"
				bad = 1
			}
		}
		exit bad
	}'
}

# kernel_cases KVER DIR: cases without the bare ones whose module was
# not built for KVER (all of them kept in all_cases).
kernel_cases()
{
	local k=$1 dir=$2 c

	all_cases=("${cases[@]}")
	cases=()
	for c in "${all_cases[@]}"; do
		# shellcheck disable=SC2086 # split on purpose
		set -- $c
		if [ "$3" = bare ] && [ ! -e "$dir/bare/$2.ko" ]; then
			echo "$k ${5//_/ }: not on this kernel (its Kbuild" \
			     "line is off in this kernel's configuration)"
			continue
		fi
		cases+=("$c")
	done
}

# bench_kernels SRC [SRC:DEST]...: every kernel, one after the other: the
# floors of SRC, ours, one boot with the files given, the report.  Fails
# if a report did, after the other kernels.
bench_kernels()
{
	local src=$1 k dir status=0

	shift
	for k in "${kvers[@]}"; do
		dir=$tmp/$k
		mkdir -p "$dir"
		[ -d "/lib/modules/$k/build" ] ||
			die "missing prerequisite: /lib/modules/$k/build" \
			    "(apt-get install linux-headers-$k)"
		build_bare "$k" "$dir" "$src"
		kernel_cases "$k" "$dir"
		[ -n "$bare_only" ] || build_ours "$k" "$dir"
		write_guest "$dir"
		boot "$k" "$dir" "$@"
		report "$k" "$dir" || status=1
		cases=("${all_cases[@]}")
	done
	return $status
}
