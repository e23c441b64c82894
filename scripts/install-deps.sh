#!/bin/bash
# Install the Debian packages the build, the guest, the tests and the
# benchmark report need, when they are missing.
# "clang" adds clang (make kmsan), "matrix" also the cross-compiler and
# sparse (make matrix).
# Usage: scripts/install-deps.sh [clang|matrix]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in '' | clang | matrix) ;; *) echo "usage: $0 [clang|matrix]" >&2; exit 2 ;; esac
[ $# -le 1 ] || { echo "usage: $0 [clang|matrix]" >&2; exit 2; }

PACKAGES=(
	linux-source-6.12 linux-config-6.12 qemu-system-x86 busybox-static libnuma-dev e2fsprogs
	numactl stress-ng bash-static
	gcc make git flex bison bc libelf-dev libssl-dev cpio xz-utils
	ccache python3 python3-ply python3-git perl gnuplot-nox
)
# Another kernel line (KERNEL=6.1) needs its source and Debian's config too.
[ "$KERNEL" = 6.12 ] || PACKAGES+=("linux-source-$KERNEL" "linux-config-$KERNEL")
case ${1:-} in
clang) PACKAGES+=(clang lld llvm) ;;
matrix) PACKAGES+=(clang lld llvm sparse gcc-aarch64-linux-gnu) ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || die "apt-get update failed"
apt-get install -y -q "${missing[@]}" || die "apt-get install failed"
