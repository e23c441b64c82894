// SPDX-License-Identifier: GPL-2.0
/*
 * Huge pages follow the policies as small pages do (docs/semantics.md),
 * across cpuset changes. A policy is made in a cpuset of {0,1} for node 1;
 * the cpuset then moves to {2,3}, where the policy's nodes are derived,
 * then to {2} and back to {0,1}, where they must be the creation nodes
 * again (Linux 6.12 remaps {1} through {2} and ends on {0}). In each of
 * {2,3} and {0,1}, fresh huge pages are faulted and must land where the
 * model says: taken from a pool of persistent pages on every node, or
 * allocated as surplus pages with no pool; under a VMA policy or a task
 * policy. (The pool sized through nr_hugepages_mempolicy is the readers
 * suite's.)
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/hugetlb.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/variants.h"

#define N(n) NODE(n)
#define HOME		(N(0) | N(1))
#define AWAY		(N(2) | N(3))
#define NARROW		N(2)
#define USER		N(1)
/* Huge pages faulted in each checked cpuset. */
#define FAULTS		4
/*
 * The pool of each node: a policy of one node faults all its pages there,
 * with room to spare for pages a cpuset change migrates.
 */
#define NODE_POOL_PAGES	(2 * FAULTS)
#define NODES_USED	4

enum hugetlb_source { FROM_POOL, SURPLUS };
enum policy_kind { VMA_POLICY, TASK_POLICY };

FIXTURE(hugetlb) {
	struct cpuset cs;
	char *region;
	size_t len;
};

FIXTURE_VARIANT(hugetlb) {
	int mode;
	unsigned int flags;
	enum cgroup_version cgroup;
};

EVERY_MODE_VARIANTS(hugetlb, 2);
EVERY_MODE_VARIANTS(hugetlb, 1);

FIXTURE_SETUP(hugetlb)
{
	nodeset_t memory;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & (HOME | AWAY)) != (HOME | AWAY))
		SKIP(return, "needs memory on nodes 0-3");
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup,
				   "numapol-hugetlb", HOME));
	self->len = 2 * FAULTS * HUGE_PAGE_SIZE;
	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			    MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
}

FIXTURE_TEARDOWN(hugetlb)
{
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->len);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	hugetlb_reset();
	cpuset_destroy(&self->cs);
}

/*
 * Fill each node's pool, or allow surplus pages with an empty pool. Before
 * the test joins its cpuset: the pool's allocations obey the cpuset of the
 * task that sizes it.
 */
static int prepare_pool(enum hugetlb_source source)
{
	nodeset_t nodes;
	long pages;
	int err = 0;

	hugetlb_reset();
	if (source == SURPLUS)
		return hugetlb_set_overcommit(2 * FAULTS);
	for (int n = 0; n < NODES_USED && !err; n++)
		err = hugetlb_set_node_pool(n, NODE_POOL_PAGES);
	if (err || hugetlb_pool_nodes(&nodes, &pages))
		return -1;
	return pages == NODES_USED * NODE_POOL_PAGES ? 0 : -1;
}

/*
 * Fault FAULTS fresh huge pages at @addr and compare where they landed
 * with the model's expectation once the allowed nodes are @allowed.
 */
static bool faults_land(struct __test_metadata *_metadata,
			const FIXTURE_VARIANT(hugetlb) *variant, char *addr,
			nodeset_t allowed)
{
	const struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = USER, .created_in = HOME,
	};
	int nodes[FAULTS], counts[NODESET_BITS] = { 0 };
	struct policy_expectation want;
	char got[64], may[32], in[32];

	policy_expect(&req, allowed, &want);
	for (int i = 0; i < FAULTS; i++)
		addr[i * HUGE_PAGE_SIZE] = 1;
	if (page_nodes_every(addr, FAULTS, HUGE_PAGE_SIZE, nodes)) {
		TH_LOG("cannot read the huge pages' nodes: %s", strerror(errno));
		return false;
	}
	for (int i = 0; i < FAULTS; i++) {
		if (nodes[i] < 0 || nodes[i] >= (int)NODESET_BITS) {
			TH_LOG("huge page %d not present: %s", i,
			       strerror(-nodes[i]));
			return false;
		}
		counts[nodes[i]]++;
	}
	if (placement_ok(&want, counts))
		return true;
	TH_LOG("in {%s}: huge pages per node %s; may land on {%s}%s",
	       nodeset_format(allowed, in, sizeof(in)),
	       format_counts(counts, NODES_USED, got, sizeof(got)),
	       nodeset_format(want.may_land, may, sizeof(may)),
	       want.spread ? ", each" : "");
	return false;
}

/*
 * Make the policy at home, then fault in {2,3} and, after {2}, in {0,1}
 * again. Returns the number of checks that failed.
 */
static int run_faults(struct __test_metadata *_metadata,
		      FIXTURE_DATA(hugetlb) *self,
		      const FIXTURE_VARIANT(hugetlb) *variant,
		      enum policy_kind kind, enum hugetlb_source source)
{
	const nodeset_t user = USER;
	unsigned int mode = variant->mode | variant->flags;
	char *second = self->region + FAULTS * HUGE_PAGE_SIZE;
	int failed = 0;

	if (prepare_pool(source) || cpuset_attach(&self->cs, getpid()) ||
	    (kind == VMA_POLICY ?
	     mbind(self->region, self->len, mode, &user, NODESET_BITS, 0) :
	     set_mempolicy(mode, &user, NODESET_BITS))) {
		TH_LOG("cannot set up the pool or the policy: %s",
		       strerror(errno));
		return 1;
	}
	if (cpuset_set_mems(&self->cs, HOME | AWAY) ||
	    cpuset_set_mems(&self->cs, AWAY)) {
		TH_LOG("cannot move the cpuset to {2,3}");
		return 1;
	}
	failed += !faults_land(_metadata, variant, self->region, AWAY);
	/* Gone, they leave nothing for the next changes to migrate. */
	madvise(self->region, FAULTS * HUGE_PAGE_SIZE, MADV_DONTNEED);
	if (cpuset_set_mems(&self->cs, NARROW | HOME) ||
	    cpuset_set_mems(&self->cs, NARROW) ||
	    cpuset_set_mems(&self->cs, NARROW | HOME) ||
	    cpuset_set_mems(&self->cs, HOME)) {
		TH_LOG("cannot move the cpuset through {2} to {0,1}");
		return failed + 1;
	}
	failed += !faults_land(_metadata, variant, second, HOME);
	return failed;
}

TEST_F(hugetlb, vma_policy_faults_from_the_pool)
{
	EXPECT_EQ(0, run_faults(_metadata, self, variant, VMA_POLICY,
				FROM_POOL));
}

TEST_F(hugetlb, vma_policy_faults_surplus_pages)
{
	EXPECT_EQ(0, run_faults(_metadata, self, variant, VMA_POLICY,
				SURPLUS));
}

TEST_F(hugetlb, task_policy_faults_from_the_pool)
{
	EXPECT_EQ(0, run_faults(_metadata, self, variant, TASK_POLICY,
				FROM_POOL));
}

TEST_F(hugetlb, task_policy_faults_surplus_pages)
{
	EXPECT_EQ(0, run_faults(_metadata, self, variant, TASK_POLICY,
				SURPLUS));
}

TEST_HARNESS_MAIN
