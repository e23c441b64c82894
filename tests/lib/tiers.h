/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nodes of a machine with memory tiers: nodes with CPUs, and CPU-less
 * nodes whose memory is slower and sits in a lower tier, as CXL memory
 * expanders appear (scripts/boot.sh CPULESS=).
 *
 * The tier suites name four nodes by their place: TIER_FAST0 and
 * TIER_FAST1, the two lowest nodes with CPUs and memory; TIER_SLOW0 and
 * TIER_SLOW1, the two lowest with memory and no CPU. With CPULESS=2,3 on
 * 4 nodes those are nodes 0 to 3; with CPULESS=8-15 on 16, nodes 0, 1, 8
 * and 9.
 */
#ifndef NUMAPOL_TIERS_H
#define NUMAPOL_TIERS_H

#include "nodes.h"

#define TIER_FAST0	NODE(0)
#define TIER_FAST1	NODE(1)
#define TIER_SLOW0	NODE(2)
#define TIER_SLOW1	NODE(3)
#define TIER_PLACES	4

struct tier_nodes {
	int node[TIER_PLACES];	/* the node at each place */
};

/* Find the four nodes; 0, or -ENOENT when the machine lacks them. */
int tier_nodes_find(struct tier_nodes *t);
/* The nodes at the places in @places. */
nodeset_t tier_nodes_of(const struct tier_nodes *t, nodeset_t places);

#endif
