// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the reference model, on the host: plain C, no system
 * calls, no cgroups. Each expectation is worked out by hand from
 * docs/semantics.md and from the allocator of Linux 6.12.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../generate.h"
#include "../../lib/mpol.h"

#define N(n)	NODE(n)

/* 4 nodes with memory, or node 2 memoryless; the task runs on node 0. */
static const struct topology four = {
	.nr_nodes = 4, .memory = N(0) | N(1) | N(2) | N(3), .local_node = 0,
	.weight = { 1, 1, 1, 1 }, .vma_region = 0x1000, .task_region = 0x2000,
};
static const struct topology memless = {
	.nr_nodes = 4, .memory = N(0) | N(1) | N(3), .local_node = 0,
	.weight = { 1, 1, 1, 1 }, .vma_region = 0x1000, .task_region = 0x2000,
};

static struct prediction step(struct model_state *s, struct op op)
{
	struct prediction p;

	model_step(s, &op, &p);
	return p;
}

static struct op cpuset(nodeset_t mems)
{
	return (struct op){ .kind = OP_CPUSET, .mems = mems };
}

static struct op vma_policy(int first, int npages, int mode, unsigned int flags,
		       nodeset_t user)
{
	return (struct op){ .kind = OP_MBIND, .first = first, .npages = npages,
			    .mode = mode, .flags = flags, .user = user };
}

static struct op set_task(int mode, unsigned int flags, nodeset_t user)
{
	return (struct op){ .kind = OP_SET_TASK, .mode = mode, .flags = flags,
			    .user = user };
}

static struct op query_page(int first)
{
	return (struct op){ .kind = OP_QUERY_VMA, .first = first };
}

static struct op query_task(void)
{
	return (struct op){ .kind = OP_QUERY_TASK };
}

/* The LWN scenario: 6.12 ends on {0}, the model on {0,1} again. */
TEST(lwn_scenario_restores_the_nodemask)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, cpuset(N(0) | N(1)));
	ASSERT_EQ(0, step(&s, vma_policy(0, 4, MPOL_BIND, 0, N(0) | N(1))).error);
	step(&s, cpuset(N(1) | N(2)));
	p = step(&s, query_page(0));
	EXPECT_EQ(N(1) | N(2), p.reported);
	step(&s, cpuset(N(2)));
	p = step(&s, query_page(0));
	EXPECT_EQ(N(2), p.reported);
	EXPECT_EQ(2, p.exact[0]);
	step(&s, cpuset(N(0) | N(1)));
	p = step(&s, query_page(0));
	EXPECT_EQ(MPOL_BIND, p.mode);
	EXPECT_EQ(N(0) | N(1), p.reported);
	/* Node 0 is local and bound: every page lands there. */
	EXPECT_EQ(4, p.npages);
	EXPECT_EQ(0, p.exact[3]);
}

/* An interleaved page's node is its page number modulo the nodes. */
TEST(interleave_follows_the_page_number)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, vma_policy(0, 16, MPOL_INTERLEAVE, 0, N(1) | N(2) | N(3)));
	p = step(&s, query_page(5));
	/* Page numbers 0x1005.. = 4101..: 4101 % 3 = 0 -> node 1. */
	EXPECT_EQ(1, p.exact[0]);
	EXPECT_EQ(2, p.exact[1]);
	EXPECT_EQ(3, p.exact[2]);
	EXPECT_EQ(1, p.exact[3]);
	/* Near the end of the region a query touches fewer pages. */
	EXPECT_EQ(2, step(&s, query_page(14)).npages);
}

TEST(weighted_interleave_counts_weights)
{
	struct topology topo = four;
	struct model_state s;
	struct prediction p;

	topo.weight[0] = 3;
	model_init(&s, &topo);
	step(&s, set_task(MPOL_WEIGHTED_INTERLEAVE, 0, N(0) | N(1)));
	p = step(&s, query_task());
	/* 0x2000 = 8192 = 2 * 4: the sequence starts over: 0, 0, 0, 1. */
	EXPECT_EQ(0, p.exact[0]);
	EXPECT_EQ(0, p.exact[2]);
	EXPECT_EQ(1, p.exact[3]);
}

