// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages and KSM under memory policies while the cpuset
 * changes. A region under a VMA policy made in cpuset {0,1} (or under no
 * policy) is faulted as huge pages, or filled with pages KSM merges; the
 * cpuset then goes to {2,3} and to {1,2}. After each change the huge pages
 * are split by unmapping a page of each and new ones are faulted, or KSM
 * is given two full scans to merge again. Once a change has settled, no
 * page of the region may be outside the cpuset, and fresh huge pages must
 * be on nodes the policy may use there (docs/semantics.md).
 *
 * KSM itself ignores policies: a page it merges maps the page it keeps,
 * wherever that is (merge_across_nodes), so merged pages are checked
 * against the cpuset only. And a cpuset change moves the pages it can
 * isolate: one that ksmd holds at that moment stays where it is, on
 * baseline as with the series. ksmd is stopped across each change.
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
/* Per step: two huge pages, or 256 pages for KSM. */
#define STEP_BYTES	(2 * HUGE)
#define KSM		"/sys/kernel/mm/ksm/"
#define KSM_WAIT_SECONDS 60

static const nodeset_t steps[] = { N(0) | N(1), N(2) | N(3), N(1) | N(2) };
#define NR_STEPS	(sizeof(steps) / sizeof(steps[0]))

enum kind { THP, KSM_MERGE };

FIXTURE(ksmthp) {
	struct cpuset cs;
	char *map, *region;	/* region: map aligned to a huge page */
	size_t len;
	char saved_run[16], saved_sleep[16], saved_pages[16];
};

FIXTURE_VARIANT(ksmthp) {
	int mode;		/* MPOL_DEFAULT: no policy */
	unsigned int flags;
	nodeset_t user;
	enum kind kind;
};

#define KT_VARIANT(name, m, f, u) \
	FIXTURE_VARIANT_ADD(ksmthp, thp_##name) { \
		.mode = m, .flags = f, .user = u, .kind = THP }; \
	FIXTURE_VARIANT_ADD(ksmthp, ksm_##name) { \
		.mode = m, .flags = f, .user = u, .kind = KSM_MERGE }
KT_VARIANT(BIND_none, MPOL_BIND, 0, N(0) | N(1));
KT_VARIANT(INTERLEAVE_none, MPOL_INTERLEAVE, 0, N(0) | N(1));
KT_VARIANT(BIND_STATIC, MPOL_BIND, MPOL_F_STATIC_NODES, N(1) | N(2));
KT_VARIANT(PREFERRED_MANY_RELATIVE, MPOL_PREFERRED_MANY,
	   MPOL_F_RELATIVE_NODES, N(1));
KT_VARIANT(no_policy, MPOL_DEFAULT, 0, 0);

static long ksm_number(const char *name)
{
	char path[96], text[32];

	snprintf(path, sizeof(path), KSM "%s", name);
	return read_text(path, text, sizeof(text)) ? -1 : atol(text);
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
		SKIP(return, "this kernel has no transparent huge pages");
	if (variant->kind == KSM_MERGE) {
		if (read_text(KSM "run", self->saved_run,
			      sizeof(self->saved_run)))
			SKIP(return, "this kernel has no KSM");
		ASSERT_EQ(0, read_text(KSM "sleep_millisecs", self->saved_sleep,
				       sizeof(self->saved_sleep)));
		ASSERT_EQ(0, read_text(KSM "pages_to_scan", self->saved_pages,
				       sizeof(self->saved_pages)));
		ASSERT_EQ(0, write_text(KSM "sleep_millisecs", "10"));
		ASSERT_EQ(0, write_text(KSM "pages_to_scan", "1000"));
		ASSERT_EQ(0, write_text(KSM "run", "1"));
	}
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "numapol-ksmthp",
				   steps[0]));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	/* One step's worth more, to align the region to a huge page. */
	self->len = NR_STEPS * STEP_BYTES;
	self->map = mmap(NULL, self->len + HUGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->region = (char *)(((unsigned long)self->map + HUGE - 1) &
				~(HUGE - 1));
	ASSERT_EQ(0, madvise(self->region, self->len,
			     variant->kind == THP ? MADV_HUGEPAGE :
						    MADV_MERGEABLE));
}

FIXTURE_TEARDOWN(ksmthp)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->len + HUGE);
	cpuset_destroy(&self->cs);
	if (self->saved_sleep[0])
		write_text(KSM "sleep_millisecs", self->saved_sleep);
	if (self->saved_pages[0])
		write_text(KSM "pages_to_scan", self->saved_pages);
	if (self->saved_run[0])
		write_text(KSM "run", self->saved_run);
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
 * Fill [addr, addr + len) with pages of one content, for KSM to merge,
 * then wait until it has merged some of the region and made two full
 * scans. 0, or -1 when KSM merged nothing.
 */
static int fill_and_merge(char *addr, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	long scans = ksm_number("full_scans");
	double end = now_seconds() + KSM_WAIT_SECONDS;
	char text[32];

	for (size_t off = 0; off < len; off += page)
		memset(addr + off, getpid() & 0xff ? getpid() & 0xff : 1, page);
	while (now_seconds() < end) {
		if (ksm_number("full_scans") >= scans + 2 &&
		    !read_text("/proc/self/ksm_merging_pages", text,
			       sizeof(text)) && atol(text) > 0)
			return 0;
		usleep(20000);
	}
	return -1;
}

TEST_F(ksmthp, pages_stay_in_the_cpuset)
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
		nodeset_t all, placed;

		if (variant->kind == KSM_MERGE) {
			ASSERT_EQ(0, write_text(KSM "run", "0"));
			ASSERT_EQ(0, cpuset_set_mems(&self->cs, steps[step]));
			ASSERT_EQ(0, write_text(KSM "run", "1"));
		} else {
			ASSERT_EQ(0, cpuset_set_mems(&self->cs, steps[step]));
			if (variant->mode != MPOL_DEFAULT)
				policy_expect(&req, steps[step], &want);
		}
		if (variant->kind == THP) {
			/* Split each huge page faulted before, by a hole. */
			for (char *p = self->region; p < fresh; p += HUGE)
				ASSERT_EQ(0, madvise(p + HUGE / 2, page,
						     MADV_DONTNEED));
			memset(fresh, 1, STEP_BYTES);
		} else {
			ASSERT_EQ(0, fill_and_merge(fresh, STEP_BYTES))
				TH_LOG("KSM merged nothing in %d s",
				       KSM_WAIT_SECONDS);
		}
		ASSERT_EQ(0, nodes_of(fresh, STEP_BYTES, &placed));
		EXPECT_EQ(0UL, placed & ~want.may_land)
			TH_LOG("cpuset {%s}: fresh pages on {%s}, may land on {%s}",
			       nodeset_format(steps[step], a, sizeof(a)),
			       nodeset_format(placed, b, sizeof(b)),
			       nodeset_format(want.may_land, c, sizeof(c)));
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
