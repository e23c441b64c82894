// SPDX-License-Identifier: GPL-2.0
/*
 * Premature OOM kills and livelocks while cpuset.mems changes: worker
 * processes allocate under every policy mode and node flag while a writer
 * changes the cpuset's mems as fast as it can. A case fails on an OOM kill,
 * an allocation failure or SIGBUS, an allocator that makes no progress, a
 * page outside the cpuset once it has settled, or data that changed under
 * the migrations cgroup v2 does on every change.
 *
 * Each case runs for numapol.stress_seconds (default 8) and calls a thread
 * that makes no progress for numapol.stress_stall seconds (default 10)
 * livelocked. It prints its figures: cpuset changes and pages allocated per
 * second, and the time to the first failure. With numapol.stress_failfast=1
 * the cases after a failed one skip, which is what hunting mutants wants.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mpol.h"
#include "feeders.h"
#include "pressure.h"
#include "squeeze.h"
#include "workload.h"

/* The writer flips the cpuset for BURST_SECONDS, then lets it settle. */
#define BURST_SECONDS	0.2
#define SETTLE_SECONDS	0.1
#define POLL_US		20000
/* Left by a failed case, for numapol.stress_failfast. */
#define FAILED_MARK	"/tmp/stress-failed"
/* Workers still running this long after the end are stuck: kill them. */
#define GRACE_SECONDS	10

#define N(n) NODE(n)
/* The seed reproducer: two nodes, flipped. */
static const nodeset_t flip[] = { N(0), N(1), 0 };
/* Each set disjoint from the one before, weights alternating 2 and 1. */
static const nodeset_t disjoint[] = {
	N(0) | N(1), N(2), N(0), N(2) | N(3), N(1), 0
};
/* Halves of the machine: node 1 is allowed, then not. */
static const nodeset_t halves[] = { N(0) | N(1), N(2) | N(3), 0 };
static const nodeset_t overlapping[] = {
	N(0) | N(1) | N(2) | N(3), N(0) | N(1), N(1) | N(2), N(2) | N(3),
	N(0) | N(2) | N(3), N(1), 0
};

#define MODE(m)		(1U << MPOL_##m)
#define ALL_MODES	(MODE(BIND) | MODE(INTERLEAVE) | \
			 MODE(WEIGHTED_INTERLEAVE) | MODE(PREFERRED) | \
			 MODE(PREFERRED_MANY))

FIXTURE(stress) {
	struct cpuset cs;
	struct pressure pressure;
	struct feeders feeders;
	struct squeeze squeeze;
	struct stress_shared *sh;
	nodeset_t all_sets;
	bool ramfs_mounted;
	bool swap_on;
	double seconds, stall;
};

FIXTURE_VARIANT(stress) {
	enum policy_kind policy;
	enum memory_kind memory;
	unsigned int modes;
	const nodeset_t *sets;	/* the writer cycles through them */
	enum cgroup_version cgroup;
	bool v1_migrate;	/* cpuset.memory_migrate on v1 */
	bool pressure;
	nodeset_t full;		/* nodes the ballast fills for good */
	bool feed;		/* page cache feeders on every node of the sets */
	bool squeeze;		/* vm.min_free_kbytes raised now and then */
	bool swap;		/* SWAP_DEVICE on: the ballast can be swapped */
	bool churn;
	bool single_threaded;	/* else THREADS_PER_WORKER threads a worker */
	nodeset_t user;		/* the policies' nodemask; 0: every set's */
	bool node_flags_only;	/* see struct workload */
};

/*
 * The premature OOM of 902b62810a57: mbind() BIND while mems flip. First,
 * with single-threaded workers and on v1 without page migration: the race
 * is per cpuset.mems write, and each write rebinds the mm once per thread
 * and waits for the pages it migrates, so these cases write many times
 * faster than the others.
 */
