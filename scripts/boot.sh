#!/bin/bash
# Boot a built flavour in QEMU with emulated NUMA nodes and run guest suites.
# Writes RUN_DIR/console.log (ttyS0: kernel and init), RUN_DIR/results.ktap
# (ttyS1: the suites' KTAP) and RUN_DIR/run.info. Exit 0 when the guest
# powered off by itself, 1 when the host timeout killed it, 2 on error.
#
# Environment:
#   NODES=2|4|8|16     NUMA nodes (default 4; 16 needs 8 of them CPULESS:
#                      the kernels have 8 CPUs at most)
#   MEMLESS=N          make node N memoryless (default: none)
#   CPULESS=N,M        give nodes N, M (the last ones) memory and no
#                      CPUs, in a slower memory tier (an HMAT table:
#                      100 ns and 2 GB/s from every CPU, against 10-20 ns
#                      and 10 GB/s), as CXL memory expanders appear
#                      (default: none)
#   HOTPLUG_NODE=N     give node N its memory as a DIMM, onlined movable,
#                      so that the guest can offline all of it (default:
#                      none; the kernel needs memory hotplug: FLAVOUR-wide)
#   NODE_MEM=MiB       memory per node (default 512)
#   NUMA_DIST=1        give QEMU a distance table (10 local, +10 a hop)
#   SUITES=a,b         suites to run (default topology)
#   SUITE_TIMEOUT=S    guest timeout per suite (default 600)
#   EARLY_BOOT_LIMIT=S a guest whose kernel has not started /init after S
#                      seconds (default 300, ten times that with ICOUNT=1)
#                      is stopped, as after the host timeout
#   ACCEL=auto|tcg|kvm auto uses KVM only if a probe boot with it works
#   CMDLINE=...        appended to the kernel command line
# Every guest also gets two virtio disks, sparse files made for the run and
# removed after it: vda with an empty ext4 file system (page cache on a
# real file system), vdb for swap. Kernels without virtio (the tiny
# flavours) do not see them.
#   ICOUNT=1           TCG with guest time counting instructions (one a
#                      ns, idle time skipped), so that timings do not
#                      depend on the host's load; slower, one vCPU at a time
# Usage: scripts/boot.sh FLAVOUR RUN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 FLAVOUR RUN_DIR" >&2; exit 2; }
flavour=$1 run_dir=$2
NODES=${NODES:-4} MEMLESS=${MEMLESS:-} NODE_MEM=${NODE_MEM:-512}
HOTPLUG_NODE=${HOTPLUG_NODE:-} CPULESS=${CPULESS:-}
SUITES=${SUITES:-topology} SUITE_TIMEOUT=${SUITE_TIMEOUT:-600}
ACCEL=${ACCEL:-auto} ICOUNT=${ICOUNT:-0}

kernel=$(build_dir "$flavour")/arch/x86/boot/bzImage
initramfs=$OUT_DIR/guest/initramfs.cpio
[ -r "$kernel" ] || die "no kernel for $flavour: build it first"
[ -r "$initramfs" ] || die "no initramfs: run build-initramfs.sh"
case $NODES in 2 | 4 | 8 | 16) ;; *) die "NODES must be 2, 4, 8 or 16" ;; esac
if [ -n "$MEMLESS" ] && { [ "$MEMLESS" -ge "$NODES" ] || [ "$MEMLESS" = 0 ]; }; then
	die "MEMLESS must name a node from 1 to $((NODES - 1))"
fi

if [ -n "$HOTPLUG_NODE" ] && { [ "$HOTPLUG_NODE" -ge "$NODES" ] ||
	[ "$HOTPLUG_NODE" = 0 ] || [ "$HOTPLUG_NODE" = "$MEMLESS" ]; }; then
	die "HOTPLUG_NODE must name a node from 1 to $((NODES - 1)), not MEMLESS"
fi

