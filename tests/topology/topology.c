// SPDX-License-Identifier: GPL-2.0
/*
 * Does the guest have the topology the host asked QEMU for, and can the
 * other suites see where pages land? Every other suite rests on this.
 *
 * The host states the topology on the kernel command line:
 * numapol.nodes=N and, for a memoryless node, numapol.memless=M; for
 * nodes with memory and no CPUs, in a slower memory tier,
 * numapol.cpuless=N,M.
 */
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/nodes.h"
#include "../lib/tiers.h"

#define PAGES 16

static nodeset_t expected_online(void)
{
	char buf[16];
	const char *n = cmdline_param("numapol.nodes", buf, sizeof(buf));

	return n ? NODE(atoi(n)) - 1 : 0;
}

static nodeset_t expected_memory(void)
{
	char buf[16];
	const char *m = cmdline_param("numapol.memless", buf, sizeof(buf));

	return expected_online() & ~(m ? NODE(atoi(m)) : 0);
}

static nodeset_t expected_cpuless(void)
{
	char buf[64];
	const char *c = cmdline_param("numapol.cpuless", buf, sizeof(buf));
	nodeset_t cpuless;

	return c && !nodeset_parse(c, &cpuless) ? cpuless : 0;
}

TEST(nodes_online_match_qemu_topology)
{
	nodeset_t online;
	char got[64], want[64];

	ASSERT_NE(0UL, expected_online()) TH_LOG("numapol.nodes missing from the command line");
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/online", &online));
	EXPECT_EQ(expected_online(), online)
		TH_LOG("online nodes %s, QEMU was given %s",
		       nodeset_format(online, got, sizeof(got)),
		       nodeset_format(expected_online(), want, sizeof(want)));
}

TEST(memory_nodes_match_qemu_topology)
{
	nodeset_t memory;
	char got[64], want[64];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory", &memory));
	EXPECT_EQ(expected_memory(), memory)
		TH_LOG("nodes with memory %s, expected %s",
		       nodeset_format(memory, got, sizeof(got)),
		       nodeset_format(expected_memory(), want, sizeof(want)));
}

TEST(cpu_nodes_match_qemu_topology)
{
	nodeset_t want = expected_online() & ~expected_cpuless(), cpus;
	char got[64], expected[64];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_cpu", &cpus));
	EXPECT_EQ(want, cpus)
		TH_LOG("nodes with CPUs %s, expected %s",
		       nodeset_format(cpus, got, sizeof(got)),
		       nodeset_format(want, expected, sizeof(expected)));
}

/*
 * The HMAT table QEMU is given makes the memory of CPU-less nodes slower,
 * so the kernel puts it in a memory tier of its own, below the others: a
 * higher number in sysfs. Demotion and weighted interleave rely on it.
 */
TEST(cpuless_nodes_are_a_slower_memory_tier)
{
	nodeset_t cpuless = expected_cpuless();
	int fast = memory_tier_of(0);

	if (!cpuless)
		SKIP(return, "no CPU-less node in this topology");
	ASSERT_LE(0, fast) TH_LOG("node 0 is in no memory tier");
	for (int n = 1; n < (int)NODESET_BITS; n++) {
		if (!(expected_memory() & NODE(n)))
			continue;
		if (cpuless & NODE(n)) {
			EXPECT_LT(fast, memory_tier_of(n))
				TH_LOG("node %d: tier %d, node 0: tier %d",
				       n, memory_tier_of(n), fast);
		} else {
			EXPECT_EQ(fast, memory_tier_of(n))
				TH_LOG("node %d: tier %d, node 0: tier %d",
				       n, memory_tier_of(n), fast);
		}
	}
}

TEST(root_cpuset_spans_memory_nodes)
{
	char controllers[256];
	nodeset_t mems;

	ASSERT_EQ(0, read_text("/sys/fs/cgroup/cgroup.controllers",
			       controllers, sizeof(controllers)));
	ASSERT_NE(NULL, strstr(controllers, "cpuset"))
		TH_LOG("cgroup v2 controllers: %s", controllers);
	ASSERT_EQ(0, read_nodeset("/sys/fs/cgroup/cpuset.mems.effective", &mems));
	EXPECT_EQ(expected_memory(), mems);
}

/*
 * Every node with memory in turn, however many the topology has: a region
 * bound to it gets all its pages there.
 */
TEST(pages_land_on_each_bound_node)
{
	long page = sysconf(_SC_PAGESIZE);
	nodeset_t memory = expected_memory();
	int nodes[PAGES];

	ASSERT_NE(0UL, memory);
	for (int node = 0; node < (int)NODESET_BITS; node++) {
		nodeset_t want = NODE(node);
		char *region;

		if (!(memory & want))
			continue;
		region = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, region);
		ASSERT_EQ(0, mbind(region, PAGES * page, MPOL_BIND, &want,
				   NODESET_BITS, 0));
		memset(region, 0x5a, PAGES * page);
		ASSERT_EQ(0, page_nodes(region, PAGES, nodes));
		for (int i = 0; i < PAGES; i++) {
			EXPECT_EQ(node, nodes[i])
				TH_LOG("bound to node %d: page %d", node, i);
		}
		munmap(region, PAGES * page);
	}
}

TEST_HARNESS_MAIN
