#!/bin/bash
# check.sh - the established tool's example collection with tapir: for
# each kernel, every example's test_check command at -p4 (the build),
# then its test_installcheck command built here with a recording
# staprun (staprun-record) and run in one boot of the test VM
# (guest.sh).  A report, not a test of make check: the collection is
# not ours and is not in the tree, and some examples need programs this
# machine lacks.  README.md says how to read it.
#
#   testsuite/examples/check.sh -e DIR [-k KVER]... [-o OUT] [-n REGEX]
#
# DIR is testsuite/systemtap.examples of a checkout of the established
# tool.  STAP and STAPRUN name the programs (default: the build tree's).
# Kernels: 6.1 and 6.12 (testsuite/lib.sh), or each -k.  OUT keeps the
# logs (default: a new directory, printed at the end).  -n: only the
# examples whose path (as ./DIR/NAME.meta) matches REGEX.

set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
build=${TAPIR_BUILDDIR:-$here/../../build}
STAP=${STAP:-$build/stap}
STAPRUN=${STAPRUN:-$build/staprun}
ex= out= only= kernels=()
while getopts 'e:k:o:n:' opt; do
	case $opt in
	e) ex=$(cd "$OPTARG" && pwd) ;;
	k) kernels+=("$OPTARG") ;;
	o) out=$OPTARG ;;
	n) only=$OPTARG ;;
	*) sed -n '10,12s/^# \?//p' "$0" >&2; exit 2 ;;
	esac
done
if [ -z "$ex" ] || [ ! -d "$ex" ]; then
	echo "check.sh: -e DIR: the collection's directory" >&2
	exit 2
fi
no_kernel()
{
	echo "check.sh: no kernel of the $1 family in /boot" >&2
}
if [ ${#kernels[@]} -eq 0 ]; then
	kvers=()
	default_kernels no_kernel
	# the realtime kernel runs the same examples as its base
	kernels=($(printf '%s\n' "${kvers[@]}" | grep -v -- '-rt-'))
fi
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/examples.XXXXXX")}
mkdir -p "$out/bin"
printf '#!/bin/sh\nexec "$STAP" -r "$K" "$@"\n' >"$out/bin/stap"
chmod +x "$out/bin/stap"
host_stap=$(command -v stap)
export STAP PATH=$out/bin:$PATH

metas=$(cd "$ex" && find . -name '*.meta' | sort | grep -E -- "${only:-.}")

# field META NAME: a .meta line's value
field()
{
	sed -n "s/^$2: //p" "$ex/$1"
}

# The guest lacks what some commands run or probe: the host's programs
# at the same paths (ls for process/ltrace, the 32-bit libc a
# /lib*/libc.so.6 glob finds, stap for memory/last_100_frees' -c).
guest_files()
{
	local f
	for f in /usr/bin/ls /usr/lib32/libc.so.6 "$host_stap"; do
		[ -f "$f" ] && printf -- '-f\n%s:%s\n' "$f" "$f"
	done
}

for K in "${kernels[@]}"; do
	export K
	o=$out/$K
	mkdir -p "$o"
	: >"$o/report"
	# the builds: test_check at -p4
	built=0 total=0
	for m in $metas; do
		cmd=$(field "$m" test_check)
		[ -n "$cmd" ] || continue
		total=$((total + 1))
		cmd=$(printf '%s' "$cmd" | sed 's/\(-[a-zA-Z]*p\)[0-9]/\14/')
		log=$o/$(echo "${m%.meta}" | tr / _).check
		if (cd "$ex/$(dirname "$m")" &&
		    timeout 900 sh -c "$cmd" </dev/null >"$log" 2>&1); then
			built=$((built + 1))
			echo "build ok ${m%.meta}" >>"$o/report"
		else
			echo "build FAIL ${m%.meta}: $(grep -m 1 -i \
				'error\|fail' "$log" | cut -c 1-160)" >>"$o/report"
		fi
	done
	# the runs: test_installcheck, recorded here, run in one boot
	i=0 runs=0 p4only=0
	for m in $metas; do
		cmd=$(field "$m" test_installcheck)
		[ -n "$cmd" ] || continue
		i=$((i + 1))
		n=ex_$i
		echo "${m%.meta}" >"$o/$n.name"
		if (cd "$ex/$(dirname "$m")" &&
		    EXDIR=$o EXNAME=$n SYSTEMTAP_STAPRUN=$here/staprun-record \
		    timeout 900 sh -c "$cmd" </dev/null >"$o/$n.build" 2>&1); then
			if [ -f "$o/$n.args" ]; then
				runs=$((runs + 1))
			else
				p4only=$((p4only + 1))
				echo "run -p4 only ${m%.meta}" >>"$o/report"
			fi
		else
			rm -f "$o/$n.args"
			echo "run FAIL to build ${m%.meta}: $(grep -m 1 -i \
				'error\|fail' "$o/$n.build" | cut -c 1-160)" \
				>>"$o/report"
		fi
	done
	files=(-f "$STAPRUN" -f "$here/guest.sh:/opt/tapir/guest.sh")
	mapfile -t extra < <(guest_files)
	files+=("${extra[@]}")
	for a in "$o"/ex_*.args; do
		[ -f "$a" ] || continue
		n=${a%.args}
		files+=(-f "$a" -f "$n.ko:/opt/tapir/$(cat "$n.mod").ko"
			-f "$n.name" -f "$n.mod")
		[ -s "$n.stdin" ] && files+=(-f "$n.stdin")
	done
	bash "$here/../vm/mkinitramfs.sh" -o "$o/initrd.gz" -r "$K" \
		"${files[@]}" >"$o/mkinitramfs.log" 2>&1 &&
	bash "$here/../vm/run-vm.sh" -k "$K" -i "$o/initrd.gz" -t 5400 \
		-u 5400 -l "$o/console.log" -c 'sh /opt/tapir/guest.sh' \
		>"$o/vm.tap" 2>&1
	vm=$?
	awk '
	function flush() {
		if (name == "") return
		print (rc == "rc=0" && !left ? "run ok " : "run FAIL ") name \
		      " " rc (left ? " LEFT LOADED" : "") (err ? ": " err : "")
		name = ""
	}
	/^=== ex/ { flush(); name = $3; rc = ""; err = ""; left = 0; next }
	/^=== all done/ { flush(); next }
	/^rc=/ { rc = $1; next }
	/^E: / && err == "" { err = substr($0, 4, 140); next }
	/^LEFT LOADED/ { left = 1 }
	END { flush() }' "$o/console.log" >>"$o/report" 2>/dev/null
	ran=$(grep -c '^run ok ' "$o/report")
	echo "# $K: test_check builds $built of $total;" \
	     "test_installcheck: $runs built to run, $ran ran with status 0" \
	     "and nothing left loaded, $p4only build only" \
	     "(VM status $vm: $(grep -c '^not ok' "$o/vm.tap") failed points)"
	grep 'FAIL' "$o/report" | sed 's/^/#   /'
done
echo "# logs: $out"
