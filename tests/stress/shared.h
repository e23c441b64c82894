/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State the stress monitor shares with its worker processes, in a
 * MAP_SHARED mapping made before fork(): the writer's sequence, per-thread
 * progress and the first failure anyone saw.
 */
#ifndef NUMAPOL_STRESS_SHARED_H
#define NUMAPOL_STRESS_SHARED_H

#include <stdatomic.h>

#include "../lib/nodes.h"

#define MAX_WORKERS		4
#define THREADS_PER_WORKER	2
#define MAX_THREADS		(MAX_WORKERS * THREADS_PER_WORKER)

struct thread_progress {
	atomic_ulong iterations;
	atomic_ulong pages;
};

struct stress_shared {
	/*
	 * A sequence count: odd while the writer changes cpuset.mems, even
	 * while the cpuset has settled on settled_mems. A worker that sees
	 * the same even value before and after an iteration knows that every
	 * page it allocated must lie in settled_mems.
	 */
	atomic_ulong writer_seq;
	_Atomic nodeset_t settled_mems;
	atomic_ulong cpuset_changes;
	atomic_ulong placement_checks;	/* iterations that saw a settled cpuset */
	atomic_int stop;
	atomic_int failed;
	double started;		/* now_seconds() when the case started */
	double failed_at;	/* seconds after started */
	char failure[256];
	struct thread_progress threads[MAX_THREADS];
};

/* Sleep @seconds, or until *@stop is set. */
void sleep_unless_stopped(atomic_int *stop, double seconds);

/* Record a failure; the first one wins, later ones are dropped. */
void stress_fail(struct stress_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
