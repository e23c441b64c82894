// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's own canary: fails when the kernel command line carries
 * numapol.canary=fail, passes otherwise. scripts/selftest.sh uses it to
 * show that a failing guest test fails the run.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "../lib/nodes.h"

TEST(canary_passes_unless_told_to_fail)
{
	char buf[16];
	const char *canary = cmdline_param("numapol.canary", buf, sizeof(buf));

	EXPECT_TRUE(!canary || strcmp(canary, "fail"))
		TH_LOG("numapol.canary=fail: failing on purpose");
}

TEST_HARNESS_MAIN
