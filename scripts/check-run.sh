#!/bin/bash
# Judge one guest run made by boot.sh: parse its KTAP with the tree's
# kunit.py, scan its console for kernel splats and unexpected OOM kills,
# print a short report and write RUN_DIR/counts ("passed failed skipped")
# and RUN_DIR/kernel.problems (empty when the kernel itself behaved).
# Exit 0 pass, 1 failed, 2 harness error.
#
# EXPECT_OOM=1 tolerates OOM kills (a test that provokes them).
# Usage: scripts/check-run.sh RUN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUN_DIR" >&2; exit 2; }
run=$1
console=$run/console.log
[ -r "$console" ] && [ -r "$run/run.info" ] || die "$run is not a run directory"
kunit=(python3 "$KSRC/tools/testing/kunit/kunit.py" parse)
failed=0
: >"$run/kernel.problems"
problem() {
	echo "    $*"
	failed=1
}
# kernel_problem: one the tests did not report, so kept apart for callers
# that expect test failures (scripts/run-scenario.sh on baseline).
kernel_problem() {
	problem "$@"
	echo "$*" >>"$run/kernel.problems"
}

# Kernel splats: any of these fails the run, whatever the tests said.
# KCSAN reports are judged apart, below.
splats='Kernel panic|Oops:|WARNING:|BUG:|general protection fault|UBSAN:'
splats+='|INFO: task .* blocked for more than|rcu: INFO: .* detected stall'
if grep -Ev 'BUG: KCSAN:' "$console" | grep -Eq "$splats"; then
	kernel_problem "kernel splat in the console:"
	grep -Ev 'BUG: KCSAN:' "$console" | grep -E "$splats" | head -n 5 |
		sed 's/^/      /'
fi
# KCSAN: a data race in the code the series owns or touches fails the run:
# a report whose racing accesses are in a function of mm/mempolicy.c (from
# the flavour's own object) or in one of the series' functions elsewhere,
# judged by the top three frames of each access (deeper frames are only
# callers). Other reports, and the one upstream race between
# cpuset_change_task_nodemask() and cpuset_nodemask_valid_mems_allowed(),
# are counted, kept in RUN_DIR/kcsan.other, not judged.
if grep -q 'BUG: KCSAN:' "$console"; then
	flavour=$(sed -n 's/^flavour=//p' "$run/run.info")
	object=$(build_dir "$flavour")/mm/mempolicy.o
	[ -r "$object" ] || die "cannot read $object to judge KCSAN reports"
	series_symbols=$({
		nm --defined-only "$object" | awk '$2 ~ /^[tT]$/ { print $3 }'
		printf '%s\n' cpuset_change_task_nodemask cpuset_update_tasks_nodemask \
			cpuset_attach policy_mbind_nodemask show_numa_map walk_page_range
	} | sort -u)
	awk -v symbols="$series_symbols" '
		BEGIN { n = split(symbols, s, "\n"); for (i = 1; i <= n; i++) ours[s[i]] = 1 }
		{ sub(/\r$/, "") }
		/BUG: KCSAN:/ { inside = 1; report = ""; mine = 0; depth = 99 }
		inside {
			report = report $0 "\n"
			# The racing accesses: the top frames of each stack.
			if (/ to 0x[0-9a-f]+ of [0-9]+ bytes by /) depth = 0
			else if ($NF ~ /\+0x[0-9a-f]+\/0x[0-9a-f]+$/ && ++depth <= ACCESS_FRAMES) {
				f = $NF; sub(/\+.*/, "", f); if (f in ours) mine = 1
			} else if ($NF !~ /\+0x/) depth = 99
		}
		inside && /^\[ *[0-9.]+\] =+$/ && report ~ /Reported by/ {
			# Upstream 6.12 reads current->mems_allowed outside
			# mems_allowed_seq there; the series leaves both sides.
			if (report ~ /cpuset_nodemask_valid_mems_allowed/ &&
			    report ~ /cpuset_change_task_nodemask/)
				mine = 0
			print (mine ? "SERIES" : "OTHER") > "/dev/stderr"
			printf "%s", report > (mine ? RUN "/kcsan.series" : RUN "/kcsan.other")
			inside = 0
		}' RUN="$run" ACCESS_FRAMES=3 "$console" 2>"$run/kcsan.verdicts"
	if grep -q SERIES "$run/kcsan.verdicts"; then
		kernel_problem "KCSAN data race in the series' code ($(grep -c SERIES "$run/kcsan.verdicts") reports, $run/kcsan.series):"
		grep -a 'BUG: KCSAN:' "$run/kcsan.series" | head -n 3 | sed 's/^/      /'
	fi
	if grep -q OTHER "$run/kcsan.verdicts"; then
		echo "    KCSAN: $(grep -c OTHER "$run/kcsan.verdicts") report(s) outside the series' code, not judged ($run/kcsan.other):"
		grep -a 'BUG: KCSAN:' "$run/kcsan.other" | sort -u | head -n 3 | sed 's/^/      /'
	fi
