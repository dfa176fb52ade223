#!/bin/sh
# input_line.sh - the driver of input_line.stp: three lines on staprun's
# standard input.
printf 'ab\ncd\nq\n' | staprun -i "$@"
