/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model of docs/semantics.md for whole operation sequences:
 * a task with a task policy and a region of pages with VMA policies, in a
 * cpuset whose mems change, that forks and queries. The model predicts the
 * result of every operation: the errno, what get_mempolicy() reports, and
 * for each fresh page a query touches the node it must land on, or the set
 * of nodes it may land on where the allocator's fallback order decides.
 *
 * It is plain C with no system calls: the host unit tests in unit/ run it
 * with gcc, and the differential suite runs it next to the kernel.
 */
#ifndef NUMAPOL_MODEL_H
#define NUMAPOL_MODEL_H

#include <stdbool.h>

#include "../lib/semantics.h"

#define MODEL_PAGES	16	/* pages of the region with VMA policies */
#define QUERY_PAGES	4	/* fresh pages one query touches */
#define MAX_OPS		64
#define NO_HOME		(-1)

enum op_kind {
	OP_CPUSET,	/* write .mems to cpuset.mems */
	OP_SET_TASK,	/* set_mempolicy(.mode | .flags, .user) */
	OP_MBIND,	/* mbind(pages .first .. + .npages, .mode | .flags, .user) */
	OP_HOME_NODE,	/* set_mempolicy_home_node(pages, .home) */
	OP_FORK,	/* the rest of the sequence runs in a child */
	OP_QUERY_TASK,	/* get_mempolicy(), then touch QUERY_PAGES of the
			 * region without VMA policy */
	OP_QUERY_VMA,	/* get_mempolicy(MPOL_F_ADDR) at page .first, then
			 * touch QUERY_PAGES from .first on */
	NR_OPS
};

struct op {
	enum op_kind kind;
	int mode;
	unsigned int flags;
	nodeset_t user;
	nodeset_t mems;
	int first, npages;
	int home;
};

/* The most nodes the model knows: the guests have up to 16. */
#define MODEL_MAX_NODES 16

struct topology {
	int nr_nodes;
	nodeset_t memory;		/* nodes with memory */
	int local_node;			/* the node of the CPU the task runs on */
	unsigned int weight[MODEL_MAX_NODES];	/* weighted interleave, 1 by default */
	/*
	 * Page numbers (address >> PAGE_SHIFT) of the two regions: the
	 * interleave index of an anonymous page is its page number.
	 */
	unsigned long vma_region, task_region;
};

/* A policy as the model keeps it; mode MPOL_DEFAULT means none. */
struct model_policy {
	struct policy_request req;
	int home;
};

struct model_state {
	const struct topology *topo;
	nodeset_t allowed;
	struct model_policy task;
	struct model_policy page[MODEL_PAGES];
};

/* What the kernel must answer to one operation. */
struct prediction {
	int error;			/* the errno, 0 for success */
	bool query;			/* the fields below apply */
	int mode;			/* mode | node flags */
	nodeset_t reported;
	int npages;
	nodeset_t may_land[QUERY_PAGES];
	int exact[QUERY_PAGES];		/* the node, or -1 */
};

/* What the kernel did answer. */
struct observation {
	int error;
	int mode;
	nodeset_t reported;
	int npages;
	int node[QUERY_PAGES];		/* negative: an errno of move_pages */
};

/* The state of a task that starts in a cpuset of every memory node. */
void model_init(struct model_state *s, const struct topology *topo);
/* Predict @op's result and apply it to @s. */
void model_step(struct model_state *s, const struct op *op,
		struct prediction *out);

/* Where does the page at page index @page of a query land? */
void model_page(const struct model_state *s, const struct model_policy *pol,
		unsigned long page_number, nodeset_t *may_land, int *exact);

/*
 * Compare; on a mismatch write what differs to @why and return false.
 * Pages must land exactly where predicted, or inside may_land.
 */
bool model_agrees(const struct prediction *want, const struct observation *got,
		  char *why, size_t len);

/* The operation as one line, e.g. "mbind 3+4 BIND|STATIC {0,2}". */
char *op_format(const struct op *op, char *buf, size_t len);

#endif
