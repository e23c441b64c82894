// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own selftests for cpusets and NUMA page migration, as they
 * come with the tree (tools/testing/selftests/cgroup and mm, built by
 * tests/Makefile; the shell scripts run under Debian's bash-static): each
 * is a case here. It fails when the selftest fails; it skips, with the
 * selftest's reason, when the selftest skips (exit 4) or when every case
 * of a harness selftest skipped (its "# Totals" line: the harness exits 0
 * then); else it passes. The selftest's output is logged as comments.
 *
 * Left out: test_cpuset_prs.sh, which needs 8 CPUs and util-linux, and is
 * about CPU partitions, which the series does not touch.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/process.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

FIXTURE(kselftest) {
	struct cpuset v1;
	nodeset_t memory;
	char saved_hugepages[32];
};

FIXTURE_VARIANT(kselftest) {
	const char *argv[3];
	bool cpuset_v1;		/* finds a cgroup v1 cpuset mount */
	bool cpu_hotplug;	/* takes CPU 1 offline */
	/*
	 * Persistent huge pages to reserve first, as the kernel's
	 * run_vmtests.sh does: spread over the nodes, so that each has one
	 * to migrate to.
	 */
	const char *hugepages;
};

FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset) {
	.argv = { "/tests/ksft-test_cpuset" },
};
FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset_v1_base) {
	.argv = { "/bin/bash", "/tests/ksft-test_cpuset_v1_base.sh" },
	.cpuset_v1 = true,
};
FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset_v1_hp) {
	.argv = { "/bin/bash", "/tests/ksft-test_cpuset_v1_hp.sh" },
	.cpuset_v1 = true, .cpu_hotplug = true,
};
FIXTURE_VARIANT_ADD(kselftest, mm_migration) {
	.argv = { "/tests/ksft-migration" },
	.hugepages = "16",
};

FIXTURE_SETUP(kselftest)
{
	if (variant->cpu_hotplug && access(CPU1_ONLINE, W_OK))
		SKIP(return, "this kernel cannot take CPU 1 offline");
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &self->memory));
	/* Last: nothing may fail after a change, for want of a teardown. */
	if (variant->hugepages) {
		ASSERT_EQ(0, read_text(NR_HUGEPAGES, self->saved_hugepages,
				       sizeof(self->saved_hugepages)));
		ASSERT_EQ(0, write_text(NR_HUGEPAGES, variant->hugepages));
	}
}

/*
 * What a v1 selftest that failed leaves behind: its own cpusets beside
 * @ours, with a task in them maybe, which would keep the hierarchy, and the
 * cpuset controller with it, from going away.
 */
static void remove_v1_leftovers(const struct cpuset *ours)
{
	struct cpuset left = { .version = CGROUP_V1 };
	char root[128];
	struct dirent *entry;
	DIR *dir;

	snprintf(root, sizeof(root), "%.127s", ours->dir);
	*strrchr(root, '/') = '\0';
	dir = opendir(root);
	while (dir && (entry = readdir(dir))) {
		if (entry->d_type != DT_DIR || entry->d_name[0] == '.')
			continue;
		snprintf(left.dir, sizeof(left.dir), "%s/%.64s", root,
			 entry->d_name);
		if (strcmp(left.dir, ours->dir))
			cpuset_remove(&left);
	}
	if (dir)
		closedir(dir);
}

FIXTURE_TEARDOWN(kselftest)
{
	if (variant->cpu_hotplug)
		write_text(CPU1_ONLINE, "1");
	if (self->v1.dir[0]) {
		remove_v1_leftovers(&self->v1);
		cpuset_destroy(&self->v1);
	}
	if (self->saved_hugepages[0])
		write_text(NR_HUGEPAGES, self->saved_hugepages);
}

struct outcome {
	int status;		/* exit status; -1 if it did not run or a signal ended it */
	int passed, skipped;	/* from a "# Totals:" line; -1 without one */
	char last[512];		/* the last line, but a bare "Test SKIPPED" */
	char last_skip[512];	/* the last line that says "# SKIP" */
};

/* Run @argv with its output logged as comments, and see how it went. */
static void run_logged(char *const argv[], struct outcome *out)
{
	struct process p;
	char line[512];

	*out = (struct outcome){ .status = -1, .passed = -1, .skipped = -1 };
	if (process_start(&p, NULL, argv))
		return;
	while (fgets(line, sizeof(line), p.out)) {
		line[strcspn(line, "\n")] = '\0';
		printf("#   %s\n", line);
		sscanf(line, "# Totals: pass:%d fail:%*d xfail:%*d xpass:%*d skip:%d",
		       &out->passed, &out->skipped);
		if (strstr(line, "# SKIP"))
			snprintf(out->last_skip, sizeof(out->last_skip), "%s",
				 line);
		if (line[0] && strcmp(line, "Test SKIPPED"))
			snprintf(out->last, sizeof(out->last), "%s", line);
	}
	out->status = process_finish(&p, NULL, 0);
}

/* mm_migration runs six cases of 20 s each, under TCG. */
TEST_F_TIMEOUT(kselftest, passes, 600)
{
	struct outcome out;

	/*
	 * The v1 scripts look for a mounted v1 cpuset hierarchy: a cpuset
	 * there makes one, once cgroup v2 has let the controller go.
	 */
	if (variant->cpuset_v1)
		ASSERT_EQ(0, cpuset_create(&self->v1, CGROUP_V1,
					   "numapol-kselftest", self->memory));
	fflush(stdout);
	run_logged((char *const *)variant->argv, &out);
	if (out.status == KSFT_SKIP)
		SKIP(return, "%s", out.last);
	if (out.status == 0 && out.passed == 0 && out.skipped > 0)
		SKIP(return, "every case skipped: %s", out.last_skip);
	EXPECT_EQ(0, out.status) TH_LOG("exit status %d: %s", out.status,
					out.last);
}

TEST_HARNESS_MAIN
