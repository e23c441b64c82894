// SPDX-License-Identifier: GPL-2.0
/*
 * A node's memory goes offline and comes back under policies that name
 * it. Offlining every memory block of the node takes it out of the nodes
 * with memory, and so out of every cpuset's effective nodes: the tasks'
 * allowed nodes change as for a cpuset change, and the policies must
 * follow docs/semantics.md for the nodes left. Onlining it again must give
 * back the policies as they were (lossless); Linux 6.12 remaps a bind to
 * {1,3} onto {0,1} while node 3 is offline and keeps {0,1} after.
 *
 * The node is the one boot.sh gives its memory as a DIMM, onlined movable
 * (HOTPLUG_NODE, on a kernel with memory hotplug: FLAVOUR-wide), which
 * the guest init names in numapol.hotplug_node.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/variants.h"

#define N(n)		NODE(n)
#define ALL		(N(0) | N(1) | N(2) | N(3))
/* Each state probes from up to 4 nodes, in fresh slices. */
#define SLICES		(3 * 4)
/* Offlining migrates the node's pages, and may have to wait for some. */
#define OFFLINE_TRIES	10

enum policy_kind { TASK_POLICY, VMA_POLICY, SHARED_POLICY };

FIXTURE(memhotplug) {
	struct cpuset cs;
	int node;		/* the node whose memory goes */
	char *region, *next;
	size_t len;
	long slice;
};

FIXTURE_VARIANT(memhotplug) {
	int mode;
	unsigned int flags;
	enum cgroup_version cgroup;
};

EVERY_MODE_VARIANTS(memhotplug, 2);

/* Write "offline" or "online_movable" to every memory block of @node. */
static int set_node_memory(int node, const char *state)
{
	struct dirent *entry;
	char dir[64], path[sizeof(dir) + sizeof(entry->d_name) + 8];
	int err = 0, blocks = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/devices/system/node/node%d", node);
	d = opendir(dir);
	if (!d)
		return -1;
	while (!err && (entry = readdir(d))) {
		if (strncmp(entry->d_name, "memory", 6) ||
		    !strchr("0123456789", entry->d_name[6]) ||
		    !entry->d_name[6])
			continue;
		snprintf(path, sizeof(path), "%s/%s/state", dir, entry->d_name);
		err = -1;
		for (int try = 0; err && try < OFFLINE_TRIES; try++)
			err = write_text(path, state) ? -1 : 0;
		blocks++;
	}
	closedir(d);
	return err || !blocks ? -1 : 0;
}

static nodeset_t nodes_with_memory(void)
{
	nodeset_t memory = 0;

	read_nodeset("/sys/devices/system/node/has_memory", &memory);
	return memory;
}

static bool node_has_memory(int node)
{
	return nodes_with_memory() & N(node);
}

FIXTURE_SETUP(memhotplug)
{
	self->node = cmdline_number("numapol.hotplug_node", -1);
	if (self->node < 0)
		SKIP(return, "no node whose memory can all go offline in this topology (boot.sh HOTPLUG_NODE)");
	ASSERT_LT(1, self->node);
	ASSERT_GT(4, self->node);
	if ((nodes_with_memory() & ALL) != ALL)
		SKIP(return, "needs memory on nodes 0-3");
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup,
				   "numapol-memhotplug", ALL));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	self->slice = TOUCH_PAGES * sysconf(_SC_PAGESIZE);
	self->len = SLICES * self->slice;
}

FIXTURE_TEARDOWN(memhotplug)
{
	if (self->node < 0)
		return;
	if (!node_has_memory(self->node))
		set_node_memory(self->node, "online_movable");
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->len);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	cpuset_destroy(&self->cs);
}

