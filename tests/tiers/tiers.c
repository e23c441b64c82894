// SPDX-License-Identifier: GPL-2.0
/*
 * Weighted interleave across memory tiers, as on a machine with CXL memory
 * expanders: nodes 0 and 1 have CPUs, nodes 2 and 3 only memory, slower
 * (scripts/boot.sh CPULESS=2,3). The weights favour the fast nodes, 3 to
 * 1. A policy is made in a cpuset of one fast and one slow node; the
 * cpuset then moves to the other pair, to the slow node alone, back, and
 * to all four. At each step fresh pages must follow the policy's nodes in
 * that cpuset (docs/semantics.md), each node getting its weight's share:
 * the weights that count are those of the nodes the policy uses now, not
 * of the nodes it was made with. A fault places a page by its offset in
 * the VMA, under a task policy as under a VMA policy, so the shares are
 * exact.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/semantics.h"

#define N(n)		NODE(n)
#define FAST		(N(0) | N(1))
#define SLOW		(N(2) | N(3))
#define FAST_WEIGHT	3
#define SLOW_WEIGHT	1
/* Pages faulted at each step: a multiple of the steps' sums of weights. */
#define PAGES		384
#define WEIGHTS		"/sys/kernel/mm/mempolicy/weighted_interleave/node%d"

static const nodeset_t steps[] = {
	N(0) | N(2), N(1) | N(3), N(2), N(0) | N(2), FAST | SLOW,
};
#define NR_STEPS	(sizeof(steps) / sizeof(steps[0]))

FIXTURE(weighted_tiers) {
	struct cpuset cs;
	char saved[4][16];
	char *region;
	size_t len;
};

FIXTURE_VARIANT(weighted_tiers) {
	unsigned int flags;
	nodeset_t user;
	bool vma;		/* mbind() on the region, not set_mempolicy() */
};

#define TIERS_VARIANT(name, f, u, v) \
	FIXTURE_VARIANT_ADD(weighted_tiers, name) { \
		.flags = f, .user = u, .vma = v }
TIERS_VARIANT(task_none, 0, N(0) | N(2), false);
TIERS_VARIANT(task_static, MPOL_F_STATIC_NODES, N(0) | N(2), false);
TIERS_VARIANT(task_relative, MPOL_F_RELATIVE_NODES, N(0) | N(1), false);
TIERS_VARIANT(vma_none, 0, N(0) | N(2), true);
TIERS_VARIANT(vma_static, MPOL_F_STATIC_NODES, N(0) | N(2), true);
TIERS_VARIANT(vma_relative, MPOL_F_RELATIVE_NODES, N(0) | N(1), true);

static int weight_of(int node)
{
	return FAST & N(node) ? FAST_WEIGHT : SLOW_WEIGHT;
}

/* Put back the weights of nodes 0 to @nodes - 1, saved in @saved. */
static void restore_weights(char saved[][16], int nodes)
{
	char path[96];

	for (int n = 0; n < nodes; n++) {
		snprintf(path, sizeof(path), WEIGHTS, n);
		write_text(path, saved[n]);
	}
}

FIXTURE_SETUP(weighted_tiers)
{
	nodeset_t memory, cpus;
	char path[96], text[16];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_cpu", &cpus));
	if ((memory & (FAST | SLOW)) != (FAST | SLOW) ||
	    (cpus & (FAST | SLOW)) != FAST)
		SKIP(return, "needs memory on nodes 0-3 and CPUs on nodes 0-1 only (CPULESS=2,3)");
	self->len = NR_STEPS * PAGES * sysconf(_SC_PAGESIZE);
	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	/* A huge page would put 512 pages on one node. */
	ASSERT_EQ(0, madvise(self->region, self->len, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-tiers",
				   steps[0]));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	/*
	 * The weights last, each saved before it is changed: a setup that
	 * fails gets no teardown, so nothing may fail after a change but
	 * the next change, which puts back what came before it.
	 */
	for (int n = 0; n < 4; n++) {
		snprintf(path, sizeof(path), WEIGHTS, n);
		snprintf(text, sizeof(text), "%d", weight_of(n));
		if (read_text(path, self->saved[n], sizeof(self->saved[n])) ||
		    write_text(path, text)) {
			restore_weights(self->saved, n);
			ASSERT_TRUE(false) TH_LOG("cannot set %s", path);
		}
	}
}

FIXTURE_TEARDOWN(weighted_tiers)
{
	munmap(self->region, self->len);
	cpuset_destroy(&self->cs);
	restore_weights(self->saved, 4);
}

/* Fault PAGES pages at @slice and count them per node; 0 or -errno. */
static int fault_and_count(char *slice, int counts[NODESET_BITS])
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < PAGES; i++)
		slice[i * page] = 1;
	return count_page_nodes(slice, PAGES, counts);
}

TEST_F(weighted_tiers, pages_follow_the_weights_of_the_nodes_in_use)
{
	struct policy_request req = {
		.mode = MPOL_WEIGHTED_INTERLEAVE, .flags = variant->flags,
		.user = variant->user, .created_in = steps[0],
	};
	long slice = PAGES * sysconf(_SC_PAGESIZE);
	int mode = MPOL_WEIGHTED_INTERLEAVE | variant->flags;
	nodeset_t user = variant->user;

	if (variant->vma) {
		ASSERT_EQ(0, mbind(self->region, self->len, mode, &user,
				   NODESET_BITS, 0));
	} else {
		ASSERT_EQ(0, set_mempolicy(mode, &user, NODESET_BITS));
	}

	for (size_t step = 0; step < NR_STEPS; step++) {
		struct policy_expectation want;
		int counts[NODESET_BITS], total = 0;
		char allowed[32], uses[32];

		ASSERT_EQ(0, cpuset_set_mems(&self->cs, steps[step]));
		policy_expect(&req, steps[step], &want);
		for (int n = 0; n < 4; n++)
			if (want.effective & N(n))
				total += weight_of(n);
		ASSERT_EQ(0, fault_and_count(self->region + step * slice,
					     counts));
		for (int n = 0; n < (int)NODESET_BITS; n++) {
			int expected = want.effective & N(n) ?
				       PAGES * weight_of(n) / total : 0;

			EXPECT_EQ(expected, counts[n])
				TH_LOG("cpuset {%s}, policy on {%s}: node %d has %d of %d pages, expected %d",
				       nodeset_format(steps[step], allowed,
						      sizeof(allowed)),
				       nodeset_format(want.effective, uses,
						      sizeof(uses)),
				       n, counts[n], PAGES, expected);
		}
	}
}

TEST_HARNESS_MAIN
