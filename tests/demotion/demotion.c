// SPDX-License-Identifier: GPL-2.0
/*
 * Demotion to a slower memory tier under memory policies, and a cpuset
 * change after it, on a machine with CPU-less memory nodes (lib/tiers.h).
 *
 * A policy of each mode and node flag is made in a cpuset of one fast and
 * one slow node, and pages are faulted under it. Proactive reclaim of the
 * cgroup (memory.reclaim, with demotion_enabled) then demotes pages of
 * the fast node to the lower tier. Reclaim picks the target node among
 * that tier whatever policies and cpusets say, but the page it demotes to
 * is allocated under the cpuset of the task that reclaims
 * (alloc_migrate_folio()): here the test itself, so every demoted page
 * must land on the cpuset's slow node, on v6.12 as with the series. The
 * cpuset then moves to the other pair, and cgroup v2 migrates the task's
 * pages by the remap of the old cpuset onto the new: each page, demoted
 * or not, goes to the node at the same place in the new cpuset. The
 * policy must be unchanged by all this: fresh pages, and
 * get_mempolicy(), follow its nodes in the new cpuset.
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
#define V2_ROOT		"/sys/fs/cgroup"

/* The cpuset the policies are made in, and the one it moves to. */
#define BEFORE		(TIER_FAST0 | TIER_SLOW0)
#define AFTER		(TIER_FAST1 | TIER_SLOW1)

