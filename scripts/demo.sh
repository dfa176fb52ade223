#!/bin/bash
# demo.sh - the README's first command: install what is missing, build
# tapir in the source tree (only what is out of date), then trace a
# one-liner end to end: translate, build the module for a Debian kernel,
# and run it with staprun inside a throwaway QEMU guest (stap --vm).

set -eu
cd "$(dirname "$0")/.."

scripts/setup-deps --vm
[ -x configure ] || ./bootstrap
[ -f config.status ] || ./configure --quiet
make -j2 --no-print-directory >/dev/null

script='global n
probe begin { printf("hello from %s, tracing for 50 ms\n", execname()) }
probe timer.ms(10) { n++; if (n == 5) exit() }
probe end { printf("timer fired %d times\n", n) }'
echo "\$ ./stap --vm -e '$script'"
exec ./stap --vm -e "$script"
