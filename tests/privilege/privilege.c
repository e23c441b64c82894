// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user (uid 65534) in a cpuset may not do: change
 * cpuset files, move tasks between cpusets, migrate or move the pages of
 * another user's process, use MPOL_MF_MOVE_ALL; and what no policy may do
 * for it: put a page outside its cpuset, not even a STATIC or RELATIVE
 * policy that names nodes outside it. Setup runs as root, each test drops
 * its privileges, teardown runs as root again in the parent.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"

#define NOBODY		65534
#define PAGES		64
#define CPUSET_MEMS	(NODE(0) | NODE(1))

struct session {
	struct cpuset cs, other;
	pid_t victim;		/* root's, in the root cgroup */
	char *region;
	long page;
};

/*
 * As root: a victim process, the cpuset {0, 1} this test joins and
 * another one; then drop to uid and gid 65534.
 */
static void enter(struct __test_metadata *_metadata, struct session *s)
{
	nodeset_t memory;
	pid_t victim;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory", &memory));
	if ((memory & 0xf) != 0xf)
		SKIP(return, "needs memory on nodes 0-3");
	s->page = sysconf(_SC_PAGESIZE);
	/* @s is shared with the parent: only the parent stores the pid. */
	victim = fork();
	if (victim == 0) {
		/* Neither outlive the test nor hold its output pipe. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		pause();
		_exit(0);
	}
	s->victim = victim;
	ASSERT_LT(0, s->victim);
	ASSERT_EQ(0, cpuset_create(&s->cs, CGROUP_V2, "unpriv", CPUSET_MEMS));
	ASSERT_EQ(0, cpuset_create(&s->other, CGROUP_V2, "other", NODE(2)));
	ASSERT_EQ(0, cpuset_attach(&s->cs, getpid()));
	s->region = mmap(NULL, PAGES * s->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s->region);
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setgid(NOBODY));
	ASSERT_EQ(0, setuid(NOBODY));
}

/* As root again, in the harness's parent process. */
static void leave(struct session *s)
{
	if (s->victim > 0) {
		kill(s->victim, SIGKILL);
		waitpid(s->victim, NULL, 0);
	}
	if (s->other.dir[0])
		cpuset_destroy(&s->other);
	if (s->cs.dir[0])
		cpuset_destroy(&s->cs);
}

FIXTURE(unprivileged) {
	struct session s;
};

FIXTURE_SETUP(unprivileged)
{
	enter(_metadata, &self->s);
}

FIXTURE_TEARDOWN_PARENT(unprivileged)
{
	leave(&self->s);
}

FIXTURE(placement) {
	struct session s;
};

FIXTURE_VARIANT(placement) {
	int mode;
	unsigned int flags;
};

#define CASE(m, f) \
	FIXTURE_VARIANT_ADD(placement, m##_##f) { \
		.mode = MPOL_##m, .flags = f }
#define none 0
#define STATIC MPOL_F_STATIC_NODES
#define RELATIVE MPOL_F_RELATIVE_NODES
#define CASES(m) CASE(m, none); CASE(m, STATIC); CASE(m, RELATIVE)
CASES(BIND);
CASES(INTERLEAVE);
CASES(WEIGHTED_INTERLEAVE);
CASES(PREFERRED);
CASES(PREFERRED_MANY);

FIXTURE_SETUP(placement)
{
	enter(_metadata, &self->s);
}

FIXTURE_TEARDOWN_PARENT(placement)
{
	leave(&self->s);
}

static int cpuset_write(const struct cpuset *cs, const char *knob,
			const char *text)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", cs->dir, knob);
	return write_text(path, text);
}

TEST_F(unprivileged, cannot_change_or_leave_its_cpuset)
{
	char pid[16];

	EXPECT_EQ(-EACCES, cpuset_write(&self->s.cs, "cpuset.mems", "0-3"));
	EXPECT_EQ(-EACCES, cpuset_write(&self->s.other, "cpuset.mems", "0"));
	snprintf(pid, sizeof(pid), "%d", getpid());
	EXPECT_EQ(-EACCES, cpuset_write(&self->s.other, "cgroup.procs", pid));
	snprintf(pid, sizeof(pid), "%d", self->s.victim);
	EXPECT_EQ(-EACCES, cpuset_write(&self->s.cs, "cgroup.procs", pid));
}

TEST_F(unprivileged, cannot_move_another_users_pages)
{
	nodeset_t from = CPUSET_MEMS, to = NODE(0);
	void *pages[1] = { self->s.region };
	int node = 0, status;

	EXPECT_EQ(-1, migrate_pages(self->s.victim, NODESET_BITS, &from, &to));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, move_pages(self->s.victim, 1, pages, &node, &status,
				 MPOL_MF_MOVE));
	EXPECT_EQ(EPERM, errno);
}

TEST_F(unprivileged, cannot_move_shared_pages_or_leave_the_cpuset)
{
	nodeset_t from = CPUSET_MEMS, outside = NODE(2), bind = NODE(0);
	void *pages[1] = { self->s.region };
	int node = 0, status;

	memset(self->s.region, 1, PAGES * self->s.page);
	EXPECT_EQ(-1, mbind(self->s.region, PAGES * self->s.page, MPOL_BIND,
			    &bind, NODESET_BITS, MPOL_MF_MOVE_ALL));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, move_pages(0, 1, pages, &node, &status, MPOL_MF_MOVE_ALL));
	EXPECT_EQ(EPERM, errno);
	/* Its own pages, but to a node outside its cpuset. */
	EXPECT_EQ(-1, migrate_pages(0, NODESET_BITS, &from, &outside));
	EXPECT_EQ(EPERM, errno);
}