FIXTURE_VARIANT_ADD(stress, vma_bind_anon_flip_v1) {
	.policy = VMA_POLICY, .memory = ANON, .modes = MODE(BIND),
	.sets = flip, .cgroup = CGROUP_V1, .single_threaded = true,
};
FIXTURE_VARIANT_ADD(stress, vma_bind_anon_flip) {
	.policy = VMA_POLICY, .memory = ANON, .modes = MODE(BIND),
	.sets = flip, .cgroup = CGROUP_V2, .single_threaded = true,
};
/* LTP cpuset01's variant of it: set_mempolicy() BIND. */
FIXTURE_VARIANT_ADD(stress, task_bind_anon_flip) {
	.policy = TASK_POLICY, .memory = ANON, .modes = MODE(BIND),
	.sets = flip, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, vma_all_anon_disjoint) {
	.policy = VMA_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, task_all_anon_disjoint) {
	.policy = TASK_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, vma_all_thp_overlapping) {
	.policy = VMA_POLICY, .memory = THP, .modes = ALL_MODES,
	.sets = overlapping, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, task_all_thp_disjoint) {
	.policy = TASK_POLICY, .memory = THP, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, shared_all_tmpfs_disjoint) {
	.policy = SHARED_POLICY, .memory = TMPFS, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V2,
};
FIXTURE_VARIANT_ADD(stress, task_all_pagecache_overlapping) {
	.policy = TASK_POLICY, .memory = PAGECACHE, .modes = ALL_MODES,
	.sets = overlapping, .cgroup = CGROUP_V2,
};
/* v1 moves pages only with cpuset.memory_migrate; v2 always does. */
FIXTURE_VARIANT_ADD(stress, vma_all_anon_disjoint_v1_migrate) {
	.policy = VMA_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V1, .v1_migrate = true,
};
FIXTURE_VARIANT_ADD(stress, task_all_anon_flip_v1) {
	.policy = TASK_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = flip, .cgroup = CGROUP_V1,
};
FIXTURE_VARIANT_ADD(stress, vma_all_anon_overlapping_churn) {
	.policy = VMA_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = overlapping, .cgroup = CGROUP_V2, .churn = true,
};
/* ac->nodemask points into the policy: e05741fb10c3's livelock. */
FIXTURE_VARIANT_ADD(stress, task_bind_anon_disjoint_pressure) {
	.policy = TASK_POLICY, .memory = ANON,
	.modes = MODE(BIND) | MODE(PREFERRED_MANY),
	.sets = disjoint, .cgroup = CGROUP_V2, .pressure = true,
};
FIXTURE_VARIANT_ADD(stress, vma_all_anon_flip_pressure) {
	.policy = VMA_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = flip, .cgroup = CGROUP_V2, .pressure = true, .churn = true,
};
/*
 * The same pressure with swap: reclaim now swaps the ballast and the
 * workers' resident pages out, and the migrations of every change meet
 * pages in swap, which must come back with their data.
 */
FIXTURE_VARIANT_ADD(stress, vma_all_anon_disjoint_swap) {
	.policy = VMA_POLICY, .memory = ANON, .modes = ALL_MODES,
	.sets = disjoint, .cgroup = CGROUP_V2, .pressure = true, .swap = true,
};

/*
 * An allocation in flight when the cpuset moves from {0,1} to {1,2} must
 * go on with the policy's nodes for {1,2}, not with those for {0,1}, which
 * leave it node 1 alone: node 1 is full, the others under pressure, so it
 * would OOM kill while node 2 has memory. Every policy is made over
 * {0,1,2}, so that none made in either set is confined to node 1 by
 * right.
 */
static const nodeset_t overlapping_pair[] = { N(0) | N(1), N(1) | N(2), 0 };
FIXTURE_VARIANT_ADD(stress, vma_bind_anon_overlapping_full) {
	.policy = VMA_POLICY, .memory = ANON,
	.modes = MODE(BIND) | MODE(PREFERRED_MANY),
	.sets = overlapping_pair, .cgroup = CGROUP_V2, .pressure = true,
	.full = N(1),
};
FIXTURE_VARIANT_ADD(stress, task_bind_anon_overlapping_full) {
	.policy = TASK_POLICY, .memory = ANON,
	.modes = MODE(BIND) | MODE(PREFERRED_MANY),
	.sets = overlapping_pair, .cgroup = CGROUP_V2, .pressure = true,
	.full = N(1),
};

/*
 * Flagged preferences for node 1 alone while the cpuset goes from {0,1}
 * to {2,3} and back: MPOL_F_STATIC_NODES leaves them no node, and they
 * allocate locally, until node 1 is allowed again. The task policy is remapped
 * under the task's allocations, which must never find the emptied nodes
 * half read (a node past the last, MAX_NUMNODES).
 */
FIXTURE_VARIANT_ADD(stress, task_preferred_static_emptied) {
	.policy = TASK_POLICY, .memory = ANON,
	.modes = MODE(PREFERRED) | MODE(PREFERRED_MANY), .user = N(1),
	.node_flags_only = true, .sets = halves, .cgroup = CGROUP_V2,
};

