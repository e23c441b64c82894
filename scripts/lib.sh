# shellcheck shell=bash
# Common settings and helpers for the host scripts. Source it, do not run it.
#
# Exit codes used by every script: 0 pass, 1 tests failed, 2 harness error.

PROJECT=numapol
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything large lives outside the checkout: kernel trees, builds, ccache.
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/$PROJECT}
# KERNEL: the Debian kernel line to build. 6.12 takes the series in
# patches/; 6.1, Debian 12's own line, takes its backport in patches-6.1/.
# Each line has its own trees and builds in the cache.
KERNEL=${KERNEL:-6.12}
# shellcheck disable=SC2034 # PATCH_DIR: read by the scripts that source this
case $KERNEL in
6.12) KERNEL_CACHE=$CACHE_DIR PATCH_DIR=$REPO_DIR/patches ;;
6.1) KERNEL_CACHE=$CACHE_DIR/6.1 PATCH_DIR=$REPO_DIR/patches-6.1 ;;
*) echo "error: KERNEL must be 6.12 or 6.1, not '$KERNEL'" >&2; exit 2 ;;
esac
export KERNEL
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-$KERNEL.tar.xz}
# The pristine tree, a git repository whose branch "base" is the tarball.
KSRC=$KERNEL_CACHE/linux
# The guest programs are the same whatever kernel boots: they are built
# with the kselftest harness of the 6.12 tree.
# shellcheck disable=SC2034 # read by the scripts that source this
TESTS_KSRC=$CACHE_DIR/linux
# Run logs and reports stay next to the checkout, ignored by git.
OUT_DIR=${OUT_DIR:-$REPO_DIR/out}
V=${V:-0}
JOBS=${JOBS:-$(($(nproc) + 1))}

export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
export CCACHE_BASEDIR=$CACHE_DIR CCACHE_NOHASHDIR=1

die() {
	echo "error: $*" >&2
	exit 2
}

now() { date +%s; }

# step NAME LOG CMD...: run CMD (a program, not a shell function, so that
# its own "set -e" holds) with its output in LOG (and on the terminal
# with V=1), then print one line with the step's elapsed time. Returns CMD's
# status, so callers decide whether a failure is a harness error.
step() {
	local name=$1 log=$2 start rc=0
	shift 2
	mkdir -p "$(dirname "$log")"
	start=$(now)
	if [ "$V" = 1 ]; then
		"$@" 2>&1 | tee "$log" || rc=$?
	else
		"$@" >"$log" 2>&1 || rc=$?
	fi
	if [ "$rc" = 0 ]; then
		printf '  %-5s %-44s %4ss\n' ok "$name" $(($(now) - start))
	else
		printf '  %-5s %-44s %4ss  (log: %s)\n' FAIL "$name" $(($(now) - start)) "$log"
		[ "$V" = 1 ] || tail -n 15 "$log" | sed 's/^/        | /'
	fi
	return "$rc"
}

# The exact point release of the extracted tree, e.g. 6.12.118.
kernel_release() {
	make -s -C "$KSRC" kernelversion 2>/dev/null
}

# The build name of a flavour: FLAVOUR, or FLAVOUR+extra-HASH when
# EXTRA_PATCHES or EXTRA_CONFIG add to it, so that such a kernel gets its
# own build. A build name is its own name: run.info records build names,
# and check-run.sh finds a run's build from it.
flavour_name() {
	local flavour=$1
	if [[ $flavour != *+extra-* && -n ${EXTRA_PATCHES:-}${EXTRA_CONFIG:-} ]]; then
		# shellcheck disable=SC2086 # lists of paths
		flavour=$flavour+extra-$(cat ${EXTRA_PATCHES:-} ${EXTRA_CONFIG:-} | sha256sum | cut -c1-8)
	fi
	echo "$flavour"
}

# Each flavour has a worktree under the cache, and builds into a direct
# subdirectory of it: Kbuild then uses the relative srctree "..", so that
# every flavour compiles with the same command lines and ccache shares
# objects between them.
src_dir() {
	local name
	name=$(flavour_name "$1")
	# The prefixes of the series share one tree: each adds one patch.
	case $name in series-[0-9]*) name=series-prefix ;; esac
	echo "$KERNEL_CACHE/src/$name"
}
build_dir() { echo "$(src_dir "$1")/.build"; }

# set_toolchain FLAVOUR: the array TOOLCHAIN, the compiler make is given
# for configuring as for building. KMSAN exists only with clang;
# everything else builds with gcc. Both through ccache.
set_toolchain() {
	# shellcheck disable=SC2034 # read by the scripts that call this
	case $1 in
	kmsan*) TOOLCHAIN=(LLVM=1 "CC=ccache clang") ;;
	*) TOOLCHAIN=("CC=ccache gcc") ;;
	esac
}

