// SPDX-License-Identifier: GPL-2.0
#include "generate.h"

#include "../lib/mpol.h"

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int pick(uint64_t *state, unsigned int n)
{
	return next_random(state) % n;
}

uint64_t sequence_seed(uint64_t seed, unsigned long index)
{
	uint64_t state = seed ^ (index * 0xd1342543de82ef95ULL);

	return next_random(&state);
}

/* A non-empty subset of @from, small ones more often than not. */
static nodeset_t random_subset(uint64_t *state, nodeset_t from)
{
	nodeset_t s = 0;

	while (!s) {
		unsigned int keep = 2 + pick(state, 4);	/* 1/2 .. 4/5 */

		for (int n = 0; n < (int)NODESET_BITS; n++)
			if ((from & NODE(n)) && pick(state, keep + 1) == 0)
				s |= NODE(n);
		if (pick(state, 4) == 0)
			s = from;
	}
	return s;
}

static const int modes[] = {
	MPOL_BIND, MPOL_BIND, MPOL_INTERLEAVE, MPOL_INTERLEAVE,
	MPOL_PREFERRED, MPOL_PREFERRED, MPOL_PREFERRED_MANY,
	MPOL_PREFERRED_MANY, MPOL_WEIGHTED_INTERLEAVE, MPOL_LOCAL,
	MPOL_DEFAULT,
};

static const unsigned int node_flags[] = {
	0, MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES,
};

/*
 * Mostly a nodemask that meets the cpuset, so that the policy is created
 * and lives through the cpuset changes that follow; sometimes any nodes.
 */
static void random_policy(uint64_t *state, const struct topology *topo,
			  nodeset_t allowed, struct op *op)
{
	nodeset_t any = NODE(topo->nr_nodes) - 1;

	op->mode = modes[pick(state, sizeof(modes) / sizeof(modes[0]))];
	op->flags = 0;
	op->user = 0;
	if (op->mode == MPOL_DEFAULT || op->mode == MPOL_LOCAL)
		return;
	op->flags = node_flags[pick(state, 3)];
	op->user = random_subset(state, pick(state, 3) ? allowed : any);
	if (pick(state, 2))
		op->user |= random_subset(state, any);
}

static void random_range(uint64_t *state, struct op *op)
{
	op->first = pick(state, MODEL_PAGES);
	op->npages = 1 + pick(state, MODEL_PAGES - op->first);
}

/* Operation kinds, each listed as often as it should come up. */
static const enum op_kind kinds[] = {
	OP_CPUSET, OP_CPUSET, OP_CPUSET, OP_CPUSET, OP_CPUSET,
	OP_SET_TASK, OP_SET_TASK, OP_MBIND, OP_MBIND, OP_MBIND,
	OP_HOME_NODE, OP_FORK,
	OP_QUERY_TASK, OP_QUERY_TASK, OP_QUERY_TASK,
	OP_QUERY_VMA, OP_QUERY_VMA, OP_QUERY_VMA, OP_QUERY_VMA,
};

void generate_sequence(uint64_t seed, const struct topology *topo, int len,
		       struct op *ops)
{
	/* Cpusets come back often: that is where lossy rebinds show. */
	nodeset_t seen[MAX_OPS + 1] = { topo->memory };
	nodeset_t allowed = topo->memory;
	int nseen = 1, bound = 0;
	uint64_t state = seed;

	for (int i = 0; i < len && i < MAX_OPS; i++) {
		struct op *op = &ops[i];

		*op = (struct op){ .home = NO_HOME };
		op->kind = kinds[pick(&state, sizeof(kinds) / sizeof(kinds[0]))];
		switch (op->kind) {
		case OP_CPUSET:
			op->mems = pick(&state, 3) == 0 ?
				   seen[pick(&state, nseen)] :
				   random_subset(&state, topo->memory);
			seen[nseen++] = op->mems;
			allowed = op->mems;
			break;
		case OP_SET_TASK:
			random_policy(&state, topo, allowed, op);
			break;
		case OP_MBIND:
			random_policy(&state, topo, allowed, op);
			random_range(&state, op);
			bound = op->first;
			break;
		case OP_HOME_NODE:
			random_range(&state, op);
			op->home = pick(&state, topo->nr_nodes);
			break;
		case OP_QUERY_VMA:
			/* Half of the time where the last mbind() began. */
			op->first = pick(&state, 2) ? bound :
				    (int)pick(&state, MODEL_PAGES);
			break;
		default:
			break;
		}
	}
}
