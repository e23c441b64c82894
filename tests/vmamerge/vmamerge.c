// SPDX-License-Identifier: GPL-2.0
/*
 * VMA merging under memory policies. mbind(2) over two adjacent ranges by
 * separate calls with equal policies leaves one VMA: vma_merge() asks
 * mpol_equal(), which must compare what decides the policy's nodes now and
 * after any cpuset change, and nothing a mode leaves unset. Two policies
 * with the same nodes today that part ways at a later cpuset change must
 * not merge, or one of them is lost; two that use the same nodes in every
 * cpuset merge, wherever each was made.
 *
 * An uninitialised field compared by mpol_equal() keeps equal policies
 * apart only now and then, as the slab hands out objects with other
 * contents: every case is tried on many fresh mappings.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

#define MODE_FLAGS	(MPOL_NODE_FLAGS | MPOL_F_NUMA_BALANCING)

#define TRIES		200
/* Pages 1 and 2 of 4 get the policies: pages 0 and 3 keep them apart. */
#define REGION_PAGES	4
#define FIRST_PAGE	1
#define CPUSET_NODES	(NODE(0) | NODE(1))

/* The VMAs of this process that overlap [start, end), from /proc/self/maps. */
static int vmas_over(unsigned long start, unsigned long end)
{
	unsigned long from, to;
	char line[512];
	int count = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx", &from, &to) == 2 &&
		    from < end && to > start)
			count++;
	fclose(maps);
	return count;
}

/* Move this process into a new cgroup v2 cpuset of nodes 0 and 1. */
static int enter_cpuset(struct cpuset *cs)
{
	int err = cpuset_create(cs, CGROUP_V2, "numapol-vmamerge",
				CPUSET_NODES);

	return err ? err : cpuset_attach(cs, getpid());
}

FIXTURE(merge) {
	struct cpuset cs;
	long page;
};

FIXTURE_VARIANT(merge) {
	int mode;		/* mode | mode flags */
	nodeset_t nodes;	/* in a cpuset of nodes 0 and 1 */
};

#define MERGE(name, m, n) \
	FIXTURE_VARIANT_ADD(merge, name) { .mode = (m), .nodes = (n) }
#define WITH_FLAGS(name, m, n) \
	MERGE(name, m, n); \
	MERGE(name##_static, (m) | MPOL_F_STATIC_NODES, n); \
	MERGE(name##_relative, (m) | MPOL_F_RELATIVE_NODES, n)
MERGE(default, MPOL_DEFAULT, 0);
MERGE(local, MPOL_LOCAL, 0);
/* MPOL_PREFERRED over no node is MPOL_LOCAL. */
MERGE(preferred_empty, MPOL_PREFERRED, 0);
WITH_FLAGS(bind, MPOL_BIND, CPUSET_NODES);
WITH_FLAGS(interleave, MPOL_INTERLEAVE, CPUSET_NODES);
WITH_FLAGS(weighted_interleave, MPOL_WEIGHTED_INTERLEAVE, CPUSET_NODES);
WITH_FLAGS(preferred, MPOL_PREFERRED, NODE(1));
WITH_FLAGS(preferred_many, MPOL_PREFERRED_MANY, CPUSET_NODES);
MERGE(bind_numa_balancing, MPOL_BIND | MPOL_F_NUMA_BALANCING, CPUSET_NODES);
MERGE(preferred_many_numa_balancing,
      MPOL_PREFERRED_MANY | MPOL_F_NUMA_BALANCING, CPUSET_NODES);

FIXTURE_SETUP(merge)
{
	nodeset_t memory;
	int err;

	self->page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & CPUSET_NODES) != CPUSET_NODES)
		SKIP(return, "needs memory on nodes 0 and 1");
	err = enter_cpuset(&self->cs);
	ASSERT_EQ(0, err) TH_LOG("entering the cpuset: %s", strerror(-err));
}

FIXTURE_TEARDOWN(merge)
{
	cpuset_destroy(&self->cs);
}

