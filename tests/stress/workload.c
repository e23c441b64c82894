// SPDX-License-Identifier: GPL-2.0
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/mpol.h"

#define FRESH_PAGES	256
#define RESIDENT_PAGES	64
#define HPAGE_SIZE	(2UL << 20)
#define THP_LEN		(2 * HPAGE_SIZE)
/*
 * Four pattern words a page: migration copies whole pages, so that finds
 * a lost or misplaced copy, while the fill stays cheap enough that the
 * threads spend their time faulting.
 */
#define WORD_STRIDE	1024
#define MAX_COMBOS	15

struct combo {
	int mode;
	unsigned int flags;
};

struct region {
	char *base;		/* what mmap() returned */
	size_t base_len;
	char *addr;		/* the pages under test, inside base */
	size_t len;
	int fd;			/* TMPFS and PAGECACHE, else -1 */
};

struct worker_thread {
	const struct workload *w;
	int id;			/* 0 .. MAX_THREADS - 1 */
	struct combo combos[MAX_COMBOS];
	int ncombos;
	char *resident;		/* lives as long as the thread */
	uint64_t resident_tag;
	char *write_buf;	/* PAGECACHE: what write() copies in */
};

static long page_size;

static int build_combos(unsigned int modes, bool node_flags_only,
			struct combo *out)
{
	static const unsigned int flags[] = {
		0, MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES
	};
	int n = 0;

	for (int mode = 0; mode < 32; mode++) {
		if (!(modes & (1U << mode)))
			continue;
		for (size_t f = node_flags_only; f < sizeof(flags) / sizeof(flags[0]); f++)
			out[n++] = (struct combo){ mode, flags[f] };
	}
	return n;
}

static void fill(char *addr, size_t len, uint64_t tag)
{
	for (size_t off = 0; off < len; off += WORD_STRIDE)
		*(volatile uint64_t *)(addr + off) = tag ^ off;
}

/* The offset of the first word that lost its pattern, or -1. */
static long find_corruption(const char *addr, size_t len, uint64_t tag)
{
	for (size_t off = 0; off < len; off += WORD_STRIDE)
		if (*(const volatile uint64_t *)(addr + off) != (tag ^ off))
			return off;
	return -1;
}

static int set_policy(const struct worker_thread *t, const struct combo *c,
		      char *addr, size_t len)
{
	nodeset_t user = t->w->user;
	int err;

	if (t->w->policy == TASK_POLICY)
		err = set_mempolicy(c->mode | c->flags, &user, NODESET_BITS);
	else
		err = mbind(addr, len, c->mode | c->flags, &user, NODESET_BITS, 0);
	/*
	 * No policy can be made over nodes none of which the cpuset allows:
	 * the one made before stays, and a static one has no node left,
	 * the state node_flags_only workloads are after.
	 */
	if (err && errno == EINVAL && t->w->node_flags_only &&
	    (c->flags & MPOL_F_STATIC_NODES))
		return 0;
	return err;
}

static int map_region(const struct worker_thread *t, struct region *r)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	*r = (struct region){ .fd = -1, .len = FRESH_PAGES * page_size };
	switch (t->w->memory) {
	case THP:
		r->len = THP_LEN;
		r->base_len = THP_LEN + HPAGE_SIZE;
		break;
	case TMPFS:
		r->fd = memfd_create("stress", 0);
		if (r->fd < 0 || ftruncate(r->fd, r->len))
			return -1;
		flags = MAP_SHARED;
		break;
	case PAGECACHE: {
		char path[64];

		snprintf(path, sizeof(path), RAMFS_DIR "/thread-%d", t->id);
		r->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		/* Mapped only after write() has allocated the page cache. */
		return r->fd < 0 ? -1 : 0;
	}
	case ANON:
		break;
	}
	if (!r->base_len)
		r->base_len = r->len;
	r->base = mmap(NULL, r->base_len, PROT_READ | PROT_WRITE, flags,
		       r->fd, 0);
	if (r->base == MAP_FAILED)
		return -1;
	r->addr = r->base;
	if (t->w->memory == THP) {
		r->addr = (char *)(((uintptr_t)r->base + HPAGE_SIZE - 1) &
				   ~(HPAGE_SIZE - 1));
		if (madvise(r->addr, r->len, MADV_HUGEPAGE))
			return -1;
	}
	return 0;
}

