/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost of a cpuset.mems write (cgroup v2, so with migration, as
 * operators run it): its latency against the number of tasks with a task
 * policy and against the number of VMAs with a policy in one process, with
 * and without a process faulting in the cpuset meanwhile, that process's
 * longest wait between two faults, and the slab memory a VMA policy costs.
 */
#ifndef NUMAPOL_UPDATE_H
#define NUMAPOL_UPDATE_H

/* Each returns the number of measurements that failed. */
int bench_update_tasks(int max_tasks, int writes);
int bench_update_vmas(int max_vmas, int writes);

#endif
