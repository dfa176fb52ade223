#!/bin/bash
# test-cache-key.sh - the module cache's key changes with every input of
# the module and with nothing else.  The default module name is the
# start of the key (stap_<16 hex digits> in -p3's C), so pass 3 shows
# it without a build; one -p4 checks that a second run is a cache hit.
# Needs a 6.1 kernel's headers in /lib/modules.  Prints TAP.
#
# usage: test-cache-key.sh STAP SRCDIR

set -u
stap=${1:?usage: test-cache-key.sh STAP SRCDIR}
src=${2:?usage: test-cache-key.sh STAP SRCDIR}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cache-key.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
export SYSTEMTAP_DIR=$tmp/dir SYSTEMTAP_TAPSET=$src/tapset
export SYSTEMTAP_RUNTIME=$tmp/runtime
cp -r "$src/runtime" "$tmp/runtime"


kver=$(ls /lib/modules 2>/dev/null | grep '^6\.1\.' | sort -V | tail -n 1)
script='probe begin { println("key") exit() }'

# key [STAP-ARGS...]: the module name -p3 gives the script
key()
{
	"$stap" -p3 -r "$kver" "$@" -e "$script" >"$tmp/out" 2>&1 &&
		grep -o -m 1 'stap_[0-9a-f]\{16\}' "$tmp/out"
}

if [ -z "$kver" ] || [ ! -e "/lib/modules/$kver/build/.config" ]; then
	echo "not ok 1 - a 6.1 kernel's headers in /lib/modules" \
	     "(apt-get install linux-headers-6.1.0-NN-amd64)"
	echo "1..1"
	exit 1
fi

a=$(key)
result $? "the key of a script: $a"
[ "$(key)" = "$a" ]
result $? "the same inputs give the same key"

[ "$(key -D MAXACTION=1001)" != "$a" ]
result $? "a -D option changes it"

echo '/* changed */' >>"$tmp/runtime/stp_probe.h"
[ "$(key)" != "$a" ]
result $? "a runtime header changes it"
cp "$src/runtime/stp_probe.h" "$tmp/runtime/stp_probe.h"
[ "$(key)" = "$a" ]
result $? "and the same again when it is put back"

echo 'notes' >"$tmp/runtime/notes.txt"
echo 'int x;' >"$tmp/runtime/x.cc"
[ "$(key)" = "$a" ]
result $? "files other than .c and .h of the runtime do not"
rm -f "$tmp/runtime/notes.txt" "$tmp/runtime/x.cc"

# The compiler kbuild runs is the first word of CONFIG_CC_VERSION_TEXT:
# another file of that name first in PATH is another compiler.
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' \
	"/lib/modules/$kver/build/.config")
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v "$cc")" >"$tmp/bin/$cc"
chmod +x "$tmp/bin/$cc"
[ -n "$cc" ] && [ "$(PATH=$tmp/bin:$PATH key)" != "$a" ]
result $? "another $cc in PATH changes it"

# One build, then a hit: the module comes from the cache.
"$stap" -p4 -r "$kver" -e "$script" >"$tmp/out" 2>&1
result $? "-p4 builds the module"
ko=$(tail -n 1 "$tmp/out")
case $ko in
"$SYSTEMTAP_DIR"/cache/??/stap_*.ko) [ -f "$ko" ] ;;
*) false ;;
esac
result $? "into the cache, named by the whole key"
# a build would store the module anew (a new file renamed over it)
inode=$(stat -c %i "$ko" 2>/dev/null)
"$stap" -p4 -r "$kver" -e "$script" >"$tmp/out" 2>&1 &&
	[ "$(tail -n 1 "$tmp/out")" = "$ko" ] &&
	[ "$(stat -c %i "$ko")" = "$inode" ]
result $? "the second -p4 is a cache hit (the same file)"

# kbuild's compiler checks (its try-run): answered by the first build,
# then from the cache
memo=$(ls "$SYSTEMTAP_DIR"/cache/kbuild_*.tryrun 2>/dev/null | head -n 1)
nmemo=$(wc -l <"$memo" 2>/dev/null)
[ -n "$memo" ] && [ "${nmemo:-0}" -ge 10 ] &&
	! grep -qv '^[yn] .' "$memo"
