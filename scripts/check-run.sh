#!/bin/bash
# Judge one guest run made by boot.sh: parse its KTAP with the tree's
# kunit.py; read guest/init's top-level results too (kunit.py would pass a
# suite that dies after its cases all passed), the taint after each suite
# among them; check that the kernel ran the KUnit suite if its flavour has
# it; scan the console for kernel splats and unexpected OOM kills. Prints
# a short report and writes RUN_DIR/counts ("passed failed skipped") and
# RUN_DIR/kernel.problems (empty when the kernel itself behaved).
# Exit 0 pass, 1 failed, 2 harness error.
#
# EXPECT_OOM=1 tolerates OOM kills (a test that provokes them).
# EXPECT_KUNIT=0|1 says whether the kernel must run the in-kernel KUnit
# suite mempolicy_rebind; by default every flavour must but baseline and
# the prefixes of the series shorter than the patch that adds it.
# SERIES_SYMBOLS_FILE names the functions of mm/mempolicy.o, one a line,
# in place of nm of the flavour's build (canned runs, see tests/judge).
# Usage: scripts/check-run.sh RUN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUN_DIR" >&2; exit 2; }
[ -d "$1" ] || die "$1 is not a run directory"
# Absolute: kunit.py changes to the kernel tree before it opens the file.
run=$(cd "$1" && pwd)
console=$run/console.log
[ -r "$console" ] && [ -r "$run/run.info" ] || die "$run is not a run directory"
flavour=$(sed -n 's/^flavour=//p' "$run/run.info")
[ -n "$flavour" ] || die "$run/run.info names no flavour"
# The run's kernel line decides where its build and its patches are
# (runs from before run.info named it are 6.12's).
run_kernel=$(sed -n 's/^kernel=//p' "$run/run.info")
run_kernel=${run_kernel:-6.12}
[ "$run_kernel" = "$KERNEL" ] || exec env KERNEL="$run_kernel" "$0" "$@"
kunit=(python3 "$TESTS_KSRC/tools/testing/kunit/kunit.py" parse)
[ -r "${kunit[1]}" ] || die "no ${kunit[1]}: run prepare-tree.sh"
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

# No "grep | grep -q" or "grep | head" below: under pipefail, a reader
# that stops early kills the writer with SIGPIPE once more than a pipe's
# worth (64 KiB) follows, and the pipeline fails: a match reads as none,
# or set -e ends the judge. Matches go to files, or through grep -m.
# -a: a console with stray bytes would print "Binary file matches".

# Kernel splats: any of these fails the run, whatever the tests said.
# KCSAN reports are judged apart, below.
splats='Kernel panic|Oops:|WARNING:|BUG:|general protection fault|UBSAN:'
splats+='|INFO: task .* blocked for more than|rcu: INFO: .* detected stall'
awk -v splats="$splats" '{ sub(/\r$/, "") } $0 ~ splats && !/BUG: KCSAN:/' \
	"$console" >"$run/splats"
if [ -s "$run/splats" ]; then
	kernel_problem "kernel splat in the console:"
	head -n 5 "$run/splats" | sed 's/^/      /'
