#!/bin/bash
# The kill matrix: build every mutant in mutants/ (the series plus one
# patch that re-injects a known bug), run the suites on it, and say which
# mutants the suites catch. A mutant that survives is a gap in the tests.
# Exit 0 when every mutant is caught, 1 when one survives, 2 on a harness
# error.
# Environment: SUITES (default topology,conformance,scenario).
# Usage: scripts/mutants.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
export SUITES=${SUITES:-topology,conformance,scenario}

status=0
matrix=()
for patch in "$REPO_DIR"/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	log=$OUT_DIR/logs/mutant-$name.log
	rc=0
	FLAVOURS=mutant-$name "$REPO_DIR/scripts/test.sh" >"$log" 2>&1 || rc=$?
	totals=$(tail -n 1 "$log")
	case $rc in
	1) verdict=caught ;;
	0) verdict=SURVIVED status=1 ;;
	*) echo "harness error on mutant $name (see $log)"; exit 2 ;;
	esac
	matrix+=("$(printf '%-28s %-9s %s' "$name" "$verdict" "$totals")")
	echo "  $verdict: $name ($totals)"
done
echo
printf '%-28s %-9s %s\n' mutant verdict "suite totals"
printf '%s\n' "${matrix[@]}"
exit "$status"
