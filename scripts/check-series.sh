#!/bin/bash
# Every prefix of the series builds and boots: apply the first K patches
# for K = 1..N in one tree, build, boot with the topology suite, and judge
# the run (KUnit too, once its patch is in). FIRST=K starts at the K-th
# prefix (default 1), LAST=K stops after the K-th (default the last).
# Exit 0 when every prefix passes, 1 otherwise, 2 on a harness error.
# Usage: scripts/check-series.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
export SUITES=topology
count=$(find "$PATCH_DIR" -name '[0-9]*.patch' ! -name '0000-*' | grep -c .)

prepare_host
status=0
last=${LAST:-$count}
[ "$last" -le "$count" ] || die "the series has $count patches, not $last"
for ((k = ${FIRST:-1}; k <= last; k++)); do
	build_flavour "series-$k"
	boot_run "series-$k"
	"$REPO_DIR/scripts/check-run.sh" "$RUN" || status=1
done
exit "$status"
