// SPDX-License-Identifier: GPL-2.0
/*
 * Migration on a cpuset.mems change: cgroup v2 always moves the pages of
 * the tasks in the cpuset to the new nodes, v1 does with
 * cpuset.memory_migrate. Every page a task touched must move to the node
 * do_migrate_pages() maps its node to, whatever VMA holds it; the series
 * skips anonymous VMAs that never had a page, walks the VMAs with an
 * iterator, and takes the pages of all source nodes in one walk when no
 * destination is also a source. Each case interleaves pages over the old
 * nodes in one layout of VMAs, changes the cpuset's nodes, and checks
 * where each page went.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/semantics.h"

#define TOUCHED_PAGES	64
/*
 * In the split layouts, a touched page, then two never touched, in turn:
 * interleaving by page offset then visits every node of a set of 2 or 4.
 */
#define SPLIT_STRIDE	3

/* The changes, as (before, after): each a kind of map. */
#define DISJOINT_FROM	(NODE(0) | NODE(1))	/* 0->2, 1->3: one walk */
#define DISJOINT_TO	(NODE(2) | NODE(3))
#define SHIFTED_FROM	(NODE(0) | NODE(1))	/* 1->2 first, then 0->1 */
#define SHIFTED_TO	(NODE(1) | NODE(2))
#define SHRINK_FROM	0xfUL			/* 0, 1 stay; 2->0, 3->1 */
#define SHRINK_TO	(NODE(0) | NODE(1))

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
	nodeset_t from, to;
};

#define CASE(v, change, l) \
	FIXTURE_VARIANT_ADD(migration, l##_##change##_##v) { \
		.cgroup = CGROUP_##v, .layout = l, \
		.from = change##_FROM, .to = change##_TO }
#define CASES(v, change) \
	CASE(v, change, ONE_VMA); CASE(v, change, SPLIT_VMAS); \
	CASE(v, change, POLICY_VMAS); CASE(v, change, PRIVATE_FILE); \
	CASE(v, change, SHARED_ANON)
CASES(V2, DISJOINT);
CASES(V2, SHIFTED);
CASES(V2, SHRINK);
CASES(V1, DISJOINT);

/*
 * Where do_migrate_pages() sends a page on @node: the node of the same
 * rank in @to (node_remap()); a page on a node of @to stays when the two
 * sets differ in size.
 */
static int remapped(int node, nodeset_t from, nodeset_t to)
{
	if (nodeset_weight(from) != nodeset_weight(to) && (to & NODE(node)))
		return node;
	return nodeset_first(nodeset_remap(NODE(node), from, to));
}

/* The region of @layout, not touched yet; MAP_FAILED on error. */
static char *map_layout(enum layout layout, size_t len, size_t page,
			nodeset_t nodes)
{
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
	    mbind(region, len, MPOL_INTERLEAVE, &nodes, NODESET_BITS, 0))
		return MAP_FAILED;
	/* Read-only and never touched: VMAs without a page. */
	for (size_t off = page; off < len; off += SPLIT_STRIDE * page)
		if (mprotect(region + off, (SPLIT_STRIDE - 1) * page,
			     PROT_READ))
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
	if ((memory & (variant->from | variant->to)) !=
	    (variant->from | variant->to))
		SKIP(return, "needs memory on every node of the change");
	err = cpuset_create(&self->cs, variant->cgroup, "numapol-migration",
			    variant->from);
	ASSERT_EQ(0, err) TH_LOG("creating the cpuset: %s", strerror(-err));
	ASSERT_EQ(0, cpuset_migrate_on_change(&self->cs));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	/* Pages on every node of the old set: each source node's map runs. */
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &variant->from,
				   NODESET_BITS));

	self->stride = split ? SPLIT_STRIDE * page : page;
	self->len = TOUCHED_PAGES * self->stride;
	self->region = map_layout(variant->layout, self->len, page,
				  variant->from);
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
	nodeset_t used = 0;

	for (int i = 0; i < TOUCHED_PAGES; i++)
		self->region[i * self->stride] = 1;
	ASSERT_EQ(0, touched_nodes(self, before));
	for (int i = 0; i < TOUCHED_PAGES; i++) {
		ASSERT_TRUE(before[i] >= 0 && (variant->from & NODE(before[i])))
			TH_LOG("page %d on node %d before the change", i,
			       before[i]);
		used |= NODE(before[i]);
	}
	ASSERT_EQ(variant->from, used) TH_LOG("interleaving missed a node");

	ASSERT_EQ(0, cpuset_set_mems(&self->cs, variant->to));
	ASSERT_EQ(0, touched_nodes(self, after));
	for (int i = 0; i < TOUCHED_PAGES; i++) {
		EXPECT_EQ(remapped(before[i], variant->from, variant->to),
			  after[i])
			TH_LOG("page %d: node %d, then %d", i, before[i],
			       after[i]);
	}
}

TEST_HARNESS_MAIN
