// SPDX-License-Identifier: GPL-2.0
#include "executor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/mpol.h"
#include "../lib/placement.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
/* Far from the binary, its heap and its stack; apart, so never merged. */
#define VMA_REGION	(0x200000000UL >> PAGE_SHIFT)
#define TASK_REGION	(0x300000000UL >> PAGE_SHIFT)

/* Shared with the subject, which cannot print: its output would mix. */
struct record {
	struct observation obs[MAX_OPS];
	char failure[256];
};

struct executor {
	const struct topology *topo;
	struct cpuset cs;
	int cpu;
	struct record *record;
};

static int first_cpu_of(int node)
{
	char path[96];
	nodeset_t cpus;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (read_nodeset(path, &cpus) || !cpus)
		return -1;
	return nodeset_first(cpus);
}

int topology_read(struct topology *topo)
{
	nodeset_t online;

	memset(topo, 0, sizeof(*topo));
	if (read_nodeset("/sys/devices/system/node/online", &online) ||
	    read_nodeset("/sys/devices/system/node/has_memory", &topo->memory))
		return -errno;
	topo->nr_nodes = 64 - __builtin_clzl(online);
	if (topo->nr_nodes > MODEL_MAX_NODES)
		return -ERANGE;
	/* The subject runs on node 0's first CPU. */
	topo->local_node = 0;
	for (int n = 0; n < topo->nr_nodes; n++) {
		char path[96], text[16];

		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/mempolicy/weighted_interleave/node%d", n);
		topo->weight[n] = read_text(path, text, sizeof(text)) ? 1 :
				  atoi(text) ? atoi(text) : 1;
	}
	topo->vma_region = VMA_REGION;
	topo->task_region = TASK_REGION;
	return 0;
}

struct executor *executor_new(const struct topology *topo)
{
	struct executor *ex = calloc(1, sizeof(*ex));
	int err;

	if (!ex)
		return NULL;
	ex->topo = topo;
	ex->cpu = first_cpu_of(topo->local_node);
	ex->record = mmap(NULL, sizeof(*ex->record), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ex->cpu < 0 || ex->record == MAP_FAILED) {
		free(ex);
		errno = ENODEV;
		return NULL;
	}
	err = cpuset_create(&ex->cs, CGROUP_V2, "differential", topo->memory);
	if (err) {
		munmap(ex->record, sizeof(*ex->record));
		free(ex);
		errno = -err;
		return NULL;
	}
	return ex;
}

void executor_free(struct executor *ex)
{
	cpuset_destroy(&ex->cs);
	munmap(ex->record, sizeof(*ex->record));
	free(ex);
}

static void *page_address(unsigned long page_number)
{
	return (void *)(page_number << PAGE_SHIFT);
}

/* Touch @npages fresh pages, read their nodes, give them back. */
static int touch(void *addr, int npages, struct observation *obs)
{
	obs->npages = npages;
	for (int i = 0; i < npages; i++)
		((volatile char *)addr)[i * PAGE_SIZE] = 1;
	if (page_nodes(addr, npages, obs->node))
		return -1;
	return madvise(addr, npages * PAGE_SIZE, MADV_DONTNEED);
}

static int query(void *at, int flags, int npages, void *pages,
		 struct observation *obs)
{
	int mode;

	if (get_mempolicy(&mode, &obs->reported, NODESET_BITS, at, flags)) {
		obs->error = errno;
		return 0;
	}
	obs->mode = mode;
	return touch(pages, npages, obs);
}

static long result(long ret)
{
	return ret ? errno : 0;
}

/* One operation in the subject; -1 means the harness failed. */
static int apply(struct executor *ex, const struct op *op,
		 struct observation *obs)
{
	void *first = page_address(ex->topo->vma_region + op->first);
	int npages;
	pid_t child;
	int status;

	memset(obs, 0, sizeof(*obs));
	switch (op->kind) {
	case OP_CPUSET:
		errno = -cpuset_set_mems(&ex->cs, op->mems);
		return errno ? -1 : 0;
	case OP_SET_TASK:
		obs->error = result(set_mempolicy(op->mode | op->flags,
						  &op->user, NODESET_BITS));
		return 0;
	case OP_MBIND:
		obs->error = result(mbind(first, op->npages * PAGE_SIZE,
					  op->mode | op->flags, &op->user,
					  NODESET_BITS, 0));
		return 0;
	case OP_HOME_NODE:
		obs->error = result(syscall(__NR_set_mempolicy_home_node,
					    first, op->npages * PAGE_SIZE,
					    op->home, 0));
		return 0;
	case OP_FORK:
		child = fork();
		if (child < 0)
			return -1;
		if (child == 0)
			return 0;
		if (waitpid(child, &status, 0) != child)
			_exit(2);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
	case OP_QUERY_TASK:
		return query(NULL, 0, QUERY_PAGES,
			     page_address(ex->topo->task_region), obs);
	case OP_QUERY_VMA:
		npages = MODEL_PAGES - op->first;
		if (npages > QUERY_PAGES)
			npages = QUERY_PAGES;
		return query(first, MPOL_F_ADDR, npages, first, obs);
	default:
		return -1;
	}
}

static void *map_region(unsigned long page_number, size_t npages)
{
	void *want = page_address(page_number);
	void *got = mmap(want, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);

	if (got != want)
		return NULL;
	/* A huge page would change the interleave index and the node. */
	madvise(got, npages * PAGE_SIZE, MADV_NOHUGEPAGE);
	return got;
}

static void subject(struct executor *ex, const struct op *ops, int n)
{
	struct record *rec = ex->record;

	if (cpuset_attach(&ex->cs, getpid()) || pin_to_cpu(ex->cpu) ||
	    !map_region(ex->topo->vma_region, MODEL_PAGES) ||
	    !map_region(ex->topo->task_region, QUERY_PAGES)) {
		snprintf(rec->failure, sizeof(rec->failure),
			 "setting up the subject: %s", strerror(errno));
		_exit(2);
	}
	for (int i = 0; i < n; i++) {
		if (apply(ex, &ops[i], &rec->obs[i])) {
			char op[128];

			snprintf(rec->failure, sizeof(rec->failure),
				 "operation %d (%s): %s", i + 1,
				 op_format(&ops[i], op, sizeof(op)),
				 strerror(errno));
			_exit(2);
		}
	}
	_exit(0);
}

int executor_run(struct executor *ex, const struct op *ops, int n,
		 struct observation *obs, char *why, size_t len)
{
	int status, err;
	pid_t pid;

	memset(ex->record, 0, sizeof(*ex->record));
	err = cpuset_set_mems(&ex->cs, ex->topo->memory);
	if (err) {
		snprintf(why, len, "resetting cpuset.mems: %s", strerror(-err));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		subject(ex, ops, n);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		snprintf(why, len, "the subject failed (status %#x): %s",
			 status, ex->record->failure);
		return -1;
	}
	memcpy(obs, ex->record->obs, n * sizeof(*obs));
	return 0;
}
