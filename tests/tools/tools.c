// SPDX-License-Identifier: GPL-2.0
/*
 * The tools operators use, run as they run them, with cpuset.mems changed
 * under the running program (cgroup v2, which migrates the pages of a
 * change): Debian's numactl starts /tests/toucher under each of its memory
 * policy options, and after every step of the LWN sequence the toucher's
 * fresh pages and what "numactl --show" prints in a child of it must be
 * what docs/semantics.md says; numastat -p shows the pages where the change
 * moved them; migratepages moves pages, and the next change moves them on;
 * stress-ng's NUMA stressor runs while cpuset.mems changes as fast as it
 * can, with no OOM kill and, once the changes stop, no anonymous page
 * outside the cpuset.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/process.h"

#define N(n)		NODE(n)
#define NUMACTL		"/usr/bin/numactl"
#define NUMASTAT	"/usr/bin/numastat"
#define MIGRATEPAGES	"/usr/bin/migratepages"
#define STRESS_NG	"/usr/bin/stress-ng"
#define TOUCHER		"/tests/toucher"
/* Enough for numastat, which shows MiB with two decimals, to see. */
#define HELD_MIB	32

/* The LWN scenario: {0,1}, {1,2}, {2}, back to {0,1}. */
static const nodeset_t lwn_steps[] = { N(0) | N(1), N(1) | N(2), N(2),
				       N(0) | N(1) };

/* The toucher's answer to "probe NODE": its pages per node. */
static int toucher_probe(struct process *t, int node, int counts[NODESET_BITS])
{
	char line[4096], *pos = line;

	fprintf(t->in, "probe %d\n", node);
	if (!fgets(line, sizeof(line), t->out) || strncmp(line, "counts", 6))
		return -1;
	pos += 6;
	for (int n = 0; n < (int)NODESET_BITS; n++)
		counts[n] = strtol(pos, &pos, 10);
	return 0;
}

/* What "numactl --show" prints in a child of the toucher, into @buf. */
static int toucher_show(struct process *t, char *buf, size_t len)
{
	fprintf(t->in, "show\n");
	return process_read(t, "end\n", buf, len);
}

/* The nodes after "@key:" on a line of @text ("membind: 0 1"), or -1. */
static long shown_nodes(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *line;
	nodeset_t nodes = 0;

	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *pos = line + len;
		char *end;

		if (strncmp(line, key, len) || *pos != ':')
			continue;
		for (pos++;; pos = end) {
			long node = strtol(pos, &end, 10);

			if (end == pos)
				return nodes;
			if (node >= 0 && node < (long)NODESET_BITS)
				nodes |= N(node);
		}
	}
	return -1;
}

FIXTURE(numactl) {
	struct cpuset cs;
	struct process toucher;
};

FIXTURE_VARIANT(numactl) {
	const char *options[3];	/* numactl's, NULL-terminated */
	int mode;
	nodeset_t user;
	const char *shown;	/* the --show line with the policy's nodes */
};

FIXTURE_VARIANT_ADD(numactl, membind) {
	.options = { "--membind=0,1" }, .mode = MPOL_BIND,
	.user = N(0) | N(1), .shown = "membind",
};
FIXTURE_VARIANT_ADD(numactl, balancing_membind) {
	.options = { "--balancing", "--membind=0,1" }, .mode = MPOL_BIND,
	.user = N(0) | N(1), .shown = "membind",
};
FIXTURE_VARIANT_ADD(numactl, interleave) {
	.options = { "--interleave=0,1" }, .mode = MPOL_INTERLEAVE,
	.user = N(0) | N(1), .shown = "interleavemask",
};
FIXTURE_VARIANT_ADD(numactl, preferred) {
	.options = { "--preferred=1" }, .mode = MPOL_PREFERRED,
	.user = N(1), .shown = "preferred node",
};
FIXTURE_VARIANT_ADD(numactl, preferred_many) {
	.options = { "--preferred-many=0,1" }, .mode = MPOL_PREFERRED_MANY,
	.user = N(0) | N(1), .shown = "preferred",
};

