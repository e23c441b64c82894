/* SPDX-License-Identifier: GPL-2.0 */
/* Where freshly touched pages land, and whether that is what we expect. */
#ifndef NUMAPOL_PLACEMENT_H
#define NUMAPOL_PLACEMENT_H

#include <stdbool.h>

#include "nodes.h"
#include "semantics.h"

/* Pages touched per observation: enough to spread over 8 nodes. */
#define TOUCH_PAGES 64

/* Write one byte to each of @npages pages at @addr, faulting them in. */
void touch_pages(char *addr, int npages);
/*
 * Touch TOUCH_PAGES pages at @addr (fresh ones, or a fresh mapping when
 * @addr is NULL) and count them per node. Returns 0 or -1.
 */
int touch_and_count(char *addr, int counts[NODESET_BITS]);

/*
 * Write TOUCH_PAGES pages to a new file in @dir with write(): page cache,
 * placed by the task policy; count them per node and remove the file.
 * Returns 0 or -1.
 */
int write_file_and_count(const char *dir, int counts[NODESET_BITS]);

/* Do @counts satisfy @want's may_land, exact and spread? */
bool placement_ok(const struct policy_expectation *want,
		  const int counts[NODESET_BITS]);

/*
 * Run on the CPUs of @node only (pin_to_node(-1) runs on all CPUs again).
 * BIND and PREFERRED_MANY allocate from the policy node nearest to the
 * running CPU, so probing from each node's CPUs reveals every node of the
 * policy that has CPUs, even when get_mempolicy() reports only what the
 * user passed. A node without CPUs cannot be probed from. Returns 0 or -1.
 */
int pin_to_node(int node);

/* Run the calling thread on @cpu only; 0 or -errno. */
int pin_to_cpu(int cpu);

/*
 * Pages touched from a CPU of @node under BIND or PREFERRED_MANY: all on
 * @node when @want may land there, else on nodes it may land on.
 */
bool placement_from_node_ok(const struct policy_expectation *want, int node,
			    const int counts[NODESET_BITS]);

/*
 * Where fresh pages land under a policy of @mode, against @want, once the
 * allowed nodes are @allowed (at most MAX_PROBE_NODES). BIND and
 * PREFERRED_MANY are probed from the CPUs of every allowed node that has
 * some, which shows each of their nodes that has CPUs; when no allowed
 * node has CPUs, once from all CPUs, as the other modes are. Each probe touches the
 * TOUCH_PAGES pages at *@next and advances it by @slice; a NULL *@next
 * probes fresh mappings (a task policy). Returns true when every probe
 * matched; else describes the mismatches in @why.
 */
#define MAX_PROBE_NODES 8
bool probe_placement(int mode, const struct policy_expectation *want,
		     nodeset_t allowed, char **next, long slice,
		     char *why, size_t len);
/* The same for page cache that write() allocates in a file in @dir. */
bool probe_file_placement(int mode, const struct policy_expectation *want,
			  nodeset_t allowed, const char *dir,
			  char *why, size_t len);

/* "n0/n1/.../n(nodes-1)" into buf. */
char *format_counts(const int counts[NODESET_BITS], int nodes, char *buf,
		    size_t len);

#endif