fi
# KCSAN: a data race in the code the series owns or touches fails the run:
# a report whose racing accesses are in a function of mm/mempolicy.c (from
# the flavour's own object) or in one of the series' functions elsewhere,
# judged by the top three frames of each access (deeper frames are only
# callers). Other reports, and the one upstream race between
# cpuset_change_task_nodemask() and cpuset_nodemask_valid_mems_allowed(),
# are counted, kept in RUN_DIR/kcsan.other, not judged.
if grep -q 'BUG: KCSAN:' "$console"; then
	if [ -n "${SERIES_SYMBOLS_FILE:-}" ]; then
		[ -r "$SERIES_SYMBOLS_FILE" ] || die "cannot read SERIES_SYMBOLS_FILE=$SERIES_SYMBOLS_FILE"
		mempolicy_symbols=$(cat "$SERIES_SYMBOLS_FILE")
	else
		object=$(build_dir "$flavour")/mm/mempolicy.o
		[ -r "$object" ] || die "cannot read $object to judge KCSAN reports"
		mempolicy_symbols=$(nm --defined-only "$object" | awk '$2 ~ /^[tT]$/ { print $3 }')
	fi
	series_symbols=$({
		echo "$mempolicy_symbols"
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
		grep -a -m 3 'BUG: KCSAN:' "$run/kcsan.series" | sed 's/^/      /'
	fi
	if grep -q OTHER "$run/kcsan.verdicts"; then
		echo "    KCSAN: $(grep -c OTHER "$run/kcsan.verdicts") report(s) outside the series' code, not judged ($run/kcsan.other):"
		# awk, not head: it reads sort's output to the end.
		grep -a 'BUG: KCSAN:' "$run/kcsan.other" | sort -u | awk 'NR <= 3 { print "      " $0 }'
	fi
fi
if [ "${EXPECT_OOM:-0}" != 1 ] && grep -Eq 'invoked oom-killer|Out of memory' "$console"; then
	kernel_problem "unexpected OOM kill:"
	grep -a -E -m 3 'Out of memory|oom-kill:' "$console" | sed 's/\r$//; s/^/      /'
fi
grep -q 'numapol-init: done' "$console" ||
	kernel_problem "the guest did not finish its suites (crash, hang or host timeout)"

# summarize NAME OUTPUT: add kunit.py's "Ran N tests: passed: P, ..." line
# to the totals.
passed=0 failed_tests=0 skipped=0
summarize() {
	local line field
	# No line when kunit.py died of the document (a traceback).
	line=$(grep -o 'Ran [0-9]* tests:.*' "$2" | tail -n 1 || true)
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

# kunit_prefix: the length of the shortest prefix of the series that runs
# the KUnit suite. apply-series.sh merges configs/series.config, which
# enables it, once the tree defines every option there, so from the patch
# that adds the last of them; an option no patch adds is upstream's.
kunit_prefix() {
	local opt p k last=0
	while read -r opt; do
		k=0
		# The series in apply-series.sh's order.
		for p in "$PATCH_DIR"/[0-9]*.patch; do
			case $(basename "$p") in 0000-*) continue ;; esac
			k=$((k + 1))
			if grep -qx "+config $opt" "$p"; then
				[ "$k" -le "$last" ] || last=$k
				break
			fi
		done
	done < <(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$REPO_DIR/configs/series.config")
	echo "$last"
}

# expect_kunit: 1 when the run's kernel must run mempolicy_rebind, from the
# build name in run.info (FLAVOUR or FLAVOUR+extra-HASH; FLAVOUR may end in
# -wide, the configuration, which does not change the answer).
expect_kunit() {
	local base=${flavour%%+extra-*}
	base=${base%-wide}
	# A line whose patches add no KUnit test (the 6.1 backport) runs none.
	if [ "$base" = baseline ] || [ "$(kunit_prefix)" = 0 ]; then
		echo 0
	elif [[ $base =~ ^series-([0-9]+)$ ]]; then
		[ "${BASH_REMATCH[1]}" -ge "$(kunit_prefix)" ] && echo 1 || echo 0
	else
		echo 1
	fi
}
expect=${EXPECT_KUNIT:-$(expect_kunit)}
case $expect in 0 | 1) ;; *) die "EXPECT_KUNIT must be 0 or 1, not '$expect'" ;; esac

# In-kernel KUnit: the console up to the moment /init starts the suites.
# Other boot messages come between KUnit's lines as they please; kunit.py
# misreads a nested test whose header one splits ("input: AT Translated
# Set 2 keyboard ..." after "KTAP version 1"), so once KTAP starts,
# unindented lines that are not KTAP go.
awk '{ sub(/\r$/, "") }
	/numapol-init: running/ { print; exit }
	/\] KTAP version/ { ktap = 1 }
	ktap && /^\[ *[0-9]+\.[0-9]+\] [^ ]/ &&
		!/^\[ *[0-9]+\.[0-9]+\] (KTAP version|TAP version|1\.\.|ok |not ok |#)/ { next }
	{ print }' "$console" >"$run/kunit.console"
# Its plan line ("1..N", N = 0 when the kernel has no KUnit suite) is not
# always right after "KTAP version": other boot messages can come between.
plan=$(awk '/KTAP version/ { on = 1 } on && /\] 1\.\.[0-9]+$/ { print; exit }' "$run/kunit.console")
if [ -n "$plan" ] && [[ $plan != *'] 1..0' ]]; then
	"${kunit[@]}" "$run/kunit.console" >"$run/kunit.parsed" 2>&1 ||
		problem "KUnit failed (see $run/kunit.parsed)"
	summarize kunit "$run/kunit.parsed"
	if [ "$expect" = 1 ] && ! grep -q '# Subtest: mempolicy_rebind$' "$run/kunit.console"; then
		problem "kunit: no mempolicy_rebind suite, which $flavour must run"
		failed_tests=$((failed_tests + 1))
	fi
elif [ "$expect" = 1 ]; then
	# A kernel that lost the option would otherwise pass without it.
	problem "kunit: no KUnit suites, but $flavour must run mempolicy_rebind (EXPECT_KUNIT=0 if not)"
	failed_tests=$((failed_tests + 1))
else
	echo "    kunit: no KUnit suites in this kernel ($flavour)"
fi

# Guest suites.
if [ -s "$run/results.ktap" ]; then
	"${kunit[@]}" "$run/results.ktap" >"$run/suites.parsed" 2>&1 ||
		problem "guest suites failed (see $run/suites.parsed)"
	summarize suites "$run/suites.parsed"
	[ "$V" = 1 ] && cat "$run/suites.parsed"
	grep -m 20 -E '\[(FAILED|CRASHED|ERROR)\]' "$run/suites.parsed" | sed 's/^/      /' || true
	# guest/init's own lines, unindented: each suite's result, from its exit
	# status, and the taint after it. kunit.py counts a suite with cases
	# by its cases only, so a suite killed or failing after they all
	# passed is one failed test more ("1" before the line). Last, the plan
	# and the number of results: fewer means the document was cut short.
	tr -d '\r' <"$run/results.ktap" | awk '
		/^1\.\.[0-9]+$/ && plan == "" { plan = substr($0, 4) }
		/^[ \t]+(not )?ok [0-9]+ / { cases++ }
		/^[ \t]+not ok [0-9]+ / { cases_failed++ }
		/^(not )?ok [0-9]+ / {
			results++
			if ($1 == "not") print (cases && !cases_failed ? 1 : 0), $0
			cases = cases_failed = 0
		}
		END { print "plan", plan == "" ? "none" : plan, results + 0 }' >"$run/toplevel"
	taint=()
	while read -r uncounted line; do
		if [ "$uncounted" = plan ]; then
			read -r announced got <<<"$line"
			[ "$announced" = "$got" ] ||
				problem "results.ktap: $got top-level results, its plan announces $announced (cut short?)"
		elif [[ $line == "not ok "*" taint-after-"* ]]; then
			taint+=("${line#not ok * }")
		else
			problem "suite failed: $line"
			failed_tests=$((failed_tests + uncounted))
		fi
	done <"$run/toplevel"
	# The kernel's taint flags changed under a suite, or were set before
	# it: the kernel misbehaved, whether or not a splat says how.
	if [ ${#taint[@]} -gt 0 ]; then
		kernel_problem "the kernel was tainted:"
		printf '      %s\n' "${taint[@]}"
	fi
else
	problem "the guest printed no suite results"
fi

# A kernel problem counts as one failed test in the totals too, and a
# failed run as one at least, so that the totals show it.
failed_tests=$((failed_tests + $(grep -c . "$run/kernel.problems" || true)))
[ "$failed" = 0 ] || [ "$failed_tests" -gt 0 ] || failed_tests=1
echo "$passed $failed_tests $skipped" >"$run/counts"
[ "$failed" = 0 ] && [ "$failed_tests" = 0 ] && exit 0
exit 1
