/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault throughput: first-touch faults per second on a fresh anonymous
 * region, under no policy and under every mode and node flag, as a task
 * policy and as a VMA policy, from one thread and from two.
 */
#ifndef NUMAPOL_FAULT_H
#define NUMAPOL_FAULT_H

/*
 * Prints a figure per case, of @only_threads threads (0: every count);
 * returns the number of cases that failed.
 */
int bench_faults(int reps, int only_threads);

#endif