FIXTURE_SETUP(numactl)
{
	nodeset_t memory;
	char *argv[8] = { NUMACTL };
	int argc = 1;

	if (access(NUMACTL, X_OK))
		SKIP(return, "no %s in the initramfs", NUMACTL);
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & 0x7) != 0x7)
		SKIP(return, "needs memory on nodes 0-2");
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-tools",
				   lwn_steps[0]));
	for (int i = 0; variant->options[i]; i++)
		argv[argc++] = (char *)variant->options[i];
	argv[argc++] = "--";
	argv[argc++] = TOUCHER;
	ASSERT_EQ(0, process_start(&self->toucher, &self->cs, argv));
}

FIXTURE_TEARDOWN(numactl)
{
	if (self->toucher.pid > 0)
		EXPECT_EQ(0, process_finish(&self->toucher, NULL, 0));
	cpuset_destroy(&self->cs);
}

/* Fresh pages from each node's CPUs where that tells nodes apart. */
static bool probe_ok(struct __test_metadata *_metadata, struct process *t,
		     int mode, const struct policy_expectation *want,
		     nodeset_t allowed, int step)
{
	bool per_node = mode == MPOL_BIND || mode == MPOL_PREFERRED_MANY;
	int counts[NODESET_BITS];
	bool ok = true;

	for (int node = per_node ? 0 : -1; node < (per_node ? 8 : 0); node++) {
		char pages[64];
		bool match;

		if (per_node && !(allowed & N(node)))
			continue;
		if (toucher_probe(t, node, counts))
			return false;
		match = per_node ? placement_from_node_ok(want, node, counts) :
				   placement_ok(want, counts);
		if (!match)
			TH_LOG("step %d, from node %d: pages %s", step, node,
			       format_counts(counts, 4, pages, sizeof(pages)));
		ok &= match;
	}
	return ok;
}

/*
 * One step: the toucher's fresh pages and what numactl --show prints in a
 * child of it, once the cpuset allows @allowed. Returns the mismatches.
 */
static int check_step(struct __test_metadata *_metadata,
		      const FIXTURE_VARIANT(numactl) *variant,
		      struct process *toucher, nodeset_t allowed, int step)
{
	struct policy_request req = {
		.mode = variant->mode, .user = variant->user,
		.created_in = lwn_steps[0],
	};
	struct policy_expectation want;
	int mismatches = 0;
	char shown[2048];
	long nodes;

	policy_expect(&req, allowed, &want);
	if (!probe_ok(_metadata, toucher, variant->mode, &want, allowed, step))
		mismatches++;
	if (toucher_show(toucher, shown, sizeof(shown)))
		return mismatches + 1;
	nodes = shown_nodes(shown, variant->shown);
	if (nodes != (long)want.reported) {
		TH_LOG("step %d: numactl --show, \"%s\" %#lx, expected %#lx:\n%s",
		       step, variant->shown, nodes, want.reported, shown);
		mismatches++;
	}
	return mismatches;
}

TEST_F(numactl, policy_follows_cpuset_changes)
{
	int mismatches = 0;

	for (int step = 0; step < (int)ARRAY_SIZE(lwn_steps); step++) {
		ASSERT_EQ(0, cpuset_set_mems(&self->cs, lwn_steps[step]));
		mismatches += check_step(_metadata, variant, &self->toucher,
					 lwn_steps[step], step);
	}
	EXPECT_EQ(0, mismatches);
}

/*
 * MiB per node on numastat's "Total" row for @pid, into @mib; the nodes
 * come from its "Node N" header. Returns the number of nodes, or -1.
 */
static int numastat_total(pid_t pid, double mib[NODESET_BITS])
{
	char pidtext[16], out[4096], *header, *total, *pos;
	char *argv[] = { NUMASTAT, "-p", pidtext, NULL };
	int columns[NODESET_BITS], ncolumns = 0;

	snprintf(pidtext, sizeof(pidtext), "%d", pid);
	if (process_run(NULL, argv, out, sizeof(out)))
		return -1;
	header = strstr(out, "Node ");
	total = strstr(out, "\nTotal");
	if (!header || !total)
		return -1;
	for (pos = header; (pos = strstr(pos, "Node ")) && pos < total &&
	     ncolumns < (int)NODESET_BITS; pos += 5)
		columns[ncolumns++] = atoi(pos + 5);
	memset(mib, 0, NODESET_BITS * sizeof(*mib));
	pos = total + strlen("\nTotal");
	for (int i = 0; i < ncolumns; i++) {
		char *end;
		double value = strtod(pos, &end);

		if (end == pos || columns[i] < 0 || columns[i] >= (int)NODESET_BITS)
			return -1;
		mib[columns[i]] = value;
		pos = end;
	}
	return ncolumns;
}

