#!/bin/bash
# demo.sh - the README's first command: install what is missing, build
# tapir in the source tree (only what is out of date), then run the main
# job.  Until the kernel runtime exists the job stops after pass 2.

set -eu
cd "$(dirname "$0")/.."

scripts/setup-deps
[ -x configure ] || ./bootstrap
[ -f config.status ] || ./configure --quiet
make -j2 --no-print-directory >/dev/null

script='probe begin { printf("hello from %s\n", execname()); exit() }'
echo "\$ ./stap -p2 -e '$script'"
./stap -p2 -e "$script"
echo
echo "demo: that is the script after pass 2 (elaboration, with the tapset" \
     "library); running it in a VM comes with the kernel runtime."
