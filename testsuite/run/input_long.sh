#!/bin/sh
# input_long.sh - the driver of input_long.stp: a line longer than
# MAXSTRINGLEN, then a short one, on staprun's standard input.
printf 'abcdefghij\nxy\n' | staprun -i "$@"
