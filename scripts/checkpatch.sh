#!/bin/bash
# checkpatch.pl --strict over the series, with the tree's own script.
# Two checks are off, for reasons the cover letter gives:
#   UNKNOWN_COMMIT_ID  the tree is Debian's tarball, without the history
#                      that Fixes: tags point into;
#   FILE_PATH_CHANGES  mm/ is already in MAINTAINERS as a whole.
# Exit 0 clean, 1 findings, 2 harness error.
# Usage: scripts/checkpatch.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
[ -x "$KSRC/scripts/checkpatch.pl" ] || die "no kernel tree: run prepare-tree.sh"
shopt -s nullglob
series=("$PATCH_DIR"/[0-9]*.patch)
[ ${#series[@]} -gt 0 ] || { echo "no patches"; exit 0; }

# Debian's python3, which has python3-ply and python3-git for the SPDX
# check, even when another python3 comes first in PATH.
rc=0
PATH=/usr/bin:$PATH "$KSRC/scripts/checkpatch.pl" --strict --terse --show-types \
	--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "${series[@]}" || rc=$?
[ "$rc" = 0 ] || exit 1
