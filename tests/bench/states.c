// SPDX-License-Identifier: GPL-2.0
#include "states.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "bench.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

#define PAGES_PER_THREAD	4096	/* 16 MiB */
#define MAX_THREADS		2
#define MAX_POLICIES		8
#define HOME			(NODE(0) | NODE(1))
/* The task's own cpuset grows: the policies' nodes stay {0,1}. */
#define GROWN			(HOME | NODE(2) | NODE(3))
/* The task's own cpuset moves: BIND and interleave derive {2,3}. */
#define MOVED			(NODE(2) | NODE(3))
/*
 * Two threads of the process, each in a threaded cpuset of its own under
 * GROWN, where the policies are made: they use {0,1} in both.
 */
#define LEFT			(HOME | NODE(2))
#define RIGHT			(HOME | NODE(3))

/*
 * TWO_CPUSETS: the threads share the regions, and fault them in turn,
 * each from its own cpuset.
 */
enum state { MADE, OWN_CHANGE, OWN_MOVE, OTHER_CHANGES, TWO_CPUSETS };

static const char *const state_names[] = {
	[MADE] = "made", [OWN_CHANGE] = "own-change", [OWN_MOVE] = "own-move",
	[OTHER_CHANGES] = "other-changes", [TWO_CPUSETS] = "two-cpusets",
};

struct state_case {
	int mode;
	int policies;
	int threads;
	enum state state;
};

/*
 * One thread's regions, a policy each, faulted in turn. Regions shared by
 * @sharers threads are as many times as large, and each thread takes
 * every @sharers-th page, starting at its @slot.
 */
struct toucher {
	char *regions[MAX_POLICIES];
	int policies;
	int sharers, slot;
	int cpu;			/* the one it runs on */
	bool borrowed;			/* the regions of another toucher */
	const struct cpuset *cpuset;	/* to join first, or NULL */
	struct span ran;
	int err;
	pthread_barrier_t *start;
};

struct states_env {
	struct cpuset home, other;
	struct cpuset domain, left, right;	/* for TWO_CPUSETS */
	pid_t bystander;
	int unrelated;
};

static size_t region_len(const struct toucher *t)
{
	return PAGES_PER_THREAD / t->policies * t->sharers * PAGE_SIZE;
}

static void *touch_in_turn(void *arg)
{
	struct toucher *t = arg;

	/* Joining a cpuset resets the CPUs a thread may run on: pin after. */
	if (t->cpuset)
		t->err = cpuset_attach_thread(t->cpuset, gettid());
	if (!t->err)
		t->err = bench_pin_thread(t->cpu);
	pthread_barrier_wait(t->start);
	t->ran.begin = now_seconds();
	for (size_t i = 0; !t->err && i < PAGES_PER_THREAD; i++) {
		size_t page = i / t->policies * t->sharers + t->slot;

		t->regions[i % t->policies][page * PAGE_SIZE] = 1;
	}
	t->ran.end = now_seconds();
	return NULL;
}

static void unmap_regions(struct toucher *t)
{
	for (int p = 0; !t->borrowed && p < t->policies; p++)
		if (t->regions[p] && t->regions[p] != MAP_FAILED)
			munmap(t->regions[p], region_len(t));
}

/* Separate mappings, so that every region keeps a policy of its own. */
static int map_regions(struct toucher *t, const struct state_case *c)
{
	size_t len;
	nodeset_t nodes = HOME;

	t->policies = c->policies;
	t->sharers = c->state == TWO_CPUSETS ? c->threads : 1;
	len = region_len(t);
	for (int p = 0; p < c->policies; p++) {
		t->regions[p] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->regions[p] == MAP_FAILED ||
		    madvise(t->regions[p], len, MADV_NOHUGEPAGE) ||
		    mbind(t->regions[p], len, c->mode, &nodes, NODESET_BITS, 0))
			return -1;
	}
	return 0;
}

/* Bring the policies, made at home, into the case's state. */
static int enter_state(const struct states_env *env, enum state state)
{
	int err = 0;

	if (state == OWN_CHANGE)
		return cpuset_set_mems(&env->home, GROWN);
	if (state == OWN_MOVE)
		return cpuset_set_mems(&env->home, MOVED);
	for (int i = 0; state == OTHER_CHANGES && !err && i < env->unrelated; i++)
		err = cpuset_set_mems(&env->other, i % 2 ? NODE(2) : NODE(3));
	return err;
}