/*
 * e05741fb10c3's endless retry needs a task's BIND policy rebound in place
 * while its allocation is in the slow path, and reclaim on the new nodes
 * that keeps making progress: both nodes are full of clean page cache,
 * refilled as fast as reclaim frees it. kswapd keeps the allocators out
 * of the slow path most of the time; the squeezes put all of them in it
 * at once, and the writer writes inside each (squeeze.h).
 */
FIXTURE_VARIANT_ADD(stress, task_bind_anon_flip_reclaim) {
	.policy = TASK_POLICY, .memory = ANON, .modes = MODE(BIND),
	.sets = flip, .cgroup = CGROUP_V2, .feed = true, .squeeze = true,
};

static long oom_kills(void)
{
	return vm_events("oom_kill");
}

FIXTURE_SETUP(stress)
{
	nodeset_t memory;
	char want[64];
	int err;

	if (cmdline_number("numapol.stress_failfast", 0) &&
	    access(FAILED_MARK, F_OK) == 0)
		SKIP(return, "an earlier case failed (numapol.stress_failfast)");
	self->all_sets = 0;
	for (const nodeset_t *s = variant->sets; *s; s++)
		self->all_sets |= *s;
	ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
				  &memory));
	if ((self->all_sets & memory) != self->all_sets)
		SKIP(return, "needs memory on nodes %s",
		     nodeset_format(self->all_sets, want, sizeof(want)));

	ASSERT_LE(0, oom_kills()) TH_LOG("no oom_kill in /proc/vmstat");
	self->seconds = cmdline_number("numapol.stress_seconds", 8);
	self->stall = cmdline_number("numapol.stress_stall", 10);
	if (variant->swap && access(SWAP_DEVICE, F_OK))
		SKIP(return, "needs the swap disk " SWAP_DEVICE
		     " (a kernel with virtio block: a -wide flavour)");
	if (variant->feed && !disk_mounted())
		SKIP(return, "needs the ext4 disk at " DISK_DIR
		     " (a kernel with virtio block and ext4: a -wide flavour)");
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	/* Whatever an OOM kill picks, the monitor must live to report it. */
	ASSERT_EQ(0, write_text("/proc/self/oom_score_adj", "-1000"));

	err = cpuset_create(&self->cs, variant->cgroup, "stress",
			    variant->sets[0]);
	ASSERT_EQ(0, err) TH_LOG("creating the cpuset: %s", strerror(-err));
	if (variant->v1_migrate)
		ASSERT_EQ(0, cpuset_migrate_on_change(&self->cs));
	if (variant->memory == PAGECACHE) {
		ASSERT_EQ(0, mkdir(RAMFS_DIR, 0755) && errno != EEXIST ? -1 : 0);
		ASSERT_EQ(0, mount("ramfs", RAMFS_DIR, "ramfs", 0, NULL));
		self->ramfs_mounted = true;
	}
	if (variant->swap) {
		ASSERT_EQ(0, swapon(SWAP_DEVICE, 0))
			TH_LOG("swapon " SWAP_DEVICE ": %s", strerror(errno));
		self->swap_on = true;
	}
	if (variant->feed)
		ASSERT_EQ(0, feeders_start(&self->feeders, self->all_sets))
			TH_LOG("starting the page cache feeders: %s",
			       strerror(errno));
	if (variant->pressure)
		ASSERT_EQ(0, pressure_start(&self->pressure,
					    self->all_sets & ~variant->full,
					    variant->full))
			TH_LOG("could not fill nodes %s",
			       nodeset_format(self->all_sets, want, sizeof(want)));
	/* Last: the harness skips the teardown of a setup that failed. */
	if (variant->squeeze)
		ASSERT_EQ(0, squeeze_start(&self->squeeze))
			TH_LOG("starting the squeezes: %s", strerror(errno));
}

FIXTURE_TEARDOWN(stress)
{
	squeeze_stop(&self->squeeze);
	if (variant->pressure)
		pressure_stop(&self->pressure);
	if (variant->feed)
		feeders_stop(&self->feeders);
	if (self->swap_on)
		swapoff(SWAP_DEVICE);
	if (self->ramfs_mounted)
		umount(RAMFS_DIR);
	if (self->cs.dir[0])
		cpuset_destroy(&self->cs);
}

struct writer {
	const struct cpuset *cs;
	const nodeset_t *sets;
	struct stress_shared *sh;
	struct squeeze *squeeze;	/* write once in each, or NULL */
};