TEST_F(merge, separate_calls_with_equal_policies_merge)
{
	size_t len = REGION_PAGES * self->page;
	int unmerged = 0;

	for (int try = 0; try < TRIES; try++) {
		char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned long first;
		int vmas;

		ASSERT_NE(MAP_FAILED, region);
		first = (unsigned long)region + FIRST_PAGE * self->page;
		for (int i = 0; i < 2; i++) {
			ASSERT_EQ(0, mbind((void *)(first + i * self->page),
					   self->page, variant->mode,
					   &variant->nodes, NODESET_BITS, 0))
				TH_LOG("mbind of page %d: %s", FIRST_PAGE + i,
				       strerror(errno));
		}
		vmas = vmas_over(first, first + 2 * self->page);
		ASSERT_LT(0, vmas);
		unmerged += vmas != 1;
		munmap(region, len);
	}
	EXPECT_EQ(0, unmerged)
		TH_LOG("%s, flags %s: %d of %d pairs left unmerged",
		       mpol_mode_name(variant->mode & ~MODE_FLAGS),
		       mpol_flags_name(variant->mode), unmerged, TRIES);
}

/*
 * The cases that change the cpuset between their two mbind() calls: a
 * region of REGION_PAGES pages, made in a cpuset of nodes 0 and 1.
 */
struct change {
	struct cpuset cs;
	char *region;
	size_t len;
	long page;
};

