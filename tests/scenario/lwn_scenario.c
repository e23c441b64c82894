// SPDX-License-Identifier: GPL-2.0
/*
 * The LWN article's scenario, for every mode and node flag: a task policy
 * over {0,1} is set in cpuset {0,1}; the cpuset goes to {1,2}, then {2},
 * then back to {0,1}. After each step it prints one "row|" line with what
 * get_mempolicy() reports, where freshly touched pages land, and what
 * docs/semantics.md expects; scripts/run-scenario.sh makes the table.
 * A step that differs from the expectation fails the case.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"

static const nodeset_t steps[] = {
	NODE(0) | NODE(1),	/* C0: the policy is set here */
	NODE(1) | NODE(2),
	NODE(2),
	NODE(0) | NODE(1),	/* back where it started */
};

FIXTURE(lwn) {
	struct cpuset cs;
};

FIXTURE_VARIANT(lwn) {
	int mode;
	unsigned int flags;
};

#define SCENARIO(m, f) \
	FIXTURE_VARIANT_ADD(lwn, m##_##f) { .mode = MPOL_##m, .flags = f }
#define none 0
#define STATIC MPOL_F_STATIC_NODES
#define RELATIVE MPOL_F_RELATIVE_NODES
#define SCENARIOS(m) SCENARIO(m, none); SCENARIO(m, STATIC); SCENARIO(m, RELATIVE)
SCENARIOS(BIND);
SCENARIOS(INTERLEAVE);
SCENARIOS(WEIGHTED_INTERLEAVE);
SCENARIOS(PREFERRED);
SCENARIOS(PREFERRED_MANY);

FIXTURE_SETUP(lwn)
{
	nodeset_t memory;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory", &memory));
	if ((memory & 0x7) != 0x7)
		SKIP(return, "needs memory on nodes 0, 1 and 2");
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "lwn", steps[0]));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
}

FIXTURE_TEARDOWN(lwn)
{
	cpuset_destroy(&self->cs);
}

TEST_F(lwn, policy_survives_cpuset_changes)
{
	struct policy_request req = {
		.mode = variant->mode,
		.flags = variant->flags,
		.user = NODE(0) | NODE(1),
		.created_in = steps[0],
	};
	int mismatches = 0;

	ASSERT_EQ(0, set_mempolicy(req.mode | req.flags, &req.user, NODESET_BITS));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct policy_expectation want;
		int counts[NODESET_BITS], mode;
		nodeset_t reported = 0;
		char cs[64], got[64], exp[64], land[64], pages[128];
		bool ok;

		if (i)
			ASSERT_EQ(0, cpuset_set_mems(&self->cs, steps[i]));
		ASSERT_EQ(0, get_mempolicy(&mode, &reported, NODESET_BITS, NULL, 0));
		ASSERT_EQ(0, touch_and_count(NULL, counts));
		policy_expect(&req, steps[i], &want);

		ok = mode == (int)(req.mode | req.flags) &&
		     reported == want.reported && placement_ok(&want, counts);
		mismatches += !ok;
		format_counts(counts, 4, pages, sizeof(pages));
		ksft_print_msg("row|%s|%s|%zu|%s|%s|%s|%s|%s|%s\n",
			       mpol_mode_name(req.mode), mpol_flags_name(req.flags), i,
			       nodeset_format(steps[i], cs, sizeof(cs)),
			       nodeset_format(reported, got, sizeof(got)),
			       nodeset_format(want.reported, exp, sizeof(exp)),
			       pages, nodeset_format(want.may_land, land, sizeof(land)),
			       ok ? "ok" : "MISMATCH");
	}
	EXPECT_EQ(0, mismatches);
}

TEST_HARNESS_MAIN
