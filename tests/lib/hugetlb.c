// SPDX-License-Identifier: GPL-2.0
#include "hugetlb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NODE_POOL "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages"

static int write_number(const char *path, long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", value);
	return write_text(path, text);
}

int hugetlb_set_node_pool(int node, long pages)
{
	char path[128];

	snprintf(path, sizeof(path), NODE_POOL, node);
	return write_number(path, pages);
}

int hugetlb_set_pool_under_policy(long pages)
{
	return write_number("/proc/sys/vm/nr_hugepages_mempolicy", pages);
}

int hugetlb_set_overcommit(long pages)
{
	return write_number("/proc/sys/vm/nr_overcommit_hugepages", pages);
}

int hugetlb_pool_nodes(nodeset_t *nodes, long *total)
{
	char path[128], text[32];
	long pages;

	*nodes = 0;
	*total = 0;
	for (unsigned int n = 0; n < NODESET_BITS; n++) {
		snprintf(path, sizeof(path), NODE_POOL, n);
		if (access(path, F_OK))
			continue;
		if (read_text(path, text, sizeof(text)))
			return -1;
		pages = atol(text);
		if (pages)
			*nodes |= NODE(n);
		*total += pages;
	}
	return 0;
}

void hugetlb_reset(void)
{
	hugetlb_set_overcommit(0);
	write_number("/proc/sys/vm/nr_hugepages", 0);
}
