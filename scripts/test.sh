#!/bin/bash
# The whole test suite: build the kernels the tests need, boot each in QEMU
# with the guest suites, judge every run, print the totals.
# Exit 0 pass, 1 tests failed, 2 harness error.
#
# Environment: FLAVOURS (default "patched-wide debug-wide": the wide
# configuration, see apply-series.sh), SUITES, NODES, MEMLESS, and those of
# boot.sh; WIDE_SEQS (default 200, 0 for none): differential sequences in
# an extra run on 8 nodes with a memoryless one, which also runs the
# topology and badinput suites; NODES16 (default 1, 0 for none): the
# same three suites and the tiers and demotion suites in an extra run on
# 16 nodes, the last 8 CPU-less (a -wide flavour); HOTPLUG (default 1, 0
# for none): the memhotplug suite in an extra run whose node 3 has only
# memory that can go offline;
# TIERS (default 1, 0 for none): the topology, conformance, tiers and
# demotion suites in an extra run whose nodes 2 and 3 have memory in a
# slower tier and no CPUs. The extra runs boot the first patched flavour
# of FLAVOURS; the tiers and demotion suites run only in the runs with
# CPU-less nodes, unless CPULESS is set. V=1 shows everything.
# Usage: scripts/test.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
FLAVOURS=${FLAVOURS:-patched-wide debug-wide}
default_suites=topology,conformance,readers,hugetlb,cpuhotplug,numabalancing,ksmthp,scenario,badinput,cgroupinput,privilege,vmamerge,forks,fuzz,differential,migration,tools,tiers,demotion,stress
export SUITES=${SUITES:-$default_suites}
# The flavour of the extra runs: patched or patched-wide, if FLAVOURS has it.
# shellcheck disable=SC2086 # a list of flavours
patched=$(printf '%s\n' $FLAVOURS | grep -m 1 -x 'patched\(-wide\)\{0,1\}' || true)

# add_counts P F S: add to the totals.
add_counts() {
	passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
}

# judge RUN NAME: check a guest run, add its counts.
judge() {
	local run=$1 rc=0 p f s
	"$REPO_DIR/scripts/check-run.sh" "$run" || rc=$?
	[ "$rc" = 2 ] && exit 2
	[ "$rc" = 0 ] || status=1
	read -r p f s <"$run/counts"
	add_counts "$p" "$f" "$s"
	echo "    Linux $(sed -n 's/^release=//p' "$run/run.info") $2," \
		"$(sed -n 's/^accel=//p' "$run/run.info"), logs in $run"
}

prepare_host
status=0 passed=0 failed=0 skipped=0
# host_suite NAME LOG SCRIPT: a suite that runs on the host and ends its
# output with its three counts.
host_suite() {
	local rc=0
	step "$1" "$2" "$3" || rc=$?
	[ "$rc" = 2 ] && exit 2
	[ "$rc" = 0 ] || status=1
	# shellcheck disable=SC2046 # the three counts
	add_counts $(tail -n 1 "$2")
}
# The run judge on canned runs (tests/judge), before any guest run
# depends on it.
host_suite "run judge on canned runs (host)" "$OUT_DIR/logs/check-run-test.log" \
	"$REPO_DIR/scripts/check-run-test.sh"
# The series' style is part of the suite: a finding is a failed test.
if step "checkpatch --strict" "$OUT_DIR/logs/checkpatch.log" \
	"$REPO_DIR/scripts/checkpatch.sh"; then
	add_counts 1 0 0
else
	status=1
	add_counts 0 1 0
fi
# The reference model's unit tests, before any guest uses it.
host_suite "model unit tests (host)" "$OUT_DIR/logs/model-test.log" \
	"$REPO_DIR/scripts/model-test.sh"

# The prefixes of the series share one tree and build (see src_dir): each
# boot must follow its own build.
# shellcheck disable=SC2086 # a list of flavours
if [ "$(printf '%s\n' $FLAVOURS | grep -c '^series-')" -gt 1 ]; then
	die "FLAVOURS names more than one series-K: they share a build, boot them one at a time"
