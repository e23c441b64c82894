#!/bin/bash
# sizeof(struct STRUCT) in a built flavour, in bytes: the compiler's own
# answer, from mm/mempolicy.c (which sees struct mempolicy and struct
# task_struct) preprocessed with the flavour's config and a probe appended.
# Nothing runs in the guest or in the host kernel.
# Usage: scripts/struct-size.sh FLAVOUR STRUCT
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 FLAVOUR STRUCT" >&2; exit 2; }
build=$(build_dir "$1")
[ -r "$build/.config" ] || die "$1 is not built: run build-kernel.sh $1"

make -s -C "$(src_dir "$1")" O="$build" mm/mempolicy.i >/dev/null ||
	die "cannot preprocess mm/mempolicy.c"
probe=$(mktemp --suffix=.c)
trap 'rm -f "$probe" "${probe%.c}.s"' EXIT
{
	cat "$build/mm/mempolicy.i"
	echo "const unsigned long numapol_sizeof = sizeof(struct $2);"
} >"$probe"
gcc -w -S -O2 -o "${probe%.c}.s" "$probe" || die "cannot compile the probe"
sed -n '/^numapol_sizeof:/,/\.quad/s/^[[:space:]]*\.quad[[:space:]]*//p' \
	"${probe%.c}.s"