/* Does numastat show HELD_MIB on @node, and at most 2 MiB on any other? */
static bool held_on(const double mib[NODESET_BITS], int node)
{
	for (int n = 0; n < (int)NODESET_BITS; n++)
		if (n == node ? mib[n] < HELD_MIB : mib[n] > 2)
			return false;
	return true;
}

/* A toucher under @options in @cs, holding HELD_MIB. */
static int start_holder(struct process *t, const struct cpuset *cs,
			const char *options)
{
	char *argv[] = { NUMACTL, (char *)options, "--", TOUCHER, NULL };
	char line[64];

	if (process_start(t, cs, argv))
		return -1;
	fprintf(t->in, "hold %d\n", HELD_MIB);
	return fgets(line, sizeof(line), t->out) && !strcmp(line, "held\n") ? 0 : -1;
}

/* A cpuset of all four nodes for one tool's test. */
FIXTURE(tool) {
	struct cpuset cs;
};

FIXTURE_SETUP(tool)
{
	nodeset_t memory;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & 0xf) != 0xf)
		SKIP(return, "needs memory on nodes 0-3");
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-tools", 0xf));
}

FIXTURE_TEARDOWN(tool)
{
	cpuset_destroy(&self->cs);
}

/*
 * BIND {2} made in {0-3}: in {0,1} it is node 0's (rank 2 of 4 maps to
 * rank 0 of 2), and cgroup v2 moves the pages there with it.
 */
TEST_F(tool, numastat_shows_the_pages_where_a_change_moved_them)
{
	struct process holder = { 0 };
	double mib[NODESET_BITS];

	if (access(NUMASTAT, X_OK) || access(NUMACTL, X_OK))
		SKIP(return, "no numastat or numactl in the initramfs");
	ASSERT_EQ(0, start_holder(&holder, &self->cs, "--membind=2"));
	ASSERT_LT(0, numastat_total(holder.pid, mib));
	EXPECT_TRUE(held_on(mib, 2)) TH_LOG("before: node 2 %.2f MiB, node 0 %.2f",
					    mib[2], mib[0]);
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, N(0) | N(1)));
	ASSERT_LT(0, numastat_total(holder.pid, mib));
	EXPECT_TRUE(held_on(mib, 0)) TH_LOG("after: node 0 %.2f MiB, node 2 %.2f",
					    mib[0], mib[2]);
	EXPECT_EQ(0, process_finish(&holder, NULL, 0));
}

/*
 * migratepages, run by root from the root cpuset, moves a process's pages
 * from node 0 to node 3 of its cpuset {0-3}; when the cpuset then shrinks
 * to {0,1}, the pages on node 3 (rank 3 of 4) go to node 1 (rank 1 of 2).
 */
