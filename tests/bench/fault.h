/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault throughput: first-touch faults per second on a fresh anonymous
 * region, under no policy and under every mode and node flag, as a task
 * policy and as a VMA policy, from one thread and from two.
 */
#ifndef NUMAPOL_FAULT_H
#define NUMAPOL_FAULT_H

/*
 * Faults under no policy @reps times, untimed: the first faults after boot
 * run slower (the emulator translates the fault path once, the buddy
 * lists are fresh).
 */
void bench_faults_warm_up(int reps);
/*
 * One round: records a repetition of every case of @only_threads threads
 * (0: every count); returns the number of cases that failed.
 */
int bench_faults_round(int only_threads);

#endif
