/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nodes of a machine with memory tiers: nodes with CPUs, and CPU-less
 * nodes whose memory is slower and sits in a lower tier, as CXL memory
 * expanders appear (scripts/boot.sh CPULESS=).
 *
 * The tier suites name four nodes by their place: the two lowest nodes
 * with CPUs and memory, and the two lowest with memory and no CPU. With
 * CPULESS=2,3 on 4 nodes those are nodes 0 to 3; with CPULESS=8-15 on 16,
 * nodes 0, 1, 8 and 9. A set of places is a bitmask, as a node set is.
 */
#ifndef NUMAPOL_TIERS_H
#define NUMAPOL_TIERS_H

#include "nodes.h"

enum tier_place { TIER_FAST0_PLACE, TIER_FAST1_PLACE, TIER_SLOW0_PLACE,
		  TIER_SLOW1_PLACE, TIER_PLACES };

#define TIER_FAST0	NODE(TIER_FAST0_PLACE)
#define TIER_FAST1	NODE(TIER_FAST1_PLACE)
#define TIER_SLOW0	NODE(TIER_SLOW0_PLACE)
#define TIER_SLOW1	NODE(TIER_SLOW1_PLACE)

struct tier_nodes {
	int node[TIER_PLACES];	/* the node at each place */
};

/*
 * Find the four nodes; 0, or -ENOENT when the machine lacks them or its
 * CPU-less nodes are not in a lower memory tier than the others.
 */
int tier_nodes_find(struct tier_nodes *t);
/* The nodes at the places in @places. */
nodeset_t tier_nodes_of(const struct tier_nodes *t, nodeset_t places);
/* The number of the memory tier @node is in, or -1. */
int memory_tier_of(int node);

#endif