result $? "kbuild's compiler checks are kept in the cache: $nmemo answers"
"$stap" -p4 -r "$kver" -e 'probe begin { println("other") exit() }' \
	>"$tmp/out" 2>&1 && [ "$(wc -l <"$memo")" = "$nmemo" ]
result $? "another module's build runs none of them again"
# the limits the core reads from stp_script (runtime/stp_limits.h) go
# to the script's object alone: one core object for every value
ncore=$(ls "$SYSTEMTAP_DIR"/cache/core_*.o 2>/dev/null | wc -l)
"$stap" -p4 -r "$kver" -D MAXACTION=5000 -D MAXTRYLOCK=7 -D STP_NO_OVERLOAD \
	-D MAXMAPENTRIES=99 -e "$script" >"$tmp/out" 2>&1 &&
	[ "$ncore" -ge 1 ] &&
	[ "$(ls "$SYSTEMTAP_DIR"/cache/core_*.o | wc -l)" = "$ncore" ]
result $? "-D limits of the script's object build no other core object"
# the script's object is compiled with the flags kbuild's own checks
# give (--disable-cache runs them as kbuild does)
flags()
{
	# -m copies the module into the current directory
	(cd "$tmp" && exec "$stap" -p4 -k "$@" -r "$kver" -m t_flags \
		-e "$script") >"$tmp/out" 2>&1 || return 1
	d=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$tmp/out")
	# the kernel API answers are read from the cache or from $d
	[ -n "$d" ] && sed -n -e '1s|'"$d"'|DIR|g' \
		-e "1s|'[^ ]*/stapconf[_0-9a-f]*\.h'|STAPCONF|p" \
		"$d/t_flags/.t_flags_src.o.cmd" && rm -rf "$d"
}
flags >"$tmp/f1" && flags --disable-cache >"$tmp/f2" && [ -s "$tmp/f1" ] &&
	cmp -s "$tmp/f1" "$tmp/f2"
result $? "the script is compiled with the flags kbuild's own checks give"
# pass 5 names the module's file as the kernel will know it: staprun
# takes the name from there (a stand-in staprun prints what it got)
printf '#!/bin/sh\nfor a; do m=$a; done\necho "${m##*/} $(wc -c <"$m")"\n' \
	>"$tmp/staprun"
chmod +x "$tmp/staprun"
SYSTEMTAP_STAPRUN=$tmp/staprun "$stap" -r "$kver" -e "$script" \
	>"$tmp/out" 2>&1 &&
	grep -qx "${a}\.ko $(wc -c <"$ko")" "$tmp/out"
result $? "pass 5 of a cached module runs it as $a.ko"

# --poison-cache builds again and replaces the entry (a new file)
inode=$(stat -c %i "$ko" 2>/dev/null)
minode=$(stat -c %i "$memo" 2>/dev/null)
"$stap" -p4 --poison-cache -r "$kver" -e "$script" >"$tmp/out" 2>&1 &&
	[ "$(tail -n 1 "$tmp/out")" = "$ko" ] &&
	[ "$(stat -c %i "$ko")" != "$inode" ]
result $? "--poison-cache builds again and replaces the cached module"
[ "$(stat -c %i "$memo")" != "$minode" ] &&
	[ "$(wc -l <"$memo")" = "$nmemo" ]
result $? "and asks kbuild's compiler checks again"

# The cache's size limit (cache_mb_limit, MiB): an old entry over it
# goes after the next build, the module just built stays; --clean-cache
# trims at once, without a script.
mkdir -p "$SYSTEMTAP_DIR/cache/00"
head -c 8388608 /dev/zero >"$SYSTEMTAP_DIR/cache/00/stap_old.ko"
touch -d '2 days ago' "$SYSTEMTAP_DIR/cache/00/stap_old.ko"
echo 8 >"$SYSTEMTAP_DIR/cache/cache_mb_limit"
rm -f "$SYSTEMTAP_DIR/cache/.last_trim"
"$stap" -p4 -r "$kver" -e "$script" >"$tmp/out" 2>&1 &&
	[ ! -e "$SYSTEMTAP_DIR/cache/00/stap_old.ko" ] && [ -f "$ko" ]
