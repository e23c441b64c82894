/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sudden demand for memory: a thread that raises vm.min_free_kbytes by
 * SQUEEZE_KB_PER_NODE for every node with memory, holds it there for a
 * while, restores it, waits, and again. Each raise puts the nodes that
 * page cache keeps full far under their new min watermark at once, so
 * every allocation there goes into direct reclaim and stays in the slow
 * path until the raise ends: the window in which e05741fb10c3's endless
 * retry forms, held open by the memory itself for every allocator at the
 * same moment. A cpuset writer waits for each squeeze (squeeze_wait()) and
 * writes inside it: a write that began outside would rebind the tasks it
 * meets first before they are in the slow path, then wait for their
 * faults to end. The nodes without page cache keep far more free memory
 * than the raise, and no allocation there waits.
 */
#ifndef NUMAPOL_STRESS_SQUEEZE_H
#define NUMAPOL_STRESS_SQUEEZE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define SQUEEZE_KB_PER_NODE	(64 << 10)

struct squeeze {
	pthread_t tid;
	bool running;
	atomic_int stop;
	long old_kb;		/* vm.min_free_kbytes before the case */
	long raised_kb;
	atomic_ulong squeezes;	/* raises the allocators have met */
	atomic_int error;	/* errno of a failed write, which ends them */
};

/* Start squeezing; 0, or -1 with errno set. */
int squeeze_start(struct squeeze *s);
/*
 * Wait until the allocators meet a squeeze that begins after the call,
 * or until *@stop; false when stopped first. The squeeze then lasts
 * long enough for one cpuset write to begin inside it.
 */
bool squeeze_wait(struct squeeze *s, atomic_int *stop);
/*
 * Stop, and leave vm.min_free_kbytes as it was; a failed restore is
 * recorded in @error as a failed raise is.
 */
void squeeze_stop(struct squeeze *s);

#endif
