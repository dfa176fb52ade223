#!/bin/bash
# check.sh - the transport tests end to end: builds staprun and tptest.ko
# (W=1, no warning allowed) for the 6.1 and 6.12 kernels, boots each
# kernel under QEMU with testsuite/vm and runs test.sh there.  Prints TAP;
# a missing prerequisite is a failing test point, never a skip.  The
# skeleton is ../suite.sh.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
suite=transport
module=tptest
default_limit=1200
suite_tools=
suite_configs=(RELAY DEBUG_FS)
stage_extra=

# shellcheck source=testsuite/kernel/suite.sh
. "$here/../suite.sh"

suite_main "$@"
