// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of memory policies to docs/semantics.md across sequences of
 * cpuset changes: for every mode and node flag, under cgroup v2 and v1,
 * for task policies, VMA policies, a fork()ed child's policy and shmem
 * shared policies. After every change it checks what get_mempolicy()
 * reports and where freshly touched pages land, against
 * tests/lib/semantics.c; under task policies also where write() puts a
 * file's page cache, on ext4 (the guest's virtio disk) and on tmpfs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/variants.h"

#define MAX_STEPS 6
#define MAX_NODES 8
/* Room for a fresh slice of TOUCH_PAGES pages at every probe. */
#define SLICES (MAX_STEPS * (MAX_NODES + 1))
#define REGION_PAGES (TOUCH_PAGES * SLICES)

struct sequence {
	const char *name;
	nodeset_t user;			/* U */
	nodeset_t steps[MAX_STEPS];	/* C0, then each change; 0 ends */
};

#define N(n) NODE(n)
static const struct sequence sequences[] = {
	/* The LWN article: the lost node must come back. */
	{ "shrink_to_one_and_back", N(0) | N(1),
	  { N(0) | N(1), N(1) | N(2), N(2), N(0) | N(1) } },
	{ "shrink_and_grow", 0xf, { 0xf, N(0) | N(1), 0xf } },
	{ "disjoint_and_back", N(0) | N(1), { N(0) | N(1), N(2) | N(3), N(0) | N(1) } },
	{ "subset_to_one_node", N(1) | N(3), { 0xf, N(3), 0xf } },
	{ "subset_shrink_grow", N(1) | N(3), { 0xf, N(0) | N(1), 0xf } },
	{ "relative_to_disjoint", N(1), { N(0) | N(1), N(2) | N(3), N(0) | N(1) } },
	{ "sparse_to_disjoint", N(1) | N(3), { N(0) | N(1), N(2) | N(3), 0xf } },
	/* U is wider than the cpuset: only U & C0 is granted. */
	{ "wider_than_cpuset", 0xf, { N(0) | N(1), N(2) | N(3), N(0) | N(1) } },
};

enum policy_kind {
	TASK_POLICY,		/* probed with fresh anonymous pages */
	VMA_POLICY,
	TASK_POLICY_EXT4,	/* probed with page cache, a file in DISK_DIR */
	TASK_POLICY_TMPFS,	/* probed with page cache, a file in /tmp */
};

FIXTURE(rebind) {
	struct cpuset cs;
	nodeset_t memory;
	char *region;
	size_t region_len;
};

FIXTURE_VARIANT(rebind) {
	int mode;
	unsigned int flags;
	enum cgroup_version cgroup;
};

EVERY_MODE_VARIANTS(rebind, 2);
MODE_FLAG_VARIANT(rebind, BIND, BALANCING, 2);
EVERY_MODE_VARIANTS(rebind, 1);

FIXTURE_SETUP(rebind)
{
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &self->memory));
	self->region_len = REGION_PAGES * sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup, "conformance",
				   self->memory));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
}

FIXTURE_TEARDOWN(rebind)
{
	cpuset_destroy(&self->cs);
}

static bool runnable(const struct sequence *seq, nodeset_t memory)
{
	for (int i = 0; i < MAX_STEPS && seq->steps[i]; i++)
		if ((seq->steps[i] & memory) != seq->steps[i])
			return false;
	return true;
}

/*
 * Where fresh pages go: the next slice of the VMA, a new mapping, or a
 * new file in @file_dir.
 */
struct probe {
	char *next;	/* NULL for the task policy */
	long slice;
	const char *file_dir;
};

/*
 * Observe the policy once the cpuset allows @allowed, and compare with
 * the model. BIND and PREFERRED_MANY are probed from every allowed node's
 * CPUs, which shows all their nodes; the other modes from anywhere.
 * Returns true when everything matched; logs each difference.
 */
