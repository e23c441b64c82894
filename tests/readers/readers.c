// SPDX-License-Identifier: GPL-2.0
/*
 * Every reader of a policy agrees with where the pages go, in every task
 * that uses it. Two threads of one process sit in two cpusets, home and
 * away (cgroup v2 threaded cgroups, or v1 cpusets); a VMA policy made at
 * home is shared by both. Each thread must get its own cpuset's nodes
 * (docs/semantics.md) from its first fault on, and get_mempolicy() and its
 * numa_maps must report them. Changes of some other cpuset change none of
 * it: a policy's nodes depend only on the allowed nodes of the task using
 * it. The away thread joins its cpuset before the policy is made, so that
 * no cpuset change comes between the policy and its first fault there.
 * The hugetlb pool, sized through nr_hugepages_mempolicy, reads the task
 * policy of the task that sizes it: each thread makes one at home and
 * sizes the pool from its own cpuset.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/hugetlb.h"
#include "../lib/mpol.h"
#include "../lib/placement.h"
#include "../lib/semantics.h"
#include "../lib/variants.h"

#define N(n) NODE(n)
#define HOME		(N(0) | N(1))
#define AWAY		(N(2) | N(3))
/* Node 1 has ordinal 1 at home: away, remapping makes it node 3. */
#define USER		N(1)
/*
 * Writes to another cpuset's mems: a thousand for the policies without
 * node flags, a hundred with, which depend on other tasks no differently.
 * numapol.unrelated_changes caps both: the debug kernels, which look for
 * splats rather than count, would not finish the suite in its time.
 */
static int unrelated_changes(unsigned int flags)
{
	int cap = cmdline_number("numapol.unrelated_changes", 1000);
	int count = flags ? 100 : 1000;

	return count < cap ? count : cap;
}
/* Two threads, each probing from at most two nodes, twice. */
#define SLICES		8
/* Huge pages to put in the pool: enough for each of a policy's nodes. */
#define POOL_PAGES	8

struct reader_check {
	void (*run)(struct reader_check *rc);
	struct __test_metadata *metadata;
	const FIXTURE_VARIANT(readers) *variant;
	const char *who;
	nodeset_t allowed;	/* the cpuset of the checking thread */
	char *region;		/* where the VMA policy is */
	char *next;		/* the next fresh slice */
	long slice;
	const struct cpuset *own, *home;	/* the thread's, and home */
	int mismatches;
};

/* The thread in the away cpuset, which checks when it is told to. */
struct away_thread {
	const struct cpuset *away;
	sem_t go, done;
	struct reader_check *check;	/* NULL: stop */
	int err;
};

FIXTURE(readers) {
	struct cpuset domain, home, away;
	struct away_thread away_thread;
	pthread_t thread;
	bool thread_started;
	char *region;
	size_t region_len;
	long slice;
};

FIXTURE_VARIANT(readers) {
	int mode;
	unsigned int flags;
	enum cgroup_version cgroup;
};

EVERY_MODE_VARIANTS(readers, 2);
EVERY_MODE_VARIANTS(readers, 1);


/* Join the away cpuset, then check each time the test says so. */
static void *away_thread(void *arg)
{
	struct away_thread *t = arg;

	t->err = cpuset_attach_thread(t->away, gettid());
	sem_post(&t->done);
	while (!t->err) {
		sem_wait(&t->go);
		if (!t->check)
			break;
		t->check->run(t->check);
		sem_post(&t->done);
	}
	return NULL;
}

