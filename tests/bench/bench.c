// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of the memory policy paths the series touches, for make bench
 * (scripts/bench.sh), which boots baseline and patched in turn and compares
 * them. Not part of make test: it asserts nothing about speed, only that
 * every measurement ran.
 *
 * numapol.bench_reps (default 5, at most 32): rounds of the fault cases,
 * each running every case once;
 * numapol.bench_unrelated (default 10): writes to another cpuset's mems
 * before each repetition of the fault cases in that state;
 * numapol.bench_writes (default 21): cpuset.mems writes per update case;
 * numapol.bench_max_tasks (1000) and numapol.bench_max_vmas (100000): the
 * largest sizes of the two sweeps; numapol.bench_updates=0 skips both
 * sweeps (an instruction-counting guest, ICOUNT=1, runs the fault cases
 * alone: its sweeps would take hours); numapol.bench_threads (default 0,
 * every count): only the fault cases with that many threads, so that
 * more boots of them fit in the same time.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest.h"
#include "bench.h"
#include "fault.h"
#include "states.h"
#include "update.h"

void bench_print(const char *figure, const char *unit, double value)
{
	ksft_print_msg("bench %s %s %.6g\n", figure, unit, value);
}

#define MAX_FIGURES	256
#define MAX_REPS	32

static struct recorded {
	char figure[BENCH_FIGURE_LEN];
	double values[MAX_REPS];
	int reps;
	bool failed;
} recorded[MAX_FIGURES];
static int nr_recorded;

int bench_record(const char *figure, double value)
{
	struct recorded *r = recorded;

	if (value < 0)
		ksft_print_msg("bench: a repetition of %s failed\n", figure);
	while (r < recorded + nr_recorded && strcmp(r->figure, figure))
		r++;
	if (r == recorded + MAX_FIGURES) {
		ksft_print_msg("bench: more than %d figures, %s dropped\n",
			       MAX_FIGURES, figure);
		return 1;
	}
	if (r == recorded + nr_recorded) {
		snprintf(r->figure, sizeof(r->figure), "%s", figure);
		nr_recorded++;
	}
	if (value < 0)
		r->failed = true;
	else if (r->reps < MAX_REPS)
		r->values[r->reps++] = value;
	return value < 0;
}

void bench_print_recorded(const char *unit)
{
	for (struct recorded *r = recorded; r < recorded + nr_recorded; r++) {
		if (r->failed)
			ksft_print_msg("bench: %s failed, not printed\n",
				       r->figure);
		else
			bench_print(r->figure, unit,
				    median(r->values, r->reps));
	}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(double *values, size_t n)
{
	qsort(values, n, sizeof(*values), compare_doubles);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int bench_pin_thread(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

int bench_pin_mapper(void)
{
	return bench_pin_thread(0);
}

double maximum(const double *values, size_t n)
{
	double max = values[0];

	for (size_t i = 1; i < n; i++)
		if (values[i] > max)
			max = values[i];
	return max;
}

int main(void)
{
	int reps = cmdline_number("numapol.bench_reps", 5);
	int unrelated = cmdline_number("numapol.bench_unrelated", 10);
	int writes = cmdline_number("numapol.bench_writes", 21);
	int max_tasks = cmdline_number("numapol.bench_max_tasks", 1000);
	int max_vmas = cmdline_number("numapol.bench_max_vmas", 100000);
	bool updates = cmdline_number("numapol.bench_updates", 1);
	int only_threads = cmdline_number("numapol.bench_threads", 0);
	int failed_faults = 0, failed_states = 0;
	nodeset_t memory;

	ksft_print_header();
	if (read_nodeset("/sys/devices/system/node/has_memory", &memory) ||
	    nodeset_weight(memory) < 4)
		ksft_exit_skip("the benchmarks need 4 nodes with memory\n");
	ksft_set_plan(updates ? 4 : 2);
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	bench_faults_warm_up(reps);
	for (int round = 0; round < reps; round++) {
		failed_faults += bench_faults_round(only_threads);
		failed_states += bench_fault_states_round(unrelated,
							  only_threads);
	}
	bench_print_recorded("pages/s");
	ksft_test_result(failed_faults == 0, "fault throughput\n");
	ksft_test_result(failed_states == 0,
			 "fault throughput in five states\n");
	if (!updates)
		ksft_finished();
	ksft_test_result(bench_update_tasks(max_tasks, writes) == 0,
			 "cpuset.mems write against tasks\n");
	ksft_test_result(bench_update_vmas(max_vmas, writes) == 0,
			 "cpuset.mems write against VMAs, slab per policy\n");
	ksft_finished();
}
