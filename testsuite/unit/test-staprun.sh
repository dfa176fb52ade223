#!/bin/bash
# test-staprun.sh - staprun's front end from the outside: every option's
# checks, module lookup and var=val rules, a failing insert, and a
# valgrind run over the same paths (no error, no leak).  Prints TAP.
# Loading real modules is tested in the VM: testsuite/kernel/transport.
#
# usage: test-staprun.sh STAPRUN [VALGRIND]

set -u
staprun=${1:?usage: test-staprun.sh STAPRUN [VALGRIND]}
valgrind=${2:-}
n=0
failed=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/staprun-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/good_mod.ko" "$tmp/bad-name.ko"
echo 'not a module' >"$tmp/text_mod.ko"
mkdir "$tmp/dir_mod.ko"

result()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

# expect RC TEXT NAME -- ARGS...: exit status RC and TEXT in the output.
expect()
{
	local rc=$1 text=$2 name=$3 got
	shift 4
	"$staprun" "$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" = "$rc" ] && { [ -z "$text" ] ||
	   grep -qF -- "$text" "$tmp/out"; }; then
		result 0 "$name"
	else
		result 1 "$name"
		echo "# staprun $*: exit $got (want $rc), output:"
		sed 's/^/#   /' "$tmp/out" | head -n 20
		echo "# wanted text: $text"
	fi
}

# What the loader says once everything checks out depends on who runs it:
# root gets as far as the kernel, which refuses an empty or text file
# (or cannot load modules at all, on the build machines).
if [ "$(id -u)" = 0 ]; then
	noinsert="couldn't insert module"
	noattach="no module some_mod is loaded"
else
	noinsert="needs root"
	noattach="attaching to modules needs root"
fi
release=$(uname -r)
long=$(printf '1%040d' 0)

# make check passes TAPIR_VERSION, the package version.
expect 0 "version ${TAPIR_VERSION:-}" "-V prints the version" -- -V
expect 0 "Usage: staprun" "-h prints the usage" -- -h
expect 0 "-T SECS" "--help lists the options" -- --help
expect 1 "no module given" "a module is required" --
expect 1 "unknown option -Q" "an unknown option is refused" -- -Q foo
expect 1 "unknown option --bogus" "an unknown long option" -- --bogus
expect 1 "option -o needs an argument" "-o needs its argument" -- -o
expect 1 "-s: '0' is not a number from 1 to 4095" "-s 0 is refused" \
	-- -s 0 foo
expect 1 "-s: '4096'" "-s 4096 is refused" -- -s 4096 foo
expect 1 "option -s needs an argument" "-s needs its argument" -- -s
expect 1 "-T: '10ms'" "-T takes a plain number" -- -T 10ms foo
expect 1 "-x: '-5'" "-x needs a positive pid" -- -x -5 foo
expect 1 "exclude each other" "-c and -x together" -- -c ls -x 1 foo
expect 1 "-D needs an output file" "-D without -o" -- -D foo
expect 1 "-S needs an output file" "-S without -o" -- -S 10 foo
expect 1 "-S: 'x'" "-S MB,N checks N" -- -o out -S 10,x foo
expect 1 "is not never, always or auto" "-C checks WHEN" -- -C sometimes foo
expect 1 "-r: expected N:URI" "-r needs N:URI" -- -r 1 foo
expect 1 "only one of -L, -A and -d" "-L and -A together" -- -L -A foo
expect 1 "bad module argument '1x=2'" "a name cannot start with a digit" \
	-- foo 1x=2
expect 1 "bad module argument 'novalue'" "var=val needs '='" -- foo novalue
expect 1 "variable 'a' is set twice" "a variable set twice" -- foo a=1 a=2
expect 1 "/lib/modules/$release/systemtap/no_such_mod.ko" \
	"a bare name is looked up under /lib/modules" -- no_such_mod
expect 1 "'bad-name' is not a valid module name" \
	"module names are letters, digits and _" -- "$tmp/bad-name.ko"
expect 1 "is not a valid module name" "a module name over 55 characters" \
	-- "$tmp/m$(printf '%055d' 0).ko"
expect 1 "-S: '${long}' is not MB[,N]" "an -S size too long to be a number" \
	-- -o out -S "$long" foo
expect 1 "is not a regular file" "a directory is not a module" \
	-- "$tmp/dir_mod.ko"
expect 1 "$noinsert" "a good module and arguments pass" \
	-- -s 4 -b -i -T 100 -o out -C never "$tmp/good_mod.ko" a=1 b=x
if [ "$(id -u)" = 0 ]; then
	expect 1 "couldn't insert module '$tmp/text_mod.ko': " \
		"a file that is no module fails to insert, with the reason" \
		-- "$tmp/text_mod.ko"
	expect 1 "module argument 's=a\"b' cannot contain" \
		"a double quote cannot be passed to the kernel" \
		-- "$tmp/good_mod.ko" 's=a"b'
else
	expect 1 "needs root" "loading needs root" -- "$tmp/text_mod.ko"