static bool observe(struct __test_metadata *_metadata,
		    const struct policy_request *req, const char *what,
		    nodeset_t allowed, struct probe *probe)
{
	char c[32], got[32], exp[32], why[512];
	struct policy_expectation want;
	nodeset_t reported = 0;
	bool ok = true;
	int mode = -1;
	long err;

	policy_expect(req, allowed, &want);
	err = probe->next ?
		get_mempolicy(&mode, &reported, NODESET_BITS, probe->next, MPOL_F_ADDR) :
		get_mempolicy(&mode, &reported, NODESET_BITS, NULL, 0);
	if (err || mode != (int)(req->mode | req->flags) || reported != want.reported) {
		TH_LOG("%s, cpuset {%s}: mode %#x nodes {%s}; expected mode %#x nodes {%s}",
		       what, nodeset_format(allowed, c, sizeof(c)), mode,
		       nodeset_format(reported, got, sizeof(got)),
		       req->mode | req->flags,
		       nodeset_format(want.reported, exp, sizeof(exp)));
		ok = false;
	}
	if (probe->file_dir ?
	    !probe_file_placement(req->mode, &want, allowed, probe->file_dir,
				  why, sizeof(why)) :
	    !probe_placement(req->mode, &want, allowed, &probe->next,
			     probe->slice, why, sizeof(why))) {
		TH_LOG("%s, cpuset {%s}: %s", what,
		       nodeset_format(allowed, c, sizeof(c)), why);
		ok = false;
	}
	return ok;
}

/* Apply the policy of @kind over the region or the task. */
static int apply_policy(FIXTURE_DATA(rebind) *self, enum policy_kind kind,
			const struct policy_request *req)
{
	if (kind != VMA_POLICY)
		return set_mempolicy(req->mode | req->flags, &req->user, NODESET_BITS);
	return mbind(self->region, self->region_len, req->mode | req->flags,
		     &req->user, NODESET_BITS, 0);
}

/* Run every sequence the topology allows; returns the mismatches. */
static int run_sequences(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rebind) *self,
			 const FIXTURE_VARIANT(rebind) *variant,
			 enum policy_kind kind)
{
	long page = sysconf(_SC_PAGESIZE);
	int mismatches = 0, ran = 0;
	struct probe probe;

	for (size_t s = 0; s < sizeof(sequences) / sizeof(sequences[0]); s++) {
		const struct sequence *seq = &sequences[s];
		struct policy_request req = {
			.mode = variant->mode, .flags = variant->flags,
			.user = seq->user, .created_in = seq->steps[0],
		};

		if (!runnable(seq, self->memory))
			continue;
		ran++;
		ASSERT_EQ(0, cpuset_set_mems(&self->cs, seq->steps[0]));
		self->region = mmap(NULL, self->region_len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->region);
		/* One probe's pages only: a huge page would span several. */
		ASSERT_EQ(0, madvise(self->region, self->region_len, MADV_NOHUGEPAGE));
		ASSERT_EQ(0, apply_policy(self, kind, &req));
		probe = (struct probe){
			.next = kind == VMA_POLICY ? self->region : NULL,
			.slice = TOUCH_PAGES * page,
			.file_dir = kind == TASK_POLICY_EXT4 ? DISK_DIR :
				    kind == TASK_POLICY_TMPFS ? "/tmp" : NULL,
		};
		for (int i = 0; i < MAX_STEPS && seq->steps[i]; i++) {
			char what[96];

			if (i)
				ASSERT_EQ(0, cpuset_set_mems(&self->cs, seq->steps[i]));
			snprintf(what, sizeof(what), "%s step %d", seq->name, i);
			mismatches += !observe(_metadata, &req, what, seq->steps[i], &probe);
		}
		munmap(self->region, self->region_len);
		ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT, NULL, 0));
	}
	if (!ran)
		SKIP(return 0, "no sequence fits the nodes with memory");
	return mismatches;
}

TEST_F(rebind, task_policy)
{
	EXPECT_EQ(0, run_sequences(_metadata, self, variant, TASK_POLICY));
}

TEST_F(rebind, vma_policy)
{
	EXPECT_EQ(0, run_sequences(_metadata, self, variant, VMA_POLICY));
}

