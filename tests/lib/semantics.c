// SPDX-License-Identifier: GPL-2.0
#include "semantics.h"
#include "mpol.h"

/* The n-th set node of s (n counted from 0), or -1. */
static int nth_node(nodeset_t s, int n)
{
	for (int node = 0; node < (int)NODESET_BITS; node++) {
		if (!(s & NODE(node)))
			continue;
		if (n-- == 0)
			return node;
	}
	return -1;
}

/* The position of node among the set nodes of s, or -1. */
static int node_ordinal(nodeset_t s, int node)
{
	if (!(s & NODE(node)))
		return -1;
	return nodeset_weight(s & (NODE(node) - 1));
}

nodeset_t nodeset_remap(nodeset_t src, nodeset_t old, nodeset_t new)
{
	int w = nodeset_weight(new);
	nodeset_t dst = 0;

	for (int node = 0; node < (int)NODESET_BITS; node++) {
		int ord;

		if (!(src & NODE(node)))
			continue;
		ord = node_ordinal(old, node);
		if (ord < 0 || w == 0)
			dst |= NODE(node);
		else
			dst |= NODE(nth_node(new, ord % w));
	}
	return dst;
}

nodeset_t nodeset_relative(nodeset_t user, nodeset_t allowed)
{
	int w = nodeset_weight(allowed);
	nodeset_t folded = 0, dst = 0;

	if (!w)
		return 0;
	for (int node = 0; node < (int)NODESET_BITS; node++)
		if (user & NODE(node))
			folded |= NODE(node % w);
	for (int k = 0; k < w; k++)
		if (folded & NODE(k))
			dst |= NODE(nth_node(allowed, k));
	return dst;
}

static nodeset_t first_only(nodeset_t s)
{
	return s ? NODE(nodeset_first(s)) : 0;
}

nodeset_t policy_created_nodes(const struct policy_request *req)
{
	nodeset_t nodes;

	if (req->flags & MPOL_F_RELATIVE_NODES)
		nodes = nodeset_relative(req->user, req->created_in);
	else
		nodes = req->user & req->created_in;
	return req->mode == MPOL_PREFERRED ? first_only(nodes) : nodes;
}

static bool is_preferred(int mode)
{
	return mode == MPOL_PREFERRED || mode == MPOL_PREFERRED_MANY;
}

/* Rules 1-4 of docs/semantics.md. */
static nodeset_t effective_nodes(const struct policy_request *req,
				 nodeset_t allowed)
{
	nodeset_t nodes;

	if (req->flags & MPOL_F_STATIC_NODES) {
		nodes = req->user & allowed;
		if (!nodes && !is_preferred(req->mode))
			nodes = allowed;
	} else if (req->flags & MPOL_F_RELATIVE_NODES) {
		nodes = nodeset_relative(req->user, allowed);
	} else if (is_preferred(req->mode)) {
		return policy_created_nodes(req);
	} else {
		nodes = nodeset_remap(policy_created_nodes(req),
				      req->created_in, allowed);
		if (!nodes)
			nodes = allowed;
	}
	return req->mode == MPOL_PREFERRED ? first_only(nodes) : nodes;
}

void policy_expect(const struct policy_request *req, nodeset_t allowed,
		   struct policy_expectation *out)
{
	nodeset_t eff = effective_nodes(req, allowed);

	out->effective = eff;
	/* Rule 5: flagged policies report what the user passed. */
	out->reported = req->flags & MPOL_NODE_FLAGS ? req->user : eff;
	out->exact = false;
	out->spread = false;
	switch (req->mode) {
	case MPOL_BIND:
		out->may_land = eff;
		break;
	case MPOL_INTERLEAVE:
	case MPOL_WEIGHTED_INTERLEAVE:
		out->may_land = eff;
		out->spread = true;
		break;
	default:
		/* A preference outside the cpuset yields to it (rule 4). */
		out->may_land = eff & allowed ? eff & allowed : allowed;
		out->exact = req->mode == MPOL_PREFERRED && (eff & allowed);
		break;
	}
}
