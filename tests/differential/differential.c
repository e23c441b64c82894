// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized differential testing of policy semantics: seeded random
 * operation sequences run against the kernel and against the reference
 * model (tests/model), which must agree on every result and every page.
 * A divergence is shrunk to a minimal sequence that still diverges the
 * same way and printed with the seed that reproduces it and both answers.
 *
 * numapol.sem_seqs (default 1000) sequences of numapol.sem_len (20)
 * operations, from numapol.sem_seed (1), starting at sequence
 * numapol.sem_first (0). One KTAP result per batch of BATCH sequences.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "executor.h"
#include "../model/generate.h"

#define BATCH		100
#define MAX_SHOWN	32	/* kinds of divergence printed in full */
#define WHY_LEN		256
#define SIG_LEN		128

struct run {
	struct executor *ex;
	const struct topology *topo;
	char memless[24];	/* " MEMLESS=n" or "" */
	unsigned long seed;
	char signatures[MAX_SHOWN][SIG_LEN];
	int nsignatures;
	unsigned long operations, divergences;
};

/*
 * The kind of a divergence, for telling new ones from repeats: the
 * operation, the policy it concerns (the one a query shows, or the one a
 * call asks for) and what differs.
 */
static void signature(const struct op *op, const struct prediction *want,
		      const char *why, char *sig, size_t len)
{
	int mode = want->query ? want->mode : op->mode | (int)op->flags;

	snprintf(sig, len, "%d %d %.*s", op->kind, mode, (int)strcspn(why, " "),
		 why);
}

/*
 * The first operation where kernel and model disagree, or -1; -2 when the
 * harness failed. @why says what differs, @sig what kind of divergence.
 */
static int first_divergence(struct run *run, const struct op *ops, int n,
			    char *why, char *sig)
{
	struct observation obs[MAX_OPS];
	struct model_state model;
	struct prediction want;

	if (executor_run(run->ex, ops, n, obs, why, WHY_LEN))
		return -2;
	model_init(&model, run->topo);
	for (int i = 0; i < n; i++) {
		model_step(&model, &ops[i], &want);
		if (!model_agrees(&want, &obs[i], why, WHY_LEN)) {
			signature(&ops[i], &want, why, sig, SIG_LEN);
			return i;
		}
	}
	return -1;
}

/*
 * Drop operations one at a time while the sequence still diverges the same
 * way, until none can go: the result is 1-minimal. Returns the new length.
 */
static int shrink(struct run *run, struct op *ops, int at, const char *sig,
		  char *why)
{
	int n = at + 1;
	bool shrunk = true;

	while (shrunk) {
		shrunk = false;
		for (int drop = n - 2; drop >= 0; drop--) {
			char trial_why[WHY_LEN], trial_sig[SIG_LEN];
			struct op trial[MAX_OPS];
			int d;

			memcpy(trial, ops, drop * sizeof(*ops));
			memcpy(trial + drop, ops + drop + 1,
			       (n - drop - 1) * sizeof(*ops));
			d = first_divergence(run, trial, n - 1, trial_why,
					     trial_sig);
			if (d < 0 || strcmp(trial_sig, sig))
				continue;
			memcpy(ops, trial, (d + 1) * sizeof(*ops));
			n = d + 1;
			memcpy(why, trial_why, WHY_LEN);
			shrunk = true;
		}
	}
	return n;
}

static bool seen_before(struct run *run, const char *sig)
{
	for (int i = 0; i < run->nsignatures; i++)
		if (!strcmp(run->signatures[i], sig))
			return true;
	/* Past MAX_SHOWN kinds, only count. */
	if (run->nsignatures == MAX_SHOWN)
		return true;
	snprintf(run->signatures[run->nsignatures++],
		 sizeof(run->signatures[0]), "%s", sig);
	return false;
}

