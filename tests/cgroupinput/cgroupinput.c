// SPDX-License-Identifier: GPL-2.0
/*
 * Invalid cpuset.mems writes, under cgroup v2 and v1: each must fail with
 * its errno (kernel/cgroup/cpuset.c, lib/bitmap-str.c, fs/kernfs) and
 * leave the cpuset's mems as they were. The cpuset has a task in it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"

/* cpuset's max_write_len: 100 + 6 * MAX_NUMNODES, NODES_SHIFT=10. */
#define MAX_WRITE_LEN	(100 + 6 * 1024)

FIXTURE(mems_write) {
	struct cpuset cs;
	pid_t member;
	char path[300];
	char before[64];
};

FIXTURE_VARIANT(mems_write) {
	enum cgroup_version cgroup;
	const char *text;	/* NULL: longer than MAX_WRITE_LEN */
	int err;
	const char *why;
};

#define ROW(name, v, t, e, w) \
	FIXTURE_VARIANT_ADD(mems_write, name##_v##v) { \
		.cgroup = CGROUP_V##v, .text = t, .err = e, .why = w }
#define ROWS(v) \
	ROW(garbage, v, "nodes", EINVAL, "bitmap_parselist(): not a list"); \
	ROW(reversed_range, v, "1-0", EINVAL, "bitmap_parselist(): start > end"); \
	ROW(dangling_range, v, "0-", EINVAL, "bitmap_parselist(): no end"); \
	ROW(negative, v, "-1", EINVAL, "bitmap_parselist(): not a number"); \
	ROW(bad_stride, v, "0-3:1/0", EINVAL, "bitmap_parselist(): group length 0"); \
	ROW(empty, v, "\n", ENOSPC, "validate_change(): a populated cpuset needs mems"); \
	ROW(pattern_selecting_nothing, v, "0-3:0/2", ENOSPC, \
	    "validate_change(): a populated cpuset needs mems"); \
	ROW(offline_node, v, "7", EINVAL, "update_nodemask(): not in the top cpuset"); \
	ROW(all_possible_nodes, v, "0-1023", EINVAL, \
	    "update_nodemask(): offline nodes are not in the top cpuset"); \
	ROW(above_max_numnodes, v, "2000", ERANGE, \
	    "bitmap_parselist(): past nr_node_ids bits"); \
	ROW(too_long, v, NULL, E2BIG, "kernfs: longer than the file's max_write_len")
ROWS(2);
ROWS(1);
FIXTURE_SETUP(mems_write)
{
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup, "badmems",
				   NODE(0) | NODE(1)));
	self->member = fork();
	if (self->member == 0) {
		/* Neither outlive the test nor hold its output pipe. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		pause();
		_exit(0);
	}
	ASSERT_LT(0, self->member);
	ASSERT_EQ(0, cpuset_attach(&self->cs, self->member));
	snprintf(self->path, sizeof(self->path), "%s/cpuset.mems", self->cs.dir);
	ASSERT_EQ(0, read_text(self->path, self->before, sizeof(self->before)));
}

FIXTURE_TEARDOWN(mems_write)
{
	if (self->member > 0) {
		kill(self->member, SIGKILL);
		waitpid(self->member, NULL, 0);
	}
	cpuset_destroy(&self->cs);
}

TEST_F(mems_write, rejected_and_unchanged)
{
	static char long_text[MAX_WRITE_LEN + 100];
	const char *text = variant->text;
	char after[64];

	if (!text) {
		for (size_t i = 0; i + 2 < sizeof(long_text); i += 2)
			memcpy(long_text + i, "0,", 2);
		text = long_text;
	}
	ASSERT_EQ(-variant->err, write_text(self->path, text))
		TH_LOG("expected %s: %s", strerror(variant->err), variant->why);
	ASSERT_EQ(0, read_text(self->path, after, sizeof(after)));
	ASSERT_STREQ(self->before, after);
}

TEST_HARNESS_MAIN
