# shellcheck shell=bash
# Common settings and helpers for the host scripts. Source it, do not run it.
#
# Exit codes used by every script: 0 pass, 1 tests failed, 2 harness error.

PROJECT=numapol
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything large lives outside the checkout: kernel trees, builds, ccache.
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/$PROJECT}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The pristine tree, a git repository whose branch "base" is the tarball.
KSRC=$CACHE_DIR/linux
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
	echo "$CACHE_DIR/src/$name"
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

# prepare_tree: the packages and the pristine tree.
prepare_tree() {
	step packages "$OUT_DIR/logs/packages.log" \
		"$REPO_DIR/scripts/install-deps.sh" || exit 2
	step extract "$OUT_DIR/logs/extract.log" \
		"$REPO_DIR/scripts/prepare-tree.sh" || exit 2
}

# prepare_host: prepare_tree, and the guest initramfs.
prepare_host() {
	prepare_tree
	step initramfs "$OUT_DIR/logs/initramfs.log" \
		"$REPO_DIR/scripts/build-initramfs.sh" || exit 2
}

# A fresh directory for one guest run.
new_run_dir() {
	local dir
	dir=$OUT_DIR/runs/$(date +%Y%m%d-%H%M%S)-$1
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
