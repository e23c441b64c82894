/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One stress worker process: it joins the cpuset, then each of its threads
 * allocates, fills, checks and frees memory in a loop under a memory
 * policy, cycling through the modes and node flags it was given.
 */
#ifndef NUMAPOL_STRESS_WORKLOAD_H
#define NUMAPOL_STRESS_WORKLOAD_H

#include <stdbool.h>

#include "../lib/cpuset.h"
#include "shared.h"

enum policy_kind {
	TASK_POLICY,	/* set_mempolicy() on the allocating thread */
	VMA_POLICY,	/* mbind() on a private mapping */
	SHARED_POLICY,	/* mbind() on a shared tmpfs mapping */
};

enum memory_kind {
	ANON,		/* private anonymous pages */
	THP,		/* private anonymous, MADV_HUGEPAGE */
	TMPFS,		/* a memfd (shmem), mapped shared */
	PAGECACHE,	/* write() to a ramfs file: page cache, no mapping */
};

/* Where PAGECACHE workers keep their files; the monitor mounts ramfs. */
#define RAMFS_DIR "/tmp/stress-ramfs"

struct workload {
	enum policy_kind policy;
	enum memory_kind memory;
	unsigned int modes;	/* bit MPOL_x set: use mode MPOL_x */
	nodeset_t user;		/* the nodemask passed to every policy */
	/*
	 * Only MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES: a @user that
	 * the cpuset can leave entirely is no valid nodemask without them.
	 */
	bool node_flags_only;
	int threads;		/* allocating threads, 1 .. THREADS_PER_WORKER */
	bool churn;		/* one more thread that keeps changing policies */
	const struct cpuset *cs;
	struct stress_shared *sh;
};

/* Run worker @index in this (forked) process; returns its exit status. */
int workload_run(const struct workload *w, int index);

#endif
