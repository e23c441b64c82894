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
 * One round: records a repetition of every case of @only_threads threads
 * (0: every count); @unrelated cpuset.mems writes make the state after
 * changes of another cpuset. The round makes its cpusets and removes them,
 * so that the fault cases of bench_faults_round() run with none. Returns
 * the number of cases that failed.
 */
int bench_fault_states_round(int unrelated, int only_threads);

#endif
