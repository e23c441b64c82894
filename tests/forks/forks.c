// SPDX-License-Identifier: GPL-2.0
/*
 * A task forked while its cpuset's mems change gets the cpuset's nodes.
 *
 * fork() copies the parent's allowed nodes (and its task policy) long
 * before the child joins the cgroup's task list, which is what a cpuset
 * change walks. A change that writes the parent in between misses the
 * child, and a fork that copies the parent's nodes again once the child
 * is on the list can write older nodes over a change that found it
 * there. Either way the child keeps stale nodes, and the task policy
 * nodes of those, until the next change.
 *
 * A forker in the cpuset forks children one after another while the test
 * flips the cpuset's mems, each change once a child has checked the last
 * one, so that a fork is under way at every change. A change count in
 * shared memory, odd while a write is in flight, tells each child which
 * value the last finished change gave every task of the cpuset: the child
 * compares its allowed nodes and its task policy's nodes with it.
 *
 * Under cgroup v2, a child made with clone3(CLONE_INTO_CGROUP) into a
 * sibling cgroup of the forker's, both without a cpuset of their own,
 * stays in the same cpuset but joins another css_set, which a change may
 * walk before or after the forker's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

/* Writes of cpuset.mems; numapol.fork_changes sets another count. */
#define CHANGES		1000

struct fork_state {
	unsigned long changes;	/* finished writes, times two; odd: writing */
	int ready, stop;
	long checked, stale;
	/* What the first stale child saw. */
	unsigned long stale_changes;
	nodeset_t stale_allowed, stale_nodes;
};

FIXTURE(forks) {
	struct cpuset cs;
	struct fork_state *state;
	pid_t forker;
	/*
	 * With clone_into: the forker's cgroup, which has no cpuset of its
	 * own but is joined as one, and its children's.
	 */
	struct cpuset home;
	char into[300];
	int into_fd;
};

FIXTURE_VARIANT(forks) {
	enum cgroup_version cgroup;
	/* The cpuset's mems before the first change, and after it. */
	nodeset_t first, other;
	bool clone_into;
};

FIXTURE_VARIANT_ADD(forks, disjoint_v2) {
	.cgroup = CGROUP_V2,
	.first = NODE(0) | NODE(1), .other = NODE(2) | NODE(3),
};
FIXTURE_VARIANT_ADD(forks, overlapping_v2) {
	.cgroup = CGROUP_V2,
	.first = NODE(0) | NODE(1), .other = NODE(1) | NODE(2),
};
FIXTURE_VARIANT_ADD(forks, disjoint_v2_clone_into_cgroup) {
	.cgroup = CGROUP_V2,
	.first = NODE(0) | NODE(1), .other = NODE(2) | NODE(3),
	.clone_into = true,
};
FIXTURE_VARIANT_ADD(forks, disjoint_v1) {
	.cgroup = CGROUP_V1,
	.first = NODE(0) | NODE(1), .other = NODE(2) | NODE(3),
};

static unsigned long load(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * In a child: do its allowed nodes and task policy's nodes match the
 * cpuset's value after the last finished change? The forker made the
 * policy BIND over the first value, so its nodes are the cpuset's own in
 * both (the remap of docs/semantics.md). Counts a stale child in @st;
 * returns 1 when get_mempolicy() fails.
 */
static int child_check(struct fork_state *st,
		       const FIXTURE_VARIANT(forks) *variant)
{
	unsigned long before;
	nodeset_t allowed, nodes, expected;
	int mode;

	do {
		while ((before = load(&st->changes)) & 1)
			sched_yield();
		if (get_mempolicy(NULL, &allowed, NODESET_BITS, NULL,
				  MPOL_F_MEMS_ALLOWED) ||
		    get_mempolicy(&mode, &nodes, NODESET_BITS, NULL, 0))
			return 1;
	} while (load(&st->changes) != before);

	expected = (before / 2) % 2 ? variant->other : variant->first;
	if ((allowed != expected || nodes != expected || mode != MPOL_BIND) &&
	    !__atomic_fetch_add(&st->stale, 1, __ATOMIC_RELAXED)) {
		st->stale_changes = before / 2;
		st->stale_allowed = allowed;
		st->stale_nodes = nodes;
	}
	__atomic_fetch_add(&st->checked, 1, __ATOMIC_RELEASE);
	return 0;
}

/* fork(), or clone3() into the cgroup @into_fd when it is one. */
static pid_t fork_child(int into_fd)
{
	struct clone_args args = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = into_fd,
	};

	if (into_fd < 0)
		return fork();
	return syscall(SYS_clone3, &args, sizeof(args));
}

