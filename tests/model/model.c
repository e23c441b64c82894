// SPDX-License-Identifier: GPL-2.0
#include "model.h"

#include <errno.h>
#include <stdio.h>

#include "../lib/mpol.h"

#define ALL_NODES	(~0UL)

static const struct model_policy no_policy = {
	.req = { .mode = MPOL_DEFAULT }, .home = NO_HOME,
};

void model_init(struct model_state *s, const struct topology *topo)
{
	s->topo = topo;
	s->allowed = topo->memory;
	s->task = no_policy;
	for (int i = 0; i < MODEL_PAGES; i++)
		s->page[i] = no_policy;
}

static bool has_nodes(int mode)
{
	return mode != MPOL_DEFAULT && mode != MPOL_LOCAL;
}

/*
 * mpol_new() and mpol_set_nodemask(): the policy @op asks for, created in
 * the current cpuset, or an errno. Only the inputs the generator produces
 * are modelled; badinput covers the others.
 */
static int policy_new(const struct model_state *s, const struct op *op,
		      struct model_policy *pol)
{
	*pol = no_policy;
	pol->req.mode = op->mode;
	pol->req.flags = op->flags;
	pol->req.user = op->user;
	pol->req.created_in = s->allowed;
	if (!has_nodes(op->mode))
		return op->user || op->flags ? EINVAL : 0;
	return policy_created_nodes(&pol->req) ? 0 : EINVAL;
}

static const struct model_policy *policy_of_page(const struct model_state *s,
						 int page)
{
	const struct model_policy *pol = &s->page[page];

	return pol->req.mode == MPOL_DEFAULT ? &s->task : pol;
}

/* The target'th node of @nodes, counting each node weight times. */
static int interleave_node(const struct topology *topo, nodeset_t nodes,
			   unsigned long page_number, bool weighted)
{
	unsigned long total = 0, target;

	for (int n = 0; n < topo->nr_nodes; n++)
		if (nodes & NODE(n))
			total += weighted ? topo->weight[n] : 1;
	target = page_number % total;
	for (int n = 0; n < topo->nr_nodes; n++) {
		unsigned long w = weighted ? topo->weight[n] : 1;

		if (!(nodes & NODE(n)))
			continue;
		if (target < w)
			return n;
		target -= w;
	}
	return -1;
}

/*
 * __alloc_pages(nid, mask) inside the cpuset: @nid when it may be used,
 * else the only usable node, else one the fallback order picks.
 */
static void allocate_at(const struct model_state *s, int nid, nodeset_t mask,
			nodeset_t *may_land, int *exact)
{
	nodeset_t usable = mask & s->allowed & s->topo->memory;

	if (!usable)
		usable = s->allowed;
	*may_land = usable;
	if (nid >= 0 && (usable & NODE(nid)))
		*exact = nid;
	else if (nodeset_weight(usable) == 1)
		*exact = nodeset_first(usable);
	else
		*exact = -1;
}

void model_page(const struct model_state *s, const struct model_policy *pol,
		unsigned long page_number, nodeset_t *may_land, int *exact)
{
	const struct topology *topo = s->topo;
	int local = topo->local_node;
	int home = pol->home != NO_HOME ? pol->home : local;
	struct policy_expectation e;
	nodeset_t eff;

	if (!has_nodes(pol->req.mode)) {
		allocate_at(s, local, ALL_NODES, may_land, exact);
		return;
	}
	policy_expect(&pol->req, s->allowed, &e);
	eff = e.effective;
	switch (pol->req.mode) {
	case MPOL_PREFERRED:
		/* No preferred node left (rule 1): allocate locally. */
		allocate_at(s, eff ? nodeset_first(eff) : local, ALL_NODES,
			    may_land, exact);
		break;
	case MPOL_INTERLEAVE:
	case MPOL_WEIGHTED_INTERLEAVE:
		allocate_at(s, interleave_node(topo, eff, page_number,
				pol->req.mode == MPOL_WEIGHTED_INTERLEAVE),
			    ALL_NODES, may_land, exact);
		break;
	default:	/* BIND, PREFERRED_MANY: the mask if the cpuset allows */
		allocate_at(s, home, eff & s->allowed ? eff : ALL_NODES,
			    may_land, exact);
		break;
	}
}

static void predict_query(const struct model_state *s,
			  const struct model_policy *shown,
			  const struct model_policy *const *touched,
			  unsigned long first_page, int npages,
			  struct prediction *out)
{
	struct policy_expectation e;

	out->query = true;
	out->mode = shown->req.mode | shown->req.flags;
	out->reported = 0;
	if (has_nodes(shown->req.mode)) {
		policy_expect(&shown->req, s->allowed, &e);
		out->reported = e.reported;
	}
	out->npages = npages;
	for (int i = 0; i < npages; i++)
		model_page(s, touched[i], first_page + i, &out->may_land[i],
			   &out->exact[i]);
}

/*
 * set_mempolicy_home_node(): VMA by VMA, skipping those without a policy,
 * stopping at the first refusal; ENOENT when no VMA had a policy.
 */