static void report(struct run *run, unsigned long index, struct op *ops,
		   int at, int len, const char *first_why, const char *sig)
{
	char why[WHY_LEN], text[128];
	int n;

	if (seen_before(run, sig))
		return;
	memcpy(why, first_why, WHY_LEN);
	n = shrink(run, ops, at, sig, why);
	ksft_print_msg("divergence in sequence %lu of seed %lu, shrunk from %d to %d operations:\n",
		       index, run->seed, len, n);
	for (int i = 0; i < n; i++)
		ksft_print_msg("  %2d. %s%s%s\n", i + 1,
			       op_format(&ops[i], text, sizeof(text)),
			       i == n - 1 ? " -> kernel: " : "",
			       i == n - 1 ? why : "");
	ksft_print_msg("  reproduce: make fuzz-semantics FLAVOUR=<this kernel> NODES=%d%s SEED=%lu FIRST=%lu SEQS=1\n",
		       run->topo->nr_nodes, run->memless, run->seed, index);
}

/* Run sequences [first, end); returns how many diverged, -1 on error. */
static long run_batch(struct run *run, unsigned long first, unsigned long end,
		      int len)
{
	long diverged = 0;

	for (unsigned long i = first; i < end; i++) {
		char why[WHY_LEN], sig[SIG_LEN];
		struct op ops[MAX_OPS];
		int at;

		generate_sequence(sequence_seed(run->seed, i), run->topo, len,
				  ops);
		at = first_divergence(run, ops, len, why, sig);
		run->operations += len;
		if (at == -2) {
			ksft_print_msg("sequence %lu: %s\n", i, why);
			return -1;
		}
		if (at < 0)
			continue;
		diverged++;
		report(run, i, ops, at, len, why, sig);
	}
	return diverged;
}

int main(void)
{
	unsigned long seqs = cmdline_number("numapol.sem_seqs", 1000);
	unsigned long first = cmdline_number("numapol.sem_first", 0);
	int len = cmdline_number("numapol.sem_len", 20);
	struct run run = { .seed = cmdline_number("numapol.sem_seed", 1) };
	struct topology topo;
	char memory[64];
	double start;

	ksft_print_header();
	if (len < 1 || len > MAX_OPS)
		ksft_exit_fail_msg("numapol.sem_len must be 1 to %d\n", MAX_OPS);
	if (topology_read(&topo))
		ksft_exit_skip("no NUMA topology to read\n");
	if (nodeset_weight(topo.memory) < 2)
		ksft_exit_skip("fewer than 2 nodes with memory\n");
	run.topo = &topo;
	for (int n = 0; n < topo.nr_nodes; n++)
		if (!(topo.memory & NODE(n)))
			snprintf(run.memless, sizeof(run.memless),
				 " MEMLESS=%d", n);
	run.ex = executor_new(&topo);
	if (!run.ex)
		ksft_exit_skip("no cpuset on cgroup v2: %s\n", strerror(errno));
	ksft_print_msg("%d nodes, memory on {%s}, seed %lu, sequences %lu-%lu of %d operations\n",
		       topo.nr_nodes,
		       nodeset_format(topo.memory, memory, sizeof(memory)),
		       run.seed, first, first + seqs - 1, len);
	ksft_set_plan((seqs + BATCH - 1) / BATCH);
	start = now_seconds();
	for (unsigned long b = first; b < first + seqs; b += BATCH) {
		unsigned long end = b + BATCH < first + seqs ? b + BATCH :
				    first + seqs;
		long diverged = run_batch(&run, b, end, len);

		if (diverged > 0)
			run.divergences += diverged;
		ksft_test_result(diverged == 0,
				 "sequences %lu-%lu agree with the model%s\n",
				 b, end - 1, diverged < 0 ? " (harness error)" : "");
	}
	ksft_print_msg("%lu sequences, %lu operations, %lu divergent sequences (%d kinds) in %.1f s\n",
		       seqs, run.operations, run.divergences, run.nsignatures,
		       now_seconds() - start);
	executor_free(run.ex);
	ksft_finished();
}