/* Every page in the cpuset, whatever the policy names. */
static void expect_pages_in_cpuset(struct __test_metadata *_metadata,
				   char *region, long page, const char *what)
{
	int nodes[PAGES];

	memset(region, 1, PAGES * page);
	ASSERT_EQ(0, page_nodes(region, PAGES, nodes));
	for (int i = 0; i < PAGES; i++) {
		ASSERT_TRUE(nodes[i] >= 0 && (CPUSET_MEMS & NODE(nodes[i])))
			TH_LOG("%s: page %d on node %d, outside the cpuset",
			       what, i, nodes[i]);
	}
	madvise(region, PAGES * page, MADV_DONTNEED);
}

TEST_F(placement, no_page_outside_the_cpuset)
{
	/* Wholly and partly outside {0, 1}. */
	const nodeset_t users[] = { NODE(2) | NODE(3), NODE(1) | NODE(2) | NODE(3) };
	int mode = variant->mode | variant->flags;

	/*
	 * On a CPU of a node outside the cpuset: an allocation that falls
	 * back to the local node without the cpuset's limit lands outside.
	 */
	if (pin_to_node(2) && pin_to_node(3))
		SKIP(return, "needs CPUs on node 2 or 3, outside the cpuset");
	for (size_t u = 0; u < sizeof(users) / sizeof(users[0]); u++) {
		nodeset_t user = users[u];
		char what[64];

		/* Refused or accepted, no page may leave the cpuset. */
		snprintf(what, sizeof(what), "task policy, nodes %#lx", user);
		set_mempolicy(mode, &user, NODESET_BITS);
		expect_pages_in_cpuset(_metadata, self->s.region, self->s.page, what);
		set_mempolicy(MPOL_DEFAULT, NULL, 0);
		snprintf(what, sizeof(what), "VMA policy, nodes %#lx", user);
		mbind(self->s.region, PAGES * self->s.page, mode, &user,
		      NODESET_BITS, 0);
		expect_pages_in_cpuset(_metadata, self->s.region, self->s.page, what);
	}
}

TEST_HARNESS_MAIN
