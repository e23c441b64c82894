# Front door. Kernel trees, builds and ccache live in the cache directory
# (CACHE_DIR, default ~/.cache/numapol); logs and reports in out/.
#
#   make test       build what the tests need, run the whole suite
#   make run        the LWN scenario on baseline and patched, side by side
#   make kernel FLAVOUR=baseline|patched|debug|kcsan|mutant-NAME[-wide]
#                   (-wide: Debian's mm and cgroup options, see
#                   scripts/wide-config.sh; make test boots patched-wide
#                   and debug-wide)
#   make boot FLAVOUR=... SUITES=a,b NODES=2|4|8|16 [MEMLESS=N] [HOTPLUG_NODE=N]
#                   [CPULESS=N,M]
#                   that flavour alone: no 8-node, 16-node, hotplug or CPU-less
#                   extra run
#   make selftest   show that a failing test and a kernel WARNING fail a run,
#                   and that Ctrl-C during a boot leaves no guest behind
#   make mutants    the kill matrix: the suites on every mutant, the stress
#                   suite RUNS=10 times on those it hunts
#   make stress     the stress suite alone, STRESS_SECONDS per case
#                   (default 45: 17 cases, about 13 minutes, a tinyconfig
#                   kernel; 19 on -wide), on FLAVOURS only
#   make fuzz       the syscall and cpuset.mems fuzzer alone, FUZZ_SECONDS
#                   (default 600) with SEED (default 1), on debug
#   make fuzz-semantics   the differential suite alone: SEQS (default
#                   10000) random sequences from SEED, starting at FIRST,
#                   against the reference model, on FLAVOUR
#   make model-test the reference model's unit tests, on the host
#   make bench      benchmarks: baseline and patched booted in turn, BOOTS
#                   (default 5) times each; report in out/bench/
#   make stack-usage    the stack frames of mm/mempolicy.c and
#                   mm/page_alloc.c that differ, baseline against patched
#   make check-series   every prefix of the series builds and boots
#   make matrix     baseline and the series under the build robot's
#                   configurations (configs/matrix.rows), W=1 and sparse
#   make kcsan      the series with the data-race detector, booted with the
#                   stress suite
#   make kmsan      the series built with clang and KMSAN, booted with
#                   KUnit, the conformance and the vmamerge suites
#   make kselftests the kernel's own cpuset and NUMA migration selftests,
#                   on baseline-wide and patched-wide
#   make conformance-baseline   the conformance, scenario and tools suites
#                   on baseline-wide, against
#                   the documented list of its failures
#   make backport   the fixes backported to Debian's 6.1 (patches-6.1/):
#                   6.1 unpatched and with them, against the documented
#                   lists of their failures
#
# KERNEL=6.1 makes the other targets build and boot the 6.1 line, with
# patches-6.1/ as its series.
# V=1 shows everything; EXTRA_PATCHES="a.patch" adds patches on top
# (git format-patch output or plain diffs).
SHELL := /bin/bash
FLAVOUR ?= patched
STRESS_SECONDS ?= 45
FUZZ_SECONDS ?= 600
SEED ?= 1
SEQS ?= 10000
FIRST ?= 0
FLAVOURS ?= patched debug

test:
	scripts/test.sh

run:
	scripts/run-scenario.sh

kernel:
	scripts/kernel.sh $(FLAVOUR)

selftest:
	scripts/selftest.sh

kselftests:
	FLAVOURS="baseline-wide patched-wide" SUITES=kselftests WIDE_SEQS=0 \
		HOTPLUG=0 TIERS=0 scripts/test.sh

conformance-baseline:
	scripts/conformance-baseline.sh

backport:
	scripts/backport.sh

check-series:
	scripts/check-series.sh

mutants:
	scripts/mutants.sh

# The targets that run a part of the suite on the flavours they name leave
# out test.sh's extra runs (the 8-node differential, memory hotplug and
# CPU-less runs): those belong to make test.
stress:
	FLAVOURS="$(FLAVOURS)" SUITES=stress SUITE_TIMEOUT=$$(($(STRESS_SECONDS) * 30 + 600)) \
		CMDLINE="numapol.stress_seconds=$(STRESS_SECONDS)" scripts/test.sh

fuzz:
	FLAVOURS=debug SUITES=fuzz SUITE_TIMEOUT=$$(($(FUZZ_SECONDS) + 600)) \
		CMDLINE="numapol.fuzz_seconds=$(FUZZ_SECONDS) numapol.fuzz_seed=$(SEED)" scripts/test.sh

fuzz-semantics:
	FLAVOURS=$(FLAVOUR) SUITES=differential WIDE_SEQS=0 SUITE_TIMEOUT=$$(($(SEQS) / 5 + 600)) \
		CMDLINE="numapol.sem_seqs=$(SEQS) numapol.sem_seed=$(SEED) numapol.sem_first=$(FIRST)" \
		scripts/test.sh

bench:
	scripts/bench.sh

stack-usage:
	scripts/kernel.sh baseline patched && scripts/stack-usage.sh

matrix:
	scripts/matrix.sh

kcsan:
	FLAVOURS=kcsan SUITES=stress WIDE_SEQS=0 HOTPLUG=0 scripts/test.sh

kmsan:
	scripts/install-deps.sh clang
	FLAVOURS=kmsan SUITES=topology,conformance,vmamerge WIDE_SEQS=0 \
		SUITE_TIMEOUT=1800 scripts/test.sh

model-test:
	scripts/install-deps.sh && scripts/prepare-tree.sh && scripts/model-test.sh

boot:
	FLAVOURS=$(FLAVOUR) WIDE_SEQS=0 HOTPLUG=0 TIERS=0 scripts/test.sh

.PHONY: test run kernel boot selftest kselftests conformance-baseline backport check-series mutants stress fuzz fuzz-semantics model-test bench stack-usage matrix kcsan kmsan
