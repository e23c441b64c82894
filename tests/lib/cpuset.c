// SPDX-License-Identifier: GPL-2.0
#include "cpuset.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define V2_ROOT	"/sys/fs/cgroup"
#define V1_ROOT	"/tmp/cpuset-v1"

static const char *root_of(enum cgroup_version version)
{
	return version == CGROUP_V1 ? V1_ROOT : V2_ROOT;
}

static int knob_write(const char *dir, const char *knob, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, knob);
	return write_text(path, text);
}

/*
 * The cpuset controller moves between the v1 and v2 hierarchies only once
 * the cgroups that used it on the other one are gone, which the kernel
 * finishes asynchronously after rmdir() and umount(): until then, mounting
 * v1 fails with EBUSY and enabling it on v2 with ENOENT. Retry for a while.
 */
static int retry_while_moving(int (*attempt)(void), int transient)
{
	int err = attempt();

	for (int tries = 0; err == -transient && tries < 500; tries++) {
		usleep(10 * 1000);
		err = attempt();
	}
	return err;
}

static int v1_mount_once(void)
{
	return mount("cpuset", V1_ROOT, "cgroup", 0, "cpuset") ? -errno : 0;
}

static int v2_enable_once(void)
{
	return knob_write(V2_ROOT, "cgroup.subtree_control", "+cpuset");
}

static int v1_mount(void)
{
	struct stat st;

	if (stat(V1_ROOT "/cpuset.mems", &st) == 0)
		return 0;
	if (mkdir(V1_ROOT, 0755) && errno != EEXIST)
		return -errno;
	return retry_while_moving(v1_mount_once, EBUSY);
}

/* All CPUs and @mems: v1 refuses tasks until both are set. */
static int cpuset_configure(const struct cpuset *cs, nodeset_t mems)
{
	const char *root = root_of(cs->version);
	char cpus[256];
	int err;

	snprintf(cpus, sizeof(cpus), "%s/%s", root,
		 cs->version == CGROUP_V1 ? "cpuset.cpus" : "cpuset.cpus.effective");
	if (read_text(cpus, cpus, sizeof(cpus)))
		return -errno;
	err = knob_write(cs->dir, "cpuset.cpus", cpus);
	return err ? err : cpuset_set_mems(cs, mems);
}

int cpuset_create(struct cpuset *cs, enum cgroup_version version,
		  const char *name, nodeset_t mems)
{
	int err;

	cs->version = version;
	snprintf(cs->dir, sizeof(cs->dir), "%s/%s", root_of(version), name);
	err = version == CGROUP_V1 ? v1_mount() :
	      retry_while_moving(v2_enable_once, ENOENT);
	if (err)
		return err;
	if (mkdir(cs->dir, 0755) && errno != EEXIST)
		return -errno;
	return cpuset_configure(cs, mems);
}

int cpuset_create_threaded(struct cpuset *cs, const struct cpuset *domain,
			   const char *name, nodeset_t mems)
{
	int err;

	cs->version = domain->version;
	if (snprintf(cs->dir, sizeof(cs->dir), "%s/%s", domain->dir, name) >=
	    (int)sizeof(cs->dir))
		return -ENAMETOOLONG;
	if (mkdir(cs->dir, 0755) && errno != EEXIST)
		return -errno;
	if (cs->version == CGROUP_V2) {
		err = knob_write(cs->dir, "cgroup.type", "threaded");
		if (!err)
			err = knob_write(domain->dir, "cgroup.subtree_control",
					 "+cpuset");
		if (err)
			return err;
	}
	return cpuset_configure(cs, mems);
}

int cpuset_set_mems(const struct cpuset *cs, nodeset_t mems)
{
	char list[256];

	return knob_write(cs->dir, "cpuset.mems",
			  nodeset_format(mems, list, sizeof(list)));
}

int cpuset_set_cpus(const struct cpuset *cs, const char *cpus)
{
	return knob_write(cs->dir, "cpuset.cpus", cpus);
}

int cpuset_attach(const struct cpuset *cs, pid_t pid)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", pid);
	return knob_write(cs->dir, "cgroup.procs", text);
}

pid_t cpuset_start_sleeper(const struct cpuset *cs)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "3600", (char *)NULL);
		_exit(1);
	}
	close(fds[1]);
	/* End of file once the child has exec'd, or died. */
	while (pid > 0 && read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (pid > 0 && cpuset_attach(cs, pid)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

int cpuset_attach_thread(const struct cpuset *cs, pid_t tid)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", tid);
	return knob_write(cs->dir, cs->version == CGROUP_V1 ? "tasks" :
			  "cgroup.threads", text);
}

int cpuset_migrate_on_change(const struct cpuset *cs)
{
	if (cs->version == CGROUP_V2)
		return 0;
	return knob_write(cs->dir, "cpuset.memory_migrate", "1");
}

/* Cgroups in the cpuset's hierarchy, dying ones included (/proc/cgroups). */
static int cpuset_cgroups(void)
{
	char line[256];
	int count = -1;
	FILE *f = fopen("/proc/cgroups", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpuset %*d %d", &count) == 1)
			break;
	fclose(f);
	return count;
}

/*
 * Unmounting a v1 hierarchy destroys it only when it has no child left,
 * dying ones included; otherwise it lingers, holding the controller away
 * from v2 for good. Wait for rmdir() to finish its work first.
 */
static int v1_umount(void)
{
	for (int tries = 0; cpuset_cgroups() > 1 && tries < 500; tries++)
		usleep(10 * 1000);
	return umount(V1_ROOT) ? -errno : 0;
}

int cpuset_remove(const struct cpuset *cs)
{
	const char *root = root_of(cs->version);
	char procs[512], pids[4096], *pid, *save;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cs->dir);
	if (read_text(procs, pids, sizeof(pids)) == 0) {
		for (pid = strtok_r(pids, "\n", &save); pid;
		     pid = strtok_r(NULL, "\n", &save))
			knob_write(root, "cgroup.procs", pid);
	}
	if (rmdir(cs->dir) && errno != ENOENT)
		return -errno;
	return 0;
}

int cpuset_destroy(const struct cpuset *cs)
{
	int err = cpuset_remove(cs);

	if (err)
		return err;
	if (cs->version == CGROUP_V2)
		return knob_write(V2_ROOT, "cgroup.subtree_control", "-cpuset");
	return v1_umount();
}
