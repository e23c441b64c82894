#!/bin/bash
# The kill matrix: build every mutant in mutants/ (the series plus one
# patch that re-injects a known bug), boot it with the suites its
# "Suites:" line names (default: the semantics suites and differential),
# with the arguments its "Args:" line gives every suite (a kselftest
# filter such as -vVARIANT, to run only the case that hunts it), on the
# machine its "Topology:" line asks for (boot.sh's NODES=, MEMLESS=,
# CPULESS=, HOTPLUG_NODE=; default boot.sh's), and once more for each
# "Boot: SUITES [SETTING...]" line, the same kernel booted with those
# suites on that machine (memhotplug needs HOTPLUG_NODE=, demotion
# CPULESS=, which the other suites do not run on), on the flavour its
# "Flavour:" line names where BASE is not given (debug-wide, say, for
# what only the debug kernel can provoke), and say
# whether they catch it. Races are not caught every time: a mutant whose suites
# include stress boots RUNS times, each stress case running for the
# seconds its "Seconds:" line gives (default STRESS_SECONDS); its cases
# stop at the first failure, and the matrix gives each run's verdict and time to detection (guest
# seconds after the stress suite started). Results also go to
# out/mutants.tsv.
#
# Each mutant names what must catch it: one "Expect: TEXT" line per case,
# where TEXT is part of the name of a case that must fail (as kunit.py
# prints it: SUITE.VARIANT.TEST for the guest suites, the case or its
# parameter for KUnit) or of a kernel problem the judge reports ("OOM
# kill"). A run is caught when the judge fails one of its boots and every
# Expect: line names a failure of one of them. A mutant known to survive what it boots
# says why on a "Survives: REASON" line instead; its surviving runs are
# reported, not failed.
# Exit 0 when every run catches its mutant (or survives as announced), 1
# when one survives or is caught by other cases than those it names, 2 on
# a harness error.
#
# Environment: MUTANTS (names, default all), RUNS (default 10),
# STRESS_SECONDS (seconds per stress case, default 8), BASE (the flavour
# every mutant sits on; default its Flavour: line, else patched-wide,
# the configuration make test boots; patched builds mutant-NAME on the
# tinyconfig kernels; any
# other flavour, baseline-wide or series-7-wide say, gets the mutant
# as an extra patch, and runs as FLAVOUR+extra-HASH). A mutant's source
# tree and build (2 GB) go once its runs are judged; KEEP_TREES=1 keeps
# them.
# Usage: scripts/mutants.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
RUNS=${RUNS:-10} STRESS_SECONDS=${STRESS_SECONDS:-8} BASE=${BASE:-}
if [ -z "${MUTANTS:-}" ]; then
	MUTANTS=$(cd "$REPO_DIR/mutants" && ls -- *.patch | sed 's/\.patch$//')
fi

# failed_cases BOOT...: the name of every case that failed or crashed in
# the boots, and of every kernel problem the judge found, one a line.
failed_cases() {
	local boot
	for boot; do
		sed -En 's/.*\[(FAILED|CRASHED)\] (.*[^ =]) *=*$/\2/p' \
			"$boot/suites.parsed" "$boot/kunit.parsed" 2>/dev/null || true
		sed 's/^/kernel: /' "$boot/kernel.problems" 2>/dev/null || true
	done
}

# unmet_expectations PATCH BOOT...: the Expect: lines of PATCH that name
# no failure of the boots of one run, one a line. The failures go to
# the first boot's failed.cases.
unmet_expectations() {
	local patch=$1 expect
	shift
	failed_cases "$@" >"$1/failed.cases"
	sed -n 's/^Expect: //p' "$patch" | while IFS= read -r expect; do
		grep -qF -- "$expect" "$1/failed.cases" || echo "$expect"
	done
}

# check_settings PATCH SETTING...: die unless each is a boot.sh topology
# setting.
check_settings() {
	local patch=$1 setting
	shift
	for setting; do
		case $setting in
		NODES=* | MEMLESS=* | CPULESS=* | HOTPLUG_NODE=*) ;;
		*) die "$patch: Topology: and Boot: take NODES=, MEMLESS=, CPULESS=, HOTPLUG_NODE=" ;;
		esac
	done
}

# drop_tree FLAVOUR: remove a mutant's worktree and build.
drop_tree() {
	[ "${KEEP_TREES:-0}" = 1 ] && return
	git -C "$KSRC" worktree remove --force "$(src_dir "$1")" 2>/dev/null || true
}

