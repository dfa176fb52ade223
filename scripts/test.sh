#!/bin/bash
# test.sh - the README's test command: install what is missing, build in
# build/ with warnings as errors and ASan/UBSan, and run `make check`
# (host tests, then the kernel tests in QEMU guests for 6.1, 6.12 and
# 6.12 PREEMPT_RT).
# The exit status is make check's.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/setup-deps --vm --dbg
./bootstrap

# An in-tree build (scripts/demo.sh makes one) stops configure from
# working in build/; demo.sh rebuilds it when it next runs.
if [ -f config.status ]; then
	echo "test.sh: removing the in-tree build so that build/ can be used"
	make distclean >/dev/null
fi

want="'--enable-werror' '--enable-sanitizers'"
mkdir -p build
cd build
if [ ! -f config.status ] || [ "$(./config.status --config)" != "$want" ]
then
	../configure --quiet --enable-werror --enable-sanitizers
	make clean >/dev/null
fi
make -j2
exec make check
