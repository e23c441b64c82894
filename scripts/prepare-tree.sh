#!/bin/bash
# Extract Debian's linux-source-$KERNEL tarball into the cache, outside the
# checkout, as a git repository whose branch "base" is the pristine tarball.
# Flavours are built from worktrees of it. Does nothing when the tree is
# already there for the installed tarball.
# Usage: scripts/prepare-tree.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
[ -r "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL missing: install linux-source-$KERNEL"

stamp=$KERNEL_CACHE/linux.stamp
tarball_id=$(stat -c '%s %Y' "$KERNEL_TARBALL")
if [ -d "$KSRC/.git" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$tarball_id" ]; then
	exit 0
fi

# A different tarball: start over, builds included, since they belong to it.
rm -rf "$KSRC" "$KERNEL_CACHE/src" "$stamp"
tmp=$KERNEL_CACHE/linux.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xf "$KERNEL_TARBALL" -C "$tmp" --strip-components=1

# Debian's top-level .gitignore ignores every top-level path ("/*"), so add
# with --force: the base commit must hold the whole tarball.
export GIT_AUTHOR_NAME=$PROJECT GIT_AUTHOR_EMAIL=$PROJECT@localhost
export GIT_COMMITTER_NAME=$PROJECT GIT_COMMITTER_EMAIL=$PROJECT@localhost
export GIT_AUTHOR_DATE="$(stat -c %Y "$KERNEL_TARBALL") +0000"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
git -C "$tmp" init -q -b base
git -C "$tmp" config user.name "$PROJECT"
git -C "$tmp" config user.email "$PROJECT@localhost"
git -C "$tmp" add -f -A .
release=$(make -s -C "$tmp" kernelversion)
git -C "$tmp" commit -q -m "Linux $release as shipped in $(basename "$KERNEL_TARBALL")"
mv "$tmp" "$KSRC"
echo "$tarball_id" >"$stamp"