result $? "over cache_mb_limit: the oldest entry goes, the module stays"
"$stap" --clean-cache >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ]
result $? "--clean-cache without a script, nothing to remove: silent"
echo 0 >"$SYSTEMTAP_DIR/cache/cache_mb_limit"
"$stap" --clean-cache >"$tmp/out" 2>&1 && [ ! -e "$ko" ] &&
	grep -q "files removed" "$tmp/out" &&
	[ -f "$SYSTEMTAP_DIR/cache/cache_mb_limit" ]
result $? "--clean-cache at limit 0 empties it but for its limit files"
SYSTEMTAP_DIR=$tmp/none "$stap" --clean-cache >"$tmp/out" 2>&1 &&
	[ ! -s "$tmp/out" ]
result $? "--clean-cache with no cache yet"

# Kernels from 6.11 on compile scripts/module-common.c into every
# module's directory: the object is kept in the cache, and the next
# module's build links it as it is (kbuild finds its command the same)
k12=$(ls /lib/modules 2>/dev/null | grep '^6\.1[1-9]\..*-amd64$' | grep -v rt |
	sort -V | tail -n 1)
mcbuild()
{
	local what=$1
	shift
	"$stap" -p4 -k "$@" -r "$k12" \
		-e "probe begin { println(\"$what\") exit() }" \
		>"$tmp/out" 2>&1 || return 1
	# -k -p4 prints the module, in the directory it says it keeps
	d=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$tmp/out")
	[ -n "$d" ] && [ -f "$(grep -x "$d/.*\.ko" "$tmp/out")" ] &&
		cat "$d"/*/build.log && rm -rf "$d"
}
mcbuild one >"$tmp/log1" &&
	grep -q 'CC \[M\].*/\.module-common\.o$' "$tmp/log1" &&
	[ "$(ls "$SYSTEMTAP_DIR"/cache/kbuild_*.module-common.* | wc -l)" = 2 ]
result $? "a $k12 build keeps .module-common.o in the cache"
mcbuild two >"$tmp/log2" && grep -q 'LD \[M\].*\.ko$' "$tmp/log2" &&
	! grep -q 'module-common' "$tmp/log2"
result $? "the next module's build links it as it is"
mcobj=$(ls "$SYSTEMTAP_DIR"/cache/kbuild_*.module-common.o | head -n 1)
mcinode=$(stat -c %i "$mcobj" 2>/dev/null)
mcbuild two --poison-cache >"$tmp/log3" &&
	grep -q 'CC \[M\].*/\.module-common\.o$' "$tmp/log3" &&
	[ "$(stat -c %i "$mcobj")" != "$mcinode" ]
result $? "--poison-cache compiles it again and replaces the kept one"
"$stap" -p4 -r "$k12" -B KCFLAGS=-DTAPIR_OTHER \
	-e 'probe begin { println("three") exit() }' >"$tmp/out" 2>&1 &&
	[ "$(ls "$SYSTEMTAP_DIR"/cache/kbuild_*.module-common.* | wc -l)" = 4 ]
result $? "a -B option that changes its command keeps another"

# The kernel's types (BTF or the DWARF index) and symbols are kept in
# the cache too: a run that reads them marks them used, or the trim
# would take them first (they are written once) and every later run
# would build them again.
echo 256 >"$SYSTEMTAP_DIR/cache/cache_mb_limit"
kscript='probe kernel.function("vfs_read") { println($count) }'
tcache()
{
	find "$SYSTEMTAP_DIR/cache/btf" "$SYSTEMTAP_DIR/cache/dwarf" \
	     "$SYSTEMTAP_DIR/cache/ksyms" -type f "$@" 2>/dev/null
	return 0	# not every kind is there: BTF or DWARF
}
"$stap" -p2 -r "$kver" -e "$kscript" >"$tmp/out" 2>&1 &&
	tcache >"$tmp/types" && [ -s "$tmp/types" ]
result $? "a kernel probe stores the kernel's types: $(tcache | wc -l) files"
tcache -exec touch -d '2 days ago' {} +
"$stap" -p2 -r "$kver" -e "$kscript" >"$tmp/out" 2>&1 &&
	tcache >"$tmp/types2" && cmp -s "$tmp/types" "$tmp/types2" &&
	[ -z "$(tcache -mtime +0)" ]
result $? "a run that reads them marks them used"

echo "1..$n"
[ "$failed" = 0 ]
