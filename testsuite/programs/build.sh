#!/bin/bash
# build.sh - builds the targets of the process-probe tests into OUTDIR:
# each source is copied there first and compiled there, so that its
# DWARF names OUTDIR/FILE whatever the source tree (the goldens write
# it @PROGRAMS@/FILE).  Plain -g -O0 builds, no sanitizers.
#
# usage: build.sh SRCDIR OUTDIR      (CC and CXX from the environment)
#
#   trace              C, -g -O0, PIE (the walkthrough's program)
#   trace-nopie        the same, not PIE
#   trace-O2           -g -O2: square() is inlined into compute()
#   trace-nodebug      no -g: its symbol table only
#   trace-stripped     stripped, DWARF in trace-stripped.debug next to
#                      it (.gnu_debuglink)
#   trace-dotdebug     stripped, DWARF in .debug/trace-dotdebug.debug
#   trace-buildid      stripped, DWARF only under
#                      debug/.build-id/xx/rest.debug (for a
#                      SYSTEMTAP_DEBUGINFO_PATH=OUTDIR/debug run)
#   trace-bare         stripped, no debuginfo anywhere
#   trace-fp           no -g and no unwind tables (.eh_frame): user
#                      stacks from frame pointers alone
#   flame              -g -O2: main -> outer -> middle -> inner, which
#                      reads /dev/zero by the syscall instruction
#                      (folded stacks of user and kernel frames)
#   stacks             -g -O2 -fomit-frame-pointer: user stacks from
#                      the call frame information alone
#   libtrace.so uselib a shared library (with an SDT marker) and a
#                      program that needs it ($ORIGIN runpath)
#   uselib-copy        a copy of uselib (another file: a library probe
#                      of uselib's must not fire in it)
#   trace32            trace built for i386 (-m32, static): a 32-bit
#                      program, probed under the x86-64 kernel
#   usdt32             usdt built the same way (4-byte SDT notes)
#   sock32             -m32 -static: send and recv through socketcall(2)
#                      (syscall.send, syscall.recv)
#   trace-m32          trace32 linked dynamically (the 32-bit C library)
#   cxx                C++: namespace, class, overloads
#   usdt               SDT markers with semaphores
#   recurse            recursion and longjmp, for .return probes that
#                      read values saved at entry
#   guru               a function and system calls whose arguments and
#                      results guru-mode probes rewrite
#   live               a loop printing a function's result, until told
#                      to stop (live patching: before, during, after)
#   syscalls           a fixed series of system calls (syscall tapset)
#   netpair            a fixed TCP and UDP exchange over loopback (the
#                      socket, tcp, udp and netdev tapsets)
#   netevents          UDP over lo (IPv4 datagrams to drop, IPv6), lo's
#                      MTU, statistics and promiscuity, writev/readv
#                      (the netfilter, netdev and vfs tests)
#   forker             a probed function in forked, killed and exec'ing
#                      children (testsuite/hostile)
#   labels             C labels in a function and in a block of it
#                      (.label probes)
#   lazy               passes pointers into pages it never touched (user
#                      reads that must fault the page in)
#   globals            variables at file scope (a global, a structure,
#                      a static) for @var in user-space probes, PIE
#   entryval           -g -O2: a parameter placed by DW_OP_entry_value
#                      once it is dead, a global defined in assembler
#   kcmp               one kcmp(2) call (a label probe in __do_sys_kcmp
#                      reading entry values)
#   watched            writes and reads one global a known number of
#                      times (process.data watchpoints), not PIE
#   callees            calls three levels deep, -g -O2 (the compiler's
#                      call sites: .callee and .callees probes)

set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 SRCDIR OUTDIR" >&2
	exit 2
fi
src=$1
out=$2
CC=${CC:-gcc}
CXX=${CXX:-g++}
mkdir -p "$out"
for f in trace.c libtrace.c libtrace.h uselib.c cxx.cc usdt.c recurse.c \
	 stacks.c guru.c syscalls.c netpair.c netevents.c live.c forker.c \
	 lazy.c watched.c labels.c globals.c callees.c entryval.c \
	 kcmp.c sock32.c flame.c; do
	cmp -s "$src/$f" "$out/$f" || install -m 644 "$src/$f" "$out/$f"
done
cd "$out"

# stripped NAME DEBUGFILE: NAME from trace, its DWARF kept in DEBUGFILE
# and linked by name from NAME.
stripped()
{
	objcopy --only-keep-debug trace "$2"
	(cd "$(dirname "$2")" &&
	 objcopy --strip-all --add-gnu-debuglink="$(basename "$2")" \
		"$out/trace" "$out/$1")
}

$CC -g -O0 -o trace trace.c
$CC -g -O0 -no-pie -fno-pie -o trace-nopie trace.c
$CC -g -O2 -o trace-O2 trace.c
$CC -O0 -o trace-nodebug trace.c
stripped trace-stripped trace-stripped.debug
mkdir -p .debug
stripped trace-dotdebug .debug/trace-dotdebug.debug
id=$(readelf -n trace | sed -n 's/^ *Build ID: *//p')
rm -rf debug
mkdir -p "debug/.build-id/${id:0:2}"
objcopy --only-keep-debug trace "debug/.build-id/${id:0:2}/${id:2}.debug"
objcopy --strip-all trace trace-buildid
objcopy --strip-all trace trace-bare
$CC -O0 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -o trace-fp trace.c
$CC -g -O2 -fomit-frame-pointer -o stacks stacks.c
$CC -g -O2 -o flame flame.c
$CC -g -O0 -fPIC -shared -o libtrace.so libtrace.c
$CC -g -O0 -o uselib uselib.c -L. -ltrace -Wl,-rpath,'$ORIGIN'
cp uselib uselib-copy
$CXX -g -O0 -o cxx cxx.cc
$CC -g -O0 -o usdt usdt.c
$CC -g -O0 -o recurse recurse.c
$CC -g -O0 -o guru guru.c
$CC -g -O0 -o live live.c
$CC -g -O0 -o syscalls syscalls.c
$CC -g -O0 -o netpair netpair.c
$CC -g -O0 -o netevents netevents.c
# i386, static (no 32-bit C library needed where it runs): gcc-multilib
$CC -m32 -static -g -O0 -o trace32 trace.c
$CC -m32 -static -g -O0 -o sock32 sock32.c
$CC -m32 -g -O0 -o trace-m32 trace.c
# sys/sdt.h comes in the 64-bit multiarch directory only: last for -m32
sdt=$(echo '#include <sys/sdt.h>' | $CC -H -E -xc - 2>&1 >/dev/null |
      sed -n 's|^\.* \(.*\)/sys/sdt\.h$|\1|p' | head -n 1)
$CC -m32 -static -g -O0 ${sdt:+-idirafter "$sdt"} -o usdt32 usdt.c
$CC -g -O0 -o forker forker.c
$CC -g -O0 -o lazy lazy.c
$CC -g -O0 -no-pie -fno-pie -o watched watched.c
$CC -g -O0 -o labels labels.c
$CC -g -O0 -o globals globals.c
$CC -g -O2 -o callees callees.c
$CC -g -O2 -o entryval entryval.c
$CC -g -O0 -o kcmp kcmp.c
