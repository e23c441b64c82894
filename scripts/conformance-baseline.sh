#!/bin/bash
# Run the conformance, scenario and tools suites on the unpatched kernel
# and compare the cases that fail with the list in
# docs/baseline-failures.md.
# A failure not on the list is a finding; a listed case that passes means
# the list is stale. Exit 0 when they match, 1 when not, 2 on a harness
# error.
# Usage: scripts/conformance-baseline.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
export SUITES=conformance,scenario,tools
list=$REPO_DIR/docs/baseline-failures.md

prepare_host
build_flavour baseline-wide
boot_run baseline-wide
run=$RUN
"$REPO_DIR/scripts/check-run.sh" "$run" >"$run/check.log" 2>&1 || true
if [ -s "$run/kernel.problems" ]; then
	cat "$run/check.log"
	exit 1
fi

# "suite/case" for every failed case: a suite's cases come before its own
# top-level result line.
tr -d '\r' <"$run/results.ktap" | awk '
	/^    not ok [0-9]+ / { failed[n++] = $4 }
	/^(not )?ok [0-9]+ / {
		suite = $1 == "not" ? $4 : $3
		for (i = 0; i < n; i++) print suite "/" failed[i]
		n = 0
	}' | sort >"$run/failed"
# The entries of the section "The list" only: other sections list cases
# of other suites the same way.
sed -n '/^## The list/,/^## /s/^- `\([^`]*\)`.*/\1/p' "$list" | sort >"$run/expected"

status=0
if ! cmp -s "$run/failed" "$run/expected"; then
	status=1
	comm -23 "$run/failed" "$run/expected" | sed 's/^/    finding, fails but is not listed: /'
	comm -13 "$run/failed" "$run/expected" | sed 's/^/    listed but passes: /'
fi
echo "    Linux $(kernel_release) baseline: $(grep -c . "$run/failed") cases fail," \
	"$(grep -c . "$run/expected") listed in docs/baseline-failures.md; logs in $run"
exit "$status"
