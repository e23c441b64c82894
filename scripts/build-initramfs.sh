#!/bin/bash
# Build the guest test binaries (static) and pack them with busybox,
# guest/init and the operators' tools the tools suite runs (Debian's
# numactl, numastat, migratepages and stress-ng, with their shared
# libraries) and bash-static, for the kernel's selftest scripts, into an
# initramfs, out/guest/initramfs.cpio.
# Usage: scripts/build-initramfs.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
# busybox-static's binary: the guest has no shared libraries.
busybox=/bin/busybox
[ -x "$busybox" ] || die "busybox missing: install busybox-static"

bin=$OUT_DIR/guest/tests
make -C "$REPO_DIR/tests" KSRC="$TESTS_KSRC" BIN="$bin"

root=$OUT_DIR/guest/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,tests}
cp "$busybox" "$root/bin/busybox"
[ -x /bin/bash-static ] || die "bash-static missing: install bash-static"
cp /bin/bash-static "$root/bin/bash"
cp "$REPO_DIR/guest/init" "$root/init"
cp "$bin"/* "$root/tests/"
# Each tool at its own path, with the libraries and loader ldd names.
for tool in numactl numastat migratepages stress-ng; do
	path=$(command -v "$tool") || die "$tool missing: install numactl and stress-ng"
	for file in "$path" $(ldd "$path" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$file")"
		cp -L "$file" "$root$file"
	done
done
(cd "$root" && find . | sort | cpio -o -H newc --quiet) >"$OUT_DIR/guest/initramfs.cpio"
ls -l "$OUT_DIR/guest/initramfs.cpio"
