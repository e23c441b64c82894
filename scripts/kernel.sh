#!/bin/bash
# Build kernel flavours, each quietly as one step (its logs in out/logs/,
# everything with V=1): the packages, the pristine tree, then the series
# applied and the kernel built for each FLAVOUR named.
# Exit 0 when built, 2 on a harness error.
# Usage: scripts/kernel.sh FLAVOUR...   (see apply-series.sh for flavours)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 FLAVOUR..." >&2; exit 2; }
prepare_tree
for flavour in "$@"; do
	build_flavour "$flavour"
done
