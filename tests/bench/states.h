/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault throughput under VMA policies in the states a policy can be in
 * when it is used: no cpuset change since it was made; after a change of
 * the task's own cpuset that leaves the policy's nodes as they are (it
 * grows), or that moves them (to other nodes); after changes of another
 * cpuset only; shared by two threads in two cpusets. Each thread faults
 * regions with 1, 2 or 8 policies in turn, every mode, from one thread
 * and from two.
 */
#ifndef NUMAPOL_STATES_H
#define NUMAPOL_STATES_H

/*
 * Prints a figure per case of @only_threads threads (0: every count);
 * @unrelated cpuset.mems writes make the state after changes of another
 * cpuset. Returns the number of cases that failed.
 */
int bench_fault_states(int reps, int unrelated, int only_threads);

#endif