FIXTURE_SETUP(readers)
{
	struct away_thread *t = &self->away_thread;
	nodeset_t memory;

	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((memory & (HOME | AWAY)) != (HOME | AWAY))
		SKIP(return, "needs memory on nodes 0-3");
	ASSERT_EQ(0, cpuset_create(&self->domain, variant->cgroup,
				   "numapol-readers", HOME | AWAY));
	ASSERT_EQ(0, cpuset_attach(&self->domain, getpid()));
	ASSERT_EQ(0, cpuset_create_threaded(&self->home, &self->domain,
					    "home", HOME));
	ASSERT_EQ(0, cpuset_create_threaded(&self->away, &self->domain,
					    "away", AWAY));
	ASSERT_EQ(0, cpuset_attach_thread(&self->home, gettid()));
	t->away = &self->away;
	ASSERT_EQ(0, sem_init(&t->go, 0, 0));
	ASSERT_EQ(0, sem_init(&t->done, 0, 0));
	ASSERT_EQ(0, pthread_create(&self->thread, NULL, away_thread, t));
	self->thread_started = true;
	ASSERT_EQ(0, sem_wait(&t->done));
	ASSERT_EQ(0, t->err);

	self->slice = TOUCH_PAGES * sysconf(_SC_PAGESIZE);
	self->region_len = SLICES * self->slice;
	self->region = mmap(NULL, self->region_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->region);
	/* One probe's pages only: a huge page would span several. */
	ASSERT_EQ(0, madvise(self->region, self->region_len, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, mbind(self->region, self->region_len,
			   variant->mode | variant->flags, &(nodeset_t){ USER },
			   NODESET_BITS, 0));
}

FIXTURE_TEARDOWN(readers)
{
	if (self->thread_started) {
		self->away_thread.check = NULL;
		sem_post(&self->away_thread.go);
		pthread_join(self->thread, NULL);
	}
	if (self->region && self->region != MAP_FAILED)
		munmap(self->region, self->region_len);
	/*
	 * Threads leave a v2 threaded subtree only with their process, which
	 * the domain lists: take it out first. Its rmdir fails until the
	 * children are gone.
	 */
	cpuset_remove(&self->domain);
	cpuset_remove(&self->home);
	cpuset_remove(&self->away);
	cpuset_destroy(&self->domain);
}

/*
 * The nodes numa_maps shows for the VMA at @addr, as the thread @tid sees
 * it: the node list after the policy's ':' ("bind=static:1",
 * "prefer (many):3"), none for "default". Returns 0 or -1.
 */
static int numa_maps_nodes(pid_t tid, const void *addr, nodeset_t *nodes)
{
	char path[64], line[512], start[32];
	char *colon, *end;
	int err = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/numa_maps", tid);
	snprintf(start, sizeof(start), "%08lx ", (unsigned long)addr);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, start, strlen(start)))
			continue;
		*nodes = 0;
		colon = strchr(line, ':');
		if (!colon) {
			err = 0;
			break;
		}
		end = strchr(colon, ' ');
		if (end)
			*end = '\0';
		err = nodeset_parse(colon + 1, nodes);
		break;
	}
	if (f)
		fclose(f);
	return err;
}


/* Compare get_mempolicy(), numa_maps and placement with the model. */
static void check_readers(struct reader_check *rc)
{
	struct __test_metadata *_metadata = rc->metadata;
	const struct policy_request req = {
		.mode = rc->variant->mode, .flags = rc->variant->flags,
		.user = USER, .created_in = HOME,
	};
	char got[32], want_nodes[32], why[512];
	struct policy_expectation want;
	nodeset_t reported = 0, shown = 0;
	int mode = -1;

	policy_expect(&req, rc->allowed, &want);
	nodeset_format(want.reported, want_nodes, sizeof(want_nodes));
	if (get_mempolicy(&mode, &reported, NODESET_BITS, rc->region,
			  MPOL_F_ADDR) ||
	    mode != (int)(req.mode | req.flags) || reported != want.reported) {
		TH_LOG("%s: get_mempolicy() mode %#x nodes {%s}; expected %#x {%s}",
		       rc->who, mode, nodeset_format(reported, got, sizeof(got)),
		       req.mode | req.flags, want_nodes);
		rc->mismatches++;
	}
	if (numa_maps_nodes(gettid(), rc->region, &shown) ||
	    shown != want.reported) {
		TH_LOG("%s: numa_maps shows {%s}; expected {%s}", rc->who,
		       nodeset_format(shown, got, sizeof(got)), want_nodes);
		rc->mismatches++;
	}
	if (!probe_placement(req.mode, &want, rc->allowed, &rc->next,
			     rc->slice, why, sizeof(why))) {
		TH_LOG("%s: %s", rc->who, why);
		rc->mismatches++;
	}
}

/*
 * Make the variant's task policy at home, size the pool from the thread's
 * own cpuset, and compare get_mempolicy() and the nodes the pool's pages
 * went to with the model. The pool's pages obey the cpuset too: a policy
 * whose nodes are all outside it (a preference without flags) gets none,
 * and one that allocates locally gets them inside it.
 */