/* Pages per second of one repetition, or a negative value on error. */
static double state_rate(const struct states_env *env,
			 const struct state_case *c)
{
	struct toucher t[MAX_THREADS] = { 0 };
	pthread_t threads[MAX_THREADS];
	pthread_barrier_t start;
	struct span all = { 0 };
	bool started;
	int err = bench_pin_mapper() ? -1 : 0;

	pthread_barrier_init(&start, NULL, c->threads);
	for (int i = 0; i < c->threads && !err; i++) {
		t[i].start = &start;
		t[i].cpu = i;
		if (c->state != TWO_CPUSETS || i == 0) {
			err = map_regions(&t[i], c);
			continue;
		}
		/* MAX_THREADS is 2: the second borrows the first's. */
		memcpy(t[i].regions, t[0].regions, sizeof(t[i].regions));
		t[i].borrowed = true;
		t[i].policies = t[0].policies;
		t[i].sharers = t[0].sharers;
		t[i].slot = i;
		t[0].cpuset = &env->left;
		t[i].cpuset = &env->right;
	}
	if (!err)
		err = enter_state(env, c->state);
	started = !err;
	for (int i = 0; started && i < c->threads; i++)
		pthread_create(&threads[i], NULL, touch_in_turn, &t[i]);
	for (int i = 0; started && i < c->threads; i++) {
		pthread_join(threads[i], NULL);
		err |= t[i].err;
		span_widen(&all, t[i].ran);
	}
	for (int i = 0; i < c->threads; i++)
		unmap_regions(&t[i]);
	if ((c->state == OWN_CHANGE || c->state == OWN_MOVE) &&
	    cpuset_set_mems(&env->home, HOME))
		err = -1;
	pthread_barrier_destroy(&start);
	return err ? -1 : c->threads * PAGES_PER_THREAD / (all.end - all.begin);
}

/* One repetition of @c, recorded; 1 if it failed, else 0. */
static int run_state_case(const struct states_env *env,
			  const struct state_case *c)
{
	double rate = state_rate(env, c);
	char figure[BENCH_FIGURE_LEN];

	snprintf(figure, sizeof(figure), "fault-state/%s/%dp/%dt/%s",
		 state_names[c->state], c->policies, c->threads,
		 mpol_mode_name(c->mode));
	return bench_record(figure, rate);
}

static const int modes[] = {
	MPOL_BIND, MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED,
	MPOL_PREFERRED_MANY,
};
static const int policy_counts[] = { 1, 2, 8 };

/*
 * This process in a cpuset of its own, a bystander in another, and a
 * threaded domain for TWO_CPUSETS.
 */
static int enter_cpusets(struct states_env *env)
{
	if (cpuset_create(&env->home, CGROUP_V2, "numapol-bench-states", HOME) ||
	    cpuset_attach(&env->home, getpid()) ||
	    cpuset_create(&env->other, CGROUP_V2, "numapol-bench-other",
			  NODE(3)) ||
	    cpuset_create(&env->domain, CGROUP_V2, "numapol-bench-split",
			  GROWN) ||
	    cpuset_create_threaded(&env->left, &env->domain, "left", LEFT) ||
	    cpuset_create_threaded(&env->right, &env->domain, "right", RIGHT))
		return -1;
	env->bystander = cpuset_start_sleeper(&env->other);
	return env->bystander < 0 ? -1 : 0;
}

static void leave_cpusets(struct states_env *env)
{
	if (env->bystander > 0) {
		kill(env->bystander, SIGKILL);
		waitpid(env->bystander, NULL, 0);
	}
	cpuset_remove(&env->left);
	cpuset_remove(&env->right);
	cpuset_remove(&env->domain);
	cpuset_remove(&env->other);
	cpuset_destroy(&env->home);
}

/*
 * A repetition of each case of @state, with the policies made where this
 * process is.
 */
static int run_state(struct states_env *env, enum state state,
		     int only_threads)
{
	int failed = 0;

	for (size_t p = 0; p < sizeof(policy_counts) / sizeof(policy_counts[0]); p++)
		for (int threads = 1; threads <= MAX_THREADS; threads++)
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
				struct state_case c = {
					.mode = modes[m],
					.policies = policy_counts[p],
					.threads = threads, .state = state,
				};

				/* A thread alone is in one cpuset. */
				if ((state == TWO_CPUSETS && threads < 2) ||
				    !bench_runs_threads(only_threads, threads))
					continue;
				failed += run_state_case(env, &c);
			}
	return failed;
}

/* TWO_CPUSETS, last: its policies are made in the threaded domain. */
static int run_two_cpusets(struct states_env *env, int only_threads)
{
	/* Its cases have two threads: no move for nothing. */
	if (!bench_runs_threads(only_threads, 2))
		return 0;
	if (cpuset_attach(&env->domain, getpid())) {
		ksft_print_msg("fault states: cannot join the threaded domain\n");
		return 1;
	}
	return run_state(env, TWO_CPUSETS, only_threads);
}

int bench_fault_states_round(int unrelated, int only_threads)
{
	struct states_env env = { .unrelated = unrelated };
	int failed = 0;

	if (enter_cpusets(&env)) {
		ksft_print_msg("fault states: cannot set up the cpusets\n");
		leave_cpusets(&env);
		return 1;
	}
	for (int s = MADE; s <= OTHER_CHANGES; s++)
		failed += run_state(&env, s, only_threads);
	failed += run_two_cpusets(&env, only_threads);
	leave_cpusets(&env);
	return failed;
}