/* Return: 0, a negative errno, or 1 when nodes 0-2 lack memory. */
static int change_setup(struct change *c)
{
	nodeset_t memory, all = CPUSET_NODES | NODE(2);
	int err;

	c->region = MAP_FAILED;
	c->page = sysconf(_SC_PAGESIZE);
	c->len = REGION_PAGES * c->page;
	err = read_nodeset("/sys/devices/system/node/has_memory", &memory);
	if (err)
		return err;
	if ((memory & all) != all)
		return 1;
	err = enter_cpuset(&c->cs);
	if (err)
		return err;
	c->region = mmap(NULL, c->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return c->region == MAP_FAILED ? -errno : 0;
}

static void change_teardown(struct change *c)
{
	if (c->region != MAP_FAILED)
		munmap(c->region, c->len);
	cpuset_destroy(&c->cs);
}

/*
 * mbind() page FIRST_PAGE over @first, move the cpuset to @then, mbind()
 * the next page over @second: the VMAs over the two pages, or -errno.
 */
static int mbind_across_a_change(struct change *c, int mode,
				 nodeset_t first, nodeset_t then,
				 nodeset_t second)
{
	char *page = c->region + FIRST_PAGE * c->page;
	unsigned long start = (unsigned long)page;
	int err;

	if (mbind(page, c->page, mode, &first, NODESET_BITS, 0))
		return -errno;
	err = cpuset_set_mems(&c->cs, then);
	if (err)
		return err;
	if (mbind(page + c->page, c->page, mode, &second, NODESET_BITS, 0))
		return -errno;
	return vmas_over(start, start + 2 * c->page);
}

/*
 * Policies made in different cpusets that part ways at a later change:
 * the first made in {0,1}, the second after the cpuset changed, to {2}
 * (where both have node 2 now) or to {1,2} (where both were made over
 * node 1). Back in {0,1}, or in {0,1,2}, they differ.
 */
FIXTURE(diverge) {
	struct change c;
};

FIXTURE_VARIANT(diverge) {
	int mode;
	nodeset_t first, second;	/* made in {0,1}, and in @then */
	nodeset_t then;
};

#define DIVERGE(name, m, a, b) \
	FIXTURE_VARIANT_ADD(diverge, name) { \
		.mode = (m), .first = (a), .second = (b), .then = NODE(2) }
#define DIVERGE_FLAGS(name, m) \
	/* {1} in {0,1} and {2} in {2}; back in {0,1}: {1} and {0}. */ \
	DIVERGE(name, m, NODE(1), NODE(2)); \
	/* {1} in {0,1} and in {1,2}; in {0,1,2}: {1} and {0}. */ \
	FIXTURE_VARIANT_ADD(diverge, name##_same_nodes) { \
		.mode = (m), .first = NODE(1), .second = NODE(1), \
		.then = NODE(1) | NODE(2) }; \
	/* {1,2} and {2}: {2} in {2}; back in {0,1}: {1} and none. */ \
	DIVERGE(name##_static, (m) | MPOL_F_STATIC_NODES, \
		NODE(1) | NODE(2), NODE(2)); \
	/* Relative {1} and {0}: {2} in {2}; in {0,1}: {1} and {0}. */ \
	DIVERGE(name##_relative, (m) | MPOL_F_RELATIVE_NODES, \
		NODE(1), NODE(0))
DIVERGE_FLAGS(bind, MPOL_BIND);
DIVERGE_FLAGS(interleave, MPOL_INTERLEAVE);
DIVERGE_FLAGS(weighted_interleave, MPOL_WEIGHTED_INTERLEAVE);

FIXTURE_SETUP(diverge)
{
	int err = change_setup(&self->c);

	if (err == 1)
		SKIP(return, "needs memory on nodes 0, 1 and 2");
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
}

FIXTURE_TEARDOWN(diverge)
{
	change_teardown(&self->c);
}

TEST_F(diverge, policies_that_part_ways_later_do_not_merge)
{
	int vmas = mbind_across_a_change(&self->c, variant->mode,
					 variant->first, variant->then,
					 variant->second);

	ASSERT_LT(0, vmas) TH_LOG("%s", strerror(-vmas));
	EXPECT_EQ(2, vmas)
		TH_LOG("%s, flags %s: merged, so one policy is lost",
		       mpol_mode_name(variant->mode & ~MODE_FLAGS),
		       mpol_flags_name(variant->mode));
}

/*
 * The same policy with a node flag, over {0,1,2}, made in {0,1} and,
 * after the cpuset changed, in {1,2}: its own nodes differ ({0,1} and
 * {1,2}, or nodes 0 and 1 for a preference), but the user's nodes decide
 * what it uses in every cpuset, so the two merge.
 */
FIXTURE(rejoin) {
	struct change c;
};

FIXTURE_VARIANT(rejoin) {
	int mode;
};

#define REJOIN(name, m) \
	FIXTURE_VARIANT_ADD(rejoin, name##_static) { \
		.mode = (m) | MPOL_F_STATIC_NODES }; \
	FIXTURE_VARIANT_ADD(rejoin, name##_relative) { \
		.mode = (m) | MPOL_F_RELATIVE_NODES }
REJOIN(bind, MPOL_BIND);
REJOIN(interleave, MPOL_INTERLEAVE);
REJOIN(weighted_interleave, MPOL_WEIGHTED_INTERLEAVE);
REJOIN(preferred, MPOL_PREFERRED);
REJOIN(preferred_many, MPOL_PREFERRED_MANY);

FIXTURE_SETUP(rejoin)
{
	int err = change_setup(&self->c);

	if (err == 1)
		SKIP(return, "needs memory on nodes 0, 1 and 2");
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
}

FIXTURE_TEARDOWN(rejoin)
{
	change_teardown(&self->c);
}

TEST_F(rejoin, flagged_policies_made_in_two_cpusets_merge)
{
	nodeset_t user = CPUSET_NODES | NODE(2);
	int vmas = mbind_across_a_change(&self->c, variant->mode, user,
					 NODE(1) | NODE(2), user);

	ASSERT_LT(0, vmas) TH_LOG("%s", strerror(-vmas));
	EXPECT_EQ(1, vmas)
		TH_LOG("%s, flags %s: made alike in two cpusets, not merged",
		       mpol_mode_name(variant->mode & ~MODE_FLAGS),
		       mpol_flags_name(variant->mode));
}

TEST_HARNESS_MAIN
