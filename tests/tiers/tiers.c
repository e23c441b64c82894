// SPDX-License-Identifier: GPL-2.0
/*
 * Weighted interleave across memory tiers, as on a machine with CXL memory
 * expanders: two nodes with CPUs, and two CPU-less nodes whose memory is
 * slower (lib/tiers.h names them by their place; scripts/boot.sh
 * CPULESS=2,3 on 4 nodes, or CPULESS=8-15 on 16). The weights favour the
 * fast nodes, 3 to 1. A policy is made in a cpuset of one fast and one
 * slow node; the cpuset then moves to the other pair, to the slow node
 * alone, back, and to all four. At each step fresh pages must follow the
 * policy's nodes in that cpuset (docs/semantics.md), each node getting its
 * weight's share: the weights that count are those of the nodes the
 * policy uses now, not of the nodes it was made with. A fault places a
 * page by its offset in the VMA, under a task policy as under a VMA
 * policy, so the shares are exact.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/tiers.h"

#define FAST		(TIER_FAST0 | TIER_FAST1)
#define SLOW		(TIER_SLOW0 | TIER_SLOW1)
#define FAST_WEIGHT	3
#define SLOW_WEIGHT	1
/* Pages faulted at each step: a multiple of the steps' sums of weights. */
#define PAGES		384
#define WEIGHTS		"/sys/kernel/mm/mempolicy/weighted_interleave/node%d"

/* The cpusets, as places (lib/tiers.h). */
static const nodeset_t steps[] = {
	TIER_FAST0 | TIER_SLOW0, TIER_FAST1 | TIER_SLOW1, TIER_SLOW0,
	TIER_FAST0 | TIER_SLOW0, FAST | SLOW,
};
#define NR_STEPS	(sizeof(steps) / sizeof(steps[0]))

FIXTURE(weighted_tiers) {
	struct tier_nodes tiers;
	struct cpuset cs;
	char saved[TIER_PLACES][16];
	char *region;
	size_t len;
};

FIXTURE_VARIANT(weighted_tiers) {
	unsigned int flags;
	nodeset_t user;		/* places, or relative indices */
	bool vma;		/* mbind() on the region, not set_mempolicy() */
};

#define TIERS_VARIANT(name, f, u, v) \
	FIXTURE_VARIANT_ADD(weighted_tiers, name) { \
		.flags = f, .user = u, .vma = v }
TIERS_VARIANT(task_none, 0, TIER_FAST0 | TIER_SLOW0, false);
TIERS_VARIANT(task_static, MPOL_F_STATIC_NODES, TIER_FAST0 | TIER_SLOW0, false);
TIERS_VARIANT(task_relative, MPOL_F_RELATIVE_NODES, NODE(0) | NODE(1), false);
TIERS_VARIANT(vma_none, 0, TIER_FAST0 | TIER_SLOW0, true);
TIERS_VARIANT(vma_static, MPOL_F_STATIC_NODES, TIER_FAST0 | TIER_SLOW0, true);
TIERS_VARIANT(vma_relative, MPOL_F_RELATIVE_NODES, NODE(0) | NODE(1), true);

static int weight_of(enum tier_place place)
{
	return FAST & NODE(place) ? FAST_WEIGHT : SLOW_WEIGHT;
}

/* Put back the weights of the nodes at the first @places places. */
static void restore_weights(const struct tier_nodes *tiers, char saved[][16],
			    int places)
{
	char path[96];

	for (int p = 0; p < places; p++) {
		snprintf(path, sizeof(path), WEIGHTS, tiers->node[p]);
		write_text(path, saved[p]);
	}
}

FIXTURE_SETUP(weighted_tiers)
{
	char path[96], text[16];

	if (tier_nodes_find(&self->tiers))
		SKIP(return, "needs two nodes with CPUs and two CPU-less nodes with memory in a lower tier (CPULESS=)");
	self->len = NR_STEPS * PAGES * sysconf(_SC_PAGESIZE);
	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	/* A huge page would put 512 pages on one node. */
	ASSERT_EQ(0, madvise(self->region, self->len, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-tiers",
				   tier_nodes_of(&self->tiers, steps[0])));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	/*
	 * The weights last, each saved before it is changed: a setup that
	 * fails gets no teardown, so nothing may fail after a change but
	 * the next change, which puts back what came before it.
	 */
	for (int p = 0; p < TIER_PLACES; p++) {
		snprintf(path, sizeof(path), WEIGHTS, self->tiers.node[p]);
		snprintf(text, sizeof(text), "%d", weight_of(p));
		if (read_text(path, self->saved[p], sizeof(self->saved[p])) ||
		    write_text(path, text)) {
			restore_weights(&self->tiers, self->saved, p);
			ASSERT_TRUE(false) TH_LOG("cannot set %s", path);
		}
	}
}

FIXTURE_TEARDOWN(weighted_tiers)
{
	munmap(self->region, self->len);
	cpuset_destroy(&self->cs);
	restore_weights(&self->tiers, self->saved, TIER_PLACES);
}

TEST_F(weighted_tiers, pages_follow_the_weights_of_the_nodes_in_use)
{
	const struct tier_nodes *tiers = &self->tiers;
	nodeset_t user = variant->flags & MPOL_F_RELATIVE_NODES ?
			 variant->user : tier_nodes_of(tiers, variant->user);
	struct policy_request req = {
		.mode = MPOL_WEIGHTED_INTERLEAVE, .flags = variant->flags,
		.user = user, .created_in = tier_nodes_of(tiers, steps[0]),
	};
	long slice = PAGES * sysconf(_SC_PAGESIZE);
	int mode = MPOL_WEIGHTED_INTERLEAVE | variant->flags;

	if (variant->vma) {
		ASSERT_EQ(0, mbind(self->region, self->len, mode, &user,
				   NODESET_BITS, 0));
	} else {
		ASSERT_EQ(0, set_mempolicy(mode, &user, NODESET_BITS));
	}

	for (size_t step = 0; step < NR_STEPS; step++) {
		nodeset_t mems = tier_nodes_of(tiers, steps[step]);
		int counts[NODESET_BITS], weight[NODESET_BITS] = { 0 };
		struct policy_expectation want;
		char allowed[32], uses[32];
		int total = 0;

		ASSERT_EQ(0, cpuset_set_mems(&self->cs, mems));
		policy_expect(&req, mems, &want);
		for (int p = 0; p < TIER_PLACES; p++) {
			int node = tiers->node[p];

			weight[node] = weight_of(p);
			if (want.effective & NODE(node))
				total += weight[node];
		}
		touch_pages(self->region + step * slice, PAGES);
		ASSERT_EQ(0, count_page_nodes(self->region + step * slice,
					      PAGES, counts));
		for (int n = 0; n < (int)NODESET_BITS; n++) {
			int expected = want.effective & NODE(n) ?
				       PAGES * weight[n] / total : 0;

			EXPECT_EQ(expected, counts[n])
				TH_LOG("cpuset {%s}, policy on {%s}: node %d has %d of %d pages, expected %d",
				       nodeset_format(mems, allowed,
						      sizeof(allowed)),
				       nodeset_format(want.effective, uses,
						      sizeof(uses)),
				       n, counts[n], PAGES, expected);
		}
	}
}

TEST_HARNESS_MAIN
