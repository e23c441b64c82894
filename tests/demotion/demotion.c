// SPDX-License-Identifier: GPL-2.0
/*
 * Demotion to a slower memory tier under memory policies, and a cpuset
 * change after it, on a machine with CPU-less memory nodes (lib/tiers.h).
 *
 * A policy of each mode and node flag is made in a cpuset of one fast and
 * one slow node, and pages are faulted under it. Proactive reclaim of the
 * cgroup (memory.reclaim, with demotion_enabled) then demotes pages from
 * the fast node to a node of the lower tier: that is reclaim's choice,
 * which ignores policies and cpusets (docs/semantics.md), and the same on
 * v6.12 and with the series. The cpuset then moves to the other pair, and
 * cgroup v2 migrates the task's pages by the remap of the old cpuset onto
 * the new: each page on a node of the old cpuset goes to the node at the
 * same place in the new one, a demoted page too, and a page demoted
 * outside the old cpuset stays where it is. The policy must be unchanged
 * by all this: fresh pages, and get_mempolicy(), follow its nodes in the
 * new cpuset.
 */
#include <errno.h>
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

#define PAGES		256
#define DEMOTION	"/sys/kernel/mm/numa/demotion_enabled"
#define V2_CONTROLLERS	"/sys/fs/cgroup/cgroup.subtree_control"

/* The cpuset the policies are made in, and the one it moves to. */
#define BEFORE		(TIER_FAST0 | TIER_SLOW0)
#define AFTER		(TIER_FAST1 | TIER_SLOW1)

FIXTURE(demotion) {
	struct tier_nodes tiers;
	struct cpuset cs;
	char saved[16];		/* demotion_enabled as it was */
	char *region;		/* PAGES demoted, then PAGES fresh */
	size_t len;
};

FIXTURE_VARIANT(demotion) {
	int mode;
	unsigned int flags;
	bool vma;		/* mbind() on the region, not set_mempolicy() */
};

#define DEMOTION_VARIANT(name, m, f) \
	FIXTURE_VARIANT_ADD(demotion, task_##name) { \
		.mode = m, .flags = f, .vma = false }; \
	FIXTURE_VARIANT_ADD(demotion, vma_##name) { \
		.mode = m, .flags = f, .vma = true }
#define DEMOTION_MODE(name, m) \
	DEMOTION_VARIANT(name##_none, m, 0); \
	DEMOTION_VARIANT(name##_static, m, MPOL_F_STATIC_NODES); \
	DEMOTION_VARIANT(name##_relative, m, MPOL_F_RELATIVE_NODES)
DEMOTION_MODE(bind, MPOL_BIND);
DEMOTION_MODE(preferred, MPOL_PREFERRED);
DEMOTION_MODE(preferred_many, MPOL_PREFERRED_MANY);
DEMOTION_MODE(interleave, MPOL_INTERLEAVE);
DEMOTION_MODE(weighted_interleave, MPOL_WEIGHTED_INTERLEAVE);

FIXTURE_SETUP(demotion)
{
	if (tier_nodes_find(&self->tiers))
		SKIP(return, "needs two nodes with CPUs and two CPU-less nodes with memory (CPULESS=)");
	if (read_text(DEMOTION, self->saved, sizeof(self->saved)))
		SKIP(return, "no " DEMOTION ": a kernel without memory tiers");
	self->len = 2 * PAGES * sysconf(_SC_PAGESIZE);
	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	/* A huge page would move 512 pages as one. */
	ASSERT_EQ(0, madvise(self->region, self->len, MADV_NOHUGEPAGE));
	/* memory.reclaim: the memory controller in the cpuset's cgroup. */
	ASSERT_EQ(0, write_text(V2_CONTROLLERS, "+memory"));
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-demotion",
				   tier_nodes_of(&self->tiers, BEFORE)));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	/* Last: nothing may fail after it, as a failed setup has no teardown. */
	ASSERT_EQ(0, write_text(DEMOTION, "true"));
}

FIXTURE_TEARDOWN(demotion)
{
	write_text(DEMOTION, self->saved);
	munmap(self->region, self->len);
	cpuset_destroy(&self->cs);
}

/* The user's nodes: places of the cpuset made in, or relative indices. */
static nodeset_t user_nodes(const FIXTURE_VARIANT(demotion) *variant,
			    const struct tier_nodes *tiers)
{
	bool one = variant->mode == MPOL_PREFERRED;

	if (variant->flags & MPOL_F_RELATIVE_NODES)
		return one ? NODE(0) : NODE(0) | NODE(1);
	return tier_nodes_of(tiers, one ? TIER_FAST0 : BEFORE);
}

static void fault_pages(char *addr, int npages)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < npages; i++)
		addr[i * page] = 1;
}