/* Compare get_mempolicy() and fresh pages with the model; 1 if not. */
static int observe(struct __test_metadata *_metadata,
		   FIXTURE_DATA(memhotplug) *self,
		   const struct policy_request *req, enum policy_kind kind,
		   nodeset_t allowed, const char *when)
{
	struct policy_expectation want;
	char got[32], exp[32], why[512];
	nodeset_t reported = 0;
	char *next = kind == TASK_POLICY ? NULL : self->next;
	int mode = -1, wrong = 0;

	if (kind == SHARED_POLICY) {
		/*
		 * Not remapped (rule 6): the nodes it was made with, those of
		 * them that have memory, else anywhere allowed.
		 */
		struct policy_request kept = {
			.mode = req->mode, .user = policy_created_nodes(req),
			.created_in = allowed,
		};

		policy_expect(&kept, allowed, &want);
		want.reported = req->flags & MPOL_NODE_FLAGS ? req->user :
							       kept.user;
		/* Interleaving onto a node gone, they fall back anywhere in C. */
		if (want.spread && (kept.user & ~allowed)) {
			want.may_land = allowed;
			want.spread = false;
		}
	} else {
		policy_expect(req, allowed, &want);
	}
	if (get_mempolicy(&mode, &reported, NODESET_BITS,
			  kind == TASK_POLICY ? NULL : self->region,
			  kind == TASK_POLICY ? 0 : MPOL_F_ADDR) ||
	    reported != want.reported) {
		TH_LOG("%s: get_mempolicy() {%s}; expected {%s}", when,
		       nodeset_format(reported, got, sizeof(got)),
		       nodeset_format(want.reported, exp, sizeof(exp)));
		wrong = 1;
	}
	if (!probe_placement(req->mode, &want, allowed, &next, self->slice,
			     why, sizeof(why))) {
		TH_LOG("%s: %s", when, why);
		wrong = 1;
	}
	if (kind != TASK_POLICY)
		self->next = next;
	return wrong;
}

/*
 * Make the policy, then check it with all nodes, with the node's memory
 * offline, and online again. Returns the number of checks that failed.
 */
static int run(struct __test_metadata *_metadata,
	       FIXTURE_DATA(memhotplug) *self,
	       const FIXTURE_VARIANT(memhotplug) *variant,
	       enum policy_kind kind)
{
	const nodeset_t gone = ALL & ~N(self->node);
	struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = N(1) | N(self->node), .created_in = ALL,
	};
	unsigned int mode = req.mode | req.flags;
	int wrong = 0;

	if (kind != TASK_POLICY) {
		self->region = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
				    (kind == SHARED_POLICY ? MAP_SHARED :
				     MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
		self->next = self->region;
	}
	if (kind == TASK_POLICY ?
	    set_mempolicy(mode, &req.user, NODESET_BITS) :
	    self->region == MAP_FAILED ||
	    madvise(self->region, self->len, MADV_NOHUGEPAGE) ||
	    mbind(self->region, self->len, mode, &req.user, NODESET_BITS, 0)) {
		TH_LOG("cannot make the policy: %s", strerror(errno));
		return 1;
	}

	wrong += observe(_metadata, self, &req, kind, ALL, "before");
	if (set_node_memory(self->node, "offline") ||
	    node_has_memory(self->node)) {
		TH_LOG("cannot offline the memory of node %d", self->node);
		return wrong + 1;
	}
	wrong += observe(_metadata, self, &req, kind, gone, "offline");
	if (set_node_memory(self->node, "online_movable") ||
	    !node_has_memory(self->node)) {
		TH_LOG("cannot online the memory of node %d", self->node);
		return wrong + 1;
	}
	wrong += observe(_metadata, self, &req, kind, ALL, "online again");
	return wrong;
}

TEST_F(memhotplug, task_policy)
{
	EXPECT_EQ(0, run(_metadata, self, variant, TASK_POLICY));
}

TEST_F(memhotplug, vma_policy)
{
	EXPECT_EQ(0, run(_metadata, self, variant, VMA_POLICY));
}

TEST_F(memhotplug, shared_policy)
{
	EXPECT_EQ(0, run(_metadata, self, variant, SHARED_POLICY));
}

TEST_HARNESS_MAIN
