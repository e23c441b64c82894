// SPDX-License-Identifier: GPL-2.0
#include "tiers.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>

int tier_nodes_find(struct tier_nodes *t)
{
	nodeset_t memory, cpus;
	int fast = 0, slow = 0;

	if (read_nodeset("/sys/devices/system/node/has_memory", &memory) ||
	    read_nodeset("/sys/devices/system/node/has_cpu", &cpus))
		return -ENOENT;
	for (int n = 0; n < (int)NODESET_BITS; n++) {
		if (!(memory & NODE(n)))
			continue;
		if (cpus & NODE(n)) {
			if (fast < 2)
				t->node[TIER_FAST0_PLACE + fast++] = n;
		} else if (slow < 2) {
			t->node[TIER_SLOW0_PLACE + slow++] = n;
		}
	}
	if (fast < 2 || slow < 2)
		return -ENOENT;
	/* Without the firmware's performance figures, all share one tier. */
	for (int p = TIER_SLOW0_PLACE; p <= TIER_SLOW1_PLACE; p++)
		if (memory_tier_of(t->node[p]) <=
		    memory_tier_of(t->node[TIER_FAST0_PLACE]))
			return -ENOENT;
	return 0;
}

nodeset_t tier_nodes_of(const struct tier_nodes *t, nodeset_t places)
{
	nodeset_t nodes = 0;

	for (int p = 0; p < TIER_PLACES; p++)
		if (places & NODE(p))
			nodes |= NODE(t->node[p]);
	return nodes;
}

int memory_tier_of(int node)
{
	const char *root = "/sys/devices/virtual/memory_tiering";
	DIR *dir = opendir(root);
	struct dirent *entry;
	char path[96];
	nodeset_t nodes;
	int tier = -1;

	if (!dir)
		return -1;
	while (tier < 0 && (entry = readdir(dir))) {
		int number;

		if (sscanf(entry->d_name, "memory_tier%d", &number) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/memory_tier%d/nodelist", root,
			 number);
		if (!read_nodeset(path, &nodes) && (nodes & NODE(node)))
			tier = number;
	}
	closedir(dir);
	return tier;
}