# is_cpuless N: whether CPULESS names node N.
is_cpuless() { [[ ",$CPULESS," == *,$1,* ]]; }
cpuless=0
for n in ${CPULESS//,/ }; do
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" = 0 ] || [ "$n" -ge "$NODES" ]; then
		die "CPULESS must name nodes from 1 to $((NODES - 1))"
	fi
	cpuless=$((cpuless + 1))
done
# Linux numbers the nodes in the order of the ACPI SRAT, which lists the
# CPUs' nodes first: only CPU-less nodes numbered last keep QEMU's ids.
for n in ${CPULESS//,/ }; do
	[ "$n" -ge $((NODES - cpuless)) ] ||
		die "CPULESS must name the last $cpuless nodes: the guest numbers nodes with CPUs first"
done
if [ "$cpuless" != 0 ] && [ -n "$MEMLESS$HOTPLUG_NODE" ]; then
	die "CPULESS goes with neither MEMLESS nor HOTPLUG_NODE"
fi

# Topology: 4 CPUs spread over the nodes (8 and 16 nodes get one CPU
# each), one socket a node, so that no cache is shared across nodes.
# CPU-less nodes get no socket, and their share of CPUs goes.
per_node=$(((NODES > 4 ? NODES : 4) / NODES))
sockets=$((NODES - cpuless)) cpus=$(((NODES - cpuless) * per_node))
[ "$cpus" -le 8 ] || die "$cpus CPUs, and the kernels have 8 at most: give CPULESS more nodes"
numa=() mem=0 dimms=() cpu_nodes=0
for ((n = 0; n < NODES; n++)); do
	if is_cpuless "$n"; then
		# QEMU's HMAT needs an initiator for a node without CPUs.
		numa+=(-object "memory-backend-ram,id=mem$n,size=${NODE_MEM}M"
			-numa "node,nodeid=$n,memdev=mem$n,initiator=0")
		mem=$((mem + NODE_MEM))
		continue
	fi
	first=$((cpu_nodes * per_node)) last=$((cpu_nodes * per_node + per_node - 1))
	cpu_nodes=$((cpu_nodes + 1))
	if [ "$n" = "$MEMLESS" ]; then
		numa+=(-numa "node,nodeid=$n,cpus=$first-$last")
		continue
	fi
	if [ "$n" = "$HOTPLUG_NODE" ]; then
		# No boot memory: the node's memory is a DIMM, which the
		# guest onlines (movable) when it finds it, and can offline.
		numa+=(-numa "node,nodeid=$n,cpus=$first-$last")
		dimms+=(-object "memory-backend-ram,id=dimm$n,size=${NODE_MEM}M"
			-device "pc-dimm,id=dimm$n,memdev=dimm$n,node=$n")
		continue
	fi
	numa+=(-object "memory-backend-ram,id=mem$n,size=${NODE_MEM}M"
		-numa "node,nodeid=$n,memdev=mem$n,cpus=$first-$last")
	mem=$((mem + NODE_MEM))
done
# The memory of CPU-less nodes is slower: the kernel puts it in a lower
# memory tier, which demotion moves cold pages to.
if [ "$cpuless" != 0 ]; then
	numa+=(-machine hmat=on)
	for ((i = 0; i < NODES; i++)); do
		is_cpuless "$i" && continue
		for ((t = 0; t < NODES; t++)); do
			latency=$((t == i ? 10 : 20)) bandwidth=10G
			is_cpuless "$t" && latency=100 bandwidth=2G
			numa+=(-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$latency"
				-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bandwidth")
		done
	done
fi
if [ "${NUMA_DIST:-0}" = 1 ]; then
	for ((i = 0; i < NODES; i++)); do
		for ((j = i + 1; j < NODES; j++)); do
			numa+=(-numa "dist,src=$i,dst=$j,val=$((10 + 10 * (j - i)))")
		done
	done
fi

cmdline="console=ttyS0 panic=-1 numapol.suites=$SUITES numapol.timeout=$SUITE_TIMEOUT"
cmdline+=" numapol.nodes=$NODES${MEMLESS:+ numapol.memless=$MEMLESS}${CPULESS:+ numapol.cpuless=$CPULESS}"
if [ -n "$HOTPLUG_NODE" ]; then
	cmdline+=" memhp_default_state=online_movable numapol.hotplug_node=$HOTPLUG_NODE"
fi
case $flavour in
# The debug kernels look for splats, and run 2 to 4 times slower: 100
# unrelated cpuset changes in the readers suite, not 1,000, 200 changes
# in the forks suite, not 1,000, 200 differential sequences, not 1,000,
# and 5 s a stress case, not 8, so that they end within their time there
# and make test within its own (CMDLINE= still sets any of them).
# slab_nomerge keeps the derived nodes' cache apart, so that fault
# injection can fail its allocations alone.
debug*) cmdline+=" panic_on_warn=1 slab_nomerge numapol.unrelated_changes=100 numapol.fork_changes=200"
	cmdline+=" numapol.sem_seqs=200 numapol.stress_seconds=5" ;;
# With 5-level paging (QEMU's -cpu max has LA57) the KMSAN kernel oopsed
# at boot in two boots of three, in kmsan_unpoison_memory() on an
# unmapped address in the vmalloc area; with 4 levels it boots.
kmsan*) cmdline+=" no5lvl" ;;
esac

# qemu_cmd ACCEL CMDLINE RESULTS_FILE: set the array QEMU.
qemu_cmd() {
	local memory=${mem}M
	[ ${#dimms[@]} = 0 ] || memory+=",slots=1,maxmem=$((mem + NODE_MEM))M"
	QEMU=(qemu-system-x86_64 -accel "$1" -cpu max -m "$memory"
		-smp "$cpus,sockets=$sockets,cores=$per_node,threads=1"
		"${numa[@]}" "${dimms[@]+"${dimms[@]}"}" -kernel "$kernel" -initrd "$initramfs"
		-append "$2" -nodefaults -no-reboot -nographic
		-serial stdio -serial "file:$3")
	if [ "$1" = tcg ] && [ "$ICOUNT" = 1 ]; then
		# shellcheck disable=SC2054 # QEMU's own commas
		QEMU+=(-icount shift=0,sleep=off)
	fi
}

# run_guest SECONDS [CONSOLE]: run QEMU (the array) under timeout, which
# kills it after SECONDS (KILLs it 10 s later); returns timeout's status.
# In the background, so that the traps below run as soon as a signal
# comes, not when the guest is done. With CONSOLE, a guest whose kernel
# has not started /init there after EARLY_BOOT_LIMIT seconds is stopped,
# and run_guest returns 3.
run_guest() {
	local pid waited=0
	timeout -k 10 "$1" "${QEMU[@]}" </dev/null 2>&1 &
	pid=$!
	while [ -n "${2:-}" ] && kill -0 "$pid" 2>/dev/null &&
		! grep -q 'Run /init' "$2"; do
		if [ "$waited" -ge "$EARLY_BOOT_LIMIT" ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" || true
			return 3
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait "$pid"
}

# timeout puts QEMU in a process group of its own, which a Ctrl-C on the
# terminal does not reach: pass INT, TERM and HUP on to timeout (it passes
# them on to QEMU), wait for the guest to go, then die of the same signal,
# so that the callers stop too rather than go on to the next step. Any
# other way out stops the guest as well.
# stop_guest SIGNAL: send it to the running guest, if any, and wait.
# shellcheck disable=SC2317 # run by the traps
stop_guest() {
	local pids
	pids=$(jobs -p)
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086 # a list of pids
	kill -"$1" $pids 2>/dev/null || true
	# Not a bare wait: with V=1 it would wait for tee, which waits for
	# this shell to close its end of the pipe.
	# shellcheck disable=SC2086
	wait $pids || true
}
# shellcheck disable=SC2317 # run by the traps
on_signal() {
	stop_guest "$1"
	remove_disks
	trap - "$1" EXIT
	kill -"$1" $$
}
# shellcheck disable=SC2317 # run by the traps
remove_disks() { rm -f -- "$run_dir/disk.img" "$run_dir/swap.img"; }
# shellcheck disable=SC2317
on_exit() {
	stop_guest TERM
	remove_disks
}
trap on_exit EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

# /dev/kvm may exist and still not boot guests: try it once per host
# kernel and QEMU version, and remember the answer, in accel. Not in a
# command substitution, whose subshell would not stop the probe's guest.
probe_kvm() {
	local cache answer=tcg
	cache=$CACHE_DIR/kvm-probe.$(uname -r).$(qemu-system-x86_64 --version | head -1 | tr -c 'a-zA-Z0-9.\n' _)
	if [ ! -r "$cache" ]; then
		qemu_cmd kvm "console=ttyS0 panic=-1 numapol.suites=" /dev/null
		if [ -w /dev/kvm ]; then
			run_guest 20 >"$cache.log" || true
			if grep -q 'numapol-init: done' "$cache.log"; then
				answer=kvm
			fi
		fi
		echo "$answer" >"$cache"
	fi
	accel=$(cat "$cache")
}
case $ACCEL in
auto) if [ "$ICOUNT" = 1 ]; then accel=tcg; else probe_kvm; fi ;;
tcg | kvm) accel=$ACCEL ;;
*) die "ACCEL must be auto, tcg or kvm" ;;
esac
[ "$ICOUNT" != 1 ] || [ "$accel" = tcg ] || die "ICOUNT=1 needs TCG"
# Under TCG the guest's clock is the host's, while the guest runs tens of
# times slower than on hardware, and its vCPUs share two host cores: a
# debug kernel's boot spent 27 s of host time in ACPI code that takes
# well under a second on hardware, and the soft-lockup detector (20 s by
# default) reported it. Its threshold is raised to 120 s (the most
# watchdog_thresh allows), and the RCU stall timeout with it: a task or
# CPU that is really stuck still fails the run, later.
if [ "$accel" = tcg ] && [ "$ICOUNT" != 1 ]; then
	cmdline+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
fi
cmdline+=${CMDLINE:+ $CMDLINE}

mkdir -p "$run_dir"
nsuites=$(echo "$SUITES" | tr , '\n' | grep -c . || true)
host_timeout=$((SUITE_TIMEOUT * nsuites + 120))
# A counted guest second (10^9 instructions) takes the emulator many.
[ "$ICOUNT" = 1 ] && host_timeout=$((host_timeout * 10))
# Boots reach /init 2 s (patched-wide) to 24 s (debug-wide) into the boot.
EARLY_BOOT_LIMIT=${EARLY_BOOT_LIMIT:-300}
[ "$ICOUNT" = 1 ] && EARLY_BOOT_LIMIT=$((EARLY_BOOT_LIMIT * 10))
cat >"$run_dir/run.info" <<INFO
kernel=$KERNEL
release=$(kernel_release)
flavour=$(flavour_name "$flavour")
nodes=$NODES
memless=${MEMLESS:-none}
cpuless=${CPULESS:-none}
hotplug_node=${HOTPLUG_NODE:-none}
accel=$accel
icount=$ICOUNT
suites=$SUITES
cmdline=$cmdline
INFO

qemu_cmd "$accel" "$cmdline" "$run_dir/results.ktap"
truncate -s 2G "$run_dir/disk.img"
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$run_dir/disk.img"
truncate -s 1G "$run_dir/swap.img"
QEMU+=(-drive "file=$run_dir/disk.img,format=raw,if=virtio"
	-drive "file=$run_dir/swap.img,format=raw,if=virtio")
echo "${QEMU[*]}" >"$run_dir/qemu.cmd"
# A kernel that hangs before it starts /init (a mutant did: every
# allocation derived nodes for the per-node default preferences, and the
# console stopped 0.16 s into the boot) is stopped then, rather than
# holding the run until the host timeout.
if [ "$V" = 1 ]; then
	exec 3> >(tee "$run_dir/console.log")
else
	exec 3>"$run_dir/console.log"
fi
rc=0
run_guest "$host_timeout" "$run_dir/console.log" >&3 || rc=$?
exec 3>&-
# With V=1, tee's last lines: the console must be whole before it is judged.
wait
case $rc in
0) exit 0 ;;
3)
	echo "host timeout: the guest had not started /init after ${EARLY_BOOT_LIMIT}s" >>"$run_dir/console.log"
	exit 1
	;;
124 | 137)
	echo "host timeout: the guest ran longer than ${host_timeout}s" >>"$run_dir/console.log"
	exit 1
	;;
*) die "qemu failed with status $rc (see $run_dir/console.log)" ;;
esac
