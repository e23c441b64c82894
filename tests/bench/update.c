// SPDX-License-Identifier: GPL-2.0
#include "update.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "bench.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"

#define MAX_WRITES	101
#define MAX_HOLDERS	1000
#define FAULT_PAGES	1024	/* the faulter's region: 4 MiB */
#define WRITER_CPU	0
#define FAULTER_CPU	1
#define MAX_MAP_COUNT	"/proc/sys/vm/max_map_count"

/* The faulting process's record of its longest wait between faults. */
struct fault_watch {
	atomic_int stop;
	atomic_long longest_ns;
	atomic_long faults;
};

struct update_bench {
	struct cpuset cs;
	nodeset_t memory;
	int writes;
	pid_t holders[MAX_HOLDERS];
	int nholders;
	int hold[2];		/* holders block reading it until it closes */
	pid_t faulter;
	struct fault_watch *watch;
};

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* A policy every rebind has to follow: BIND to every node, no flag. */
static int bind_everywhere(const struct update_bench *b)
{
	nodeset_t nodes = b->memory;

	return set_mempolicy(MPOL_BIND, &nodes, NODESET_BITS) ? -errno : 0;
}

/*
 * Start a child in the cpuset that runs @setup, says it is ready, and
 * waits for the hold pipe to close. Returns its pid or -1.
 */
