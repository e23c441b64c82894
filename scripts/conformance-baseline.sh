#!/bin/bash
# Run the conformance, scenario and tools suites on the unpatched kernel,
# the tiers and demotion suites on CPU-less nodes 2 and 3, the suites of
# the paths a distribution's kernel switches on (hugetlb, CPU hotplug,
# NUMA balancing, KSM and THP), and memory hotplug on a node whose memory
# is a DIMM, and compare the cases that fail with the list in
# docs/baseline-failures.md. The cases listed as failing in some runs only
# are left out of the comparison.
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
SUITES=hugetlb,cpuhotplug,numabalancing,ksmthp boot_failed baseline-wide
run_paths=$RUN
HOTPLUG_NODE=3 SUITES=memhotplug boot_failed baseline-wide
run_memhotplug=$RUN
SUITES=conformance,scenario,tools boot_failed baseline-wide
run=$RUN
listed_cases "$list" "Cases that fail in some runs" >"$run/sometimes"
sort "$run/failed.list" "$run_cpuless/failed.list" "$run_paths/failed.list" \
	"$run_memhotplug/failed.list" | comm -23 - "$run/sometimes" >"$run/failed"
# The entries of the section "The list" only: other sections list cases
# of other suites the same way.
listed_cases "$list" "The list" >"$run/expected"

status=0
compare_failed "$run/failed" "$run/expected" || status=1
echo "    Linux $(kernel_release) baseline: $(grep -c . "$run/failed") cases fail," \
	"$(grep -c . "$run/expected") listed in docs/baseline-failures.md" \
	"($(grep -c . "$run/sometimes") more may fail);" \
	"logs in $run, $run_cpuless, $run_paths and $run_memhotplug"
exit "$status"