static int set_home(struct model_state *s, const struct op *op)
{
	int err = ENOENT;

	for (int i = op->first; i < op->first + op->npages; i++) {
		struct model_policy *pol = &s->page[i];

		if (pol->req.mode == MPOL_DEFAULT)
			continue;
		if (pol->req.mode != MPOL_BIND &&
		    pol->req.mode != MPOL_PREFERRED_MANY)
			return EOPNOTSUPP;
		pol->home = op->home;
		err = 0;
	}
	return err;
}

void model_step(struct model_state *s, const struct op *op,
		struct prediction *out)
{
	const struct model_policy *touched[QUERY_PAGES];
	struct model_policy pol;
	int npages;

	out->error = 0;
	out->query = false;
	switch (op->kind) {
	case OP_CPUSET:
		s->allowed = op->mems;
		break;
	case OP_SET_TASK:
		out->error = policy_new(s, op, &pol);
		if (!out->error)
			s->task = pol;
		break;
	case OP_MBIND:
		out->error = policy_new(s, op, &pol);
		for (int i = 0; !out->error && i < op->npages; i++)
			s->page[op->first + i] = pol;
		break;
	case OP_HOME_NODE:
		out->error = set_home(s, op);
		break;
	case OP_FORK:
		break;
	case OP_QUERY_TASK:
		for (int i = 0; i < QUERY_PAGES; i++)
			touched[i] = &s->task;
		predict_query(s, &s->task, touched, s->topo->task_region,
			      QUERY_PAGES, out);
		break;
	case OP_QUERY_VMA:
		npages = MODEL_PAGES - op->first;
		if (npages > QUERY_PAGES)
			npages = QUERY_PAGES;
		for (int i = 0; i < npages; i++)
			touched[i] = policy_of_page(s, op->first + i);
		predict_query(s, &s->page[op->first], touched,
			      s->topo->vma_region + op->first, npages, out);
		break;
	default:
		break;
	}
}

bool model_agrees(const struct prediction *want, const struct observation *got,
		  char *why, size_t len)
{
	char a[64], b[64];

	if (want->error != got->error) {
		snprintf(why, len, "errno %d, model %d", got->error,
			 want->error);
		return false;
	}
	if (!want->query)
		return true;
	if (want->mode != got->mode) {
		snprintf(why, len, "mode %s|%s, model %s|%s",
			 mpol_mode_name(got->mode & ~MPOL_NODE_FLAGS),
			 mpol_flags_name(got->mode),
			 mpol_mode_name(want->mode & ~MPOL_NODE_FLAGS),
			 mpol_flags_name(want->mode));
		return false;
	}
	if (want->reported != got->reported) {
		snprintf(why, len, "nodemask {%s}, model {%s}",
			 nodeset_format(got->reported, a, sizeof(a)),
			 nodeset_format(want->reported, b, sizeof(b)));
		return false;
	}
	for (int i = 0; i < want->npages; i++) {
		int node = got->node[i];
		bool ok = want->exact[i] >= 0 ? node == want->exact[i] :
			  node >= 0 && (want->may_land[i] & NODE(node));

		if (ok)
			continue;
		if (want->exact[i] >= 0)
			snprintf(why, len, "page %d on node %d, model node %d",
				 i, node, want->exact[i]);
		else
			snprintf(why, len, "page %d on node %d, model {%s}",
				 i, node, nodeset_format(want->may_land[i], a,
							 sizeof(a)));
		return false;
	}
	return true;
}

static char *policy_format(const struct op *op, char *buf, size_t len)
{
	char nodes[64];

	snprintf(buf, len, "%s%s%s {%s}", mpol_mode_name(op->mode),
		 op->flags ? "|" : "", op->flags ? mpol_flags_name(op->flags) : "",
		 nodeset_format(op->user, nodes, sizeof(nodes)));
	return buf;
}

char *op_format(const struct op *op, char *buf, size_t len)
{
	char nodes[64], pol[96];

	switch (op->kind) {
	case OP_CPUSET:
		snprintf(buf, len, "cpuset.mems {%s}",
			 nodeset_format(op->mems, nodes, sizeof(nodes)));
		break;
	case OP_SET_TASK:
		snprintf(buf, len, "set_mempolicy %s",
			 policy_format(op, pol, sizeof(pol)));
		break;
	case OP_MBIND:
		snprintf(buf, len, "mbind pages %d-%d %s", op->first,
			 op->first + op->npages - 1,
			 policy_format(op, pol, sizeof(pol)));
		break;
	case OP_HOME_NODE:
		snprintf(buf, len, "set_mempolicy_home_node pages %d-%d node %d",
			 op->first, op->first + op->npages - 1, op->home);
		break;
	case OP_FORK:
		snprintf(buf, len, "fork, the child goes on");
		break;
	case OP_QUERY_TASK:
		snprintf(buf, len, "query the task policy");
		break;
	case OP_QUERY_VMA:
		snprintf(buf, len, "query page %d", op->first);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}
