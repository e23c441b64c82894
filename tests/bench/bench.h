/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks' shared pieces. Each figure goes out as one line,
 *   # bench FIGURE UNIT VALUE
 * which scripts/bench.sh collects from every boot. A figure is the median
 * of the repetitions within one boot; spreads and ratios across boots are
 * the host's business.
 */
#ifndef NUMAPOL_BENCH_H
#define NUMAPOL_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/nodes.h"

#define PAGE_SIZE	4096UL

void bench_print(const char *figure, const char *unit, double value);
/* Sorts @values in place. */
double median(double *values, size_t n);
double maximum(const double *values, size_t n);

/* numapol.bench_threads: @only_threads, 0 for every count. */
static inline bool bench_runs_threads(int only_threads, int threads)
{
	return !only_threads || threads == only_threads;
}

#endif
