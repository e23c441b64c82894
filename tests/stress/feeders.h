/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reclaimable page cache: feeder processes bound to a node read each a
 * sparse file on the guest's ext4 disk (DISK_DIR) from end to end, again
 * and again. A hole costs no I/O, only a page of zeroes in the page cache,
 * so the feeders keep their node full of clean page cache: direct reclaim
 * on the node always makes progress, and an allocator's retry loop that
 * reclaims there goes on as long as its caller lets it. That is the
 * condition of e05741fb10c3's endless retry, which a guest whose only
 * file systems are tmpfs and ramfs never meets.
 */
#ifndef NUMAPOL_STRESS_FEEDERS_H
#define NUMAPOL_STRESS_FEEDERS_H

#include <sys/types.h>

#include "../lib/nodes.h"

/*
 * Feeders a node: one alone leaves kswapd time to keep the node's free
 * memory above its low watermark, and allocations there rarely reclaim.
 */
#define FEEDERS_PER_NODE	3

struct feeders {
	pid_t pids[NODESET_BITS * FEEDERS_PER_NODE];
	int count;
};

/* Start the feeders on the nodes of @nodes; 0, or -1 with errno set. */
int feeders_start(struct feeders *f, nodeset_t nodes);
void feeders_stop(struct feeders *f);

#endif
