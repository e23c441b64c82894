#!/bin/bash
# The run judge's own tests, offline: judge each canned run under
# tests/judge/ with scripts/check-run.sh (or JUDGE=path, another version of
# it) and compare with the verdict the fixture expects. Prints one line a
# fixture; the last line is "PASSED FAILED SKIPPED" (fixtures judged as
# expected, misjudged, 0). The judge's report of each is in
# OUT_DIR/logs/check-run-test/NAME.log; V=1 shows it.
# Exit 0 all judged as expected, 1 some misjudged, 2 harness error.
#
# A fixture is a folder with console.log, results.ktap and run.info as
# boot.sh writes them, and "expect": the judge's exit status (0 or 1) on
# the first line, then EREs its report must match, one a line. Optional
# "env": KEY=VALUE lines for the judge (EXPECT_OOM, EXPECT_KUNIT). A
# console.log line "@REPEAT N TEXT" stands for N lines TEXT, so that a
# flood stays out of git. Lines get the serial ports' CRLF on the way.
# Usage: scripts/check-run-test.sh [FIXTURE...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in -*) echo "usage: $0 [FIXTURE...]" >&2; exit 2 ;; esac
judge=${JUDGE:-$REPO_DIR/scripts/check-run.sh}
fixtures=$REPO_DIR/tests/judge
[ -r "$judge" ] || die "no judge $judge"
[ -r "$TESTS_KSRC/tools/testing/kunit/kunit.py" ] || die "no kunit.py in $TESTS_KSRC: run prepare-tree.sh"
if [ $# -eq 0 ]; then
	for dir in "$fixtures"/*/; do
		set -- "$@" "$(basename "$dir")"
	done
fi
logs=$OUT_DIR/logs/check-run-test
mkdir -p "$logs"
# The judge writes into the run directory: it gets a copy.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok=0 bad=0
for name in "$@"; do
	src=$fixtures/$name run=$tmp/$name log=$logs/$name.log
	for f in console.log results.ktap run.info expect; do
		[ -r "$src/$f" ] || die "fixture $name has no $f"
	done
	want=$(head -n 1 "$src/expect")
	case $want in 0 | 1) ;; *) die "fixture $name: expect must start with 0 or 1" ;; esac
	fenv=()
	if [ -r "$src/env" ]; then
		mapfile -t fenv <"$src/env"
		for kv in "${fenv[@]}"; do
			[[ $kv =~ ^[A-Z_]+= ]] || die "fixture $name: env line '$kv' is not KEY=VALUE"
		done
	fi

	mkdir "$run"
	cp "$src/run.info" "$run/"
	awk '/^@REPEAT [0-9]+ / {
		n = $2; sub(/^@REPEAT [0-9]+ /, ""); for (i = 0; i < n; i++) print; next
	} { print }' "$src/console.log" | sed 's/$/\r/' >"$run/console.log"
	sed 's/$/\r/' "$src/results.ktap" >"$run/results.ktap"

	# The caller's own EXPECT_* must not change the verdicts.
	rc=0
	env -u EXPECT_OOM -u EXPECT_KUNIT \
		SERIES_SYMBOLS_FILE="$fixtures/mempolicy.symbols" "${fenv[@]}" \
		bash "$judge" "$run" >"$log" 2>&1 || rc=$?
	[ "$V" = 1 ] && sed 's/^/    | /' "$log"

	missing=
	while read -r pattern; do
		grep -qE -- "$pattern" "$log" || missing+=" /$pattern/"
	done < <(tail -n +2 "$src/expect")
	# test.sh adds up RUN_DIR/counts: a verdict comes with them, a failed
	# run with one failed test at least.
	counts=$(cat "$run/counts" 2>/dev/null || true)
	if ! [[ $counts =~ ^[0-9]+\ ([0-9]+)\ [0-9]+$ ]]; then
		missing+=" counts"
	elif [ "$rc" = 1 ] && [ "${BASH_REMATCH[1]}" = 0 ] ||
		{ [ "$rc" = 0 ] && [ "${BASH_REMATCH[1]}" != 0 ]; }; then
		missing+=" counts to match ($counts)"
	fi
	if [ "$rc" = "$want" ] && [ -z "$missing" ]; then
		echo "ok $name"
		ok=$((ok + 1))
	else
		echo "FAIL $name: expected $want got $rc${missing:+, missing:$missing} (log: $log)"
		bad=$((bad + 1))
	fi
done
echo "$ok $bad 0"
[ "$bad" = 0 ]