static void check_hugetlb_pool(struct reader_check *rc)
{
	struct __test_metadata *_metadata = rc->metadata;
	const struct policy_request req = {
		.mode = rc->variant->mode, .flags = rc->variant->flags,
		.user = USER, .created_in = HOME,
	};
	char got[32], want_nodes[32];
	struct policy_expectation want;
	nodeset_t reported = 0, pool = 0, expected;
	int mode = -1;
	long pages = 0;

	policy_expect(&req, rc->allowed, &want);
	expected = want.effective & rc->allowed;
	if (cpuset_attach_thread(rc->home, gettid()) ||
	    set_mempolicy(req.mode | req.flags, &(nodeset_t){ USER },
			  NODESET_BITS) ||
	    cpuset_attach_thread(rc->own, gettid())) {
		TH_LOG("%s: cannot make a task policy at home: %s", rc->who,
		       strerror(errno));
		rc->mismatches++;
		return;
	}
	if (get_mempolicy(&mode, &reported, NODESET_BITS, NULL, 0) ||
	    mode != (int)(req.mode | req.flags) || reported != want.reported) {
		TH_LOG("%s: get_mempolicy() mode %#x nodes {%s}; expected %#x {%s}",
		       rc->who, mode, nodeset_format(reported, got, sizeof(got)),
		       req.mode | req.flags,
		       nodeset_format(want.reported, want_nodes,
				      sizeof(want_nodes)));
		rc->mismatches++;
	}
	if (hugetlb_set_pool_under_policy(POOL_PAGES) ||
	    hugetlb_pool_nodes(&pool, &pages) ||
	    (expected ? pages != POOL_PAGES || pool != expected :
			(pool & ~rc->allowed))) {
		TH_LOG("%s: the hugetlb pool has %ld pages on {%s}; expected %s {%s}",
		       rc->who, pages, nodeset_format(pool, got, sizeof(got)),
		       expected ? "all on" : "none outside",
		       nodeset_format(expected ? expected : rc->allowed,
				      want_nodes, sizeof(want_nodes)));
		rc->mismatches++;
	}
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	hugetlb_reset();
}

/* Each thread probes its own half of the region, in fresh slices. */
#define READER_CHECK(name, check, nodes, cpuset, half) { \
	.run = check, .metadata = _metadata, .variant = variant, \
	.who = name, .allowed = nodes, .region = self->region, \
	.next = self->region + (half) * (SLICES / 2) * self->slice, \
	.slice = self->slice, .own = cpuset, .home = &self->home, \
}

/* The away thread checks first: its faults are the first there. */
static void check_both(FIXTURE_DATA(readers) *self,
		       struct reader_check *home, struct reader_check *away)
{
	self->away_thread.check = away;
	sem_post(&self->away_thread.go);
	sem_wait(&self->away_thread.done);
	home->run(home);
}

TEST_F(readers, each_thread_gets_its_cpusets_nodes)
{
	struct reader_check home = READER_CHECK("home thread", check_readers,
						HOME, &self->home, 0);
	struct reader_check away = READER_CHECK("away thread", check_readers,
						AWAY, &self->away, 1);

	check_both(self, &home, &away);
	EXPECT_EQ(0, home.mismatches + away.mismatches);
}

TEST_F(readers, hugetlb_pool_takes_each_threads_nodes)
{
	struct reader_check home = READER_CHECK("home thread",
						check_hugetlb_pool, HOME,
						&self->home, 0);
	struct reader_check away = READER_CHECK("away thread",
						check_hugetlb_pool, AWAY,
						&self->away, 1);

	check_both(self, &home, &away);
	EXPECT_EQ(0, home.mismatches + away.mismatches);
}

TEST_F_TIMEOUT(readers, unrelated_cpuset_changes_change_nothing, 300)
{
	struct reader_check home = READER_CHECK("home thread", check_readers,
						HOME, &self->home, 0);
	struct reader_check away = READER_CHECK("away thread", check_readers,
						AWAY, &self->away, 1);
	int changes = unrelated_changes(variant->flags);
	struct cpuset other;
	pid_t bystander;
	int err = 0;

	check_both(self, &home, &away);
	ASSERT_EQ(0, cpuset_create(&other, variant->cgroup,
				   "numapol-readers-other", HOME | AWAY));
	/* A task of its own, for the changes to concern. */
	bystander = cpuset_start_sleeper(&other);
	ASSERT_LT(0, bystander);
	for (int i = 0; i < changes && !err; i++)
		err = cpuset_set_mems(&other, i % 2 ? N(2) : N(0) | N(3));
	kill(bystander, SIGKILL);
	waitpid(bystander, NULL, 0);
	cpuset_remove(&other);
	ASSERT_EQ(0, err);

	home.who = "home thread, after";
	away.who = "away thread, after";
	check_both(self, &home, &away);
	EXPECT_EQ(0, home.mismatches + away.mismatches);
}

TEST_HARNESS_MAIN