FIXTURE(demotion) {
	struct tier_nodes tiers;
	struct cpuset cs;
	char saved[16];		/* demotion_enabled as it was */
	bool memcg_enabled;	/* this test turned the memory controller on */
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

/* Whether the root cgroup gives its children the memory controller. */
static bool memcg_in_subtree(void)
{
	char controllers[256];

	return !read_text(V2_ROOT "/cgroup.subtree_control", controllers,
			  sizeof(controllers)) && strstr(controllers, "memory");
}

/* Undo the setup's changes to the cgroups; what is undone is marked so. */
static void cgroups_put_back(struct cpuset *cs, bool *memcg_enabled)
{
	if (cs->dir[0])
		cpuset_destroy(cs);
	cs->dir[0] = 0;
	if (*memcg_enabled)
		write_text(V2_ROOT "/cgroup.subtree_control", "-memory");
	*memcg_enabled = false;
}

FIXTURE_SETUP(demotion)
{
	char controllers[256];
	int err;

	if (tier_nodes_find(&self->tiers))
		SKIP(return, "needs two nodes with CPUs and two CPU-less nodes with memory in a lower tier (CPULESS=)");
	if (read_text(DEMOTION, self->saved, sizeof(self->saved)))
		SKIP(return, "no " DEMOTION ": a kernel without memory tiers");
	if (read_text(V2_ROOT "/cgroup.controllers", controllers,
		      sizeof(controllers)) || !strstr(controllers, "memory"))
		SKIP(return, "no memory controller: memory.reclaim needs one");
	self->len = 2 * PAGES * sysconf(_SC_PAGESIZE);
	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	/* A huge page would move 512 pages as one. */
	ASSERT_EQ(0, madvise(self->region, self->len, MADV_NOHUGEPAGE));
	/*
	 * memory.reclaim needs the memory controller in the cpuset's
	 * cgroup. A failed setup gets no teardown: from here on, a failure
	 * puts the cgroups back before it asserts.
	 */
	err = 0;
	if (!memcg_in_subtree()) {
		err = write_text(V2_ROOT "/cgroup.subtree_control", "+memory");
		self->memcg_enabled = !err;
	}
	if (!err)
		err = cpuset_create(&self->cs, CGROUP_V2, "numapol-demotion",
				    tier_nodes_of(&self->tiers, BEFORE));
	if (!err)
		err = cpuset_attach(&self->cs, getpid());
	if (!err)
		err = write_text(DEMOTION, "true");
	if (err)
		cgroups_put_back(&self->cs, &self->memcg_enabled);
	ASSERT_EQ(0, err) TH_LOG("setting up: %s", strerror(-err));
}

FIXTURE_TEARDOWN(demotion)
{
	write_text(DEMOTION, self->saved);
	munmap(self->region, self->len);
	cgroups_put_back(&self->cs, &self->memcg_enabled);
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

TEST_F(demotion, demoted_pages_follow_the_cpuset_and_the_policy_stays)
{
	const struct tier_nodes *tiers = &self->tiers;
	nodeset_t from = tier_nodes_of(tiers, BEFORE);
	nodeset_t to = tier_nodes_of(tiers, AFTER);
	int fast = tiers->node[TIER_FAST0_PLACE];
	int slow = tiers->node[TIER_SLOW0_PLACE];
	int shown = tiers->node[TIER_SLOW1_PLACE] + 1;	/* nodes in logs */
	struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = user_nodes(variant, tiers), .created_in = from,
	};
	int mode = variant->mode | variant->flags, reported_mode;
	int made[PAGES], demoted[PAGES], moved[PAGES], counts[NODESET_BITS];
	long slice = PAGES * sysconf(_SC_PAGESIZE);
	nodeset_t user = req.user, reported = 0;
	int on_fast = 0, nr_demoted = 0, wrong = 0, first_wrong = 0;
	char path[300], amount[32], buf[128], nodes[32];
	struct policy_expectation want;
	int err;

	/*
	 * On a CPU of the first fast node, so that the pages of a policy
	 * over it and a slow node are on the fast one: BIND and
	 * PREFERRED_MANY take the policy's node nearest the CPU, and a
	 * CPU-less node comes before the other nodes with CPUs in a
	 * zonelist (find_next_best_node()).
	 */
	ASSERT_EQ(0, pin_to_node(fast));
	if (variant->vma) {
		ASSERT_EQ(0, mbind(self->region, self->len, mode, &user,
				   NODESET_BITS, 0));
	} else {
		ASSERT_EQ(0, set_mempolicy(mode, &user, NODESET_BITS));
	}
	touch_pages(self->region, PAGES);
	ASSERT_EQ(0, page_nodes(self->region, PAGES, made));
	policy_expect(&req, from, &want);
	memset(counts, 0, sizeof(counts));
	for (int i = 0; i < PAGES; i++) {
		ASSERT_LE(0, made[i]);
		counts[made[i]]++;
	}
	ASSERT_TRUE(placement_ok(&want, counts))
		TH_LOG("pages made %s; the policy uses {%s}",
		       format_counts(counts, shown, buf, sizeof(buf)),
		       nodeset_format(want.may_land, nodes, sizeof(nodes)));
	on_fast = counts[fast];
	ASSERT_LT(0, on_fast) TH_LOG("no page on fast node %d to demote", fast);

	/*
	 * Twice the region: demoted pages count as reclaimed, but not every
	 * page of the region need be demoted, and the write then ends in
	 * EAGAIN once reclaim has tried hard enough.
	 */
	snprintf(path, sizeof(path), "%s/memory.reclaim", self->cs.dir);
	snprintf(amount, sizeof(amount), "%ld", 2 * slice);
	err = write_text(path, amount);
	ASSERT_TRUE(err == 0 || err == -EAGAIN) TH_LOG("memory.reclaim: %s", strerror(-err));
	ASSERT_EQ(0, page_nodes(self->region, PAGES, demoted));
	for (int i = 0; i < PAGES; i++) {
		/* Swapped or gone, a page would report a negative node. */
		ASSERT_LE(0, demoted[i]) {
			TH_LOG("page %d: %s", i, strerror(-demoted[i]));
		}
		if (demoted[i] == made[i])
			continue;
		nr_demoted++;
		if (made[i] == fast && demoted[i] == slow)
			continue;
		if (!wrong++)
			first_wrong = i;
	}
	EXPECT_EQ(0, wrong) {
		TH_LOG("%d pages moved, not by a demotion into the cpuset: page %d from node %d to %d",
		       wrong, first_wrong, made[first_wrong],
		       demoted[first_wrong]);
	}
	ASSERT_LT(0, nr_demoted)
		TH_LOG("reclaim demoted none of the %d pages on fast node %d",
		       on_fast, fast);

	/* Every page is on a node of the old cpuset, and moves by the remap. */
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, to));
	ASSERT_EQ(0, page_nodes(self->region, PAGES, moved));
	wrong = 0;
	for (int i = 0; i < PAGES; i++) {
		if (moved[i] >= 0 &&
		    NODE(moved[i]) == nodeset_remap(NODE(demoted[i]), from, to))
			continue;
		if (!wrong++)
			first_wrong = i;
	}
	EXPECT_EQ(0, wrong) {
		TH_LOG("cpuset {%s} -> {%s}: %d pages not moved by the remap; page %d from node %d to %d",
		       nodeset_format(from, buf, sizeof(buf)),
		       nodeset_format(to, nodes, sizeof(nodes)), wrong,
		       first_wrong, demoted[first_wrong], moved[first_wrong]);
	}

	policy_expect(&req, to, &want);
	touch_pages(self->region + slice, PAGES);
	ASSERT_EQ(0, count_page_nodes(self->region + slice, PAGES, counts));
	EXPECT_TRUE(placement_ok(&want, counts))
		TH_LOG("fresh pages %s; the policy uses {%s}",
		       format_counts(counts, shown, buf, sizeof(buf)),
		       nodeset_format(want.may_land, nodes, sizeof(nodes)));
	ASSERT_EQ(0, get_mempolicy(&reported_mode, &reported, NODESET_BITS,
				   variant->vma ? self->region : NULL,
				   variant->vma ? MPOL_F_ADDR : 0));
	EXPECT_EQ(mode, reported_mode);
	EXPECT_EQ(want.reported, reported);
}

TEST_HARNESS_MAIN
