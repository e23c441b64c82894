#!/bin/bash
# make bench: build baseline and patched, boot them in turn (A/B/A/B...),
# BOOTS times each on the same 4-node topology, run the bench suite in
# each boot, then write the report: every figure's median and spread per
# kernel, and the patched/baseline ratio with a bootstrap confidence
# interval, as CSV and Markdown, and a PNG plot of update latency against
# VMA count.
# Exit 0 when every measurement ran, 1 when one failed, 2 harness error.
#
# Environment: BOOTS (default 5), BENCH_CMDLINE (extra guest parameters,
# e.g. numapol.bench_max_vmas=10000 for a quick run), ICOUNT=1 (guests whose
# clock counts instructions, see boot.sh: the fault cases only, without the
# host's noise; the report goes to out/bench/DATE-icount), WIDE=1 (the
# kernels on the wide configuration, baseline-wide and patched-wide: the
# report goes to out/bench/DATE-wide). V=1 shows everything.
# Usage: scripts/bench.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
BOOTS=${BOOTS:-5}
KERNELS="baseline patched"
[ "${WIDE:-0}" = 1 ] && KERNELS="baseline-wide patched-wide"
export SUITES=bench NODES=4 MEMLESS= SUITE_TIMEOUT=${SUITE_TIMEOUT:-3600}
export CMDLINE=${BENCH_CMDLINE:-} ICOUNT=${ICOUNT:-0}
# Counting instructions makes the update sweeps take hours: faults only.
[ "$ICOUNT" = 1 ] && CMDLINE="numapol.bench_updates=0${CMDLINE:+ $CMDLINE}"

prepare_host
for kernel in $KERNELS; do
	build_flavour "$kernel"
done

report=$OUT_DIR/bench/$(date +%Y%m%d-%H%M%S)
[ "$ICOUNT" = 1 ] && report+=-icount
[ "${WIDE:-0}" = 1 ] && report+=-wide
mkdir -p "$report"
csv=$report/results.csv
echo "kernel,boot,figure,unit,value" >"$csv"
# The compiler's answer, the same in every boot.
for kernel in $KERNELS; do
	for struct in mempolicy task_struct; do
		echo "${kernel%-wide},0,memory/sizeof_struct_$struct,bytes,$("$REPO_DIR/scripts/struct-size.sh" "$kernel" "$struct")" >>"$csv"
	done
done

status=0
for ((boot = 1; boot <= BOOTS; boot++)); do
	for kernel in $KERNELS; do
		boot_run "$kernel"
		rc=0
		"$REPO_DIR/scripts/check-run.sh" "$RUN" >"$RUN/check.log" || rc=$?
		[ "$rc" = 2 ] && die "cannot judge $RUN"
		[ "$rc" = 0 ] || { status=1; cat "$RUN/check.log"; }
		sed -n "s/^ *# bench \([^ ]*\) \([^ ]*\) \([^ ]*\)$/${kernel%-wide},$boot,\1,\2,\3/p" \
			"$RUN/results.ktap" >>"$csv"
	done
done

step "report" "$report/report.log" env ICOUNT="$ICOUNT" \
	"$REPO_DIR/scripts/bench-report.sh" "$report" ||
	exit 2
echo "    $report/report.md, summary.csv, update-latency.png"
exit "$status"
