#!/bin/bash
# test-listings.sh - the listings that need no script: --dump-probe-types,
# --dump-probe-aliases, --dump-functions, and --example over the scripts
# of doc/examples (each one elaborated at -p2 on the host).  The checks
# are lines worked out from the providers' pattern tables and from the
# tapset's own definitions, counts and orders, not a snapshot of the
# output.  Prints TAP.
#
# usage: test-listings.sh STAP SRCDIR

set -u
stap=${1:?usage: test-listings.sh STAP SRCDIR}
srcdir=${2:?usage: test-listings.sh STAP SRCDIR}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/listings.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
TAP_LINES=15
. "$(dirname "$0")/tap.sh"
export SYSTEMTAP_DIR=$tmp/stapdir SYSTEMTAP_TAPSET=$srcdir/tapset
export SYSTEMTAP_RUNTIME=$srcdir/runtime LC_ALL=C
unset SYSTEMTAP_EXAMPLES
mkdir -p "$SYSTEMTAP_DIR"
examples=$srcdir/doc/examples

# The newest 6.1 kernel with headers: the examples' probes resolve
# against a kernel the project supports, whatever this machine runs.
kver=$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9].*-amd64$' |
       grep -v -e '-rt-' -e '-cloud-' | sort -V | tail -n 1)


# run ARGS...: stap's stdout, stderr and exit status in tmp/{out,err,rc}.
run()
{
	"$stap" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	echo $? >"$tmp/rc"
}

# clean: exit 0 and nothing on stderr.
clean()
{
	[ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ]
}

# has_lines FILE LINE...: every LINE is a whole line of FILE.
has_lines()
{
	local f=$1 l
	shift
	for l; do
		grep -qxF -- "$l" "$f" || { echo "missing: $l" >>"$tmp/err"; return 1; }
	done
}

