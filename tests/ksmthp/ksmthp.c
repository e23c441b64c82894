// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages and KSM under memory policies while the cpuset
 * changes. A region under a VMA policy made in cpuset {0,1} (or under no
 * policy) is faulted as huge pages, or filled with pages for KSM to merge;
 * the cpuset then goes to {2,3} and to {1,2}. After each change the huge
 * pages faulted before are split by a hole each and new ones are faulted,
 * or new pages are filled and KSM merges them. Fresh pages must be on nodes
 * the policy may use in the cpuset of the moment (docs/semantics.md), and
 * once a change has settled no page of the region may be outside the
 * cpuset.
 *
 * KSM itself ignores policies: a page it merges maps the page it keeps,
 * wherever that is (merge_across_nodes), so pages are checked against the
 * policy before ksmd runs and against the cpuset after. And a cpuset
 * change moves the pages it can isolate: one that ksmd holds at that
 * moment stays where it is, on baseline as with the series, so ksmd is
 * stopped across each change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/semantics.h"

#define N(n)		NODE(n)
#define HUGE		(2UL << 20)
/* Per step: two huge pages, or as many small pages for KSM. */
#define STEP_BYTES	(2 * HUGE)
#define KSM		"/sys/kernel/mm/ksm/"
#define KSM_WAIT_SECONDS 30

static const nodeset_t steps[] = { N(0) | N(1), N(2) | N(3), N(1) | N(2) };
#define NR_STEPS	(sizeof(steps) / sizeof(steps[0]))

enum kind { THP, KSM_MERGE };

/* The KSM knobs the cases set, and what they set them to. */
static const char *const ksm_knobs[][2] = {
	{ KSM "sleep_millisecs", "10" },
	{ KSM "pages_to_scan", "1000" },
	{ KSM "run", "0" },	/* the test starts ksmd when it merges */
};
#define NR_KNOBS	(sizeof(ksm_knobs) / sizeof(ksm_knobs[0]))

FIXTURE(ksmthp) {
	struct cpuset cs;
	char *map, *region;	/* region: map aligned to a huge page */
	size_t len;
	char saved[NR_KNOBS][16];
};

FIXTURE_VARIANT(ksmthp) {
	int mode;		/* MPOL_DEFAULT: no policy */
	unsigned int flags;
	nodeset_t user;
	enum kind kind;
};

/*
 * The user's nodes are fewer than the cpuset's, so that where a fresh page
 * may go says something about the policy, not only about the cpuset.
 */
#define KT_VARIANT(name, m, f, u) \
	FIXTURE_VARIANT_ADD(ksmthp, thp_##name) { \
		.mode = m, .flags = f, .user = u, .kind = THP }; \
	FIXTURE_VARIANT_ADD(ksmthp, ksm_##name) { \
		.mode = m, .flags = f, .user = u, .kind = KSM_MERGE }
KT_VARIANT(BIND_none, MPOL_BIND, 0, N(1));
KT_VARIANT(INTERLEAVE_none, MPOL_INTERLEAVE, 0, N(0));
KT_VARIANT(BIND_STATIC, MPOL_BIND, MPOL_F_STATIC_NODES, N(1) | N(2));
KT_VARIANT(PREFERRED_MANY_RELATIVE, MPOL_PREFERRED_MANY,
	   MPOL_F_RELATIVE_NODES, N(1));
KT_VARIANT(no_policy, MPOL_DEFAULT, 0, 0);

static long read_number(const char *path)
{
	char text[32];

	return read_text(path, text, sizeof(text)) ? -1 : atol(text);
}

/* Put back the first @count KSM knobs, saved in @saved. */
static void restore_knobs(char saved[][16], size_t count)
{
	for (size_t i = 0; i < count; i++)
		write_text(ksm_knobs[i][0], saved[i]);
}

FIXTURE_SETUP(ksmthp)
{
	nodeset_t memory;
	char thp[128];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & 0xf) != 0xf)
		SKIP(return, "needs memory on nodes 0-3");
	if (variant->kind == THP &&
	    (read_text("/sys/kernel/mm/transparent_hugepage/enabled", thp,
		       sizeof(thp)) || strstr(thp, "[never]")))
		SKIP(return, "transparent huge pages are off or absent");
	if (variant->kind == KSM_MERGE && access(KSM "run", W_OK))
		SKIP(return, "this kernel has no KSM");
	/* A huge page more, to align the region to one. */
	self->len = NR_STEPS * STEP_BYTES;
	self->map = mmap(NULL, self->len + HUGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->region = (char *)(((unsigned long)self->map + HUGE - 1) &
				~(HUGE - 1));
	ASSERT_EQ(0, madvise(self->region, self->len,
			     variant->kind == THP ? MADV_HUGEPAGE :
						    MADV_MERGEABLE));
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-ksmthp",
				   steps[0]));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	if (variant->kind != KSM_MERGE)
		return;
	/*
	 * The knobs last, each saved before it is changed: a setup that
	 * fails gets no teardown, so nothing may fail after a change but
	 * the next change, which puts back what came before it.
	 */
	for (size_t i = 0; i < NR_KNOBS; i++) {
		if (read_text(ksm_knobs[i][0], self->saved[i],
			      sizeof(self->saved[i])) ||
		    write_text(ksm_knobs[i][0], ksm_knobs[i][1])) {
			restore_knobs(self->saved, i);
			ASSERT_TRUE(false) TH_LOG("cannot set %s", ksm_knobs[i][0]);
		}
	}
}

