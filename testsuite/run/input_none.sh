#!/bin/sh
# input_none.sh - the driver of input_none.stp: staprun -i reading
# /dev/null, then reading a line that the -c command does not get.
staprun -i -T 1 "$@" </dev/null || exit
echo hello | staprun -i -c 'sh -c "wc -c; sleep 1"' "$@"