/* Rule 1 for PREFERRED: no user node allowed means local allocation. */
TEST(static_preferred_without_nodes_allocates_locally)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, set_task(MPOL_PREFERRED, MPOL_F_STATIC_NODES, N(3)));
	p = step(&s, query_task());
	EXPECT_EQ(3, p.exact[0]);
	step(&s, cpuset(N(0) | N(1)));
	p = step(&s, query_task());
	EXPECT_EQ(MPOL_PREFERRED | MPOL_F_STATIC_NODES, p.mode);
	EXPECT_EQ(N(3), p.reported);
	EXPECT_EQ(0, p.exact[0]);
	/* Not local either: the fallback order decides inside the cpuset. */
	step(&s, cpuset(N(1) | N(2)));
	p = step(&s, query_task());
	EXPECT_EQ(-1, p.exact[0]);
	EXPECT_EQ(N(1) | N(2), p.may_land[0]);
}

/* Rule 4: PREFERRED without flags keeps its node; the cpuset wins. */
TEST(preferred_without_flags_keeps_its_node)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, vma_policy(0, 16, MPOL_PREFERRED, 0, N(2) | N(3)));
	step(&s, cpuset(N(3)));
	p = step(&s, query_page(0));
	EXPECT_EQ(N(2), p.reported);
	EXPECT_EQ(3, p.exact[0]);
	step(&s, cpuset(N(1) | N(2)));
	EXPECT_EQ(2, step(&s, query_page(0)).exact[0]);
}

/* Rule 2, folding: relative node 5 of a 2-node cpuset is its second. */
TEST(relative_nodes_fold_over_the_cpuset)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, cpuset(N(1) | N(3)));
	ASSERT_EQ(0, step(&s, set_task(MPOL_BIND, MPOL_F_RELATIVE_NODES,
				       N(1))).error);
	p = step(&s, query_task());
	EXPECT_EQ(N(1), p.reported);
	EXPECT_EQ(3, p.exact[0]);
	step(&s, cpuset(N(0) | N(2)));
	EXPECT_EQ(2, step(&s, query_task()).exact[1]);
}

TEST(home_node_applies_to_bind_and_preferred_many_only)
{
	struct model_state s;
	struct op home = { .kind = OP_HOME_NODE, .first = 0, .npages = 16,
			   .home = 2 };
	struct prediction p;

	model_init(&s, &four);
	/* No VMA in the range has a policy. */
	EXPECT_EQ(ENOENT, step(&s, home).error);
	step(&s, vma_policy(0, 8, MPOL_BIND, 0, N(1) | N(2) | N(3)));
	step(&s, vma_policy(8, 8, MPOL_INTERLEAVE, 0, N(1) | N(2)));
	/* Pages 0-7 take the home node, then the interleaved VMA refuses. */
	EXPECT_EQ(EOPNOTSUPP, step(&s, home).error);
	p = step(&s, query_page(4));
	EXPECT_EQ(2, p.exact[0]);
	/* The home node leaves the cpuset: the fallback order decides. */
	step(&s, cpuset(N(1) | N(3)));
	p = step(&s, query_page(0));
	EXPECT_EQ(-1, p.exact[0]);
	EXPECT_EQ(N(1) | N(3), p.may_land[0]);
}

TEST(mbind_splits_and_default_returns_to_the_task_policy)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &four);
	step(&s, set_task(MPOL_BIND, 0, N(3)));
	step(&s, vma_policy(0, 8, MPOL_BIND, 0, N(1)));
	step(&s, vma_policy(2, 2, MPOL_BIND, 0, N(2)));
	p = step(&s, query_page(1));
	EXPECT_EQ(N(1), p.reported);
	EXPECT_EQ(1, p.exact[0]);
	EXPECT_EQ(2, p.exact[1]);
	EXPECT_EQ(2, p.exact[2]);
	EXPECT_EQ(1, p.exact[3]);
	step(&s, vma_policy(0, 16, MPOL_DEFAULT, 0, 0));
	p = step(&s, query_page(0));
	EXPECT_EQ(MPOL_DEFAULT, p.mode);
	EXPECT_EQ(0UL, p.reported);
	EXPECT_EQ(3, p.exact[0]);	/* the task policy */
}

