#!/bin/bash
# Test the backport of the series' fixes to Debian 12's own kernel line
# (patches-6.1/ on linux-source-6.1): build 6.1 unpatched and with the
# backport, run the same suites on both, and compare the cases that fail
# on each with its list in docs/baseline-failures.md ("Linux 6.1
# baseline" and "Linux 6.1 with the backport"). A failure not listed is a
# finding; a listed case that passes makes the list stale. Both fail the
# target, as does a checkpatch finding in the port. Exit 0 when both
# lists match and checkpatch is clean, 1 when not, 2 on a harness error.
# Usage: scripts/backport.sh
set -euo pipefail
export KERNEL=6.1
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
list=$REPO_DIR/docs/baseline-failures.md
export SUITES=${SUITES:-conformance,scenario,tools,readers,vmamerge,badinput}

prepare_host
build_flavour baseline
build_flavour patched

status=0
# The port's style is part of the target, as the series' is of make test.
step "checkpatch --strict ($KERNEL)" "$OUT_DIR/logs/checkpatch-$KERNEL.log" \
	"$REPO_DIR/scripts/checkpatch.sh" || status=1
for flavour in baseline patched; do
	boot_failed "$flavour"
	case $flavour in
	baseline) heading="Linux 6.1 baseline" ;;
	patched) heading="Linux 6.1 with the backport" ;;
	esac
	sort "$RUN/failed.list" >"$RUN/failed"
	listed_cases "$list" "$heading" >"$RUN/expected"
	compare_failed "$RUN/failed" "$RUN/expected" || status=1
	echo "    Linux $(kernel_release) $flavour: $(grep -c . "$RUN/failed") cases fail," \
		"$(grep -c . "$RUN/expected") listed under \"$heading\"; logs in $RUN"
done
exit "$status"