/*
 * Change cpuset.mems back to back, then let it settle, until stopped.
 * With squeezes, each burst is one write, inside a squeeze.
 */
static void *writer(void *arg)
{
	struct writer *wr = arg;
	struct stress_shared *sh = wr->sh;
	double burst = wr->squeeze ? 0 : BURST_SECONDS;
	size_t next = 1;

	while (!atomic_load(&sh->stop)) {
		unsigned long checks;
		nodeset_t mems;
		double end;

		if (wr->squeeze && !squeeze_wait(wr->squeeze, &sh->stop))
			break;
		end = now_seconds() + burst;
		atomic_fetch_add(&sh->writer_seq, 1);
		do {
			int err;

			mems = wr->sets[next];
			next = wr->sets[next + 1] ? next + 1 : 0;
			err = cpuset_set_mems(wr->cs, mems);
			if (err) {
				stress_fail(sh, "writing cpuset.mems: %s",
					    strerror(-err));
				return NULL;
			}
			atomic_fetch_add(&sh->cpuset_changes, 1);
		} while (!atomic_load(&sh->stop) && now_seconds() < end);
		atomic_store(&sh->settled_mems, mems);
		checks = atomic_load(&sh->placement_checks);
		atomic_fetch_add(&sh->writer_seq, 1);
		/*
		 * On a slow kernel (debug, under TCG) an iteration can take
		 * longer than SETTLE_SECONDS: hold on until one has checked
		 * its pages, for a second at most.
		 */
		sleep_unless_stopped(&sh->stop, SETTLE_SECONDS);
		for (int i = 0; i < 1000 && !atomic_load(&sh->stop) &&
		     atomic_load(&sh->placement_checks) == checks; i++)
			usleep(1000);
	}
	return NULL;
}

/*
 * Watch workers, OOM kills and progress until the time is up or a failure;
 * returns the longest time a thread went without finishing an iteration.
 */
static double monitor(struct stress_shared *sh, const pid_t *workers,
		      bool *alive, int threads, double seconds, double stall)
{
	double longest = 0;
	unsigned long iterations[MAX_THREADS] = { 0 };
	double last_progress[MAX_THREADS] = { 0 };
	long kills = oom_kills();
	double t;

	while (!atomic_load(&sh->stop) &&
	       (t = now_seconds() - sh->started) < seconds) {
		usleep(POLL_US);
		for (int i = 0; i < MAX_WORKERS; i++) {
			int status;

			if (!alive[i] || waitpid(workers[i], &status, WNOHANG) <= 0)
				continue;
			alive[i] = false;
			if (WIFSIGNALED(status))
				stress_fail(sh, "worker %d killed by %s", i,
					    strsignal(WTERMSIG(status)));
			else
				stress_fail(sh, "worker %d exited early (status %d)",
					    i, WEXITSTATUS(status));
		}
		if (oom_kills() != kills)
			stress_fail(sh, "OOM kill (/proc/vmstat oom_kill %ld -> %ld)",
				    kills, oom_kills());
		for (int i = 0; i < MAX_THREADS; i++) {
			unsigned long n = atomic_load(&sh->threads[i].iterations);

			/* Worker w's threads are w * THREADS_PER_WORKER + 0.. */
			if (i % THREADS_PER_WORKER >= threads)
				continue;
			if (t - last_progress[i] > longest)
				longest = t - last_progress[i];
			if (n != iterations[i]) {
				iterations[i] = n;
				last_progress[i] = t;
			} else if (t - last_progress[i] > stall) {
				stress_fail(sh, "thread %d made no progress for %.1f s (livelock)",
					    i, stall);
			}
		}
	}
	atomic_store(&sh->stop, 1);
	return longest;
}

/* Wait for @worker until @end; false if it is still there. */
static bool reaped(pid_t worker, double end)
{
	while (waitpid(worker, NULL, WNOHANG) == 0) {
		if (now_seconds() >= end)
			return false;
		usleep(POLL_US);
	}
	return true;
}

/*
 * Wait for the workers, kill those still running after the grace time,
 * and give up on those a SIGKILL does not end: they are stuck in the
 * kernel, and waiting for them would hang the suite.
 */
static void reap(struct stress_shared *sh, const pid_t *workers, bool *alive)
{
	double end = now_seconds() + GRACE_SECONDS;

	for (int i = 0; i < MAX_WORKERS; i++) {
		if (!alive[i] || reaped(workers[i], end))
			continue;
		kill(workers[i], SIGKILL);
		if (!reaped(workers[i], now_seconds() + GRACE_SECONDS))
			stress_fail(sh, "worker %d stuck in the kernel after SIGKILL", i);
	}
}

