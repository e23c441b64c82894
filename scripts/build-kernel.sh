#!/bin/bash
# Build the bzImage of a flavour prepared by apply-series.sh, incrementally
# and through ccache (its cache lives under the project cache).
# Usage: scripts/build-kernel.sh FLAVOUR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 FLAVOUR" >&2; exit 2; }
build=$(build_dir "$1")
[ -r "$build/.config" ] || die "$1 is not prepared: run apply-series.sh $1"

set_toolchain "$1"
make -C "$(src_dir "$1")" O="$build" -j"$JOBS" "${TOOLCHAIN[@]}" bzImage
ls -l "$build/arch/x86/boot/bzImage"
