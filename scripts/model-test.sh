#!/bin/bash
# The reference model's unit tests, built with the host's gcc and run on
# the host: plain C, no system calls that change anything, no cgroups.
# Prints their KTAP; the last line is "PASSED FAILED SKIPPED".
# Exit 0 pass, 1 tests failed, 2 harness error.
# Usage: scripts/model-test.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
harness=$TESTS_KSRC/tools/testing/selftests/kselftest_harness.h
[ -f "$harness" ] || die "no kernel tree for $harness: run prepare-tree.sh"

tests=$REPO_DIR/tests
bin=$OUT_DIR/model-test/model_test
mkdir -p "$(dirname "$bin")"
gcc -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
	-I"$(dirname "$harness")" -o "$bin" \
	"$tests"/model/unit/*.c "$tests"/model/*.c \
	"$tests"/lib/semantics.c "$tests"/lib/nodes.c "$tests"/lib/mpol.c -lnuma ||
	die "the model's unit tests do not build"

rc=0
"$bin" | tee "$bin.ktap" || rc=$?
totals=$(sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\).* skip:\([0-9]*\).*/\1 \2 \3/p' "$bin.ktap")
[ -n "$totals" ] || die "no totals in $bin.ktap"
echo "$totals"
[ "$rc" = 0 ] || exit 1
