// SPDX-License-Identifier: GPL-2.0
/*
 * Migration on a cpuset.mems change: cgroup v2 always moves the pages of
 * the tasks in the cpuset to the new nodes, v1 does with
 * cpuset.memory_migrate. Every page a task touched must move, whatever VMA
 * holds it; the series walks the VMAs with an iterator and skips anonymous
 * VMAs that never had a page. Each case touches pages in one layout of
 * VMAs, moves the cpuset from {0,1} to {2,3}, and checks that each page
 * went from node n to node n + 2: between node sets of one size,
 * do_migrate_pages() keeps the pages' relative placement.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

#define TOUCHED_PAGES	64
#define FROM		(NODE(0) | NODE(1))
#define TO		(NODE(2) | NODE(3))

enum layout {
	ONE_VMA,	/* one anonymous VMA, every page touched */
	SPLIT_VMAS,	/* a touched VMA, then one never touched, in turn */
	POLICY_VMAS,	/* the same, each VMA with a policy of its own */
	PRIVATE_FILE,	/* a private file mapping: anonymous copies */
	SHARED_ANON,	/* shared anonymous memory: shmem pages */
};

FIXTURE(migration) {
	struct cpuset cs;
	char *region;
	size_t len;
	size_t stride;		/* bytes from one touched page to the next */
};

FIXTURE_VARIANT(migration) {
	enum cgroup_version cgroup;
	enum layout layout;
};

#define CASE(v, l) \
	FIXTURE_VARIANT_ADD(migration, l##_##v) { \
		.cgroup = CGROUP_##v, .layout = l }
#define CASES(v) \
	CASE(v, ONE_VMA); CASE(v, SPLIT_VMAS); CASE(v, POLICY_VMAS); \
	CASE(v, PRIVATE_FILE); CASE(v, SHARED_ANON)
CASES(V2);
CASES(V1);

/* The region of @layout, not touched yet; MAP_FAILED on error. */
static char *map_layout(enum layout layout, size_t len, size_t page)
{
	nodeset_t nodes = FROM;
	char *region;
	int fd;

	switch (layout) {
	case PRIVATE_FILE:
		fd = memfd_create("numapol-migration", 0);
		if (fd < 0 || ftruncate(fd, len))
			return MAP_FAILED;
		region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			      fd, 0);
		close(fd);
		return region;
	case SHARED_ANON:
		return mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	default:
		break;
	}
	region = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || layout == ONE_VMA)
		return region;
	if (layout == POLICY_VMAS &&
	    mbind(region, len, MPOL_BIND, &nodes, NODESET_BITS, 0))
		return MAP_FAILED;
	/* Odd pages read-only and never touched: VMAs without a page. */
	for (size_t off = page; off < len; off += 2 * page)
		if (mprotect(region + off, page, PROT_READ))
			return MAP_FAILED;
	return region;
}

FIXTURE_SETUP(migration)
{
	size_t page = sysconf(_SC_PAGESIZE);
	bool split = variant->layout == SPLIT_VMAS ||
		     variant->layout == POLICY_VMAS;
	nodeset_t memory;
	int err;

	self->region = MAP_FAILED;
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & (FROM | TO)) != (FROM | TO))
		SKIP(return, "needs memory on nodes 0 to 3");
	err = cpuset_create(&self->cs, variant->cgroup, "numapol-migration",
			    FROM);
	ASSERT_EQ(0, err) TH_LOG("creating the cpuset: %s", strerror(-err));
	ASSERT_EQ(0, cpuset_migrate_on_change(&self->cs));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));

	self->stride = split ? 2 * page : page;
	self->len = TOUCHED_PAGES * self->stride;
	self->region = map_layout(variant->layout, self->len, page);
	ASSERT_NE(MAP_FAILED, self->region);
}

FIXTURE_TEARDOWN(migration)
{
	if (self->region != MAP_FAILED)
		munmap(self->region, self->len);
	cpuset_destroy(&self->cs);
}

/* The node of each touched page into nodes[]; 0 or -errno. */
static int touched_nodes(FIXTURE_DATA(migration) *self, int *nodes)
{
	for (int i = 0; i < TOUCHED_PAGES; i++) {
		int err = page_nodes(self->region + i * self->stride, 1,
				     &nodes[i]);

		if (err)
			return err;
	}
	return 0;
}

TEST_F(migration, every_touched_page_follows)
{
	int before[TOUCHED_PAGES], after[TOUCHED_PAGES];

	for (int i = 0; i < TOUCHED_PAGES; i++)
		self->region[i * self->stride] = 1;
	ASSERT_EQ(0, touched_nodes(self, before));
	for (int i = 0; i < TOUCHED_PAGES; i++) {
		ASSERT_TRUE(before[i] == 0 || before[i] == 1)
			TH_LOG("page %d on node %d before the change", i,
			       before[i]);
	}

	ASSERT_EQ(0, cpuset_set_mems(&self->cs, TO));
	ASSERT_EQ(0, touched_nodes(self, after));
	for (int i = 0; i < TOUCHED_PAGES; i++) {
		EXPECT_EQ(before[i] + 2, after[i])
			TH_LOG("page %d: node %d, then %d", i, before[i],
			       after[i]);
	}
}

TEST_HARNESS_MAIN