TEST(policies_without_allowed_nodes_are_refused)
{
	struct model_state s;

	model_init(&s, &four);
	step(&s, cpuset(N(0) | N(1)));
	EXPECT_EQ(EINVAL, step(&s, set_task(MPOL_BIND, 0, N(3))).error);
	EXPECT_EQ(EINVAL, step(&s, set_task(MPOL_PREFERRED,
					    MPOL_F_STATIC_NODES, N(2))).error);
	/* Relative nodes always fold onto the cpuset. */
	EXPECT_EQ(0, step(&s, set_task(MPOL_BIND, MPOL_F_RELATIVE_NODES,
				       N(3))).error);
	EXPECT_EQ(EINVAL, step(&s, set_task(MPOL_LOCAL, 0, N(1))).error);
	EXPECT_EQ(MPOL_BIND | MPOL_F_RELATIVE_NODES,
		  step(&s, query_task()).mode);
}

TEST(memoryless_nodes_never_take_pages)
{
	struct model_state s;
	struct prediction p;

	model_init(&s, &memless);
	EXPECT_EQ(N(0) | N(1) | N(3), s.allowed);
	EXPECT_EQ(EINVAL, step(&s, set_task(MPOL_BIND, MPOL_F_STATIC_NODES,
					    N(2))).error);
	step(&s, set_task(MPOL_INTERLEAVE, MPOL_F_STATIC_NODES, N(2) | N(3)));
	p = step(&s, query_task());
	EXPECT_EQ(N(2) | N(3), p.reported);
	for (int i = 0; i < QUERY_PAGES; i++)
		EXPECT_EQ(3, p.exact[i]);
}

TEST(fork_keeps_every_policy)
{
	struct model_state s, before;
	struct op fork_op = { .kind = OP_FORK };

	model_init(&s, &four);
	step(&s, set_task(MPOL_INTERLEAVE, MPOL_F_RELATIVE_NODES, N(0) | N(1)));
	step(&s, vma_policy(3, 3, MPOL_PREFERRED_MANY, 0, N(2)));
	before = s;
	EXPECT_EQ(0, step(&s, fork_op).error);
	EXPECT_EQ(0, memcmp(&before, &s, sizeof(s)));
}

TEST(agreement_reports_the_first_difference)
{
	struct prediction want = {
		.query = true, .mode = MPOL_BIND, .reported = N(0) | N(1),
		.npages = 2, .may_land = { N(0) | N(1), N(0) | N(1) },
		.exact = { 0, -1 },
	};
	struct observation got = {
		.mode = MPOL_BIND, .reported = N(0) | N(1), .npages = 2,
		.node = { 0, 1 },
	};
	char why[128];

	EXPECT_TRUE(model_agrees(&want, &got, why, sizeof(why)));
	got.node[1] = 2;
	EXPECT_FALSE(model_agrees(&want, &got, why, sizeof(why)));
	EXPECT_STREQ("page 1 on node 2, model {0-1}", why);
	got.reported = N(0);
	EXPECT_FALSE(model_agrees(&want, &got, why, sizeof(why)));
	EXPECT_STREQ("nodemask {0}, model {0-1}", why);
	got.error = EINVAL;
	EXPECT_FALSE(model_agrees(&want, &got, why, sizeof(why)));
}

/* Same seed, same sequence; every operation within its bounds. */
TEST(generated_sequences_are_reproducible_and_valid)
{
	struct op a[20], b[20];
	int kinds[NR_OPS] = { 0 };

	for (unsigned long i = 0; i < 1000; i++) {
		uint64_t seed = sequence_seed(7, i);

		generate_sequence(seed, &memless, 20, a);
		generate_sequence(seed, &memless, 20, b);
		ASSERT_EQ(0, memcmp(a, b, sizeof(a)));
		for (int j = 0; j < 20; j++) {
			kinds[a[j].kind]++;
			if (a[j].kind == OP_CPUSET) {
				ASSERT_NE(0UL, a[j].mems);
				ASSERT_EQ(0UL, a[j].mems & ~memless.memory);
			}
			ASSERT_LE(a[j].first + a[j].npages, MODEL_PAGES);
			ASSERT_EQ(0UL, a[j].user & ~(NODE(4) - 1));
		}
	}
	for (int k = 0; k < NR_OPS; k++)
		EXPECT_LT(0, kinds[k]);
	generate_sequence(sequence_seed(8, 0), &memless, 20, b);
	generate_sequence(sequence_seed(7, 0), &memless, 20, a);
	EXPECT_NE(0, memcmp(a, b, sizeof(a)));
}

TEST_HARNESS_MAIN
