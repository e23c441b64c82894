// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded, seeded random fuzzer of the memory policy syscalls and of
 * cpuset.mems writes: FUZZERS processes throw random, mostly invalid,
 * arguments at set_mempolicy, get_mempolicy, mbind, set_mempolicy_home_node,
 * migrate_pages and move_pages, while a writer puts random strings into the
 * cpuset.mems of their cpuset. Afterwards the kernel must be alive and the
 * state must still hold: every fuzzer's data intact, and fresh pages of
 * every fuzzer inside the cpuset once it has settled. The console check on
 * the host turns any splat into a failure.
 *
 * numapol.fuzz_seconds (default 20) bounds it; numapol.fuzz_seed (default
 * 1) makes each process's sequence of calls reproducible (not their
 * interleaving). It prints the number of calls and calls per second.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

#define FUZZERS		4
#define ARENA_PAGES	32	/* mapped, unmapped and remapped at random */
#define DATA_PAGES	16	/* a pattern that migrations must keep */
/* get_mempolicy() writes up to a page of mask for maxnode 8 * 4096 + 1. */
#define MASK_WORDS	(4096 / 8 + 1)
#define FINAL_MEMS	(NODE(0) | NODE(1))

struct counters {
	atomic_ulong calls[FUZZERS + 1];	/* the last one: the writer */
	atomic_int stop;
	atomic_int idle;	/* fuzzers done with their last call */
	pid_t pids[FUZZERS];
};

struct fuzzer {
	unsigned int seed;
	long page;
	char *arena, *data, *fault;
	unsigned long mask[MASK_WORDS];
	pid_t *peers;
};

static unsigned int pick(struct fuzzer *f, unsigned int n)
{
	return rand_r(&f->seed) % n;
}

/* Mostly plausible values, sometimes anything. */
static int random_mode(struct fuzzer *f)
{
	static const int flags[] = {
		0, 0, MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES,
		MPOL_NODE_FLAGS, MPOL_F_NUMA_BALANCING,
	};

	if (!pick(f, 16))
		return rand_r(&f->seed);
	return pick(f, 8) | flags[pick(f, sizeof(flags) / sizeof(flags[0]))];
}

static unsigned long *random_mask(struct fuzzer *f, unsigned long *maxnode)
{
	static const unsigned long maxnodes[] = {
		0, 1, 2, 3, 4, 5, 9, 63, 64, 65, 1024, 1025, 2048, 4096,
		8 * 4096 + 1,
	};

	memset(f->mask, 0, sizeof(f->mask));
	f->mask[0] = pick(f, 4) ? pick(f, 256) : (unsigned long)rand_r(&f->seed) << 32 | rand_r(&f->seed);
	if (!pick(f, 8))
		f->mask[pick(f, MASK_WORDS)] |= 1UL << pick(f, 64);
	*maxnode = pick(f, 4) ? 64 : maxnodes[pick(f, sizeof(maxnodes) / sizeof(maxnodes[0]))];
	if (!pick(f, 32))
		return (unsigned long *)f->fault;
	return pick(f, 32) ? f->mask : NULL;
}

static char *random_addr(struct fuzzer *f)
{
	switch (pick(f, 16)) {
	case 0:
		return NULL;
	case 1:
		return f->fault;
	case 2:
		return f->arena + pick(f, ARENA_PAGES * f->page);	/* unaligned */
	case 3:
		return f->data + pick(f, DATA_PAGES) * f->page;
	default:
		return f->arena + pick(f, ARENA_PAGES) * f->page;
	}
}

static unsigned long random_len(struct fuzzer *f)
{
	return pick(f, 32) ? pick(f, ARENA_PAGES / 2 + 1) * f->page : -f->page;
}

static int random_node(struct fuzzer *f)
{
	static const int odd[] = { -1, 7, 63, 1023, 1024, 4096, INT32_MAX };

	return pick(f, 4) ? (int)pick(f, 4) : odd[pick(f, sizeof(odd) / sizeof(odd[0]))];
}

static pid_t random_pid(struct fuzzer *f)
{
	switch (pick(f, 4)) {
	case 0:
		return 0;
	case 1:
		return 0x3fffffff;
	default:
		return f->peers[pick(f, FUZZERS)];
	}
}

