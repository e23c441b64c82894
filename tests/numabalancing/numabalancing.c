// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA balancing under policies, across a cpuset change. A VMA policy is
 * made in a cpuset of {0,1} for nodes {0,1}; the cpuset moves to {2,3},
 * where the policy's nodes are {2,3}. Pages faulted from node 2's CPU land
 * on node 2; then the task runs on node 3's CPU and reads them over and
 * over while NUMA balancing scans it (the scan made fast through debugfs).
 * Pages must never leave the cpuset; and under MPOL_F_NUMA_BALANCING,
 * which lets NUMA balancing move pages among the policy's nodes
 * (mpol_misplaced()), some must follow the task to node 3 when the nodes
 * derived in {2,3} contain it: bind, and a relative preference, but not a
 * preference without node flags, which keeps {0,1} (docs/semantics.md,
 * rule 4). Without the flag a bind policy is never migrated by NUMA
 * balancing, and pages under no policy follow the task within the cpuset.
 *
 * A bind policy over {0} is {2} in {2,3}. Where the kernel can make every
 * allocation of derived nodes fail (fault injection on their slab cache),
 * allocations under the policy follow the cpuset instead; NUMA balancing
 * must then leave its pages where they are, not move them to node 3 by
 * the cpuset's nodes.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"

#define N(n)		NODE(n)
#define HOME		(N(0) | N(1))
#define AWAY		(N(2) | N(3))
#define PAGES		256
#define DEBUGFS		"/sys/kernel/debug/sched/numa_balancing/"
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define DERIVED_SLAB	"/sys/kernel/slab/numa_policy_derived"
/*
 * The time NUMA balancing gets to move pages, in seconds of reading them
 * without a pause: its scans come with the task's CPU time, not the
 * clock's. The placement is checked every CHECK_SECONDS.
 */
#define SECONDS		20
#define CHECK_SECONDS	0.1

FIXTURE(numabalancing) {
	struct cpuset cs;
	char *region;
	size_t len;
	char saved_delay[32], saved_period[32];
	bool failing;		/* derived nodes' allocations made to fail */
};

FIXTURE_VARIANT(numabalancing) {
	int mode;		/* MPOL_DEFAULT: no policy */
	unsigned int flags;
	nodeset_t nodes;	/* the policy's, made in {0,1} */
	enum cgroup_version cgroup;
	bool moves;		/* pages must follow the task to node 3 */
	bool no_derived;	/* every allocation of derived nodes fails */
};

#define NB_VARIANT(name, m, f, v, follow) \
	FIXTURE_VARIANT_ADD(numabalancing, name##_v##v) { \
		.mode = m, .flags = f, .nodes = HOME, .cgroup = CGROUP_V##v, \
		.moves = follow }
NB_VARIANT(BIND_BALANCING, MPOL_BIND, MPOL_F_NUMA_BALANCING, 2, true);
NB_VARIANT(BIND_BALANCING, MPOL_BIND, MPOL_F_NUMA_BALANCING, 1, true);
NB_VARIANT(PREFERRED_MANY_RELATIVE_BALANCING, MPOL_PREFERRED_MANY,
	   MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING, 2, true);
NB_VARIANT(PREFERRED_MANY_RELATIVE_BALANCING, MPOL_PREFERRED_MANY,
	   MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING, 1, true);
/* Without node flags a preference keeps {0,1} (rule 4): node 3 is not in it. */
NB_VARIANT(PREFERRED_MANY_BALANCING, MPOL_PREFERRED_MANY,
	   MPOL_F_NUMA_BALANCING, 2, false);
NB_VARIANT(PREFERRED_MANY_BALANCING, MPOL_PREFERRED_MANY,
	   MPOL_F_NUMA_BALANCING, 1, false);
NB_VARIANT(BIND_none, MPOL_BIND, 0, 2, false);
NB_VARIANT(BIND_none, MPOL_BIND, 0, 1, false);
NB_VARIANT(no_policy, MPOL_DEFAULT, 0, 2, true);
NB_VARIANT(no_policy, MPOL_DEFAULT, 0, 1, true);
FIXTURE_VARIANT_ADD(numabalancing, BIND_ONE_BALANCING_no_derived_v2) {
	.mode = MPOL_BIND, .flags = MPOL_F_NUMA_BALANCING, .nodes = N(0),
	.cgroup = CGROUP_V2, .moves = false, .no_derived = true,
};

/*
 * Make every allocation from the derived nodes' slab cache fail, sleeping
 * or not (the kernel never fails __GFP_NOFAIL ones), and no other cache's
 * (cache-filter); or stop it. 0 or -errno.
 */