static void unmap_region(struct region *r)
{
	if (r->base && r->base != MAP_FAILED)
		munmap(r->base, r->base_len);
	if (r->fd >= 0)
		close(r->fd);
}

/* Allocate the region's pages by filling them with @tag's pattern. */
static int populate(const struct worker_thread *t, struct region *r,
		    uint64_t tag)
{
	if (t->w->memory != PAGECACHE) {
		fill(r->addr, r->len, tag);
		return 0;
	}
	fill(t->write_buf, r->len, tag);
	if (pwrite(r->fd, t->write_buf, r->len, 0) != (ssize_t)r->len)
		return -1;
	r->base_len = r->len;
	r->base = mmap(NULL, r->len, PROT_READ, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED)
		return -1;
	r->addr = r->base;
	return 0;
}

/* Pages outside @allowed, or -1 when move_pages() fails. */
static int pages_outside(const struct region *r, nodeset_t allowed,
			 int *first_node)
{
	size_t npages = r->len / page_size;
	int nodes[THP_LEN / 4096], outside = 0;

	if (page_nodes(r->addr, npages, nodes))
		return -1;
	for (size_t i = 0; i < npages; i++) {
		/* Not present (a page being migrated): nothing to judge. */
		if (nodes[i] < 0 || (allowed & NODE(nodes[i])))
			continue;
		if (!outside++)
			*first_node = nodes[i];
	}
	return outside;
}

static int iterate(struct worker_thread *t, unsigned long i)
{
	struct stress_shared *sh = t->w->sh;
	const struct combo *c = &t->combos[(t->id + i) % t->ncombos];
	uint64_t tag = ((uint64_t)t->id << 56) ^ (i << 20);
	unsigned long seq;
	nodeset_t settled;
	struct region r;
	int outside, node = -1;
	long bad;

	if (t->w->policy == TASK_POLICY && set_policy(t, c, NULL, 0)) {
		stress_fail(sh, "thread %d: set_mempolicy(%s%s): %s", t->id,
			    mpol_mode_name(c->mode), mpol_flags_name(c->flags),
			    strerror(errno));
		return -1;
	}
	if (map_region(t, &r)) {
		stress_fail(sh, "thread %d: mapping memory: %s", t->id,
			    strerror(errno));
		goto fail;
	}
	if (t->w->policy != TASK_POLICY && set_policy(t, c, r.addr, r.len)) {
		stress_fail(sh, "thread %d: mbind(%s%s): %s", t->id,
			    mpol_mode_name(c->mode), mpol_flags_name(c->flags),
			    strerror(errno));
		goto fail;
	}

	seq = atomic_load(&sh->writer_seq);
	settled = atomic_load(&sh->settled_mems);
	if (populate(t, &r, tag)) {
		stress_fail(sh, "thread %d: allocating %zu bytes of %s: %s",
			    t->id, r.len, mpol_mode_name(c->mode),
			    strerror(errno));
		goto fail;
	}
	bad = find_corruption(r.addr, r.len, tag);
	if (bad < 0)
		bad = find_corruption(t->resident, RESIDENT_PAGES * page_size,
				      t->resident_tag);
	if (bad >= 0) {
		stress_fail(sh, "thread %d: data corrupted at offset %ld (%s%s)",
			    t->id, bad, mpol_mode_name(c->mode),
			    mpol_flags_name(c->flags));
		goto fail;
	}

	/*
	 * Only while the cpuset is settled: move_pages() holds the mmap lock
	 * that every cpuset.mems write needs, and would slow the writer. The
	 * reads above have mapped the page cache pages it looks up.
	 */
	outside = seq & 1 ? 0 : pages_outside(&r, settled, &node);
	if (outside < 0) {
		stress_fail(sh, "thread %d: move_pages: %s", t->id,
			    strerror(errno));
		goto fail;
	}
	/* The cpuset stayed on @settled for the whole allocation. */
	if (!(seq & 1) && seq == atomic_load(&sh->writer_seq))
		atomic_fetch_add(&sh->placement_checks, 1);
	else
		outside = 0;
	if (outside) {
		char want[64];

		stress_fail(sh, "thread %d: %d pages of %s %s outside cpuset.mems %s, one on node %d",
			    t->id, outside, mpol_mode_name(c->mode),
			    mpol_flags_name(c->flags),
			    nodeset_format(settled, want, sizeof(want)), node);
		goto fail;
	}
	unmap_region(&r);
	atomic_fetch_add(&sh->threads[t->id].pages, r.len / page_size);
	atomic_fetch_add(&sh->threads[t->id].iterations, 1);
	return 0;
fail:
	unmap_region(&r);
	return -1;
}

