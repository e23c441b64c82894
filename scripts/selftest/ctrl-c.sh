#!/bin/bash
# Show that Ctrl-C during a boot stops the guest and the harness: boot
# patched (built already) with the topology suite through boot_run, the
# way every script boots, as a job of its own; once its QEMU runs, send
# SIGINT to the job's process group as a terminal does, and check that
# within 15 s no QEMU of that run is left and the job has stopped, with
# status 130 (it died of SIGINT) or 2, rather than go on.
# Exit 0 when it does, 1 when not, 2 on a harness error.
# Usage: scripts/selftest/ctrl-c.sh
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
log=$OUT_DIR/logs/selftest-ctrl-c.log
mkdir -p "$(dirname "$log")"

# guest_pids: QEMU, and the timeout around it, of the run in $run. The
# run directory is on their command lines (the KTAP serial port's file).
guest_pids() {
	ps -eo pid=,args= | RUN_DIR=$run/ awk 'index($0, ENVIRON["RUN_DIR"]) && /qemu-system/ { print $1 }'
}

# With job control the job gets a process group of its own, as at an
# interactive shell, and does not ignore SIGINT: a script's background
# command would, and setsid cannot undo that.
set -m
SUITES=topology bash -c 'set -euo pipefail; . "$1"; boot_run patched
	echo "boot_run went on after SIGINT"' boot "$REPO_DIR/scripts/lib.sh" >"$log" 2>&1 &
job=$!
set +m
# Whatever ends this script, the job goes too.
trap 'kill -INT -- -"$job" 2>/dev/null || true' EXIT

echo "  ctrl-c: booting patched, waiting for its guest (log: $log)"
# The Ctrl-C comes once the guest's kernel runs, as it would for a user
# who watches a boot, not while QEMU starts.
run='' guest=''
while [ -z "$guest" ] || ! grep -qs '\] Linux version' "$run/console.log"; do
	kill -0 "$job" 2>/dev/null || die "the boot ended before its guest ran (log: $log)"
	sleep 1
	# boot.sh's last argument is the run directory.
	run=$(pgrep -a -g "$job" -f '/scripts/boot\.sh ' | awk '{ print $NF; exit }')
	[ -z "$run" ] || guest=$(guest_pids)
done

echo "  ctrl-c: the kernel of $run runs, SIGINT to the job's process group"
kill -INT -- -"$job"
start=$(now)
while { [ -n "$(guest_pids)" ] || kill -0 "$job" 2>/dev/null; } &&
	[ $(($(now) - start)) -lt 15 ]; do
	sleep 1
done

status=0
left=$(guest_pids)
if [ -n "$left" ]; then
	echo "  FAIL  QEMU of $run still running $(($(now) - start)) s after SIGINT:"
	ps -o pid=,args= -p "$(echo "$left" | paste -sd,)" | cut -c1-120 | sed 's/^/        | /'
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $left 2>/dev/null || true
	status=1
fi
if kill -0 "$job" 2>/dev/null; then
	echo "  FAIL  the boot still running $(($(now) - start)) s after SIGINT"
	kill -KILL -- -"$job" 2>/dev/null || true
	wait "$job" || true
	status=1
else
	rc=0
	wait "$job" || rc=$?
	case $rc in
	2 | 130) ;;
	*)
		echo "  FAIL  the boot exited $rc after SIGINT, not 130 or 2 (log: $log)"
		status=1
		;;
	esac
fi
[ "$status" = 1 ] ||
	echo "  ok    Ctrl-C: no guest left, the boot exited $rc within $(($(now) - start)) s"
exit "$status"