FIXTURE_TEARDOWN(ksmthp)
{
	munmap(self->map, self->len + HUGE);
	cpuset_destroy(&self->cs);
	if (variant->kind == KSM_MERGE)
		restore_knobs(self->saved, NR_KNOBS);
}

/* The nodes of the pages of [addr, addr + len) present, as a set; -1. */
static int nodes_of(char *addr, size_t len, nodeset_t *set)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t npages = len / page;
	int nodes[npages];

	*set = 0;
	if (page_nodes(addr, npages, nodes))
		return -1;
	for (size_t i = 0; i < npages; i++)
		if (nodes[i] >= 0)
			*set |= N(nodes[i]);
	return 0;
}

/*
 * Run ksmd until it has merged at least half the pages of a step more than
 * @merged_before and made two full scans, then stop it. 0, or -1 when it
 * merged too little in KSM_WAIT_SECONDS.
 */
static int merge(long merged_before)
{
	long page = sysconf(_SC_PAGESIZE);
	long scans = read_number(KSM "full_scans");
	double end = now_seconds() + KSM_WAIT_SECONDS;
	int err = -1;

	if (write_text(KSM "run", "1"))
		return -1;
	while (err && now_seconds() < end) {
		if (read_number(KSM "full_scans") >= scans + 2 &&
		    read_number("/proc/self/ksm_merging_pages") >=
		    merged_before + (long)(STEP_BYTES / page / 2))
			err = 0;
		else
			usleep(20000);
	}
	return write_text(KSM "run", "0") ? -1 : err;
}

TEST_F_TIMEOUT(ksmthp, pages_stay_in_the_cpuset,
	       NR_STEPS * KSM_WAIT_SECONDS + 60)
{
	struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = variant->user, .created_in = steps[0],
	};
	long page = sysconf(_SC_PAGESIZE);
	long faults = vm_events("thp_fault_alloc");
	long splits = vm_events("thp_split_pmd");
	nodeset_t user = variant->user;
	char a[32], b[32], c[32];

	if (variant->mode != MPOL_DEFAULT)
		ASSERT_EQ(0, mbind(self->region, self->len,
				   variant->mode | variant->flags, &user,
				   NODESET_BITS, 0));

	for (size_t step = 0; step < NR_STEPS; step++) {
		char *fresh = self->region + step * STEP_BYTES;
		struct policy_expectation want = { .may_land = steps[step] };
		long merged = read_number("/proc/self/ksm_merging_pages");
		nodeset_t all, placed;

		ASSERT_EQ(0, cpuset_set_mems(&self->cs, steps[step]));
		if (variant->mode != MPOL_DEFAULT)
			policy_expect(&req, steps[step], &want);
		if (variant->kind == THP) {
			/* Split each huge page faulted before, by a hole. */
			for (char *p = self->region; p < fresh; p += HUGE)
				ASSERT_EQ(0, madvise(p + HUGE / 2, page,
						     MADV_DONTNEED));
		}
		/* One content for all, for KSM: none of it zero. */
		memset(fresh, 0x5a, STEP_BYTES);
		ASSERT_EQ(0, nodes_of(fresh, STEP_BYTES, &placed));
		EXPECT_EQ(0UL, placed & ~want.may_land)
			TH_LOG("cpuset {%s}: fresh pages on {%s}, may land on {%s}",
			       nodeset_format(steps[step], a, sizeof(a)),
			       nodeset_format(placed, b, sizeof(b)),
			       nodeset_format(want.may_land, c, sizeof(c)));
		if (variant->kind == KSM_MERGE)
			ASSERT_EQ(0, merge(merged))
				TH_LOG("KSM merged fewer than half the pages in %d s",
				       KSM_WAIT_SECONDS);
		ASSERT_EQ(0, nodes_of(self->region, self->len, &all));
		EXPECT_EQ(0UL, all & ~steps[step])
			TH_LOG("cpuset {%s}: the region's pages on {%s}",
			       nodeset_format(steps[step], a, sizeof(a)),
			       nodeset_format(all, b, sizeof(b)));
		for (size_t k = 0; k <= step && (all & ~steps[step]); k++) {
			ASSERT_EQ(0, nodes_of(self->region + k * STEP_BYTES,
					      STEP_BYTES, &placed));
			TH_LOG("  the pages of step %zu on {%s}", k,
			       nodeset_format(placed, b, sizeof(b)));
		}
	}
	if (variant->kind == THP && faults >= 0) {
		EXPECT_LT(faults, vm_events("thp_fault_alloc"))
			TH_LOG("no huge page was faulted");
		EXPECT_LT(splits, vm_events("thp_split_pmd"))
			TH_LOG("no huge page was split");
	}
}

TEST_HARNESS_MAIN