/* write() allocates page cache under the task policy, as a fault does. */
TEST_F(rebind, task_policy_ext4_page_cache)
{
	if (!disk_mounted())
		SKIP(return, "needs the ext4 disk at " DISK_DIR
		     " (a kernel with virtio block and ext4: a -wide flavour)");
	EXPECT_EQ(0, run_sequences(_metadata, self, variant, TASK_POLICY_EXT4));
}

TEST_F(rebind, task_policy_tmpfs_page_cache)
{
	EXPECT_EQ(0, run_sequences(_metadata, self, variant, TASK_POLICY_TMPFS));
}

/*
 * A child forked after the first change inherits the creation state: it
 * takes the rest of the LWN sequence itself, then the first change again,
 * and must see what the parent would have.
 */
TEST_F(rebind, forked_child_policy)
{
	const struct sequence *seq = &sequences[0];
	struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = seq->user, .created_in = seq->steps[0],
	};
	int status;
	pid_t child;

	if (!runnable(seq, self->memory))
		SKIP(return, "needs memory on nodes 0-2");
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, seq->steps[0]));
	ASSERT_EQ(0, set_mempolicy(req.mode | req.flags, &req.user, NODESET_BITS));
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, seq->steps[1]));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int mismatches = 0;

		for (int i = 2; i <= MAX_STEPS; i++) {
			/* After the last step, step 1 once more. */
			int step = i < MAX_STEPS && seq->steps[i] ? i : 1;
			struct probe task = { 0 };
			char what[64];

			if (cpuset_set_mems(&self->cs, seq->steps[step]))
				_exit(100);
			snprintf(what, sizeof(what), "child, %s step %d", seq->name, step);
			mismatches += !observe(_metadata, &req, what, seq->steps[step], &task);
			if (step == 1)
				break;
		}
		_exit(mismatches);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Shared policies are not rebound (rule 6): a shmem range keeps the nodes
 * its policy was made with in every cpuset, and while none of them is
 * allowed, pages come from the cpuset. Under node flags the user's nodes
 * reach past the creation cpuset, so that get_mempolicy(), which reports
 * them (rule 5), tells them from the nodes the policy uses.
 */
TEST_F(rebind, shmem_policy_is_not_rebound)
{
	const nodeset_t c0 = N(0) | N(1), away = N(2) | N(3);
	const unsigned int node_flags = variant->flags & MPOL_NODE_FLAGS;
	struct policy_request req = {
		.mode = variant->mode, .flags = node_flags,
		.user = node_flags ? c0 | N(2) : c0, .created_in = c0,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct policy_expectation made;
	int mismatches = 0;

	if ((self->memory & 0xf) != 0xf)
		SKIP(return, "needs memory on nodes 0-3");
	policy_expect(&req, c0, &made);
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, c0));
	self->region = mmap(NULL, self->region_len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	ASSERT_EQ(0, mbind(self->region, self->region_len,
			   req.mode | req.flags, &req.user, NODESET_BITS, 0));

	for (int i = 0; i < 3; i++) {
		nodeset_t allowed = i == 1 ? away : c0;
		/* Never rebound: what it was made with, wherever that is. */
		struct policy_expectation want = made;
		int counts[NODESET_BITS], mode;
		nodeset_t reported = 0;

		ASSERT_EQ(0, cpuset_set_mems(&self->cs, allowed));
		if (!(made.effective & allowed))
			want = (struct policy_expectation){
				.reported = made.reported, .may_land = allowed };
		ASSERT_EQ(0, get_mempolicy(&mode, &reported, NODESET_BITS,
					   self->region, MPOL_F_ADDR));
		ASSERT_EQ(0, touch_and_count(self->region + i * TOUCH_PAGES * page,
					     counts));
		if (reported != want.reported || !placement_ok(&want, counts)) {
			char pages[64];

			TH_LOG("step %d: nodes %#lx, expected %#lx, pages %s", i,
			       reported, want.reported,
			       format_counts(counts, 4, pages, sizeof(pages)));
			mismatches++;
		}
	}
	munmap(self->region, self->region_len);
	EXPECT_EQ(0, mismatches);
}

TEST_HARNESS_MAIN