fi
if [ "${EXPECT_OOM:-0}" != 1 ] && grep -Eq 'invoked oom-killer|Out of memory' "$console"; then
	kernel_problem "unexpected OOM kill:"
	grep -E 'Out of memory|oom-kill:' "$console" | head -n 3 | sed 's/^/      /'
fi
grep -q 'numapol-init: done' "$console" ||
	kernel_problem "the guest did not finish its suites (crash, hang or host timeout)"

# summarize NAME OUTPUT: add kunit.py's "Ran N tests: passed: P, ..." line
# to the totals.
passed=0 failed_tests=0 skipped=0
summarize() {
	local line field
	line=$(grep -o 'Ran [0-9]* tests:.*' "$2" | tail -n 1)
	[ -n "$line" ] || { problem "$1: kunit.py printed no summary"; return; }
	for field in passed failed skipped crashed errors; do
		local n
		n=$(echo "$line" | grep -o "$field: [0-9]*" | grep -o '[0-9]*' || echo 0)
		case $field in
		passed) passed=$((passed + n)) ;;
		skipped) skipped=$((skipped + n)) ;;
		*) failed_tests=$((failed_tests + n)) ;;
		esac
	done
	echo "    $1: ${line#Ran }"
}

# In-kernel KUnit: the console up to the moment /init starts the suites.
sed -e 's/\r$//' -e '/numapol-init: running/q' "$console" >"$run/kunit.console"
# Its plan line ("1..N", N = 0 when the kernel has no KUnit suite) is not
# always right after "KTAP version": other boot messages can come between.
plan=$(sed -n '/KTAP version/,$p' "$run/kunit.console" |
	grep -m 1 -E '\] 1\.\.[0-9]+$' || true)
if [ -n "$plan" ] && [[ $plan != *'] 1..0' ]]; then
	"${kunit[@]}" "$run/kunit.console" >"$run/kunit.parsed" 2>&1 ||
		problem "KUnit failed (see $run/kunit.parsed)"
	summarize kunit "$run/kunit.parsed"
else
	echo "    kunit: no KUnit suites in this kernel"
fi

# Guest suites.
if [ -s "$run/results.ktap" ]; then
	"${kunit[@]}" "$run/results.ktap" >"$run/suites.parsed" 2>&1 ||
		problem "guest suites failed (see $run/suites.parsed)"
	summarize suites "$run/suites.parsed"
	[ "$V" = 1 ] && cat "$run/suites.parsed"
	grep -E '\[(FAILED|CRASHED|ERROR)\]' "$run/suites.parsed" | head -n 20 | sed 's/^/      /' || true
else
	problem "the guest printed no suite results"
fi

# A kernel problem counts as one failed test in the totals too.
failed_tests=$((failed_tests + $(grep -c . "$run/kernel.problems" || true)))
echo "$passed $failed_tests $skipped" >"$run/counts"
[ "$failed" = 0 ] && [ "$failed_tests" = 0 ] && exit 0
exit 1
