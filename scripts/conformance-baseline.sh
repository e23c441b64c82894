#!/bin/bash
# Run the conformance, scenario and tools suites on the unpatched kernel,
# and the tiers and demotion suites on CPU-less nodes 2 and 3, and compare
# the cases that fail with the list in docs/baseline-failures.md.
# A failure not on the list is a finding; a listed case that passes means
# the list is stale. Exit 0 when they match, 1 when not, 2 on a harness
# error.
# Usage: scripts/conformance-baseline.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
list=$REPO_DIR/docs/baseline-failures.md

prepare_host
build_flavour baseline-wide
SUITES=tiers,demotion CPULESS=2,3 boot_failed baseline-wide
run_cpuless=$RUN
SUITES=conformance,scenario,tools boot_failed baseline-wide
run=$RUN
sort "$run/failed.list" "$run_cpuless/failed.list" >"$run/failed"
# The entries of the section "The list" only: other sections list cases
# of other suites the same way.
listed_cases "$list" "The list" >"$run/expected"

status=0
compare_failed "$run/failed" "$run/expected" || status=1
echo "    Linux $(kernel_release) baseline: $(grep -c . "$run/failed") cases fail," \
	"$(grep -c . "$run/expected") listed in docs/baseline-failures.md;" \
	"logs in $run and $run_cpuless"
exit "$status"
