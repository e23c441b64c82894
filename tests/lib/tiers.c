// SPDX-License-Identifier: GPL-2.0
#include "tiers.h"

#include <errno.h>

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
				t->node[fast++] = n;
		} else if (slow < 2) {
			t->node[2 + slow++] = n;
		}
	}
	return fast == 2 && slow == 2 ? 0 : -ENOENT;
}

nodeset_t tier_nodes_of(const struct tier_nodes *t, nodeset_t places)
{
	nodeset_t nodes = 0;

	for (int p = 0; p < TIER_PLACES; p++)
		if (places & NODE(p))
			nodes |= NODE(t->node[p]);
	return nodes;
}
