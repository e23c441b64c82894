#!/bin/bash
# Prepare the source and .config of one kernel flavour, in its own worktree
# and build directory under the cache:
#
#   baseline      pristine 6.12 as Debian ships it
#   patched       baseline + the series (patches/, or patches-6.1/ for KERNEL=6.1)
#   debug         patched + configs/debug.config
#   kcsan         patched + configs/kcsan.config
#   kmsan         patched + configs/kmsan.config, built with clang
#   mutant-NAME   patched + mutants/NAME.patch
#   series-K      baseline + the first K patches of the series
#
# FLAVOUR-wide is FLAVOUR on the wide configuration: memory management
# configured as Debian configures it (scripts/wide-config.sh), with
# configs/wide.config, in a build of its own.
# EXTRA_PATCHES="a.patch b.patch" applies further patches on top, mail
# from git format-patch or plain diffs; the flavour then gets a build of
# its own (see flavour_name in lib.sh).
# EXTRA_CONFIG="x.config" merges further config fragments.
# Usage: scripts/apply-series.sh FLAVOUR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 baseline|patched|debug|kcsan|kmsan|mutant-NAME|series-K[-wide]" >&2; exit 2; }
flavour=$1
kind=${flavour%-wide}

series=()
for p in "$PATCH_DIR"/[0-9]*.patch; do
	[ -e "$p" ] || continue
	case $(basename "$p") in 0000-*) continue ;; esac
	series+=("$p")
done

fragments=("$REPO_DIR/configs/base.config")
if [ "$kind" != "$flavour" ]; then
	fragments+=("$(build_dir "$flavour")/wide-debian.config"
		"$REPO_DIR/configs/wide.config")
fi
case $kind in
baseline) patches=() ;;
patched) patches=("${series[@]+"${series[@]}"}") ;;
debug | kcsan | kmsan)
	patches=("${series[@]+"${series[@]}"}")
	fragments+=("$REPO_DIR/configs/$kind.config")
	;;
series-[0-9]*)
	count=${kind#series-}
	[ "$count" -ge 1 ] && [ "$count" -le ${#series[@]} ] ||
		die "the series has ${#series[@]} patches, not $count"
	patches=("${series[@]:0:$count}")
	;;
mutant-*)
	mutant=$REPO_DIR/mutants/${kind#mutant-}.patch
	[ -r "$mutant" ] || die "no such mutant: $mutant"
	patches=("${series[@]+"${series[@]}"}" "$mutant")
	;;
*) die "unknown flavour '$flavour'" ;;
esac
for frag in ${EXTRA_CONFIG:-}; do
	[ -r "$frag" ] || die "EXTRA_CONFIG: cannot read $frag"
	fragments+=("$(readlink -f "$frag")")
done
for p in ${EXTRA_PATCHES:-}; do
	[ -r "$p" ] || die "EXTRA_PATCHES: cannot read $p"
	patches+=("$(readlink -f "$p")")
done

# option_defined TREE OPT: OPT has a Kconfig entry among the files git
# tracks in TREE. A failing git grep is a harness error, not "undefined":
# that would drop the option silently.
option_defined() {
	local rc=0
	git -C "$1" grep -q "^config $2\$" -- '*Kconfig*' || rc=$?
	[ "$rc" -le 1 ] || die "git grep failed in $1"
	return "$rc"
}

# series_options_defined TREE: every option of configs/series.config is
# defined in TREE.
series_options_defined() {
	local opt
	for opt in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$REPO_DIR/configs/series.config"); do
		option_defined "$1" "$opt" || return 1
	done
}

# apply_patch PATCH: commit PATCH in the worktree. git am takes mail (git
# format-patch output); a plain diff, with no "From " or "Subject:" line
# before its first diff, is no mail to it, so it goes through git apply
# and is committed with its file name as the subject, by the tree's
# identity, the one git am commits with.
apply_patch() {
	# shellcheck disable=SC2016 # sed's last line, $
	if sed -n -e '/^\(From \|Subject:\)/q0' -e '/^\(diff \|--- \)/q1' \
		-e '$q1' "$1"; then
		git -C "$src" am -q "$1"
	else
		git -C "$src" apply --index "$1" &&
			git -C "$src" commit -q -m "$(basename "$1")"
	fi
}

name=$(flavour_name "$flavour")
src=$(src_dir "$flavour")
build=$(build_dir "$flavour")
release=$(kernel_release)
echo "Linux $release, flavour $name"

# 1. Source: a worktree at base with each patch applied as a commit. Redone
#    only when the patch list or a patch changed, so that unchanged files
#    keep their timestamps and the build stays incremental.
#    The key is the patches' names and contents, not their paths: a clone
#    elsewhere (a worktree, CI's checkout) shares the build.
key=$( (for p in "${patches[@]+"${patches[@]}"}"; do basename "$p"; done
	cat "${patches[@]+"${patches[@]}"}" /dev/null) | sha256sum)
if [ ! -e "$src/.git" ]; then
	rm -rf "$src"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$src" base
fi
mkdir -p "$build"
if [ "$(cat "$build/patches.key" 2>/dev/null)" != "$key" ]; then
	rm -f "$build/patches.key"
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" checkout -q -f --detach base
	for p in "${patches[@]+"${patches[@]}"}"; do
		echo "applying $(basename "$p")"
		apply_patch "$p" ||
			die "$(basename "$p") does not apply to Linux $release ($name)"
	done
	echo "$key" >"$build/patches.key"
fi
git -C "$src" log --oneline base..HEAD

# 2. Config: tinyconfig + fragments, and every requested option must
#    survive olddefconfig. .config is replaced only when it changed.
#    configs/series.config holds options that a patch of the series adds:
#    merged once the tree defines them, so that a prefix of the series
#    runs the KUnit test from the patch that adds it on.
if [ "$kind" != "$flavour" ]; then
	"$REPO_DIR/scripts/wide-config.sh" "$src" "$build/wide-debian.config"
fi
if series_options_defined "$src"; then
	fragments+=("$REPO_DIR/configs/series.config")
fi
next=$build/.config.next
# The compiler decides what Kconfig offers (KMSAN needs clang).
set_toolchain "$flavour"
make -s -C "$src" O="$build" KCONFIG_CONFIG="$next" "${TOOLCHAIN[@]}" tinyconfig
KCONFIG_CONFIG=$next "$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
	"$next" "${fragments[@]}"
make -s -C "$src" O="$build" KCONFIG_CONFIG="$next" "${TOOLCHAIN[@]}" olddefconfig
lost=0
for frag in "${fragments[@]}"; do
	while read -r line; do
		case $line in
		CONFIG_*) grep -qxF "$line" "$next" && continue ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$next" || continue
			;;
		*) continue ;;
		esac
		# An option younger than an older line (CPUSETS_V1 on 6.1) is
		# not there to ask for; on 6.12 every option must be.
		opt=${line#\# }
		opt=${opt#CONFIG_}
		opt=${opt%%[= ]*}
		if [ "$KERNEL" != 6.12 ] && ! option_defined "$src" "$opt"; then
			echo "config: Linux $release has no CONFIG_$opt ($(basename "$frag"))"
			continue
		fi
		echo "config: '$line' from $(basename "$frag") did not survive olddefconfig"
		lost=1
	done <"$frag"
done
[ "$lost" = 0 ] || die "requested kernel options were dropped: fix configs/"
cmp -s "$next" "$build/.config" || mv "$next" "$build/.config"
rm -f "$next"