static void print_figures(struct stress_shared *sh, double elapsed,
			  double longest_pause, long direct_reclaims)
{
	unsigned long pages = 0;

	for (int i = 0; i < MAX_THREADS; i++)
		pages += atomic_load(&sh->threads[i].pages);
	ksft_print_msg("stress: %.0f cpuset changes/s (%lu), %.0f pages/s over %.1f s, %lu placement checks, %ld direct reclaims, a thread paused %.2f s at most\n",
		       atomic_load(&sh->cpuset_changes) / elapsed,
		       atomic_load(&sh->cpuset_changes), pages / elapsed,
		       elapsed, atomic_load(&sh->placement_checks),
		       direct_reclaims, longest_pause);
	if (atomic_load(&sh->failed))
		ksft_print_msg("stress: first failure after %.3f s: %s\n",
			       sh->failed_at, sh->failure);
}

TEST_F_TIMEOUT(stress, survives_cpuset_changes, 3600)
{
	struct workload w = {
		.policy = variant->policy, .memory = variant->memory,
		.modes = variant->modes,
		.user = variant->user ? variant->user : self->all_sets,
		.node_flags_only = variant->node_flags_only,
		.threads = variant->single_threaded ? 1 : THREADS_PER_WORKER,
		.churn = variant->churn, .cs = &self->cs, .sh = self->sh,
	};
	struct writer wr = {
		&self->cs, variant->sets, self->sh,
		variant->squeeze ? &self->squeeze : NULL,
	};
	struct stress_shared *sh = self->sh;
	long kills = oom_kills(), stalls = vm_events("allocstall_");
	pid_t workers[MAX_WORKERS];
	bool alive[MAX_WORKERS];
	pthread_t tid;
	double elapsed, longest_pause;

	/* Lets the host time a kernel crash from the console. */
	write_text("/dev/kmsg", "numapol-stress: case started");
	/* The cpuset was created on the first set. */
	atomic_store(&sh->settled_mems, variant->sets[0]);
	sh->started = now_seconds();
	for (int i = 0; i < MAX_WORKERS; i++) {
		workers[i] = fork();
		if (workers[i] == 0)
			_exit(workload_run(&w, i));
		alive[i] = workers[i] > 0;
		ASSERT_LT(0, workers[i]);
	}
	ASSERT_EQ(0, pthread_create(&tid, NULL, writer, &wr));
	longest_pause = monitor(sh, workers, alive, w.threads, self->seconds,
				self->stall);
	/*
	 * An allocation caught in e05741fb10c3's endless retry holds its
	 * VMA's lock, which the write that rebound its policy then waits
	 * for in mpol_rebind_mm(): no later write ends the retry, which goes
	 * on while reclaim makes progress. Without the page cache it
	 * reclaims, it gives up after MAX_RECLAIM_RETRIES, and the writer
	 * can finish. The squeezes stop first, so that vm.min_free_kbytes
	 * is not left raised while that runs out.
	 */
	squeeze_stop(&self->squeeze);
	if (variant->feed) {
		feeders_stop(&self->feeders);
		write_text("/proc/sys/vm/drop_caches", "1");
	}
	pthread_join(tid, NULL);
	elapsed = now_seconds() - sh->started;
	/*
	 * Lets allocators stuck on a stale nodemask finish, then reap them.
	 * The odd sequence tells the workers the cpuset is moving again.
	 */
	atomic_fetch_add(&sh->writer_seq, 1);
	cpuset_set_mems(&self->cs, self->all_sets);
	reap(sh, workers, alive);
	if (oom_kills() != kills)
		stress_fail(sh, "OOM kill (/proc/vmstat oom_kill %ld -> %ld)",
			    kills, oom_kills());
	if (atomic_load(&self->squeeze.error))
		stress_fail(sh, "writing vm.min_free_kbytes: %s",
			    strerror(atomic_load(&self->squeeze.error)));
	print_figures(sh, elapsed, longest_pause,
		      vm_events("allocstall_") - stalls);
	if (atomic_load(&sh->failed))
		close(creat(FAILED_MARK, 0644));
	ASSERT_EQ(0, atomic_load(&sh->failed)) TH_LOG("%s", sh->failure);
}

TEST_HARNESS_MAIN
