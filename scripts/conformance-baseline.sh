#!/bin/bash
# Run the conformance, scenario and tools suites on the unpatched kernel,
# and the tiers suite on CPU-less nodes 2 and 3, and compare the cases that
# fail with the list in docs/baseline-failures.md.
# A failure not on the list is a finding; a listed case that passes means
# the list is stale. Exit 0 when they match, 1 when not, 2 on a harness
# error.
# Usage: scripts/conformance-baseline.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
list=$REPO_DIR/docs/baseline-failures.md

# boot_failed: boot baseline-wide with SUITES, and write RUN/failed.list:
# "suite/case" for every failed case (a suite's cases come before its own
# top-level result line). Exit 1 on a kernel problem.
boot_failed() {
	boot_run baseline-wide
	"$REPO_DIR/scripts/check-run.sh" "$RUN" >"$RUN/check.log" 2>&1 || true
	if [ -s "$RUN/kernel.problems" ]; then
		cat "$RUN/check.log"
		exit 1
	fi
	tr -d '\r' <"$RUN/results.ktap" | awk '
		/^    not ok [0-9]+ / { failed[n++] = $4 }
		/^(not )?ok [0-9]+ / {
			suite = $1 == "not" ? $4 : $3
			for (i = 0; i < n; i++) print suite "/" failed[i]
			n = 0
		}' >"$RUN/failed.list"
}

prepare_host
build_flavour baseline-wide
SUITES=tiers CPULESS=2,3 boot_failed
run_cpuless=$RUN
SUITES=conformance,scenario,tools boot_failed
run=$RUN
sort "$run/failed.list" "$run_cpuless/failed.list" >"$run/failed"
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
	"$(grep -c . "$run/expected") listed in docs/baseline-failures.md;" \
	"logs in $run and $run_cpuless"
exit "$status"
