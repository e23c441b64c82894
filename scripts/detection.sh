#!/bin/bash
# How a stress run on a mutant failed, and how long after the stress suite
# started, in guest seconds: prints "SECONDS<TAB>WHAT", or nothing when
# the run found no failure. A kernel splat or OOM kill is timed by its
# console timestamp; a failure the suite found, by the start of the case
# that found it (the last "numapol-stress: case started", since the cases
# after a failure skip with numapol.stress_failfast=1) plus the time the
# suite reports.
# Usage: scripts/detection.sh RUN_DIR
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 RUN_DIR" >&2; exit 2; }
console=$1/console.log results=$1/results.ktap
[ -r "$console" ] || { echo "error: no $console" >&2; exit 2; }

# The printk timestamp of the first (or, with -l, last) line matching ERE.
stamp() {
	local pick=head
	[ "$1" = -l ] && { pick=tail; shift; }
	{ grep -E "$1" "$console" || true; } | "$pick" -n 1 |
		sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}

start=$(stamp 'numapol-stress: case started')
[ -n "$start" ] || exit 0
kernel='Kernel panic|Oops:|WARNING:|BUG:|general protection fault|oom-kill:'
at=$(stamp "$kernel")
if [ -n "$at" ]; then
	what=$(grep -Em1 "$kernel" "$console" | sed 's/^\[[ 0-9.]*\] //' | cut -c1-100)
	awk -v a="$at" -v s="$start" -v w="$what" 'BEGIN { printf "%.3f\t%s\n", a - s, w }'
	exit 0
fi
found=$(grep -m1 'stress: first failure after' "$results" 2>/dev/null || true)
[ -n "$found" ] || exit 0
after=$(echo "$found" | sed 's/.*first failure after \([0-9.]*\) s.*/\1/')
what=$(echo "$found" | sed 's/.*first failure after [0-9.]* s: //' | cut -c1-100)
case_start=$(stamp -l 'numapol-stress: case started')
awk -v c="$case_start" -v s="$start" -v a="$after" -v w="$what" \
	'BEGIN { printf "%.3f\t%s\n", c - s + a, w }'
