// SPDX-License-Identifier: GPL-2.0
#include "pressure.h"

#include <signal.h>
#include <stdbool.h>
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
/*
 * No watermark boost: after a fragmentation event the kernel raises a
 * zone's watermarks for a while (by 24 MiB of a 180 MiB zone, seen on
 * debug-wide), which puts a node the ballast keeps just above min under
 * it at once; without swap nothing can be reclaimed, and the next bound
 * allocation would OOM kill by right.
 */
#define BOOST_FACTOR	"/proc/sys/vm/watermark_boost_factor"
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

/* The ballast's 1 MiB chunks on one node, newest last. */
struct node_ballast {
	char *chunks[1024];
	int count;
};

/*
 * A populated chunk of @size bytes on @node, or NULL. A VMA policy binds
 * the chunk alone: the ballast's own kernel allocations (page tables, the
 * buffers that reading /proc/zoneinfo takes) must not be confined to a
 * node it filled, or they would OOM kill it.
 */
static char *chunk_on(int node, long size)
{
	nodeset_t mask = NODE(node);
	char *chunk = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (chunk == MAP_FAILED)
		return NULL;
	if (mbind(chunk, size, MPOL_BIND, &mask, NODESET_BITS, 0)) {
		munmap(chunk, size);
		return NULL;
	}
	memset(chunk, 1, size);
	return chunk;
}

/*
 * Keep @node's free memory between a quarter and three quarters of the
 * way from min to low: allocate a chunk there when it has more; when the
 * workers' own growth (page tables, slab, pages migrated in) leaves it
 * less, give back at once as many chunks as bring it to the middle.
 * Returns -1 when a chunk cannot be had.
 */
static int keep_node(int node, struct node_ballast *b)
{
	long page = sysconf(_SC_PAGESIZE);
	struct node_marks m;
	long band;

	if (read_node_marks(node, &m))
		return -1;
	band = m.low - m.min;
	if (m.free < m.min + band / 4) {
		long deficit = (m.min + band / 2 - m.free) * page;

		for (; deficit > 0 && b->count; deficit -= CHUNK)
			munmap(b->chunks[--b->count], CHUNK);
		return 0;
	}
	if (m.free <= m.min + band * 3 / 4 || b->count == 1024)
		return 0;
	b->chunks[b->count] = chunk_on(node, CHUNK);
	if (!b->chunks[b->count])
		return -1;
	b->count++;
	return 1;
}

/*
 * Take @node's memory down to FULL_MARGIN pages above its min watermark,
 * in smaller chunks near the end, and give none back. Returns 1 when it
 * took some, 0 when there is none left to take, -1 on failure. Called
 * until it returns 0, then never again. The margin keeps the ballast's
 * own chunks clear of the OOM killer, which the pages that CPUs keep on
 * their lists of free pages could otherwise bring about; the allocator's
 * slow path then takes the margin, for the workers whose CPUs are on
 * @node.
 */
#define FULL_MARGIN	1024
#define SMALL_CHUNK	(64L << 10)
static int fill_node(int node)
{
	long page = sysconf(_SC_PAGESIZE);
	struct node_marks m;

	if (read_node_marks(node, &m))
		return -1;
	if (m.free <= m.min + FULL_MARGIN)
		return 0;
	return chunk_on(node, (m.free - m.min - FULL_MARGIN) * page > CHUNK ?
			CHUNK : SMALL_CHUNK) ? 1 : -1;
}

static void ballast(nodeset_t nodes, nodeset_t full, int ready)
{
	static struct node_ballast b[NODESET_BITS];
	bool filling = true;

	for (;;) {
		bool grew = false;

		for (int n = 0; n < (int)NODESET_BITS; n++) {
			int rc = (full & NODE(n)) ? fill_node(n) :
				 (nodes & NODE(n)) ? keep_node(n, &b[n]) : 0;

			if (rc < 0)
				_exit(1);
			if (rc == 0)
				full &= ~NODE(n);
			grew |= rc > 0;
		}
		/* Filled: the workers may start. */
		if (filling && !grew) {
			if (write(ready, "", 1) != 1)
				_exit(1);
			filling = false;
		}
		if (!filling)
			usleep(20 * 1000);
	}
}

int pressure_start(struct pressure *p, nodeset_t nodes, nodeset_t full)
{
	int fds[2];
	char c;

	p->ballast = -1;
	if (read_text(SCALE_FACTOR, p->old_scale_factor,
		      sizeof(p->old_scale_factor)) ||
	    write_text(SCALE_FACTOR, WIDE_SCALE_FACTOR) ||
	    read_text(BOOST_FACTOR, p->old_boost_factor,
		      sizeof(p->old_boost_factor)) ||
	    write_text(BOOST_FACTOR, "0") || pipe(fds))
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
		ballast(nodes, full, fds[1]);
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
	if (p->old_boost_factor[0])
		write_text(BOOST_FACTOR, p->old_boost_factor);
}