static void *allocator(void *arg)
{
	struct worker_thread *t = arg;

	for (unsigned long i = 0; !atomic_load(&t->w->sh->stop); i++)
		if (iterate(t, i))
			break;
	return NULL;
}

/*
 * Change policies while the allocators fault: mbind() the threads'
 * resident regions, which they read back, and this thread's own task
 * policy, under which it touches one fresh page each time.
 */
static void *churn(void *arg)
{
	struct worker_thread *threads = arg;
	const struct workload *w = threads[0].w;
	nodeset_t user = w->user;
	char *page;

	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		stress_fail(w->sh, "churn: mmap: %s", strerror(errno));
		return NULL;
	}
	for (unsigned long i = 0; !atomic_load(&w->sh->stop); i++) {
		const struct worker_thread *t = &threads[i % w->threads];
		const struct combo *c = &t->combos[i % t->ncombos];

		if (mbind(t->resident, RESIDENT_PAGES * page_size,
			  c->mode | c->flags, &user, NODESET_BITS, 0) ||
		    set_mempolicy(c->mode | c->flags, &user, NODESET_BITS)) {
			stress_fail(w->sh, "churn: %s%s: %s",
				    mpol_mode_name(c->mode),
				    mpol_flags_name(c->flags), strerror(errno));
			break;
		}
		madvise(page, page_size, MADV_DONTNEED);
		*(volatile char *)page = 1;
	}
	munmap(page, page_size);
	return NULL;
}

static int setup_thread(struct worker_thread *t, const struct workload *w,
			int id)
{
	size_t len = RESIDENT_PAGES * page_size;

	*t = (struct worker_thread){ .w = w, .id = id };
	t->ncombos = build_combos(w->modes, w->node_flags_only, t->combos);
	t->resident_tag = (uint64_t)id << 56 | 0xfeedULL << 32;
	t->resident = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->resident == MAP_FAILED)
		return -1;
	fill(t->resident, len, t->resident_tag);
	if (w->memory != PAGECACHE)
		return 0;
	t->write_buf = malloc(FRESH_PAGES * page_size);
	return t->write_buf ? 0 : -1;
}

int workload_run(const struct workload *w, int index)
{
	struct worker_thread threads[THREADS_PER_WORKER];
	pthread_t tids[THREADS_PER_WORKER], churner;
	int err;

	page_size = sysconf(_SC_PAGESIZE);
	/*
	 * Workers report through @w->sh only. A worker stuck in the kernel
	 * must not hold the suite's output pipe open, or the guest waits for
	 * it forever.
	 */
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return 2;
	/* The monitor shields itself from the OOM killer; workers do not. */
	if (write_text("/proc/self/oom_score_adj", "0"))
		return 2;
	err = cpuset_attach(w->cs, getpid());
	if (err) {
		stress_fail(w->sh, "worker %d: joining the cpuset: %s", index,
			    strerror(-err));
		return 1;
	}
	for (int i = 0; i < w->threads; i++) {
		if (setup_thread(&threads[i], w, index * THREADS_PER_WORKER + i)) {
			stress_fail(w->sh, "worker %d: setup: %s", index,
				    strerror(errno));
			return 1;
		}
	}
	/*
	 * Thread 0 allocates on the main thread: a cpuset.mems write updates
	 * the tasks of a process in turn, the thread group leader first, and
	 * rebinds the mm's VMA policies right after the leader's mems. Only
	 * a fault of the task updated first runs with new mems and an old
	 * VMA policy, the window 902b62810a57 is about, so the leader must be
	 * an allocator, not a thread parked in pthread_join().
	 */
	for (int i = 1; i < w->threads; i++)
		pthread_create(&tids[i], NULL, allocator, &threads[i]);
	if (w->churn)
		pthread_create(&churner, NULL, churn, threads);
	allocator(&threads[0]);
	for (int i = 1; i < w->threads; i++)
		pthread_join(tids[i], NULL);
	if (w->churn)
		pthread_join(churner, NULL);
	return 0;
}