static pid_t spawn_holder(struct update_bench *b, int (*setup)(void *),
			  void *arg)
{
	int ready[2];
	char ok = 0;
	pid_t pid;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(b->hold[1]);
		ok = !cpuset_attach(&b->cs, getpid()) && !bind_everywhere(b) &&
		     !setup(arg);
		if (write(ready[1], &ok, 1) != 1 || !ok)
			_exit(1);
		while (read(b->hold[0], &ok, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	if (pid < 0 || read(ready[0], &ok, 1) != 1 || !ok) {
		if (pid > 0)
			waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	if (pid > 0)
		b->holders[b->nholders++] = pid;
	return pid;
}

static void release_holders(struct update_bench *b)
{
	close(b->hold[1]);
	for (int i = 0; i < b->nholders; i++)
		waitpid(b->holders[i], NULL, 0);
	b->nholders = 0;
	close(b->hold[0]);
}

static int nothing(void *arg)
{
	return 0;
}

/* @vmas VMAs: pages alternately writable and read-only, never merged. */
static int map_vmas(void *arg)
{
	long vmas = *(long *)arg;
	size_t len = vmas * PAGE_SIZE;
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED)
		return -1;
	for (long i = 1; i < vmas; i += 2)
		if (mprotect(region + i * PAGE_SIZE, PAGE_SIZE, PROT_READ))
			return -1;
	return 0;
}

/* The same VMAs, each with a VMA policy of its own. */
static int map_policy_vmas(void *arg)
{
	long vmas = *(long *)arg;
	size_t len = vmas * PAGE_SIZE;
	nodeset_t nodes = NODE(0) | NODE(1);
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED ||
	    mbind(region, len, MPOL_BIND, &nodes, NODESET_BITS, 0))
		return -1;
	for (long i = 1; i < vmas; i += 2)
		if (mprotect(region + i * PAGE_SIZE, PAGE_SIZE, PROT_READ))
			return -1;
	return 0;
}

/* Fault pages one after the other for ever, timing each gap. */
static void fault_forever(struct update_bench *b)
{
	char *region = mmap(NULL, FAULT_PAGES * PAGE_SIZE,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct fault_watch *w = b->watch;

	if (region == MAP_FAILED || cpuset_attach(&b->cs, getpid()) ||
	    bind_everywhere(b) || pin_to_cpu(FAULTER_CPU))
		_exit(1);
	madvise(region, FAULT_PAGES * PAGE_SIZE, MADV_NOHUGEPAGE);
	while (!atomic_load(&w->stop)) {
		long last = now_ns();

		for (int i = 0; i < FAULT_PAGES; i++) {
			long now, gap;

			region[i * PAGE_SIZE] = 1;
			now = now_ns();
			gap = now - last;
			last = now;
			if (gap > atomic_load(&w->longest_ns))
				atomic_store(&w->longest_ns, gap);
		}
		atomic_fetch_add(&w->faults, FAULT_PAGES);
		/* Giving the pages back is not a fault: not timed. */
		madvise(region, FAULT_PAGES * PAGE_SIZE, MADV_DONTNEED);
	}
	_exit(0);
}

static int start_faulter(struct update_bench *b)
{
	memset(b->watch, 0, sizeof(*b->watch));
	b->faulter = fork();
	if (b->faulter == 0)
		fault_forever(b);
	if (b->faulter < 0)
		return -1;
	/* Warm up: it has faulted a region's worth. */
	while (atomic_load(&b->watch->faults) < FAULT_PAGES)
		usleep(1000);
	return 0;
}

static void stop_faulter(struct update_bench *b)
{
	atomic_store(&b->watch->stop, 1);
	waitpid(b->faulter, NULL, 0);
}

/*
 * b->writes writes of cpuset.mems, alternately two nodes and every node;
 * their median latency in microseconds, or -1.
 */
static double write_latency_us(struct update_bench *b)
{
	double us[MAX_WRITES];

	for (int i = 0; i < b->writes; i++) {
		nodeset_t mems = i % 2 ? b->memory : NODE(0) | NODE(1);
		long begin = now_ns();

		if (cpuset_set_mems(&b->cs, mems))
			return -1;
		us[i] = (now_ns() - begin) / 1e3;
	}
	if (cpuset_set_mems(&b->cs, b->memory))
		return -1;
	return median(us, b->writes);
}

/*
 * The update figures of one configuration (@kind, @size): the latency with
 * nobody faulting, then with the faulter running, its longest wait between
 * faults during the writes, and during as long a time without writes.
 */
static int measure(struct update_bench *b, const char *kind, long size)
{
	char figure[96];
	double idle, busy, seconds;
	long stall, quiet;

	idle = write_latency_us(b);
	if (idle < 0 || start_faulter(b))
		return 1;
	atomic_store(&b->watch->longest_ns, 0);
	seconds = now_seconds();
	busy = write_latency_us(b);
	seconds = now_seconds() - seconds;
	stall = atomic_exchange(&b->watch->longest_ns, 0);
	usleep(seconds * 1e6);
	quiet = atomic_load(&b->watch->longest_ns);
	stop_faulter(b);
	if (busy < 0)
		return 1;
	snprintf(figure, sizeof(figure), "update/%s/%ld/idle", kind, size);
	bench_print(figure, "us", idle);
	snprintf(figure, sizeof(figure), "update/%s/%ld/faulting", kind, size);
	bench_print(figure, "us", busy);
	snprintf(figure, sizeof(figure), "stall/%s/%ld/updating", kind, size);
	bench_print(figure, "us", stall / 1e3);
	snprintf(figure, sizeof(figure), "stall/%s/%ld/quiet", kind, size);
	bench_print(figure, "us", quiet / 1e3);
	return 0;
}

static int bench_open(struct update_bench *b, int writes,
		      enum cgroup_version version)
{
	memset(b, 0, sizeof(*b));
	if (writes > MAX_WRITES)
		writes = MAX_WRITES;
	b->writes = writes;
	if (read_nodeset("/sys/devices/system/node/has_memory", &b->memory) ||
	    pin_to_cpu(WRITER_CPU))
		return -1;
	b->watch = mmap(NULL, sizeof(*b->watch), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->watch == MAP_FAILED)
		return -1;
	return cpuset_create(&b->cs, version, "bench", b->memory);
}

static void bench_close(struct update_bench *b)
{
	cpuset_destroy(&b->cs);
	munmap(b->watch, sizeof(*b->watch));
}

int bench_update_tasks(int max_tasks, int writes)
{
	struct update_bench b;
	int failed = 0;

	if (max_tasks > MAX_HOLDERS)
		max_tasks = MAX_HOLDERS;
	if (bench_open(&b, writes, CGROUP_V2))
		return 1;
	for (long tasks = 1; tasks <= max_tasks; tasks *= 10) {
		if (pipe(b.hold)) {
			failed++;
			break;
		}
		for (long i = 0; i < tasks; i++)
			if (spawn_holder(&b, nothing, NULL) < 0)
				failed++;
		if (!failed)
			failed += measure(&b, "tasks", tasks);
		release_holders(&b);
	}
	bench_close(&b);
	return failed;
}

/* SUnreclaim of /proc/meminfo in bytes, or -1: VMAs and policies. */
static long unreclaimable_slab(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* Slab bytes a holder of @vmas VMAs made by @setup costs, or -1. */
static long holder_slab(struct update_bench *b, int (*setup)(void *),
			long vmas)
{
	long before = unreclaimable_slab(), after;

	if (pipe(b->hold) || spawn_holder(b, setup, &vmas) < 0)
		return -1;
	after = unreclaimable_slab();
	release_holders(b);
	return after - before;
}

/* The slab a VMA policy adds: VMAs with policies against VMAs without. */
static int measure_policy_memory(struct update_bench *b, long vmas)
{
	long with = holder_slab(b, map_policy_vmas, vmas);
	long without = holder_slab(b, map_vmas, vmas);

	if (with < 0 || without < 0)
		return 1;
	bench_print("memory/slab_per_vma_policy", "bytes",
		    (double)(with - without) / vmas);
	return 0;
}

/*
 * cgroup v2 migrates a task's pages on every cpuset.mems write (its
 * memory_migrate is always on), which walks every VMA whether it has a
 * policy or not. v1 does not by default: "vmas-v1" is what the policies
 * alone cost a write.
 */
static const struct {
	enum cgroup_version version;
	const char *kind;
} vma_hierarchies[] = {
	{ CGROUP_V2, "vmas" },
	{ CGROUP_V1, "vmas-v1" },
};

static int update_vmas_in(enum cgroup_version version, const char *kind,
			  int max_vmas, int writes)
{
	struct update_bench b;
	int failed = 0;

	if (bench_open(&b, writes, version))
		return 1;
	for (long vmas = 1; vmas <= max_vmas; vmas *= 10) {
		if (vmas == 10)
			continue;	/* 1, 100, 1000, ... */
		if (pipe(b.hold) || spawn_holder(&b, map_policy_vmas, &vmas) < 0) {
			failed++;
			break;
		}
		failed += measure(&b, kind, vmas);
		release_holders(&b);
	}
	if (version == CGROUP_V2)
		failed += measure_policy_memory(&b, max_vmas);
	bench_close(&b);
	return failed;
}

int bench_update_vmas(int max_vmas, int writes)
{
	char old_max[32], new_max[32];
	int failed = 0;

	/* A process may map 65530 VMAs by default. */
	snprintf(new_max, sizeof(new_max), "%d", 2 * max_vmas + 65530);
	if (read_text(MAX_MAP_COUNT, old_max, sizeof(old_max)) ||
	    write_text(MAX_MAP_COUNT, new_max))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(vma_hierarchies); i++)
		failed += update_vmas_in(vma_hierarchies[i].version,
					 vma_hierarchies[i].kind,
					 max_vmas, writes);
	write_text(MAX_MAP_COUNT, old_max);
	return failed;
}