/* In the forker: fork and reap children until told to stop. */
static int forker(struct fork_state *st, FIXTURE_DATA(forks) *self,
		  const FIXTURE_VARIANT(forks) *variant)
{
	const struct cpuset *join = variant->clone_into ? &self->home :
							  &self->cs;

	if (cpuset_attach(join, getpid()) ||
	    set_mempolicy(MPOL_BIND, &variant->first, NODESET_BITS))
		return 1;
	__atomic_store_n(&st->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		pid_t pid = fork_child(self->into_fd);
		int status;

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(child_check(st, variant));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return 1;
	}
	return 0;
}

FIXTURE_SETUP(forks)
{
	nodeset_t memory, nodes = variant->first | variant->other;

	self->into_fd = -1;
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & nodes) != nodes)
		SKIP(return, "needs memory on the nodes of both values");
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup,
				   "numapol-forks", variant->first));
	if (variant->clone_into) {
		self->home.version = CGROUP_V2;
		ASSERT_GT((int)sizeof(self->home.dir),
			  snprintf(self->home.dir, sizeof(self->home.dir),
				   "%s/home", self->cs.dir));
		snprintf(self->into, sizeof(self->into), "%s/into", self->cs.dir);
		ASSERT_EQ(0, mkdir(self->home.dir, 0755));
		ASSERT_EQ(0, mkdir(self->into, 0755));
		self->into_fd = open(self->into, O_RDONLY | O_DIRECTORY);
		ASSERT_LE(0, self->into_fd);
	}
	self->state = mmap(NULL, sizeof(*self->state), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->state);
	self->forker = fork();
	ASSERT_LE(0, self->forker);
	if (!self->forker)
		_exit(forker(self->state, self, variant));
}

FIXTURE_TEARDOWN(forks)
{
	if (self->forker > 0) {
		/* Let no child wait for a write that will not finish. */
		__atomic_fetch_or(&self->state->changes, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&self->state->changes, 1, __ATOMIC_RELEASE);
		kill(self->forker, SIGKILL);
		waitpid(self->forker, NULL, 0);
	}
	if (self->state && self->state != MAP_FAILED)
		munmap(self->state, sizeof(*self->state));
	if (self->into_fd >= 0)
		close(self->into_fd);
	if (variant->clone_into) {
		/* A child the forker left behind may still be exiting. */
		for (int tries = 0; tries < 500; tries++) {
			if ((!rmdir(self->into) || errno == ENOENT) &&
			    (!rmdir(self->home.dir) || errno == ENOENT))
				break;
			usleep(10 * 1000);
		}
	}
	cpuset_destroy(&self->cs);
}

TEST_F_TIMEOUT(forks, children_get_the_nodes_of_the_last_change, 900)
{
	struct fork_state *st = self->state;
	int changes = cmdline_number("numapol.fork_changes", CHANGES);
	char allowed[64], nodes[64];
	long checked = 0;
	int status, i;

	while (!__atomic_load_n(&st->ready, __ATOMIC_ACQUIRE)) {
		ASSERT_EQ(0, waitpid(self->forker, NULL, WNOHANG));
		sched_yield();
	}
	for (i = 1; i <= changes; i++) {
		/* A child has checked the last change: the next is forking. */
		while (__atomic_load_n(&st->checked, __ATOMIC_ACQUIRE) == checked) {
			ASSERT_EQ(0, waitpid(self->forker, NULL, WNOHANG));
			sched_yield();
		}
		checked = __atomic_load_n(&st->checked, __ATOMIC_ACQUIRE);
		__atomic_store_n(&st->changes, 2 * i - 1, __ATOMIC_RELEASE);
		ASSERT_EQ(0, cpuset_set_mems(&self->cs, i % 2 ? variant->other :
							      variant->first));
		__atomic_store_n(&st->changes, 2 * i, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(self->forker, waitpid(self->forker, &status, 0));
	self->forker = 0;
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	ksft_print_msg("%d changes, %ld children checked, %ld stale\n", changes,
		       st->checked, st->stale);
	EXPECT_EQ(0, st->stale) {
		nodeset_format(st->stale_allowed, allowed, sizeof(allowed));
		nodeset_format(st->stale_nodes, nodes, sizeof(nodes));
		TH_LOG("a child after %lu changes: allowed {%s}, policy {%s}",
		       st->stale_changes, allowed, nodes);
	}
}

TEST_HARNESS_MAIN