fi
expect 1 "$noinsert" "-S MB,N with -o goes on to load" \
	-- -o out -S 1,2 "$tmp/good_mod.ko"
expect 1 "$noinsert" "-D -o FILE goes on to load (the failure of the child)" \
	-- -o out -D "$tmp/good_mod.ko"
expect 1 "-L leaves the output in the module" "-L refuses -o" \
	-- -L -o out "$tmp/good_mod.ko"
expect 1 "not with -L or -A" "-L refuses -c" -- -L -c ls "$tmp/good_mod.ko"
expect 1 "-T needs a staprun that stays" "-L refuses -T" \
	-- -L -T 5 "$tmp/good_mod.ko"
expect 1 "not with -L or -A" "-A refuses -x" -- -A -x 1 some_mod
expect 1 "-A takes a module, not module arguments" "-A takes no var=val" \
	-- -A some_mod a=1
expect 1 "module good_mod" "-v names the module" \
	-- -v "$tmp/good_mod"
expect 1 "module argument s=a b" "-v lists the arguments" \
	-- -v "$tmp/good_mod.ko" "s=a b"
if [ "$(id -u)" = 0 ]; then
	# Nothing orphaned here (or no modules at all): nothing to do.
	expect 0 "" "-d '*' needs no module file" -- -d '*'
	expect 1 "no module no_such_mod is loaded" \
		"-d NAME refuses a module that is not loaded" -- -d no_such_mod
else
	expect 1 "unloading modules needs root" "-d '*' needs no module file" \
		-- -d '*'
fi
expect 1 "$noattach" "-A needs no module file, and a loaded module" \
	-- -A some_mod

# Started with stdin and stdout closed (staprun fills them with
# /dev/null, so that no file it opens later becomes its stdout): its
# messages still go to stderr, and it fails as it would otherwise.
"$staprun" "$tmp/text_mod.ko" <&- >&- 2>"$tmp/out"
rc=$?
[ "$rc" = 1 ] && grep -qF -- "$noinsert" "$tmp/out"
result $? "stdin and stdout closed: the message on stderr, status 1"

# GNU-style parsing: options may follow the module and its arguments;
# after "--" every word is a module argument.
expect 1 "-s: '0' is not a number" "an option after the module is parsed" \
	-- foo a=1 -s 0
expect 1 "module argument b=2" "options after the module keep the arguments" \
	-- "$tmp/good_mod.ko" a=1 -v b=2
expect 1 "module good_mod" "-v after the module path names it" \
	-- "$tmp/good_mod.ko" a=1 -v
expect 1 "bad module argument '-v'" "after -- an option is a module argument" \
	-- "$tmp/good_mod.ko" a=1 -- -v
expect 1 "exclude each other" "-c after the module is checked with -x" \
	-- -x 1 "$tmp/good_mod.ko" -c ls

# The same paths under valgrind: no memory error, no leak of any kind.
vg_run()
{
	local name=$1 rc
	shift
	if [ -z "$valgrind" ]; then
		result 1 "valgrind: $name (valgrind not installed; run" \
			"scripts/setup-deps)"
		return
	fi
	"$valgrind" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=all --show-leak-kinds=all \
		"$staprun" "$@" >"$tmp/vg" 2>&1
	rc=$?
	if [ "$rc" != 99 ] && ! grep -q '^==[0-9]*==' "$tmp/vg"; then
		result 0 "valgrind: $name"
	else
		result 1 "valgrind: $name"
		sed 's/^/#   /' "$tmp/vg" | head -n 40
	fi
}

vg_run "--help" --help
vg_run "bad option" -Q foo
vg_run "bad -s" -s 0 foo
vg_run "bad module argument" foo a=1 1b=2
vg_run "duplicate variable" foo a=1 a=2
vg_run "missing module" no_such_mod x=1
vg_run "bad module name" "$tmp/bad-name.ko"
vg_run "good module" -v -o out -s 2 -b "$tmp/good_mod.ko" a=1 b=2 c=3
vg_run "failing insert" -v "$tmp/text_mod.ko" "s=a b" n=1
vg_run "failing insert with -c" -c true -T 5 "$tmp/text_mod.ko"
vg_run "-S with -o" -o out -S 1,2 "$tmp/good_mod.ko"
vg_run "delete all" -d '*'
vg_run "delete one" -d no_such_mod
vg_run "options after the module" "$tmp/good_mod.ko" a=1 -v -s 2 b=2

if [ -n "$valgrind" ]; then
	"$valgrind" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=all --show-leak-kinds=all \
		"$staprun" -v "$tmp/text_mod.ko" <&- >&- 2>"$tmp/vg"
	rc=$?
	[ "$rc" != 99 ] && ! grep -q '^==[0-9]*==' "$tmp/vg"
	result $? "valgrind: stdin and stdout closed"
	[ "$rc" != 99 ] || sed 's/^/#   /' "$tmp/vg" | head -n 40
else
	result 1 "valgrind: stdin and stdout closed (valgrind not installed)"
fi

echo "1..$n"
[ "$failed" = 0 ]
