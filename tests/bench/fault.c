// SPDX-License-Identifier: GPL-2.0
#include "fault.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest.h"
#include "bench.h"
#include "../lib/mpol.h"

#define PAGES_PER_THREAD	4096	/* 16 MiB */
#define MAX_THREADS		2
#define NO_POLICY		(-1)
/* The policies' nodes: {0,1}, as absolute or relative nodes. */
#define POLICY_NODES		(NODE(0) | NODE(1))

struct fault_case {
	int mode;		/* NO_POLICY: none at all */
	unsigned int flags;
	bool vma;		/* mbind() the region, else set_mempolicy() */
	int threads;
};

struct toucher {
	const struct fault_case *c;
	char *region;
	struct span ran;
	int cpu;		/* the one it runs on */
	int err;
	pthread_barrier_t *start;
};

static void *touch_region(void *arg)
{
	struct toucher *t = arg;
	nodeset_t nodes = POLICY_NODES;

	t->err = bench_pin_thread(t->cpu);
	/* A task policy is per thread: each sets its own. */
	if (t->c->mode != NO_POLICY && !t->c->vma &&
	    set_mempolicy(t->c->mode | t->c->flags,
			  t->c->mode == MPOL_LOCAL ? NULL : &nodes,
			  NODESET_BITS))
		t->err = errno;
	pthread_barrier_wait(t->start);
	t->ran.begin = now_seconds();
	for (size_t i = 0; i < PAGES_PER_THREAD; i++)
		t->region[i * PAGE_SIZE] = 1;
	t->ran.end = now_seconds();
	return NULL;
}

static char *map_region(const struct fault_case *c)
{
	size_t len = PAGES_PER_THREAD * PAGE_SIZE;
	nodeset_t nodes = POLICY_NODES;
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED)
		return NULL;
	/* Small pages only: one fault per page, on both kernels. */
	madvise(region, len, MADV_NOHUGEPAGE);
	if (c->mode != NO_POLICY && c->vma &&
	    mbind(region, len, c->mode | c->flags,
		  c->mode == MPOL_LOCAL ? NULL : &nodes, NODESET_BITS, 0)) {
		munmap(region, len);
		return NULL;
	}
	return region;
}

/* Pages per second of one repetition, or a negative value on error. */
static double fault_rate(const struct fault_case *c)
{
	struct toucher t[MAX_THREADS];
	pthread_t threads[MAX_THREADS];
	pthread_barrier_t start;
	struct span all = { 0 };
	int err = bench_pin_mapper() ? -1 : 0;

	pthread_barrier_init(&start, NULL, c->threads);
	for (int i = 0; i < c->threads; i++) {
		t[i] = (struct toucher){ .c = c, .cpu = i, .start = &start };
		t[i].region = map_region(c);
		if (!t[i].region)
			err = -1;
	}
	for (int i = 0; !err && i < c->threads; i++)
		pthread_create(&threads[i], NULL, touch_region, &t[i]);
	for (int i = 0; !err && i < c->threads; i++) {
		pthread_join(threads[i], NULL);
		if (t[i].err)
			err = -1;
		span_widen(&all, t[i].ran);
	}
	for (int i = 0; i < c->threads; i++)
		if (t[i].region)
			munmap(t[i].region, PAGES_PER_THREAD * PAGE_SIZE);
	pthread_barrier_destroy(&start);
	return err ? -1 : c->threads * PAGES_PER_THREAD / (all.end - all.begin);
}

static const int modes[] = {
	MPOL_BIND, MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED,
	MPOL_PREFERRED_MANY,
};
static const unsigned int node_flags[] = {
	0, MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES,
};

/* One repetition of @c, recorded; 1 if it failed, else 0. */
static int run_case(const struct fault_case *c)
{
	double rate = fault_rate(c);
	char figure[BENCH_FIGURE_LEN];

	snprintf(figure, sizeof(figure), "fault/%s/%dt/%s/%s",
		 c->vma ? "vma" : "task", c->threads,
		 c->mode == NO_POLICY ? "none" : mpol_mode_name(c->mode),
		 mpol_flags_name(c->flags));
	return bench_record(figure, rate);
}

void bench_faults_warm_up(int reps)
{
	struct fault_case warm_up = { .mode = NO_POLICY, .threads = MAX_THREADS };

	for (int r = 0; r < reps; r++)
		fault_rate(&warm_up);
}

int bench_faults_round(int only_threads)
{
	int failed = 0;

	for (int threads = 1; threads <= MAX_THREADS; threads++) {
		if (!bench_runs_threads(only_threads, threads))
			continue;
		for (int vma = 0; vma <= 1; vma++) {
			struct fault_case c = { .vma = vma, .threads = threads };

			c.mode = NO_POLICY;
			failed += run_case(&c);
			c.mode = MPOL_LOCAL;
			failed += run_case(&c);
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
				for (int f = 0; f < 3; f++) {
					c.mode = modes[m];
					c.flags = node_flags[f];
					failed += run_case(&c);
				}
			}
		}
	}
	return failed;
}
