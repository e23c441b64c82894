#!/bin/bash
# The main job: the LWN article's scenario (tests/scenario) on baseline and
# patched, side by side with what docs/semantics.md expects. Prints the
# table and saves it as out/scenario-report.md.
# Exit 0 when both kernels ran cleanly (mismatches are the point of the
# table, not a failure), 1 on a kernel splat or a guest that did not
# finish, 2 on a harness error.
# Usage: scripts/run-scenario.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
export SUITES=scenario NODES=4 MEMLESS=

prepare_host
build_flavour baseline
build_flavour patched

status=0
declare -A runs
for flavour in baseline patched; do
	boot_run "$flavour"
	run=$RUN
	runs[$flavour]=$run
	"$REPO_DIR/scripts/check-run.sh" "$run" >"$run/check.log" 2>&1 || true
	if [ -s "$run/kernel.problems" ]; then
		sed 's/^/    /' "$run/check.log"
		status=1
	fi
	grep -o 'row|.*' "$run/results.ktap" | tr -d '\r' >"$run/rows" ||
		{ echo "    $flavour printed no scenario rows"; status=1; }
done

# One line per (mode, flags, step) in the guest's order, tab separated:
# mode flags step cpuset, baseline reported/pages/verdict, patched
# reported/pages/verdict, expected reported, expected landing nodes.
table=$OUT_DIR/scenario-table.tsv
awk -F'|' -v OFS='\t' '
	NR == FNR { patched[$2 FS $3 FS $4] = $0; next }
	{
		split(patched[$2 FS $3 FS $4], p, "|")
		print $2, $3, $4, "{" $5 "}", "{" $6 "}", $8, $10, \
			"{" p[6] "}", p[8], p[10], "{" $7 "}", "{" $9 "}"
	}' "${runs[patched]}/rows" "${runs[baseline]}/rows" >"$table"

report=$OUT_DIR/scenario-report.md
release=$(sed -n 's/^release=//p' "${runs[patched]}/run.info")
accel=$(sed -n 's/^accel=//p' "${runs[patched]}/run.info")
{
	echo "# The LWN scenario on Linux $release, baseline and patched"
	echo
	echo "A task policy over {0,1} is set in cpuset {0,1} (step 0); the cpuset"
	echo "then goes to {1,2} (1), {2} (2) and back to {0,1} (3). 4 NUMA nodes,"
	echo "QEMU ($accel). \"reported\" is get_mempolicy()'s nodemask; \"pages\""
	echo "counts 64 freshly touched pages on nodes 0/1/2/3; \"expected\" is what"
	echo "docs/semantics.md requires: the nodemask, and the nodes pages may"
	echo "land on. A cell marked ✗ differs from the expectation."
	echo
	echo "| mode | flags | step | cpuset | baseline reported | baseline pages | patched reported | patched pages | expected reported | expected pages on |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
		function mark(v) { return v == "ok" ? "" : " ✗" }
		{
			printf "| %s | %s | %s | %s | %s%s | %s | %s%s | %s | %s | %s |\n",
				$1, $2, $3, $4, $5, mark($7), $6, $8, mark($10), $9, $11, $12
		}' "$table"
} >"$report"

awk -F'\t' '
	function mark(v) { return v == "ok" ? " " : "x" }
	BEGIN {
		printf "%-19s %-8s %-4s %-6s | %-9s %-11s | %-9s %-11s | %-9s %s\n",
			"mode", "flags", "step", "cpuset", "baseline", "pages",
			"patched", "pages", "expected", "pages on"
	}
	{
		printf "%-19s %-8s %-4s %-6s | %-8s%s %-11s | %-8s%s %-11s | %-9s %s\n",
			$1, $2, $3, $4, $5, mark($7), $6, $8, mark($10), $9, $11, $12
	}' "$table"
echo "x: differs from docs/semantics.md. Report: $report"
exit "$status"
