/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A child cpuset under cgroup v2 (/sys/fs/cgroup) or under a cgroup v1
 * cpuset hierarchy mounted on demand. The cpuset controller can sit on one
 * hierarchy at a time: a v1 user needs v2 to have released it, which
 * cpuset_destroy() does.
 */
#ifndef NUMAPOL_CPUSET_H
#define NUMAPOL_CPUSET_H

#include <sys/types.h>

#include "nodes.h"

enum cgroup_version { CGROUP_V1 = 1, CGROUP_V2 = 2 };

struct cpuset {
	enum cgroup_version version;
	char dir[256];
};

/* Create @name with all CPUs and @mems; returns 0 or -errno. */
int cpuset_create(struct cpuset *cs, enum cgroup_version version,
		  const char *name, nodeset_t mems);
/*
 * Create @name under @domain, for single threads to join: under cgroup v2
 * a threaded cgroup, which makes @domain a threaded domain; under v1,
 * where threads join cpusets one by one anyway, a plain child.
 */
int cpuset_create_threaded(struct cpuset *cs, const struct cpuset *domain,
			   const char *name, nodeset_t mems);
int cpuset_set_mems(const struct cpuset *cs, nodeset_t mems);
/* Set cpuset.cpus to the CPU list @cpus ("2", "0-1"); 0 or -errno. */
int cpuset_set_cpus(const struct cpuset *cs, const char *cpus);
int cpuset_attach(const struct cpuset *cs, pid_t pid);
/*
 * A process that sleeps in @cs, for cpuset changes that concern no test
 * task: busybox's sleep, moved in once it has exec'd, so that a change
 * has few pages of it to migrate. Returns its pid, or -1.
 */
pid_t cpuset_start_sleeper(const struct cpuset *cs);
/* Move the thread @tid alone: v2's cgroup.threads, v1's tasks. */
int cpuset_attach_thread(const struct cpuset *cs, pid_t tid);
/*
 * Make cpuset.mems changes move the tasks' pages: v1's
 * cpuset.memory_migrate (v2 always does). Returns 0 or -errno.
 */
int cpuset_migrate_on_change(const struct cpuset *cs);
/* Move every task back to the root, remove the cpuset. */
int cpuset_remove(const struct cpuset *cs);
/* cpuset_remove() a top cpuset, and release the controller. */
int cpuset_destroy(const struct cpuset *cs);

#endif
