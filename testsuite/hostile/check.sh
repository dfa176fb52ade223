#!/bin/bash
# check.sh - the hostile-input suite (README.md): the cases of this
# directory run by testsuite/run/check-run.sh in hostile mode (-H): a
# read/write workload in the guest, and after every case a check that
# the guest is alive and clean.  Options as check-run.sh's.
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../run/check-run.sh" -d "$here" -H "$@"