TEST_F(tool, migratepages_moves_pages_a_change_then_moves_on)
{
	char pidtext[16], out[1024];
	char *to_3[] = { MIGRATEPAGES, pidtext, "0", "3", NULL };
	struct process holder = { 0 };
	double mib[NODESET_BITS];

	if (access(MIGRATEPAGES, X_OK) || access(NUMASTAT, X_OK) ||
	    access(NUMACTL, X_OK))
		SKIP(return, "no migratepages, numastat or numactl in the initramfs");
	ASSERT_EQ(0, start_holder(&holder, &self->cs, "--preferred=0"));
	snprintf(pidtext, sizeof(pidtext), "%d", holder.pid);
	ASSERT_LT(0, numastat_total(holder.pid, mib));
	EXPECT_TRUE(held_on(mib, 0)) TH_LOG("before: node 0 %.2f MiB", mib[0]);

	EXPECT_EQ(0, process_run(NULL, to_3, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_LT(0, numastat_total(holder.pid, mib));
	EXPECT_TRUE(held_on(mib, 3)) TH_LOG("moved: node 3 %.2f MiB, node 0 %.2f",
					    mib[3], mib[0]);

	ASSERT_EQ(0, cpuset_set_mems(&self->cs, N(0) | N(1)));
	ASSERT_LT(0, numastat_total(holder.pid, mib));
	EXPECT_TRUE(held_on(mib, 1)) TH_LOG("in {0,1}: node 1 %.2f MiB, node 3 %.2f",
					    mib[1], mib[3]);
	EXPECT_EQ(0, process_finish(&holder, NULL, 0));
}

/* The pids in @cs, from its cgroup.procs; their number. */
static int cpuset_pids(const struct cpuset *cs, pid_t *pids, int max)
{
	char path[300];
	int count = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cs->dir);
	f = fopen(path, "r");
	while (f && count < max && fscanf(f, "%d", &pids[count]) == 1)
		count++;
	if (f)
		fclose(f);
	return count;
}

/*
 * The anonymous pages outside @settled of the processes in @cs, stopped
 * while they are counted.
 */
static long pages_outside(const struct cpuset *cs, nodeset_t settled)
{
	long outside = 0;
	pid_t pids[64];
	int npids = cpuset_pids(cs, pids, ARRAY_SIZE(pids));

	for (int i = 0; i < npids; i++)
		kill(pids[i], SIGSTOP);
	for (int i = 0; i < npids; i++) {
		long pages[NODESET_BITS];

		if (process_pages(pids[i], true, pages))
			continue;	/* gone before it stopped */
		for (int n = 0; n < (int)NODESET_BITS; n++)
			if (!(settled & N(n)))
				outside += pages[n];
	}
	for (int i = 0; i < npids; i++)
		kill(pids[i], SIGCONT);
	return outside;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Write @sets[0] and @sets[1] to @cs's cpuset.mems in turn for @seconds,
 * ending on @sets[1]. Returns the number of writes, or -1.
 */
static int flip_mems(const struct cpuset *cs, const nodeset_t sets[2],
		     double seconds)
{
	double end = now() + seconds;
	int flips;

	for (flips = 0; now() < end || flips % 2; flips++)
		if (cpuset_set_mems(cs, sets[flips % 2]))
			return -1;
	return flips;
}

/*
 * stress-ng's NUMA stressor (mbind, migrate_pages, move_pages and
 * get_mempolicy over the nodes it may use) while cpuset.mems grows from
 * {0,1} to {0-3} and shrinks back, back to back: no OOM kill, and once
 * the changes stop on {0,1}, the stressor stopped and the last change's
 * migration done, no anonymous page of it outside {0,1}. stress-ng itself
 * must succeed. It learns its nodes once, at start: flips to a set
 * without them would fail its move_pages() with EACCES, as documented.
 */
TEST_F_TIMEOUT(tool, stress_ng_numa_while_cpuset_mems_flip, 300)
{
	const nodeset_t sets[] = { 0xf, N(0) | N(1) };
	double seconds = cmdline_number("numapol.tools_seconds", 15);
	static char timeout[16], out[4096];
	/* It stops by itself, a while after the flips. */
	char *argv[] = { STRESS_NG, "--numa", "1", "--timeout", timeout,
			 "--metrics-brief", NULL };
	long before = vm_events("oom_kill"), outside;
	struct process ng = { 0 };
	int flips;

	if (access(STRESS_NG, X_OK))
		SKIP(return, "no %s in the initramfs", STRESS_NG);
	ASSERT_LE(0, before);
	snprintf(timeout, sizeof(timeout), "%.0fs", seconds + 10);
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, sets[1]));
	ASSERT_EQ(0, process_start(&ng, &self->cs, argv));
	/* Once the stressor has learnt its nodes, {0,1}: then flip. */
	ASSERT_EQ(0, process_read(&ng, "numa: system has", out, sizeof(out)));
	flips = flip_mems(&self->cs, sets, seconds);
	ASSERT_LE(0, flips);

	outside = pages_outside(&self->cs, sets[1]);
	TH_LOG("%d cpuset.mems changes in %.0f s", flips, seconds);
	EXPECT_EQ(0, outside) TH_LOG("%ld anonymous pages outside {0,1}", outside);
	EXPECT_EQ(0, process_finish(&ng, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(before, vm_events("oom_kill"));
}

TEST_HARNESS_MAIN
