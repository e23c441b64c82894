#!/bin/bash
# The build robot's matrix: baseline and the series under every
# configuration of configs/matrix.rows (scripts/matrix-row.sh builds each
# cell). Both trees build the objects of the files the series touches and
# of the files that use what its headers change, with W=1 and sparse; a
# row passes when the series' objects build and show no compiler warning
# or sparse finding that baseline's do not. Rows with the word "link" also
# link a whole vmlinux of the series. Logs in out/matrix/ROW/, the table
# in out/matrix/matrix.md.
# Exit 0 pass, 1 a row failed, 2 harness error.
#
# Environment: ROWS (names, default every row).
# Usage: scripts/matrix.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

step packages "$OUT_DIR/logs/packages.log" \
	"$REPO_DIR/scripts/install-deps.sh" matrix || exit 2
step extract "$OUT_DIR/logs/extract.log" \
	"$REPO_DIR/scripts/prepare-tree.sh" || exit 2
for tree in baseline patched; do
	step "apply $tree" "$OUT_DIR/logs/apply-$tree.log" \
		"$REPO_DIR/scripts/apply-series.sh" "$tree" || exit 2
done

# The files the series touches, and those that call what its headers
# declare differently: a changed prototype breaks its callers' builds.
patched_src=$(src_dir patched)
changed=$(git -C "$patched_src" diff base..HEAD -- '*.h' | grep -E '^[-+]' |
	grep -oE '\b[a-z_]*(mpol|mempolicy|cpuset|huge_node|policy)[a-z_]*\(' |
	tr -d '(' | sort -u | paste -sd '|')
OBJECTS=$({
	git -C "$patched_src" diff --name-only base..HEAD -- '*.c'
	git -C "$patched_src" grep -lwE "$changed" -- '*.c'
} | sort -u | sed 's/\.c$/.o/' | paste -sd ' ')
export OBJECTS
echo "  objects: $OBJECTS"

# findings ROW TREE: the compiler's and sparse's findings on the objects
# baseline builds in ROW (the others are not in its configuration),
# without the tree's path and without line and column numbers, which the
# series moves, one a line, sorted.
findings() {
	local object
	for object in $(awk '$3 == "builds" { print $2 }' "$matrix/$1/baseline.status"); do
		cat "$CACHE_DIR/matrix/$1/$2/objects/${object//\//_}.log"
	done | grep -E ': (warning|error):' |
		sed -E -e 's#^.*/src/[^/]+/##' -e 's/^([^:]+):[0-9]+:([0-9]+:)? /\1: /' |
		sort || true
}

matrix=$OUT_DIR/matrix
mkdir -p "$matrix"
table=$matrix/matrix.md
{
	echo "| row | arch | toolchain | options | objects baseline builds | objects the series breaks | new findings |"
	echo "|---|---|---|---|---|---|---|"
} >"$table"
status=0 start=$(now)
while read -r row arch toolchain rest; do
	case $row in '' | '#'*) continue ;; esac
	[ -z "${ROWS:-}" ] || [[ " $ROWS " == *" $row "* ]] || continue
	opts=() link=0
	for word in $rest; do
		case $word in link) link=1 ;; *) opts+=("$word") ;; esac
	done
	mkdir -p "$matrix/$row"
	linked=''
	for tree in baseline patched; do
		rc=0 LINK=$link
		[ "$tree" = baseline ] && LINK=0
		export LINK
		step "$row: $tree" "$matrix/$row/$tree.log" \
			"$REPO_DIR/scripts/matrix-row.sh" "$row" "$tree" "$arch" \
			"$toolchain" "${opts[@]+"${opts[@]}"}" || rc=$?
		case $rc in
		0) ;;
		1) linked='; the link FAILS' ;;
		*) exit 2 ;;
		esac
		cp "$CACHE_DIR/matrix/$row/$tree/objects.status" "$matrix/$row/$tree.status"
	done
	for tree in baseline patched; do
		findings "$row" "$tree" >"$matrix/$row/$tree.findings"
	done
	[ "$link" = 1 ] && [ -z "$linked" ] && linked='; links'
	# Objects this configuration builds on baseline, and those of them
	# the series breaks; the others are not in the configuration.
	built=$(grep -c ' builds$' "$matrix/$row/baseline.status" || true)
	broken=$(join <(awk '$3 == "builds" { print $2 }' "$matrix/$row/baseline.status" | sort) \
		<(awk '$3 == "FAILS" { print $2 }' "$matrix/$row/patched.status" | sort) | paste -sd ' ')
	comm -13 "$matrix/$row/baseline.findings" "$matrix/$row/patched.findings" \
		>"$matrix/$row/new.findings"
	new=$(grep -c . "$matrix/$row/new.findings" || true)
	if [ -n "$broken" ] || [ "$new" != 0 ] || [[ $linked == *FAILS* ]]; then
		status=1
		echo "    $row: the series breaks ${broken:-no object}$linked, $new new finding(s):"
		head -n 5 "$matrix/$row/new.findings" | sed 's/^/      /'
	fi
	echo "| $row | $arch | $toolchain | ${opts[*]:-} | $built | ${broken:-none}$linked | $new |" >>"$table"
done <"$REPO_DIR/configs/matrix.rows"
echo "matrix: $(($(now) - start)) s, table in $table"
exit "$status"