fi
for flavour in $FLAVOURS; do
	build_flavour "$flavour"
done

# suites_among A B...: those of the suites named that SUITES has, a,b.
suites_among() {
	local suite list=
	for suite in "$@"; do
		[[ ",$SUITES," == *,$suite,* ]] && list+=,$suite
	done
	echo "${list#,}"
}

# suites_without LIST A B...: the suites of the list a,b,c but A, B...
suites_without() {
	local suite list=,$1,
	shift
	for suite in "$@"; do
		list=${list//,$suite,/,}
	done
	list=${list#,}
	echo "${list%,}"
}

# The tiers and demotion suites need CPU-less nodes: on the usual
# topology they would only skip.
main_suites=$SUITES
if [ -z "${CPULESS:-}" ]; then
	main_suites=$(suites_without "$SUITES" tiers demotion)
fi
# The debug kernels look for splats in the kernel's paths, and the tools
# suite's programs make the syscalls the other suites make: by default it
# runs on the other kernels only, which keeps make test within its time.
for flavour in $FLAVOURS; do
	suites=$main_suites
	if [[ $flavour == debug* && $SUITES == "$default_suites" ]]; then
		suites=$(suites_without "$suites" tools)
	fi
	SUITES=$suites boot_run "$flavour"
	judge "$RUN" "$(flavour_name "$flavour")"
done

# The differential suite once more on 8 nodes, node 5 without memory, with
# the topology and badinput cases that need nodes 4-7 or a memoryless one.
WIDE_SEQS=${WIDE_SEQS:-200}
if [[ $WIDE_SEQS != 0 && ",$SUITES," == *,differential,* && -n $patched ]]; then
	wide_suites=$(suites_among differential topology badinput)
	NODES=8 MEMLESS=5 SUITES=$wide_suites \
		CMDLINE="numapol.sem_seqs=$WIDE_SEQS ${CMDLINE:-}" boot_run "$patched"
	judge "$RUN" "$(flavour_name "$patched"), 8 nodes, node 5 memoryless"
fi

# 16 nodes, the last 8 CPU-less in a slower tier (the kernels have 8
# CPUs), 256 MiB each: the differential sequences again, over node ids
# past 8 and folds of many more nodes, the topology and badinput cases,
# and weighted interleave and demotion across nodes 0, 1, 8 and 9.
NODES16=${NODES16:-1}
big_suites=$(suites_among differential topology badinput tiers demotion)
if [[ $NODES16 != 0 && $WIDE_SEQS != 0 && $patched == *-wide && -n $big_suites ]]; then
	NODES=16 CPULESS=8,9,10,11,12,13,14,15 NODE_MEM=256 \
		SUITES=$big_suites CMDLINE="numapol.sem_seqs=$WIDE_SEQS ${CMDLINE:-}" \
		boot_run "$patched"
	judge "$RUN" "$(flavour_name "$patched"), 16 nodes, 8 CPU-less"
fi

# Memory hotplug: node 3's memory is a DIMM the guest can offline, which
# needs a kernel with memory hotplug (the wide configuration).
HOTPLUG=${HOTPLUG:-1}
if [[ $HOTPLUG != 0 && $patched == *-wide ]]; then
	HOTPLUG_NODE=3 SUITES=memhotplug boot_run "$patched"
	judge "$RUN" "$(flavour_name "$patched"), node 3's memory hotplugged"
fi

# CPU-less memory nodes in a slower memory tier, as CXL memory expanders
# appear: the kernel learns the tiers from an ACPI HMAT table, which the
# wide configuration reads.
TIERS=${TIERS:-1}
tiers_suites=$(suites_among topology conformance tiers demotion)
if [[ $TIERS != 0 && $patched == *-wide && -n $tiers_suites ]]; then
	CPULESS=2,3 SUITES=$tiers_suites boot_run "$patched"
	judge "$RUN" "$(flavour_name "$patched"), nodes 2 and 3 CPU-less, a slower tier"
fi

echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