# before FILE A B: line A comes before line B.
before()
{
	local a b
	a=$(grep -nxF -- "$2" "$1" | head -n 1 | cut -d: -f1)
	b=$(grep -nxF -- "$3" "$1" | head -n 1 | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}

# ------------------------------------------------------------ probe types
run --dump-probe-types
cp "$tmp/out" "$tmp/types"
clean
result $? "--dump-probe-types: exit 0, no diagnostics"
has_lines "$tmp/types" begin 'begin(number)' end 'end(number)' error \
	never 'timer.ms(number)' 'timer.s(number).randomize(number)' \
	'timer.profile.tick' 'timer.hz(number)' 'kernel.function(string)' \
	'kernel.function(string).return' \
	'module(string).function(string).call' 'kernel.trace(string)' \
	'process(number).function(string).return' \
	'process(string).library(string).function(string)' \
	'process(string).mark(string)' 'process.syscall.return' \
	'procfs(string).read' 'procfs(string).write' \
	'perf.type(number).config(number).sample(number)' \
	'kernel.data(number).write' \
	'netfilter.hook(string).pf(string)' \
	'process(string).function(string).callees(number)' \
	'kernel.syscall(string).compat.return'
result $? "--dump-probe-types: the providers' patterns"
# timer.{9 units}{,(n)}{,.randomize{,(n)}}: 9 x 2 x 3, timer.hz{,(n)},
# timer.profile.tick
[ "$(grep -c '^timer\.' "$tmp/types")" = 57 ]
result $? "--dump-probe-types: 57 timer shapes, as the table multiplies out"
[ -z "$(sort "$tmp/types" | uniq -d)" ]
result $? "--dump-probe-types: each pattern once"
# the families only recognised (every use an error) are not listed
! grep -q -e '\.nearest$' -e 'statement(number)\.absolute\.return' \
	<(grep '^process' "$tmp/types")
result $? "--dump-probe-types: no unimplemented process family"
before "$tmp/types" begin 'begin(number)' &&
	before "$tmp/types" 'kernel.function(number)' \
		'kernel.function(string)' &&
	before "$tmp/types" 'kernel.function(string)' \
		'kernel.function(string).call' &&
	before "$tmp/types" 'kernel.function(string).return' \
		'kernel.function(string).return.maxactive(number)' &&
	before "$tmp/types" 'process.begin' 'process(number).begin'
result $? "--dump-probe-types: the order of the pattern tree"
# every line reads back as a probe point: numbers and strings put in
{
	printf 'probe '
	sed -e 's/(number)/(1)/g' -e 's/(string)/("x")/g' "$tmp/types" |
		paste -sd, -
	echo ' {}'
} >"$tmp/all.stp"
run -p1 "$tmp/all.stp"
clean
result $? "--dump-probe-types: every line parses as a probe point"
run --dump-probe-types -e 'probe begin {}'
[ "$(cat "$tmp/rc")" = 1 ] && grep -q "cannot be given" "$tmp/err"
result $? "--dump-probe-types with a script: a usage error"

# ---------------------------------------------------------- probe aliases
run --dump-probe-aliases
cp "$tmp/out" "$tmp/aliases"
clean
result $? "--dump-probe-aliases: exit 0, no diagnostics"
# tapset/linux/{kprocess,vfs,syscall_any,syscalls}.stp, as written there
has_lines "$tmp/aliases" 'kprocess.exit = kernel.function("do_exit")' \
	'vfs.open = kernel.function("vfs_open")' \
	'syscall_any = kernel.trace("raw_syscalls:sys_enter")' \
	'syscall.openat = nd_syscall.openat = kernel.syscall("openat")?' \
	'kprocess.exec = __kprocess.execve, __kprocess.execveat?'
result $? "--dump-probe-aliases: known aliases with their expansion"
LC_ALL=C sort -c "$tmp/aliases" && ! grep -q '^_' "$tmp/aliases"
result $? "--dump-probe-aliases: sorted, no '_' names"
[ "$(wc -l <"$tmp/aliases")" -gt 500 ]
result $? "--dump-probe-aliases: the whole library (over 500)"
run -v --dump-probe-aliases
grep -q '^__kprocess\.execve = ' "$tmp/out"
result $? "--dump-probe-aliases -v: the '_' names too"

# -------------------------------------------------------------- functions
run --dump-functions
cp "$tmp/out" "$tmp/funcs"
clean
result $? "--dump-functions: exit 0, no diagnostics"
# tapset/linux/context.stp, string.stp, uconversions.stp, ansi.stp: the
# declared types, and the title line of each doc comment
has_lines "$tmp/funcs" \
	'execname:string () - the name of the current task' \
	'strlen:long (s:string) - the length of a string' \
	'substr:string (str:string, start:long, length:long) - a part of a string' \
	'user_string:string (addr:long) - a string in user memory' \
	'user_string:string (addr:long, err_msg:string) - a user string, or a default' \
	'ansi_set_color:unknown (fg:long) - set the foreground colour'
result $? "--dump-functions: known signatures and descriptions"
# each overload with the doc comment above its own definition (ansi.stp)
has_lines "$tmp/funcs" \
	'ansi_set_color:unknown (fg:long, bg:long) - set the foreground and background colours' \
	'ansi_set_color:unknown (fg:long, bg:long, attr:long) - set the colours and an attribute'
result $? "--dump-functions: overloads, each its own description"
# a title that goes on over two lines (utf.stp)
grep -q '^kernel_or_user_string_quoted_utf16:string (addr:long) - a UTF-16 string, quoted, from kernel or else user memory$' "$tmp/funcs"
result $? "--dump-functions: a description over two lines"
cut -d: -f1 "$tmp/funcs" | LC_ALL=C sort -c &&
	before "$tmp/funcs" \
		'ansi_set_color:unknown (fg:long, bg:long, attr:long) - set the colours and an attribute' \
		'ansi_set_color2:unknown (fg:long, bg:long) - set the foreground and background colours'
result $? "--dump-functions: sorted by name"
! grep -q '^_' "$tmp/funcs" && [ "$(wc -l <"$tmp/funcs")" -gt 400 ]
result $? "--dump-functions: over 400, none private"
[ "$(grep -c ' - ' "$tmp/funcs")" -gt 400 ]
result $? "--dump-functions: most with a description"
run -v --dump-functions
grep -q '^_' "$tmp/out"
result $? "--dump-functions -v: the '_' names too"

# ---------------------------------------------------------------- examples
run --example
cp "$tmp/out" "$tmp/list"
clean
result $? "--example: the list, exit 0"
ok=0
nstp=0
for f in "$examples"/*.stp; do
	b=$(basename "$f")
	m=${f%.stp}.meta
	nstp=$((nstp + 1))
	title=$(sed -n 's/^title: //p' "$m" 2>/dev/null)
	for k in title name keywords description test_check \
		test_installcheck; do
		grep -q "^$k: ." "$m" 2>/dev/null ||
			{ echo "$m: no $k" >>"$tmp/err"; ok=1; }
	done
	grep -q "^name: $b\$" "$m" ||
		{ echo "$m: not named $b" >>"$tmp/err"; ok=1; }
	grep -q "^$b  *$title\$" "$tmp/list" ||
		{ echo "$b not listed" >>"$tmp/err"; ok=1; }
done
[ "$nstp" -ge 5 ] && [ "$(wc -l <"$tmp/list")" = "$nstp" ] &&
	[ "$(ls "$examples"/*.meta | wc -l)" = "$nstp" ] || ok=1
result $ok "--example: each example listed with the title of its .meta"

run --example no_such_example
[ "$(cat "$tmp/rc")" = 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^stap: error: example 'no_such_example' was not found" \
		"$tmp/err"
result $? "--example NAME: an unknown name is an error, exit 1"
run --example ../tapset/string.stp
[ "$(cat "$tmp/rc")" = 1 ] && grep -q "not a path" "$tmp/err"
result $? "--example PATH: refused"

if [ -z "$kver" ]; then
	result 1 "examples at -p2: no 6.1 kernel with headers in" \
		"/lib/modules (run scripts/setup-deps)"
else
	# each example elaborates cleanly, and its probes are the expected
	for t in "syscalls_by_name:kernel.trace(\"raw_syscalls:sys_enter\")" \
		 "top_opens:kernel.function(\"vfs_open\")" \
		 "top_opens:timer.s(5)" \
		 "func_latency:kernel.function(\"vfs_read\").return" \
		 "exec_exit_log:kernel.function(\"do_exit\")" \
		 "io_by_process:kernel.function(\"vfs_write\").return" \
		 "signals_log:kernel.trace(\"signal:signal_generate\")" \
		 "flamegraph:timer.profile.tick"; do
		run -r "$kver" -p2 --example "${t%%:*}"
		clean && grep -q "^${t#*:} /\\* <- " "$tmp/out"
		result $? "--example ${t%%:*} -p2: ${t#*:}"
	done
	for f in "$examples"/*.stp; do
		b=$(basename "$f" .stp)
		case " syscalls_by_name top_opens func_latency exec_exit_log io_by_process signals_log flamegraph " in
		*" $b "*) ;;
		*) result 1 "example $b has no -p2 test here" ;;
		esac
	done
	# the arguments after the name are the script's
	run -r "$kver" -p2 --example func_latency.stp vfs_write
	clean && grep -q '^kernel.function("vfs_write").return /\* <- ' \
		"$tmp/out"
	result $? "--example NAME.stp ARG: the script's argument"
	run -r "$kver" -p2 --example top_opens 2
	clean && grep -q '^timer.s(2) /\* <- ' "$tmp/out"
	result $? "--example top_opens 2: the interval"
	# as if the file were given
	run -r "$kver" -p2 "$examples/syscalls_by_name.stp"
	mv "$tmp/out" "$tmp/direct"
	run -r "$kver" -p2 --example syscalls_by_name
	cmp -s "$tmp/out" "$tmp/direct"
	result $? "--example NAME: the same as the file given"
fi

# the run test of the syscall example (testsuite/run) is the example
# itself after its header comments: what runs in the VM is what ships
body()
{
	awk 'started || !/^#/ { started = 1; print }' "$1" | sed '1{/^$/d}'
}
body "$examples/syscalls_by_name.stp" >"$tmp/a"
body "$srcdir/testsuite/run/example_syscalls_by_name.stp" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
result $? "run/example_syscalls_by_name.stp is doc/examples/syscalls_by_name.stp"
body "$examples/flamegraph.stp" >"$tmp/a"
body "$srcdir/testsuite/run/example_flamegraph.stp" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
result $? "run/example_flamegraph.stp is doc/examples/flamegraph.stp"

# an examples directory of one's own
mkdir -p "$tmp/ex"
printf 'probe begin { exit() }\n' >"$tmp/ex/mine.stp"
printf 'title: Mine\n' >"$tmp/ex/mine.meta"
SYSTEMTAP_EXAMPLES=$tmp/ex run --example
[ "$(cat "$tmp/out")" = "$(printf '%-24s %s' mine.stp Mine)" ]
result $? "SYSTEMTAP_EXAMPLES: another directory"

echo "1..$n"
exit $((failed > 0))
