/* SPDX-License-Identifier: GPL-2.0 */
/* The guest's pool of 2 MiB huge pages, per node and in all. */
#ifndef NUMAPOL_HUGETLB_H
#define NUMAPOL_HUGETLB_H

#include "nodes.h"

#define HUGE_PAGE_SIZE	(2UL << 20)

/* Set the pool of @node to @pages persistent huge pages; 0 or -errno. */
int hugetlb_set_node_pool(int node, long pages);
/*
 * Set the pool through nr_hugepages_mempolicy, that is on the nodes of the
 * caller's task policy; 0 or -errno.
 */
int hugetlb_set_pool_under_policy(long pages);
/* Allow @pages surplus huge pages (nr_overcommit_hugepages); 0 or -errno. */
int hugetlb_set_overcommit(long pages);
/*
 * The nodes whose pool holds huge pages, and how many pages the pools
 * hold in all, persistent and surplus. Returns 0 or -1.
 */
int hugetlb_pool_nodes(nodeset_t *nodes, long *total);
/* Empty every node's pool and allow no surplus pages. */
void hugetlb_reset(void);

#endif