# build_flavour FLAVOUR: apply the series and build, one progress line each.
# A failure here is a harness error.
build_flavour() {
	local name
	name=$(flavour_name "$1")
	step "apply $name" "$OUT_DIR/logs/apply-$name.log" \
		"$REPO_DIR/scripts/apply-series.sh" "$1" || exit 2
	step "build $name" "$OUT_DIR/logs/build-$name.log" \
		"$REPO_DIR/scripts/build-kernel.sh" "$1" || exit 2
}

# prepare_tree: the packages and the pristine tree, and the 6.12 tree
# the guest programs are built with when KERNEL is another line.
prepare_tree() {
	step packages "$OUT_DIR/logs/packages.log" \
		"$REPO_DIR/scripts/install-deps.sh" || exit 2
	step "extract $KERNEL" "$OUT_DIR/logs/extract-$KERNEL.log" \
		"$REPO_DIR/scripts/prepare-tree.sh" || exit 2
	if [ "$KERNEL" != 6.12 ]; then
		step "extract 6.12" "$OUT_DIR/logs/extract-6.12.log" \
			env KERNEL=6.12 KERNEL_TARBALL= "$REPO_DIR/scripts/prepare-tree.sh" || exit 2
	fi
}

# prepare_host: prepare_tree, and the guest initramfs.
prepare_host() {
	prepare_tree
	step initramfs "$OUT_DIR/logs/initramfs.log" \
		"$REPO_DIR/scripts/build-initramfs.sh" || exit 2
}

# A fresh directory for one guest run, named after the kernel line when it
# is not 6.12.
new_run_dir() {
	local dir
	dir=$OUT_DIR/runs/$(date +%Y%m%d-%H%M%S)-$1
	[ "$KERNEL" = 6.12 ] || dir+=-linux-$KERNEL
	mkdir -p "$dir"
	echo "$dir"
}

# boot_run FLAVOUR: boot it with $SUITES in a fresh run directory, left in
# RUN. A guest killed by the host timeout is for check-run.sh to judge; a
# harness error (2) or an interrupted boot (boot.sh died of a signal,
# 130 for Ctrl-C) ends the caller with boot.sh's status, rather than let
# it judge the run and boot the next. TOPOLOGY, when set, holds boot.sh
# settings ("CPULESS=2,3") that override the environment's.
boot_run() {
	local name rc=0
	name=$(flavour_name "$1")
	RUN=$(new_run_dir "$name")
	# shellcheck disable=SC2086 # settings, split on blanks
	step "boot $name: $SUITES" "$RUN/boot.log" \
		env ${TOPOLOGY:-} "$REPO_DIR/scripts/boot.sh" "$1" "$RUN" || rc=$?
	[ "$rc" -le 1 ] || exit "$rc"
}

# boot_failed FLAVOUR: boot_run FLAVOUR, and write RUN/failed.list:
# "suite/case" for every failed case (a suite's cases come before its own
# top-level result line). Exit 1 on a kernel problem.
boot_failed() {
	boot_run "$1"
	"$REPO_DIR/scripts/check-run.sh" "$RUN" >"$RUN/check.log" 2>&1 || true
	if [ -s "$RUN/kernel.problems" ]; then
		cat "$RUN/check.log"
		exit 1
	fi
	tr -d '\r' <"$RUN/results.ktap" | awk '
		/^    not ok [0-9]+ / { failed[n++] = $4 }
		/^(not )?ok [0-9]+ / {
			suite = $1 == "not" ? $4 : $3
			for (i = 0; i < n; i++) print suite "/" failed[i]
			n = 0
		}' >"$RUN/failed.list"
}

# listed_cases FILE HEADING: the cases listed as "- `suite/case`" in the
# section "## HEADING" of FILE, up to the next heading, sorted.
listed_cases() {
	sed -n "/^## $2\$/,/^## /s/^- \`\\([^\`]*\\)\`.*/\\1/p" "$1" | sort
}

# compare_failed FAILED LISTED: print how two sorted lists of cases
# differ; 1 when they do. A failure not listed is a finding; a listed case
# that passes makes the list stale.
compare_failed() {
	cmp -s "$1" "$2" && return 0
	comm -23 "$1" "$2" | sed 's/^/    finding, fails but is not listed: /'
	comm -13 "$1" "$2" | sed 's/^/    listed but passes: /'
	return 1
}
