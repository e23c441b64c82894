#!/bin/bash
# One cell of `make matrix`: configure TREE (baseline or patched) for a row
# of configs/matrix.rows in its own build directory under the cache, run
# `make prepare`, then build OBJECTS with W=1 and sparse (C=2), and with
# LINK=1 a whole vmlinux, and the modules where there are any. The
# output is the log scripts/matrix.sh judges.
# Writes DIR/objects.status, "object NAME builds|FAILS" a line, and each
# object's output to DIR/objects/NAME.log.
# Exit 0 done (objects that do not build are judged against baseline's
# by matrix.sh), 1 the link failed, 2 harness error.
#
# Environment: OBJECTS (the objects to build), LINK (0 or 1).
# Usage: scripts/matrix-row.sh ROW TREE ARCH TOOLCHAIN [CONFIG...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 4 ] || { echo "usage: $0 ROW TREE ARCH TOOLCHAIN [CONFIG...]" >&2; exit 2; }
row=$1 tree=$2 arch=$3 toolchain=$4
shift 4
src=$(src_dir "$tree")
dir=$CACHE_DIR/matrix/$row/$tree
[ -e "$src/.git" ] || die "$tree is not prepared: run apply-series.sh $tree"

case $arch in
x86_64) base=("$REPO_DIR/configs/base.config" "$REPO_DIR/configs/series.config") ;;
i386 | arm64) base=("$REPO_DIR/configs/matrix-base-$arch.config") ;;
*) die "unknown ARCH $arch" ;;
esac
cross=
[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
args=(-C "$src" O="$dir" ARCH="$arch" -j"$JOBS")
case $toolchain in
gcc) args+=(CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" HOSTCC="ccache gcc") ;;
llvm) args+=(LLVM=1) ;;
*) die "unknown TOOLCHAIN $toolchain" ;;
esac

# Configuration: tinyconfig, the architecture's base, the row's options,
# which must all survive olddefconfig.
mkdir -p "$dir"
rm -f "$dir/objects.status" "$dir/objects.status.next"
make -s "${args[@]}" tinyconfig
for opt in "$@"; do
	case $opt in
	*=n) echo "# ${opt%=n} is not set" ;;
	*) echo "$opt" ;;
	esac
done >"$dir/row.config"
"$src/scripts/kconfig/merge_config.sh" -m -O "$dir" "$dir/.config" \
	"${base[@]}" "$dir/row.config"
make -s "${args[@]}" olddefconfig
for opt in "$@"; do
	case $opt in
	*=n) ! grep -q "^${opt%=n}=" "$dir/.config" ;;
	*) grep -qxF "$opt" "$dir/.config" ;;
	esac || die "$opt did not survive olddefconfig"
done
echo "config: ${*:-as the base}"

make "${args[@]}" prepare
# One object at a time: Kbuild compiles a single target even when the
# configuration leaves its file out (cpuset.c without CONFIG_CPUSETS), so
# scripts/matrix.sh compares each object's status with baseline's. Its
# findings, with W=1 and sparse, go to the log.
mkdir -p "$dir/objects"
for object in $OBJECTS; do
	log=$dir/objects/${object//\//_}.log
	# Compiled again on every run, or a run after the first would show no
	# compiler warnings.
	rm -f "$dir/$object"
	if make "${args[@]}" W=1 C=2 "$object" >"$log" 2>&1; then
		echo "object $object builds" >>"$dir/objects.status.next"
	else
		echo "object $object FAILS" >>"$dir/objects.status.next"
	fi
	cat "$log"
done
mv "$dir/objects.status.next" "$dir/objects.status"
if [ "${LINK:-0}" = 1 ]; then
	# With modules, modpost checks what they import against the exports.
	targets=(vmlinux)
	grep -qx 'CONFIG_MODULES=y' "$dir/.config" && targets+=(modules)
	make "${args[@]}" "${targets[@]}" || exit 1
fi
