#!/bin/bash
# Show that the harness fails when it should: a failing guest test, and a
# guest kernel that prints a WARNING, each make scripts/test.sh exit 1,
# while the same run without them exits 0; and a Ctrl-C during a boot
# leaves no guest behind (scripts/selftest/ctrl-c.sh).
# Exit 0 when all four behave, 1 otherwise.
# Usage: scripts/selftest.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
export FLAVOURS=patched

# expect WANT DESCRIPTION [VAR=VALUE...]: run test.sh with the variables
# and compare its exit status with WANT.
status=0
expect() {
	local want=$1 what=$2 rc=0
	shift 2
	echo "== $what: expecting exit $want"
	env "$@" "$REPO_DIR/scripts/test.sh" || rc=$?
	if [ "$rc" = "$want" ]; then
		echo "== ok: exit $rc"
	else
		echo "== WRONG: exit $rc"
		status=1
	fi
}

expect 0 "canary passing" SUITES=topology,canary
expect 1 "canary failing" SUITES=topology,canary CMDLINE=numapol.canary=fail
expect 1 "WARN_ON_ONCE in move_pages()" SUITES=topology \
	EXTRA_PATCHES="$REPO_DIR/scripts/selftest/warn-in-move-pages.patch"
echo "== Ctrl-C during a boot: expecting no guest left"
if "$REPO_DIR/scripts/selftest/ctrl-c.sh"; then
	echo "== ok"
else
	echo "== WRONG"
	status=1
fi
exit "$status"