static int derived_nodes_fail(bool fail)
{
	static const char *const on[][2] = {
		{ FAILSLAB "cache-filter", "Y" },
		{ DERIVED_SLAB "/failslab", "1" },
		{ FAILSLAB "ignore-gfp-wait", "N" },
		{ FAILSLAB "verbose", "0" },
		{ FAILSLAB "interval", "1" },
		{ FAILSLAB "times", "-1" },
		{ FAILSLAB "probability", "100" },
	};
	static const char *const off[][2] = {
		{ FAILSLAB "probability", "0" },
		{ DERIVED_SLAB "/failslab", "0" },
	};
	const char *const (*steps)[2] = fail ? on : off;
	size_t n = fail ? ARRAY_SIZE(on) : ARRAY_SIZE(off);
	int err;

	for (size_t i = 0; i < n; i++) {
		err = write_text(steps[i][0], steps[i][1]);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE_SETUP(numabalancing)
{
	nodeset_t memory;
	char enabled[16];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & (HOME | AWAY)) != (HOME | AWAY))
		SKIP(return, "needs memory on nodes 0-3");
	if (read_text("/proc/sys/kernel/numa_balancing", enabled,
		      sizeof(enabled)) || access(DEBUGFS, F_OK))
		SKIP(return, "this kernel has no NUMA balancing");
	if (variant->no_derived) {
		struct stat slab;

		if (access(FAILSLAB, F_OK))
			SKIP(return, "this kernel cannot make allocations fail (CONFIG_FAILSLAB)");
		if (lstat(DERIVED_SLAB, &slab))
			SKIP(return, "this kernel keeps no derived nodes in a slab cache");
		/* A merged cache's name links to the slab it shares. */
		if (S_ISLNK(slab.st_mode))
			SKIP(return, "the derived nodes' slab cache is merged with others (slab_nomerge keeps it apart)");
	}
	ASSERT_EQ(0, write_text("/proc/sys/kernel/numa_balancing", "1"));
	ASSERT_EQ(0, read_text(DEBUGFS "scan_delay_ms", self->saved_delay,
			       sizeof(self->saved_delay)));
	ASSERT_EQ(0, read_text(DEBUGFS "scan_period_min_ms",
			       self->saved_period, sizeof(self->saved_period)));
	ASSERT_EQ(0, write_text(DEBUGFS "scan_delay_ms", "0"));
	ASSERT_EQ(0, write_text(DEBUGFS "scan_period_min_ms", "10"));
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup,
				   "numapol-numabalancing", HOME));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	self->len = PAGES * sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(numabalancing)
{
	if (self->failing)
		derived_nodes_fail(false);
	if (self->saved_delay[0])
		write_text(DEBUGFS "scan_delay_ms", self->saved_delay);
	if (self->saved_period[0])
		write_text(DEBUGFS "scan_period_min_ms", self->saved_period);
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->len);
	pin_to_node(-1);
	cpuset_destroy(&self->cs);
}

TEST_F(numabalancing, pages_stay_in_the_policys_nodes)
{
	long page = sysconf(_SC_PAGESIZE);
	nodeset_t nodes = variant->nodes;
	int counts[NODESET_BITS];
	char got[64];
	volatile char sum = 0;
	double start, elapsed;

	self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	ASSERT_EQ(0, madvise(self->region, self->len, MADV_NOHUGEPAGE));
	if (variant->mode != MPOL_DEFAULT)
		ASSERT_EQ(0, mbind(self->region, self->len,
				   variant->mode | variant->flags, &nodes,
				   NODESET_BITS, 0));
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, HOME | AWAY));
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, AWAY));

	if (variant->no_derived) {
		self->failing = true;
		ASSERT_EQ(0, derived_nodes_fail(true));
	}
	ASSERT_EQ(0, pin_to_node(2));
	memset(self->region, 1, self->len);
	ASSERT_EQ(0, count_page_nodes(self->region, PAGES, counts));
	ASSERT_EQ(PAGES, counts[2])
		TH_LOG("first touch from node 2: pages %s",
		       format_counts(counts, 4, got, sizeof(got)));

	ASSERT_EQ(0, pin_to_node(3));
	start = now_seconds();
	for (elapsed = 0; elapsed < SECONDS; elapsed = now_seconds() - start) {
		for (double check = now_seconds() + CHECK_SECONDS;
		     now_seconds() < check;)
			for (long off = 0; off < (long)self->len; off += page)
				sum += self->region[off];
		ASSERT_EQ(0, count_page_nodes(self->region, PAGES, counts));
		ASSERT_EQ(PAGES, counts[2] + counts[3])
			TH_LOG("after %.1f s: pages %s, outside the policy's {2,3}",
			       elapsed, format_counts(counts, 4, got, sizeof(got)));
		if (counts[3])
			break;
	}
	if (variant->moves) {
		EXPECT_LT(0, counts[3])
			TH_LOG("no page followed the task to node 3 in %d s",
			       SECONDS);
	} else {
		EXPECT_EQ(0, counts[3])
			TH_LOG("NUMA balancing moved %d pages to node 3, which this policy does not let it do",
			       counts[3]);
	}
}

TEST_HARNESS_MAIN
