// SPDX-License-Identifier: GPL-2.0
#include "pressure.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/mpol.h"

#define SCALE_FACTOR	"/proc/sys/vm/watermark_scale_factor"
/*
 * 20% of each zone between its min and low watermarks instead of 0.1%:
 * room for the workers' pages, and the page tables and slab they grow, in
 * the band where every allocation takes the slow path and still succeeds.
 */
#define WIDE_SCALE_FACTOR "2000"
#define CHUNK		(1L << 20)

struct node_marks {
	long free, min, low;	/* pages, summed over the node's zones */
};

static int read_node_marks(int node, struct node_marks *m)
{
	char line[256], zone[16];
	int current = -1;
	long value;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	*m = (struct node_marks){ 0 };
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %15s", &current, zone) == 2)
			continue;
		if (current != node)
			continue;
		if (sscanf(line, " pages free %ld", &value) == 1)
			m->free += value;
		else if (sscanf(line, " min %ld", &value) == 1)
			m->min += value;
		else if (sscanf(line, " low %ld", &value) == 1)
			m->low += value;
	}
	fclose(f);
	return m->low ? 0 : -1;
}

/* Allocate from @node until its free memory is down to the target. */
static int fill_node(int node)
{
	long page = sysconf(_SC_PAGESIZE);
	nodeset_t mask = NODE(node);
	struct node_marks m;
	long target;

	if (set_mempolicy(MPOL_BIND, &mask, NODESET_BITS) ||
	    read_node_marks(node, &m))
		return -1;
	/* Half way: about 50 MiB of a 512 MiB node above min. */
	target = m.min + (m.low - m.min) / 2;
	while (m.free > target) {
		long len = (m.free - target) * page;
		char *chunk;

		len = len < CHUNK ? len : CHUNK;
		chunk = mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (chunk == MAP_FAILED)
			return -1;
		memset(chunk, 1, len);
		if (read_node_marks(node, &m))
			return -1;
	}
	return 0;
}

static void ballast(nodeset_t nodes, int ready)
{
	for (int n = 0; n < (int)NODESET_BITS; n++)
		if ((nodes & NODE(n)) && fill_node(n))
			_exit(1);
	if (write(ready, "", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

int pressure_start(struct pressure *p, nodeset_t nodes)
{
	int fds[2];
	char c;

	p->ballast = -1;
	if (read_text(SCALE_FACTOR, p->old_scale_factor,
		      sizeof(p->old_scale_factor)) ||
	    write_text(SCALE_FACTOR, WIDE_SCALE_FACTOR) || pipe(fds))
		return -1;
	p->ballast = fork();
	if (p->ballast == 0) {
		close(fds[0]);
		/* Like the workers, it must not hold the output pipe. */
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(1);
		/* Unlike the monitor, which shields itself. */
		write_text("/proc/self/oom_score_adj", "0");
		ballast(nodes, fds[1]);
	}
	close(fds[1]);
	/* EOF instead of a byte: the ballast died. */
	if (p->ballast < 0 || read(fds[0], &c, 1) != 1) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	return 0;
}

void pressure_stop(struct pressure *p)
{
	if (p->ballast > 0) {
		kill(p->ballast, SIGKILL);
		waitpid(p->ballast, NULL, 0);
	}
	if (p->old_scale_factor[0])
		write_text(SCALE_FACTOR, p->old_scale_factor);
}
