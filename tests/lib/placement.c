// SPDX-License-Identifier: GPL-2.0
#include "placement.h"
#include "mpol.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int touch_and_count(char *addr, int counts[NODESET_BITS])
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = TOUCH_PAGES * page;
	char *region = addr;
	int nodes[TOUCH_PAGES];
	int err;

	if (!region) {
		region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			return -1;
	}
	memset(region, 0xa5, len);
	err = page_nodes(region, TOUCH_PAGES, nodes);
	if (!addr)
		munmap(region, len);
	memset(counts, 0, NODESET_BITS * sizeof(*counts));
	for (int i = 0; !err && i < TOUCH_PAGES; i++) {
		if (nodes[i] < 0 || nodes[i] >= (int)NODESET_BITS)
			return -1;
		counts[nodes[i]]++;
	}
	return err ? -1 : 0;
}

bool placement_ok(const struct policy_expectation *want,
		  const int counts[NODESET_BITS])
{
	for (int n = 0; n < (int)NODESET_BITS; n++) {
		bool allowed = want->may_land & NODE(n);

		if (counts[n] && !allowed)
			return false;
		if (allowed && want->spread && !counts[n])
			return false;
	}
	return true;
}

int pin_to_node(int node)
{
	char path[64], list[256];
	nodeset_t cpus = ~0UL;
	cpu_set_t set;

	if (node >= 0) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", node);
		if (read_text(path, list, sizeof(list)) ||
		    nodeset_parse(list, &cpus) || !cpus)
			return -1;
	}
	CPU_ZERO(&set);
	for (int cpu = 0; cpu < (int)NODESET_BITS; cpu++)
		if (cpus & NODE(cpu))
			CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : 0;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

bool placement_from_node_ok(const struct policy_expectation *want, int node,
			    const int counts[NODESET_BITS])
{
	struct policy_expectation here = *want;

	if (want->may_land & NODE(node)) {
		here.may_land = NODE(node);
		here.spread = true;
	}
	return placement_ok(&here, counts);
}

bool probe_placement(int mode, const struct policy_expectation *want,
		     nodeset_t allowed, char **next, long slice,
		     char *why, size_t len)
{
	bool by_node = mode == MPOL_BIND || mode == MPOL_PREFERRED_MANY;
	char land[32], pages[64];
	int counts[NODESET_BITS];
	size_t used = 0;
	bool ok = true;

	why[0] = '\0';
	for (int node = by_node ? 0 : -1; node < MAX_PROBE_NODES; node++) {
		char *addr = *next;
		bool placed;

		if (node >= 0 && !(allowed & NODE(node)))
			continue;
		if (addr)
			*next += slice;
		if (pin_to_node(node) || touch_and_count(addr, counts)) {
			snprintf(why, len, "cannot run on node %d or query pages",
				 node);
			ok = false;
			break;
		}
		placed = node < 0 ? placement_ok(want, counts) :
			 placement_from_node_ok(want, node, counts);
		if (!placed && used < len) {
			used += snprintf(why + used, len - used,
					 "%sfrom node %d: pages %s; expected on {%s}%s%s",
					 used ? "; " : "", node,
					 format_counts(counts, 4, pages, sizeof(pages)),
					 nodeset_format(want->may_land, land, sizeof(land)),
					 want->exact ? ", all on one" : "",
					 want->spread ? ", on each" : "");
			ok = false;
		}
		if (node < 0)
			break;
	}
	pin_to_node(-1);
	return ok;
}

char *format_counts(const int counts[NODESET_BITS], int nodes, char *buf,
		    size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int n = 0; n < nodes && used < len; n++)
		used += snprintf(buf + used, len - used, "%s%d", n ? "/" : "",
				 counts[n]);
	return buf;
}
