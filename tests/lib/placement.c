// SPDX-License-Identifier: GPL-2.0
#include "placement.h"
#include "mpol.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void touch_pages(char *addr, int npages)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < npages; i++)
		addr[i * page] = 1;
}

int touch_and_count(char *addr, int counts[NODESET_BITS])
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = TOUCH_PAGES * page;
	char *region = addr;
	int err;

	if (!region) {
		region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			return -1;
	}
	memset(region, 0xa5, len);
	err = count_page_nodes(region, TOUCH_PAGES, counts) ? -1 : 0;
	if (!addr)
		munmap(region, len);
	return err;
}

int write_file_and_count(const char *dir, int counts[NODESET_BITS])
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = TOUCH_PAGES * page;
	char path[256], buf[4096];
	volatile char sum = 0;
	char *region = MAP_FAILED;
	int fd, err = -1;

	snprintf(path, sizeof(path), "%s/probe-%d", dir, getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 0xa5, sizeof(buf));
	for (size_t off = 0; off < len; off += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			goto out;
	/* move_pages() finds only mapped pages: map them, read each one. */
	region = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (region == MAP_FAILED)
		goto out;
	for (size_t off = 0; off < len; off += page)
		sum += region[off];
	err = count_page_nodes(region, TOUCH_PAGES, counts) ? -1 : 0;
out:
	if (region != MAP_FAILED)
		munmap(region, len);
	close(fd);
	unlink(path);
	return err;
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

/* Touch fresh pages for one probe and count them per node; 0 or -1. */
typedef int (*toucher_t)(void *arg, int counts[NODESET_BITS]);

/*
 * Probe from each allowed node that has CPUs, for the modes whose placement
 * depends on the allocating CPU's node; from all CPUs once for the others,
 * and when no allowed node has CPUs (memory expanders only).
 */
static bool probe_each_node(int mode, const struct policy_expectation *want,
			    nodeset_t allowed, toucher_t touch, void *arg,
			    char *why, size_t len)
{
	bool by_node = mode == MPOL_BIND || mode == MPOL_PREFERRED_MANY;
	nodeset_t from = allowed, with_cpus;
	char land[32], pages[64];
	int counts[NODESET_BITS];
	size_t used = 0;
	bool ok = true;

	why[0] = '\0';
	if (!read_nodeset("/sys/devices/system/node/has_cpu", &with_cpus))
		from &= with_cpus;
	for (int node = by_node && from ? 0 : -1; node < MAX_PROBE_NODES; node++) {
		bool placed;

		if (node >= 0 && !(from & NODE(node)))
			continue;
		if (pin_to_node(node) || touch(arg, counts)) {
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

struct slices {
	char **next;
	long slice;
};

static int touch_next_slice(void *arg, int counts[NODESET_BITS])
{
	struct slices *s = arg;
	char *addr = *s->next;

	if (addr)
		*s->next += s->slice;
	return touch_and_count(addr, counts);
}

bool probe_placement(int mode, const struct policy_expectation *want,
		     nodeset_t allowed, char **next, long slice,
		     char *why, size_t len)
{
	struct slices s = { next, slice };

	return probe_each_node(mode, want, allowed, touch_next_slice, &s,
			       why, len);
}

static int write_file(void *dir, int counts[NODESET_BITS])
{
	return write_file_and_count(dir, counts);
}

bool probe_file_placement(int mode, const struct policy_expectation *want,
			  nodeset_t allowed, const char *dir,
			  char *why, size_t len)
{
	return probe_each_node(mode, want, allowed, write_file, (void *)dir,
			       why, len);
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