/* Where a cpuset change from @from to @to must take a page on @node. */
static int node_after_move(int node, nodeset_t from, nodeset_t to)
{
	if (!(from & NODE(node)))
		return node;
	return nodeset_first(nodeset_remap(NODE(node), from, to));
}

TEST_F(demotion, demoted_pages_follow_the_cpuset_and_the_policy_stays)
{
	const struct tier_nodes *tiers = &self->tiers;
	nodeset_t from = tier_nodes_of(tiers, BEFORE);
	nodeset_t to = tier_nodes_of(tiers, AFTER);
	nodeset_t fast = tier_nodes_of(tiers, TIER_FAST0 | TIER_FAST1);
	struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = user_nodes(variant, tiers), .created_in = from,
	};
	int mode = variant->mode | variant->flags, reported_mode;
	int made[PAGES], demoted[PAGES], moved[PAGES], counts[NODESET_BITS];
	long slice = PAGES * sysconf(_SC_PAGESIZE);
	struct policy_expectation want;
	nodeset_t user = req.user, reported = 0;
	char path[300], text[32], buf[128];
	int nr_demoted = 0, wrong = 0, first = 0;

	/*
	 * On a CPU of the first fast node, so that the pages of a policy
	 * over it and a slow node are on the fast one: BIND and
	 * PREFERRED_MANY take the policy's node nearest the CPU, and a
	 * CPU-less node comes before the other nodes with CPUs in a
	 * zonelist (find_next_best_node()).
	 */
	ASSERT_EQ(0, pin_to_node(tiers->node[0]));
	if (variant->vma) {
		ASSERT_EQ(0, mbind(self->region, self->len, mode, &user,
				   NODESET_BITS, 0));
	} else {
		ASSERT_EQ(0, set_mempolicy(mode, &user, NODESET_BITS));
	}
	fault_pages(self->region, PAGES);
	ASSERT_EQ(0, page_nodes(self->region, PAGES, made));

	/* More than the region: reclaim goes on until it has demoted. */
	snprintf(path, sizeof(path), "%s/memory.reclaim", self->cs.dir);
	snprintf(text, sizeof(text), "%ld", 2 * slice);
	write_text(path, text);
	ASSERT_EQ(0, page_nodes(self->region, PAGES, demoted));
	for (int i = 0; i < PAGES; i++) {
		/* Swapped or gone, a page would report a negative node. */
		ASSERT_LE(0, demoted[i]) {
			TH_LOG("page %d: %s", i, strerror(-demoted[i]));
		}
		if (demoted[i] == made[i])
			continue;
		nr_demoted++;
		if ((fast & NODE(made[i])) && !(fast & NODE(demoted[i])))
			continue;
		if (!wrong++)
			first = i;
	}
	EXPECT_EQ(0, wrong) {
		TH_LOG("%d pages moved, not by a demotion: page %d from node %d to %d",
		       wrong, first, made[first], demoted[first]);
	}
	ASSERT_LT(0, nr_demoted)
		TH_LOG("reclaim demoted none of the %d pages of the fast node %d",
		       PAGES, tiers->node[0]);

	ASSERT_EQ(0, cpuset_set_mems(&self->cs, to));
	ASSERT_EQ(0, page_nodes(self->region, PAGES, moved));
	wrong = 0;
	for (int i = 0; i < PAGES; i++) {
		if (moved[i] == node_after_move(demoted[i], from, to))
			continue;
		if (!wrong++)
			first = i;
	}
	EXPECT_EQ(0, wrong) {
		TH_LOG("cpuset {%s} -> {%s}: %d pages not moved by the remap; page %d from node %d to %d, expected %d",
		       nodeset_format(from, buf, sizeof(buf)),
		       nodeset_format(to, text, sizeof(text)), wrong, first,
		       demoted[first], moved[first],
		       node_after_move(demoted[first], from, to));
	}

	policy_expect(&req, to, &want);
	fault_pages(self->region + slice, PAGES);
	ASSERT_EQ(0, count_page_nodes(self->region + slice, PAGES, counts));
	EXPECT_TRUE(placement_ok(&want, counts))
		TH_LOG("fresh pages %s; the policy uses {%s}",
		       format_counts(counts, 16, buf, sizeof(buf)),
		       nodeset_format(want.may_land, text, sizeof(text)));
	ASSERT_EQ(0, get_mempolicy(&reported_mode, &reported, NODESET_BITS,
				   variant->vma ? self->region : NULL,
				   variant->vma ? MPOL_F_ADDR : 0));
	EXPECT_EQ(mode, reported_mode);
	EXPECT_EQ(want.reported, reported);
}

TEST_HARNESS_MAIN
