// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug under cpusets with policies. A cpuset of node 2's CPU and
 * the memory of nodes {2,3} holds a task with a policy for node 3. The
 * CPU goes offline: a cgroup v1 cpuset left without CPUs has its tasks
 * moved to its parent, the root, whose nodes are all nodes, so the
 * task's allowed nodes change and its policies must follow
 * docs/semantics.md for them (node 3, second of {2,3}, becomes node 1,
 * second of {0-3}, without node flags); under cgroup v2 the cpuset keeps
 * its tasks and nodes, and nothing may change. The CPU comes back, which
 * changes nothing further (v1 tasks stay in the root).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/variants.h"

#define N(n)		NODE(n)
#define ALL		(N(0) | N(1) | N(2) | N(3))
#define HOME		(N(2) | N(3))
#define USER		N(3)
#define STATES		3
/* v1 moves the tasks of a cpuset without CPUs from a work item. */
#define MOVE_WAIT_US	(5 * 1000 * 1000)

enum policy_kind { TASK_POLICY, VMA_POLICY };

FIXTURE(cpuhotplug) {
	struct cpuset cs;
	int cpu;		/* node 2's first CPU, which goes offline */
	bool offline;
	char *region;
	long slice;
};

FIXTURE_VARIANT(cpuhotplug) {
	int mode;
	unsigned int flags;
	enum cgroup_version cgroup;
};

EVERY_MODE_VARIANTS(cpuhotplug, 2);
EVERY_MODE_VARIANTS(cpuhotplug, 1);

static int set_cpu_online(int cpu, bool online)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return write_text(path, online ? "1" : "0");
}

/* The calling task's allowed nodes, from /proc/self/status. */
static nodeset_t mems_allowed(void)
{
	char line[256];
	nodeset_t mems = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Mems_allowed_list:", 18))
			continue;
		line[strcspn(line, "\n")] = '\0';
		nodeset_parse(line + 18 + strspn(line + 18, " \t"), &mems);
		break;
	}
	if (f)
		fclose(f);
	return mems;
}

FIXTURE_SETUP(cpuhotplug)
{
	nodeset_t memory;
	char cpus[64], cpu[16];

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & ALL) != ALL)
		SKIP(return, "needs memory on nodes 0-3");
	if (read_text("/sys/devices/system/node/node2/cpulist", cpus,
		      sizeof(cpus)) || sscanf(cpus, "%d", &self->cpu) != 1)
		SKIP(return, "node 2 has no CPU in this topology");
	snprintf(cpus, sizeof(cpus), "/sys/devices/system/cpu/cpu%d/online",
		 self->cpu);
	if (self->cpu == 0 || access(cpus, W_OK))
		SKIP(return, "node 2's CPU %d cannot go offline in this kernel",
		     self->cpu);
	ASSERT_EQ(0, cpuset_create(&self->cs, variant->cgroup,
				   "numapol-cpuhotplug", HOME));
	snprintf(cpu, sizeof(cpu), "%d", self->cpu);
	ASSERT_EQ(0, cpuset_set_cpus(&self->cs, cpu));
	ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	self->slice = TOUCH_PAGES * sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(cpuhotplug)
{
	if (self->offline)
		set_cpu_online(self->cpu, true);
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, STATES * self->slice);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	cpuset_destroy(&self->cs);
}

/* get_mempolicy() and fresh pages against the model; 1 if they differ. */
static int observe(struct __test_metadata *_metadata,
		   FIXTURE_DATA(cpuhotplug) *self,
		   const struct policy_request *req, enum policy_kind kind,
		   int state, const char *when)
{
	nodeset_t allowed = mems_allowed(), reported = 0;
	char *addr = kind == TASK_POLICY ? NULL :
		     self->region + state * self->slice;
	char got[32], exp[32], in[32], pages[64];
	struct policy_expectation want;
	int counts[NODESET_BITS], mode = -1, wrong = 0;

	policy_expect(req, allowed, &want);
	if (get_mempolicy(&mode, &reported, NODESET_BITS, addr,
			  addr ? MPOL_F_ADDR : 0) ||
	    reported != want.reported) {
		TH_LOG("%s, in {%s}: get_mempolicy() {%s}; expected {%s}",
		       when, nodeset_format(allowed, in, sizeof(in)),
		       nodeset_format(reported, got, sizeof(got)),
		       nodeset_format(want.reported, exp, sizeof(exp)));
		wrong = 1;
	}
	if (touch_and_count(addr, counts) || !placement_ok(&want, counts)) {
		TH_LOG("%s, in {%s}: pages %s; expected on {%s}", when,
		       nodeset_format(allowed, in, sizeof(in)),
		       format_counts(counts, 4, pages, sizeof(pages)),
		       nodeset_format(want.may_land, exp, sizeof(exp)));
		wrong = 1;
	}
	return wrong;
}

/* Wait for v1's move of the tasks of a cpuset without CPUs. */
static nodeset_t wait_for_mems(nodeset_t mems)
{
	for (int waited = 0; mems_allowed() != mems && waited < MOVE_WAIT_US;
	     waited += 10000)
		usleep(10000);
	return mems_allowed();
}

static int run(struct __test_metadata *_metadata,
	       FIXTURE_DATA(cpuhotplug) *self,
	       const FIXTURE_VARIANT(cpuhotplug) *variant,
	       enum policy_kind kind)
{
	const struct policy_request req = {
		.mode = variant->mode, .flags = variant->flags,
		.user = USER, .created_in = HOME,
	};
	const nodeset_t after = variant->cgroup == CGROUP_V1 ? ALL : HOME;
	unsigned int mode = req.mode | req.flags;
	char got[32], exp[32];
	int wrong = 0;

	if (kind == VMA_POLICY) {
		self->region = mmap(NULL, STATES * self->slice,
				    PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (self->region == MAP_FAILED ||
		    madvise(self->region, STATES * self->slice,
			    MADV_NOHUGEPAGE) ||
		    mbind(self->region, STATES * self->slice, mode, &req.user,
			  NODESET_BITS, 0)) {
			TH_LOG("cannot make the VMA policy: %s", strerror(errno));
			return 1;
		}
	} else if (set_mempolicy(mode, &req.user, NODESET_BITS)) {
		TH_LOG("cannot make the task policy: %s", strerror(errno));
		return 1;
	}

	wrong += observe(_metadata, self, &req, kind, 0, "before");
	if (set_cpu_online(self->cpu, false)) {
		TH_LOG("cannot offline CPU %d", self->cpu);
		return wrong + 1;
	}
	self->offline = true;
	if (wait_for_mems(after) != after) {
		TH_LOG("CPU %d offline: allowed nodes {%s}; expected {%s}",
		       self->cpu, nodeset_format(mems_allowed(), got, sizeof(got)),
		       nodeset_format(after, exp, sizeof(exp)));
		return wrong + 1;
	}
	wrong += observe(_metadata, self, &req, kind, 1, "CPU offline");
	if (set_cpu_online(self->cpu, true)) {
		TH_LOG("cannot online CPU %d", self->cpu);
		return wrong + 1;
	}
	self->offline = false;
	wrong += observe(_metadata, self, &req, kind, 2, "CPU online again");
	return wrong;
}

TEST_F(cpuhotplug, task_policy)
{
	EXPECT_EQ(0, run(_metadata, self, variant, TASK_POLICY));
}

TEST_F(cpuhotplug, vma_policy)
{
	EXPECT_EQ(0, run(_metadata, self, variant, VMA_POLICY));
}

TEST_HARNESS_MAIN