/* Remap part of the arena, so that VMAs split, merge and vanish. */
static void reshape_arena(struct fuzzer *f)
{
	char *at = f->arena + pick(f, ARENA_PAGES) * f->page;
	size_t len = (1 + pick(f, 4)) * f->page;

	if (at + len > f->arena + ARENA_PAGES * f->page)
		len = f->arena + ARENA_PAGES * f->page - at;
	if (pick(f, 2))
		munmap(at, len);
	else
		mmap(at, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static void one_call(struct fuzzer *f)
{
	unsigned long maxnode, *mask, to[MASK_WORDS] = { 0 };
	void *pages[4];
	int nodes[4], status[4], mode;

	switch (pick(f, 8)) {
	case 0:
		mask = random_mask(f, &maxnode);
		set_mempolicy(random_mode(f), mask, maxnode);
		break;
	case 1:
		mask = random_mask(f, &maxnode);
		get_mempolicy(pick(f, 16) ? &mode : (int *)f->fault, mask,
			      maxnode, random_addr(f), pick(f, 16));
		break;
	case 2:
		mask = random_mask(f, &maxnode);
		mbind(random_addr(f), random_len(f), random_mode(f), mask,
		      maxnode, pick(f, 4) ? pick(f, 4) : pick(f, 64));
		break;
	case 3:
		syscall(__NR_set_mempolicy_home_node, random_addr(f),
			random_len(f), random_node(f), pick(f, 16) ? 0 : 1);
		break;
	case 4:
		mask = random_mask(f, &maxnode);
		to[0] = pick(f, 16);
		migrate_pages(random_pid(f), maxnode, mask, to);
		break;
	case 5:
		for (int i = 0; i < 4; i++) {
			pages[i] = random_addr(f);
			nodes[i] = random_node(f);
		}
		move_pages(random_pid(f), 1 + pick(f, 4), pages,
			   pick(f, 4) ? nodes : NULL, status,
			   pick(f, 8) ? MPOL_MF_MOVE : pick(f, 16));
		break;
	case 6:
		reshape_arena(f);
		break;
	default:
		/* Fault pages in under whatever policies are in place. */
		for (int i = 0; i < 4; i++) {
			char *at = f->arena + pick(f, ARENA_PAGES) * f->page;

			if (mincore(at, 1, (unsigned char *)&mode) == 0)
				*(volatile char *)at = 1;
		}
		break;
	}
}

static void fill(char *data, long len, uint64_t tag)
{
	for (long off = 0; off < len; off += sizeof(uint64_t))
		*(uint64_t *)(data + off) = tag ^ off;
}

static bool intact(const char *data, long len, uint64_t tag)
{
	for (long off = 0; off < len; off += sizeof(uint64_t))
		if (*(const uint64_t *)(data + off) != (tag ^ off))
			return false;
	return true;
}

/*
 * The final check, once the cpuset has settled on FINAL_MEMS: the data
 * survived, and fresh pages land in the cpuset. Exit status: 0 fine,
 * 1 data corrupted, 2 a page outside the cpuset, 3 setup failed.
 */
static int settle_and_check(struct fuzzer *f, uint64_t tag)
{
	int nodes[DATA_PAGES];
	char *fresh;

	if (!intact(f->data, DATA_PAGES * f->page, tag))
		return 1;
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	fresh = mmap(NULL, DATA_PAGES * f->page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED)
		return 3;
	memset(fresh, 1, DATA_PAGES * f->page);
	if (page_nodes(fresh, DATA_PAGES, nodes))
		return 3;
	for (int i = 0; i < DATA_PAGES; i++)
		if (nodes[i] < 0 || !(FINAL_MEMS & NODE(nodes[i])))
			return 2;
	return 0;
}

static int fuzzer(struct counters *c, int index, unsigned int seed,
		  const struct cpuset *cs, int done)
{
	struct fuzzer f = { .seed = seed, .peers = c->pids };
	uint64_t tag = (uint64_t)seed << 32 | 0xf022;
	char byte;

	f.page = sysconf(_SC_PAGESIZE);
	if (cpuset_attach(cs, getpid()))
		return 3;
	f.fault = mmap(NULL, f.page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.arena = mmap(NULL, ARENA_PAGES * f.page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.data = mmap(NULL, DATA_PAGES * f.page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f.fault == MAP_FAILED || f.arena == MAP_FAILED || f.data == MAP_FAILED)
		return 3;
	fill(f.data, DATA_PAGES * f.page, tag);
	while (!atomic_load(&c->stop)) {
		one_call(&f);
		atomic_fetch_add(&c->calls[index], 1);
	}
	/* The monitor writes a byte once all are idle and the cpuset settled. */
	atomic_fetch_add(&c->idle, 1);
	if (read(done, &byte, 1) != 1)
		return 3;
	return settle_and_check(&f, tag);
}

/* Random strings, valid and not, into cpuset.mems. */
static void writer(struct counters *c, const struct cpuset *cs,
		   unsigned int seed)
{
	static const char *const texts[] = {
		"0", "1", "2", "3", "0-1", "2-3", "0-3", "1,3", "0,2",
		"", "7", "0-7", "3-0", "x", "0-", "-1", "1023", "2000",
		"0-3:2/4", "0,,1", " 1", "1\n",
	};
	char path[300];

	snprintf(path, sizeof(path), "%s/cpuset.mems", cs->dir);
	while (!atomic_load(&c->stop)) {
		write_text(path, texts[rand_r(&seed) % (sizeof(texts) / sizeof(texts[0]))]);
		atomic_fetch_add(&c->calls[FUZZERS], 1);
	}
}

FIXTURE(fuzz) {
	struct cpuset cs;
	struct counters *c;
};

FIXTURE_SETUP(fuzz)
{
	nodeset_t memory;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory", &memory));
	if ((memory & 0xf) != 0xf)
		SKIP(return, "needs memory on nodes 0-3");
	self->c = mmap(NULL, sizeof(*self->c), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->c);
	ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "fuzz", 0xf));
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->cs.dir[0])
		cpuset_destroy(&self->cs);
}

TEST_F_TIMEOUT(fuzz, syscalls_and_cpuset_writes, 3600)
{
	unsigned int seed = cmdline_number("numapol.fuzz_seed", 1);
	double seconds = cmdline_number("numapol.fuzz_seconds", 20), start;
	struct counters *c = self->c;
	unsigned long total = 0;
	pid_t writer_pid;
	int done[2], status;

	/* Fuzzers that died early close the pipe: waitpid() says why. */
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, pipe(done));
	for (int i = 0; i < FUZZERS; i++) {
		/* @c is shared: only the parent stores the pid. */
		pid_t pid = fork();

		if (pid == 0) {
			close(done[1]);
			_exit(fuzzer(c, i, seed + i, &self->cs, done[0]));
		}
		ASSERT_LT(0, pid);
		c->pids[i] = pid;
	}
	close(done[0]);
	writer_pid = fork();
	if (writer_pid == 0) {
		writer(c, &self->cs, seed + FUZZERS);
		_exit(0);
	}
	ASSERT_LT(0, writer_pid);

	start = now_seconds();
	while (now_seconds() - start < seconds)
		usleep(100 * 1000);
	atomic_store(&c->stop, 1);
	ASSERT_EQ(writer_pid, waitpid(writer_pid, &status, 0));
	/* A fuzzer killed by a signal never gets idle: wait 30 s at most. */
	for (int tries = 0; atomic_load(&c->idle) < FUZZERS && tries < 3000; tries++)
		usleep(10 * 1000);
	ASSERT_EQ(0, cpuset_set_mems(&self->cs, FINAL_MEMS));
	for (int i = 0; i < FUZZERS; i++)
		write(done[1], "", 1);
	for (int i = 0; i <= FUZZERS; i++)
		total += atomic_load(&c->calls[i]);
	ksft_print_msg("fuzz: seed %u, %lu calls in %.1f s, %.0f calls/s (%lu cpuset.mems writes)\n",
		       seed, total, now_seconds() - start, total / (now_seconds() - start),
		       atomic_load(&c->calls[FUZZERS]));
	for (int i = 0; i < FUZZERS; i++) {
		ASSERT_EQ(c->pids[i], waitpid(c->pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status))
			TH_LOG("fuzzer %d (seed %u) killed by signal %d", i,
			       seed + i, WTERMSIG(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("fuzzer %d (seed %u): %s", i, seed + i,
			       WEXITSTATUS(status) == 1 ? "data corrupted" :
			       WEXITSTATUS(status) == 2 ? "a page outside the cpuset" :
			       "setup failed");
	}
}

TEST_HARNESS_MAIN
