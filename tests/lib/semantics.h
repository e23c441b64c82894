/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model of docs/semantics.md: what a memory policy must do
 * after any sequence of cpuset changes, computed from its creation state
 * alone (U, C0, N0) and the task's allowed nodes now (C).
 */
#ifndef NUMAPOL_SEMANTICS_H
#define NUMAPOL_SEMANTICS_H

#include <stdbool.h>

#include "nodes.h"

struct policy_request {
	int mode;		/* MPOL_BIND ... MPOL_WEIGHTED_INTERLEAVE */
	unsigned int flags;	/* 0, MPOL_F_STATIC_NODES or _RELATIVE_NODES */
	nodeset_t user;		/* U: the nodemask the user passed */
	nodeset_t created_in;	/* C0: allowed nodes when it was created */
};

struct policy_expectation {
	nodeset_t reported;	/* get_mempolicy()'s nodemask */
	nodeset_t effective;	/* nodes the policy uses now; 0 when local */
	nodeset_t may_land;	/* nodes a fresh page may land on */
	bool exact;		/* every page must land on may_land's node */
	bool spread;		/* every node of may_land must get pages */
};

/* bitmap_remap(): bits of src at positions in old map onto new. */
nodeset_t nodeset_remap(nodeset_t src, nodeset_t old, nodeset_t new);
/* mpol_relative_nodemask(): user folded over |allowed|, mapped onto it. */
nodeset_t nodeset_relative(nodeset_t user, nodeset_t allowed);

/* N0: the policy's nodes at creation; 0 means set_mempolicy() fails. */
nodeset_t policy_created_nodes(const struct policy_request *req);

/* What the kernel must show once the allowed nodes are @allowed. */
void policy_expect(const struct policy_request *req, nodeset_t allowed,
		   struct policy_expectation *out);

#endif
