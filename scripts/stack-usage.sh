#!/bin/bash
# The stack each function of mm/mempolicy.c and mm/page_alloc.c uses in two
# built flavours, from the compiler (-fstack-usage): every function whose
# frame differs, with the difference; a row marked "!" grows by more than
# 16 bytes. The two objects are compiled again with -fstack-usage in each
# flavour's build directory (the next build compiles them back, from
# ccache). Nothing runs in a guest or in the host kernel.
# Exit 0 when measured, 2 on a harness error.
# Usage: scripts/stack-usage.sh [OLD NEW]   (default: baseline patched)
set -euo pipefail
export LC_ALL=C
. "$(dirname "$0")/lib.sh"

case $# in
0) old=baseline new=patched ;;
2) old=$1 new=$2 ;;
*) echo "usage: $0 [OLD NEW]" >&2; exit 2 ;;
esac

# frames FLAVOUR: "function bytes" lines, one per function of both files.
frames() {
	local build
	build=$(build_dir "$1")
	[ -r "$build/.config" ] || die "$1 is not built: run build-kernel.sh $1"
	# The objects go too: built with -fstack-usage already, make would
	# not compile them again, and write no .su.
	rm -f "$build"/mm/mempolicy.su "$build"/mm/page_alloc.su \
		"$build"/mm/mempolicy.o "$build"/mm/page_alloc.o
	make -s -C "$(src_dir "$1")" O="$build" CC="ccache gcc" \
		KCFLAGS=-fstack-usage mm/mempolicy.o mm/page_alloc.o >/dev/null ||
		die "cannot compile $1's mm/mempolicy.o and mm/page_alloc.o"
	# "mempolicy.c:2512:14:alloc_pages_mpol_noprof	48	static"
	cat "$build"/mm/mempolicy.su "$build"/mm/page_alloc.su |
		awk -F'\t' '{ n = split($1, a, ":"); print a[n], $2 }' | sort
}

frames "$old" >"$OUT_DIR/stack-$old.txt"
frames "$new" >"$OUT_DIR/stack-$new.txt"
printf '%-44s %6s %6s %6s\n' function "$old" "$new" delta
join -a1 -a2 -e 0 -o 0,1.2,2.2 "$OUT_DIR/stack-$old.txt" "$OUT_DIR/stack-$new.txt" |
	awk '$2 != $3 {
		d = $3 - $2
		printf "%-44s %6d %6d %+6d%s\n", $1, $2, $3, d, (d > 16 ? " !" : "")
	}'
