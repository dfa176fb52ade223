# golden-args.sh - the command line that golden.sh and codegen/check.sh
# share: STAP SRCDIR [--update] [PATTERN...].  golden_args "$@" sets
# stap and srcdir (both absolute: the tests run from their own
# directories), update (0 or 1) and the array patterns.
# shellcheck shell=bash disable=SC2034 # set for the sourcing script
golden_args()
{
	local a

	if [ $# -lt 2 ]; then
		echo "usage: $0 STAP SRCDIR [--update] [PATTERN...]" >&2
		exit 2
	fi
	stap=$1
	srcdir=$2
	shift 2
	update=0
	patterns=()
	for a in "$@"; do
		case $a in
		--update) update=1 ;;
		*) patterns+=("$a") ;;
		esac
	done
	case $stap in
	/*) ;;
	*/*) stap=$(cd "$(dirname "$stap")" && pwd)/$(basename "$stap") ;;
	*) stap=$(command -v "$stap") ;;
	esac
	srcdir=$(cd "$srcdir" && pwd) || exit 2
}
