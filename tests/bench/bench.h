/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks' shared pieces. Each figure goes out as one line,
 *   # bench FIGURE UNIT VALUE
 * which scripts/bench.sh collects from every boot. A figure is the median
 * of the repetitions within one boot; spreads and ratios across boots are
 * the host's business.
 *
 * The fault figures are measured in rounds, each round running every case
 * once: under -icount a boot runs in phases of two speeds (docs/bench.md,
 * "Two speeds"). Repetitions spread over the boot meet both; back to back,
 * each figure's would share the speed of the phase it fell in.
 */
#ifndef NUMAPOL_BENCH_H
#define NUMAPOL_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/nodes.h"

#define PAGE_SIZE	4096UL
#define BENCH_FIGURE_LEN	96	/* "fault-state/own-change/8p/2t/..." */

void bench_print(const char *figure, const char *unit, double value);
/*
 * Keeps one repetition's @value of @figure, to print with the rest; a
 * negative @value is a repetition that failed, and the figure is then not
 * printed at all. Returns 1 for a failed repetition, else 0.
 */
int bench_record(const char *figure, double value);
/*
 * Prints the median of every recorded figure that has no failed
 * repetition, in the order first recorded, each in @unit.
 */
void bench_print_recorded(const char *unit);
/* Sorts @values in place. */
double median(double *values, size_t n);
double maximum(const double *values, size_t n);

/*
 * Pins the calling thread to CPU @cpu (one per node on the bench's
 * topology): a thread the scheduler moves between nodes walks other
 * zonelists, and the figures of a boot would depend on where it ran.
 * Returns 0 or an errno.
 */
int bench_pin_thread(int cpu);

/*
 * Pins the calling thread, which maps and unmaps a repetition's regions,
 * to the first toucher's CPU, so that the pages it frees go back to the
 * per-CPU lists that CPU allocates from. Left to the scheduler, the thread
 * stays on one CPU for the whole boot, picked anew in each boot; in boots
 * where that was another CPU, the toucher took every page from the buddy
 * allocator instead, and all figures of the boot came out about 1.8%
 * lower under -icount. Returns 0 or an errno.
 */
int bench_pin_mapper(void);

/*
 * When the threads of a repetition ran: from the first one's start to the
 * last one's end. Each thread's own time would leave out the stretch in
 * which one ran before the other started, and under -icount, where the
 * vCPUs take turns and each thread's clock counts the other's
 * instructions too, that stretch varies from one repetition to the next.
 */
struct span {
	double begin, end;
};

/* Widens @all to take in @one; @all starts as { 0, 0 }. */
static inline void span_widen(struct span *all, struct span one)
{
	if (all->end == 0 || one.begin < all->begin)
		all->begin = one.begin;
	if (one.end > all->end)
		all->end = one.end;
}

/* numapol.bench_threads: @only_threads, 0 for every count. */
static inline bool bench_runs_threads(int only_threads, int threads)
{
	return !only_threads || threads == only_threads;
}

#endif