prepare_host
table=$OUT_DIR/mutants.tsv
printf 'mutant\trun\tverdict\tdetection_s\twhat\n' >"$table"
status=0
for name in $MUTANTS; do
	patch=$REPO_DIR/mutants/$name.patch
	[ -r "$patch" ] || die "no mutant $patch"
	survives=$(sed -n 's/^Survives: //p' "$patch" | head -n 1)
	grep -q '^Expect: ' "$patch" || [ -n "$survives" ] ||
		die "$patch has neither an Expect: nor a Survives: line"
	suites=$(sed -n 's/^Suites: //p' "$patch" | head -n 1)
	suites=${suites:-topology,conformance,scenario,differential}
	topology=$(sed -n 's/^Topology: //p' "$patch" | head -n 1)
	# Each boot of a run: its suites, then its topology settings.
	mapfile -t boots < <(echo "$suites $topology"; sed -n 's/^Boot: \(.*\)/\1 /p' "$patch")
	for boot in "${boots[@]}"; do
		# shellcheck disable=SC2086 # settings, split on blanks
		check_settings "$patch" ${boot#* }
	done
	seconds=$(sed -n 's/^Seconds: //p' "$patch" | head -n 1)
	runs=1 CMDLINE=
	case ,$suites, in *,stress,*)
		runs=$RUNS
		CMDLINE="numapol.stress_failfast=1 numapol.stress_seconds=${seconds:-$STRESS_SECONDS}"
		;;
	esac
	args=$(sed -n 's/^Args: //p' "$patch" | head -n 1)
	CMDLINE+=${args:+ numapol.args=$args}
	export CMDLINE
	base=${BASE:-$(sed -n 's/^Flavour: //p' "$patch" | head -n 1)}
	base=${base:-patched-wide}
	flavour=mutant-$name
	if [ "$base" != patched ]; then
		flavour=$base
		export EXTRA_PATCHES=$patch
	fi
	build_flavour "$flavour"
	for ((run = 1; run <= runs; run++)); do
		rc=0 boot_dirs=()
		for boot in "${boots[@]}"; do
			SUITES=${boot%% *} TOPOLOGY=${boot#* } boot_run "$flavour"
			boot_rc=0
			"$REPO_DIR/scripts/check-run.sh" "$RUN" >"$RUN/check.log" 2>&1 || boot_rc=$?
			case $boot_rc in
			0) ;;
			1) rc=1 ;;
			*) echo "harness error on mutant $name (see $RUN/check.log)"; exit 2 ;;
			esac
			boot_dirs+=("$RUN")
		done
		RUN=${boot_dirs[0]}
		detection=$("$REPO_DIR/scripts/detection.sh" "$RUN")
		unmet=$(unmet_expectations "$patch" "${boot_dirs[@]}")
		case $rc in
		1) verdict=caught ;;
		0) verdict=SURVIVED ;;
		esac
		if [ "$verdict" = caught ] && [ -n "$unmet" ]; then
			verdict=MISSED
			echo "    $name: no failure names \"${unmet//$'\n'/\", \"}\" (failures: $RUN/failed.cases)"
		fi
		case $verdict in
		SURVIVED) [ -n "$survives" ] && verdict=survived-as-announced ;;
		esac
		case $verdict in SURVIVED|MISSED) status=1 ;; esac
		[ -n "$detection" ] || detection=$(printf -- '-\t%s' \
			"$(grep -m1 -E 'FAILED|CRASHED|problem|splat' "$RUN/check.log" | sed 's/^ *//' || true)")
		printf '%s\t%s\t%s\t%s\n' "$name" "$run" "$verdict" "$detection" >>"$table"
		echo "    $verdict: $name run $run/$runs ${detection%%	*}"
	done
	drop_tree "$flavour"
done

echo
column -t -s "$(printf '\t')" "$table"
echo
echo "mutant: runs caught, median time to detection (guest seconds)"
for name in $MUTANTS; do
	awk -F '\t' -v m="$name" '$1 == m { n++; if ($3 == "caught") c++ }
		END { printf "  %-36s %d/%d caught, median ", m, c, n }' "$table"
	awk -F '\t' -v m="$name" '$1 == m && $3 == "caught" && $4 != "-" { print $4 }' \
		"$table" | sort -n | awk '{ v[NR] = $1 }
		END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2] " s";
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 " s" }'
done
exit "$status"
