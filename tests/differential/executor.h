/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs an operation sequence against the kernel: in a fresh process (the
 * subject) inside a cpuset reset to every memory node, with the model's
 * two regions mapped at their page numbers, pinned to a CPU of the local
 * node. It records what each operation returned and observed.
 */
#ifndef NUMAPOL_EXECUTOR_H
#define NUMAPOL_EXECUTOR_H

#include "../lib/cpuset.h"
#include "../model/model.h"

struct executor;

/* Read the guest's topology; returns 0 or -errno. */
int topology_read(struct topology *topo);

/* Returns NULL with errno set when the cpuset cannot be made. */
struct executor *executor_new(const struct topology *topo);
void executor_free(struct executor *ex);

/*
 * Run ops[0 .. n) and fill obs[0 .. n). Returns 0, or -1 when the harness
 * itself failed, with the reason in @why.
 */
int executor_run(struct executor *ex, const struct op *ops, int n,
		 struct observation *obs, char *why, size_t len);

#endif
