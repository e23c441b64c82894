/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pressure: a ballast process that fills nodes until every
 * allocation on them misses the low watermark and takes the allocator's
 * slow path (where the cpuset retry logic lives), and keeps them there,
 * giving memory back as the workers grow so that allocations still fit
 * above the min watermark and no OOM kill is legitimate.
 *
 * It can also fill nodes for good, up to just above the min watermark:
 * then an allocation that only these nodes may serve ends in the OOM
 * killer, which is legitimate only if the allocation was confined to them
 * by right.
 */
#ifndef NUMAPOL_STRESS_PRESSURE_H
#define NUMAPOL_STRESS_PRESSURE_H

#include <sys/types.h>

#include "../lib/nodes.h"

struct pressure {
	pid_t ballast;
	char old_scale_factor[16];	/* vm.watermark_scale_factor */
	char old_boost_factor[16];	/* vm.watermark_boost_factor */
};

/*
 * Fill @nodes, and @full for good; returns 0 once the ballast is in place,
 * or -1.
 */
int pressure_start(struct pressure *p, nodeset_t nodes, nodeset_t full);
void pressure_stop(struct pressure *p);

#endif
