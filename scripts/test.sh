#!/bin/bash
# The whole test suite: build the kernels the tests need, boot each in QEMU
# with the guest suites, judge every run, print the totals.
# Exit 0 pass, 1 tests failed, 2 harness error.
#
# Environment: FLAVOURS (default "patched debug"), SUITES, NODES, MEMLESS,
# and those of boot.sh. V=1 shows everything.
# Usage: scripts/test.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
FLAVOURS=${FLAVOURS:-patched debug}
export SUITES=${SUITES:-topology,conformance,scenario,badinput,cgroupinput,privilege,fuzz,stress}

prepare_host
status=0 passed=0 failed=0 skipped=0
# The series' style is part of the suite: a finding is a failed test.
if step "checkpatch --strict" "$OUT_DIR/logs/checkpatch.log" \
	"$REPO_DIR/scripts/checkpatch.sh"; then
	passed=$((passed + 1))
else
	status=1 failed=$((failed + 1))
fi
for flavour in $FLAVOURS; do
	build_flavour "$flavour"
done

for flavour in $FLAVOURS; do
	name=$(flavour_name "$flavour")
	boot_run "$flavour"
	run=$RUN
	rc=0
	"$REPO_DIR/scripts/check-run.sh" "$run" || rc=$?
	[ "$rc" = 2 ] && exit 2
	[ "$rc" = 0 ] || status=1
	read -r p f s <"$run/counts"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "    Linux $(sed -n 's/^release=//p' "$run/run.info") $name," \
		"$(sed -n 's/^accel=//p' "$run/run.info"), logs in $run"
done

echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
