// SPDX-License-Identifier: GPL-2.0
/*
 * Invalid memory policy calls, in the style of LTP's mbind01: every row of
 * the table is a call that must fail with a given errno and leave the
 * task's policy, the VMA policies and the pages where they were.
 *
 * The errnos come from the man pages (set_mempolicy(2), get_mempolicy(2),
 * mbind(2), migrate_pages(2), move_pages(2); set_mempolicy_home_node() has
 * none) and from mm/mempolicy.c and mm/migrate.c of Linux 6.12. Where the
 * two disagree, the row follows the kernel and its "why" says so; those
 * rows are listed in docs/badinput.md.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"
#include "../lib/mpol.h"

#define REGION_PAGES	8
/* Pages 0-3: BIND {1}; 4-5: a hole; 6-7: PREFERRED {0}. */
#define BIND_PAGE	0
#define HOLE_PAGE	4
#define PREFERRED_PAGE	6
/* Room for maxnode up to 4096 bits. */
#define MASK_WORDS	64
#define MAX_NUMNODES	1024	/* CONFIG_NODES_SHIFT=10 */
#define PAGE_BITS	(8 * 4096UL)
/* Offline in every topology the guests have (at most 8 nodes). */
#define OFFLINE_NODE	31
#define N(n)		NODE(n)

enum call {
	SET_MEMPOLICY, GET_MEMPOLICY, MBIND, HOME_NODE, MIGRATE_PAGES,
	MOVE_PAGES,
};

enum mask_kind {
	MASK_NODES,	/* .nodes */
	MASK_FAULT,	/* a PROT_NONE page */
	MASK_HIGH_BIT,	/* .nodes plus bit 1500, above MAX_NUMNODES */
};

enum addr_kind {
	ADDR_NONE,	/* NULL */
	ADDR_BIND,	/* the BIND pages */
	ADDR_PREFERRED,	/* the PREFERRED pages */
	ADDR_UNALIGNED,	/* BIND pages + 1 byte */
	ADDR_HOLE,	/* the hole */
	ADDR_ACROSS,	/* from the BIND pages through the hole */
	ADDR_FAULT,	/* a PROT_NONE page, for pointer arguments */
};

enum needs {
	NEEDS_NOTHING,
	NEEDS_CPUSET,	/* runs in a cpuset whose mems are {0, 1} */
	NEEDS_MEMLESS,	/* a memoryless node, named by numapol.memless */
};

FIXTURE(call) {
	char *region;
	long page;
	void *fault;		/* PROT_NONE */
	struct cpuset cs;
	int memless;
};

FIXTURE_VARIANT(call) {
	enum call call;
	int mode;		/* mode | mode flags; get_mempolicy's flags */
	nodeset_t nodes;
	enum mask_kind mask;
	long maxnode;		/* 0 means NODESET_BITS; -1 means 0 */
	enum addr_kind addr;
	long len_pages;		/* -1: a length that wraps around */
	unsigned int flags;	/* mbind, home node and move_pages flags */
	long node;		/* home node, move_pages target */
	bool no_such_pid;
	enum needs needs;
	int err;
	const char *why;
};

#define ROW(name, ...) \
	FIXTURE_VARIANT_ADD(call, name) { __VA_ARGS__ }

/* set_mempolicy(2) */
ROW(set_mode_past_max, .call = SET_MEMPOLICY, .mode = 7, .nodes = N(0),
    .err = EINVAL, .why = "man: mode is invalid");
ROW(set_mode_negative, .call = SET_MEMPOLICY, .mode = -1, .nodes = N(0),
    .err = EINVAL, .why = "man: mode is invalid");
ROW(set_static_and_relative, .call = SET_MEMPOLICY,
    .mode = MPOL_BIND | MPOL_NODE_FLAGS, .nodes = N(0), .err = EINVAL,
    .why = "man: both MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES");
ROW(set_default_with_nodes, .call = SET_MEMPOLICY, .mode = MPOL_DEFAULT,
    .nodes = N(0), .err = EINVAL, .why = "man: MPOL_DEFAULT and nodemask nonempty");
ROW(set_local_with_nodes, .call = SET_MEMPOLICY, .mode = MPOL_LOCAL,
    .nodes = N(0), .err = EINVAL, .why = "kernel: mpol_new() wants no nodes for MPOL_LOCAL");
ROW(set_local_static, .call = SET_MEMPOLICY,
    .mode = MPOL_LOCAL | MPOL_F_STATIC_NODES, .err = EINVAL,
    .why = "kernel: mpol_new() refuses node flags on MPOL_LOCAL");
ROW(set_local_relative, .call = SET_MEMPOLICY,
    .mode = MPOL_LOCAL | MPOL_F_RELATIVE_NODES, .err = EINVAL,
    .why = "kernel: mpol_new() refuses node flags on MPOL_LOCAL");
ROW(set_bind_empty, .call = SET_MEMPOLICY, .mode = MPOL_BIND, .err = EINVAL,
    .why = "man: MPOL_BIND and nodemask empty");
ROW(set_interleave_empty, .call = SET_MEMPOLICY, .mode = MPOL_INTERLEAVE,
    .err = EINVAL, .why = "man: MPOL_INTERLEAVE and nodemask empty");
ROW(set_weighted_empty, .call = SET_MEMPOLICY,
    .mode = MPOL_WEIGHTED_INTERLEAVE, .err = EINVAL,
    .why = "kernel: mpol_new() wants nodes; the man page predates the mode");
ROW(set_preferred_many_empty, .call = SET_MEMPOLICY,
    .mode = MPOL_PREFERRED_MANY, .err = EINVAL,
    .why = "kernel: mpol_new() wants nodes for MPOL_PREFERRED_MANY");
ROW(set_bind_static_empty, .call = SET_MEMPOLICY,
    .mode = MPOL_BIND | MPOL_F_STATIC_NODES, .err = EINVAL,
    .why = "man: MPOL_BIND and nodemask empty");
ROW(set_bind_maxnode_0, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(0), .maxnode = -1, .err = EINVAL,
    .why = "kernel: maxnode 0 reads no mask, which is empty");
ROW(set_bind_maxnode_1, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(0), .maxnode = 1, .err = EINVAL,
    .why = "kernel: get_nodes() reads maxnode - 1 bits (man: up to maxnode bits)");
ROW(set_bind_maxnode_2_drops_node_1, .call = SET_MEMPOLICY,
    .mode = MPOL_BIND, .nodes = N(1), .maxnode = 2, .err = EINVAL,
    .why = "kernel: get_nodes() reads maxnode - 1 bits, so node 1 is dropped (man: maxnode bits)");
ROW(set_bind_maxnode_3_unaligned, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(2), .maxnode = 3, .err = EINVAL,
    .why = "kernel: a maxnode that is no multiple of the word size masks the last word");
ROW(set_bind_maxnode_over_a_page, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(0), .maxnode = PAGE_BITS + 1, .err = EINVAL,
    .why = "man: maxnode specifies more than a page worth of bits");
ROW(set_bind_node_above_max, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(0), .mask = MASK_HIGH_BIT, .maxnode = 2048, .err = EINVAL,
    .why = "man: a node ID greater than the maximum supported");
ROW(set_bind_mask_fault, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .mask = MASK_FAULT, .err = EFAULT, .why = "man: nodemask outside the address space");
ROW(set_bind_offline, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(OFFLINE_NODE), .err = EINVAL, .why = "man: none of the nodes on-line");
ROW(set_interleave_offline, .call = SET_MEMPOLICY, .mode = MPOL_INTERLEAVE,
    .nodes = N(OFFLINE_NODE), .err = EINVAL, .why = "man: none of the nodes on-line");
ROW(set_weighted_offline, .call = SET_MEMPOLICY,
    .mode = MPOL_WEIGHTED_INTERLEAVE, .nodes = N(OFFLINE_NODE), .err = EINVAL,
    .why = "man: none of the nodes on-line");
ROW(set_preferred_offline, .call = SET_MEMPOLICY, .mode = MPOL_PREFERRED,
    .nodes = N(OFFLINE_NODE), .err = EINVAL, .why = "man: none of the nodes on-line");
ROW(set_preferred_many_offline, .call = SET_MEMPOLICY,
    .mode = MPOL_PREFERRED_MANY, .nodes = N(OFFLINE_NODE), .err = EINVAL,
    .why = "man: none of the nodes on-line");
ROW(set_bind_outside_cpuset, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .nodes = N(2) | N(3), .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(set_interleave_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_INTERLEAVE, .nodes = N(2) | N(3), .needs = NEEDS_CPUSET,
    .err = EINVAL, .why = "man: none of the nodes allowed by the cpuset");
ROW(set_weighted_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_WEIGHTED_INTERLEAVE, .nodes = N(2) | N(3),
    .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(set_preferred_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_PREFERRED, .nodes = N(2), .needs = NEEDS_CPUSET,
    .err = EINVAL, .why = "man: none of the nodes allowed by the cpuset");
ROW(set_preferred_many_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_PREFERRED_MANY, .nodes = N(2) | N(3),
    .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(set_bind_static_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_BIND | MPOL_F_STATIC_NODES, .nodes = N(2) | N(3),
    .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(set_interleave_static_outside_cpuset, .call = SET_MEMPOLICY,
    .mode = MPOL_INTERLEAVE | MPOL_F_STATIC_NODES, .nodes = N(2) | N(3),
    .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(set_bind_memoryless, .call = SET_MEMPOLICY, .mode = MPOL_BIND,
    .needs = NEEDS_MEMLESS, .err = EINVAL,
    .why = "man: none of the specified nodes contain memory");
ROW(set_balancing_on_interleave, .call = SET_MEMPOLICY,
    .mode = MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, .nodes = N(0),
    .err = EINVAL, .why = "man: MPOL_F_NUMA_BALANCING with a mode other than MPOL_BIND");
ROW(set_balancing_on_preferred, .call = SET_MEMPOLICY,
    .mode = MPOL_PREFERRED | MPOL_F_NUMA_BALANCING, .nodes = N(0),
    .err = EINVAL, .why = "man: MPOL_F_NUMA_BALANCING with a mode other than MPOL_BIND");

/* get_mempolicy(2): .mode holds its flags. */
ROW(get_unknown_flag, .call = GET_MEMPOLICY, .mode = 1 << 3, .err = EINVAL,
    .why = "man: flags other than MPOL_F_NODE or MPOL_F_ADDR");
ROW(get_mems_allowed_and_node, .call = GET_MEMPOLICY,
    .mode = MPOL_F_MEMS_ALLOWED | MPOL_F_NODE, .err = EINVAL,
    .why = "man: MPOL_F_MEMS_ALLOWED with MPOL_F_NODE");
ROW(get_mems_allowed_and_addr, .call = GET_MEMPOLICY,
    .mode = MPOL_F_MEMS_ALLOWED | MPOL_F_ADDR, .addr = ADDR_BIND,
    .err = EINVAL, .why = "man: MPOL_F_MEMS_ALLOWED with MPOL_F_ADDR");
ROW(get_addr_null, .call = GET_MEMPOLICY, .mode = MPOL_F_ADDR, .err = EFAULT,
    .why = "kernel: no VMA at NULL is -EFAULT (man: EINVAL)");
ROW(get_addr_unmapped, .call = GET_MEMPOLICY, .mode = MPOL_F_ADDR,
    .addr = ADDR_HOLE, .err = EFAULT, .why = "kernel: no VMA at addr is -EFAULT");
ROW(get_addr_without_flag, .call = GET_MEMPOLICY, .addr = ADDR_BIND,
    .err = EINVAL, .why = "man: addr not NULL without MPOL_F_ADDR");
ROW(get_node_not_interleave, .call = GET_MEMPOLICY, .mode = MPOL_F_NODE,
    .err = EINVAL, .why = "man: MPOL_F_NODE alone and the policy is not MPOL_INTERLEAVE");
ROW(get_maxnode_below_node_ids, .call = GET_MEMPOLICY, .maxnode = 1,
    .err = EINVAL, .why = "man: maxnode less than the number of node IDs");
ROW(get_mask_fault, .call = GET_MEMPOLICY, .mask = MASK_FAULT,
    .err = EFAULT, .why = "man: nodemask outside the address space");
ROW(get_mode_fault, .call = GET_MEMPOLICY, .addr = ADDR_FAULT,
    .mode = MPOL_F_NODE | MPOL_F_ADDR, .err = EFAULT,
    .why = "kernel: the mode pointer is written with put_user()");

/* mbind(2) */
ROW(mbind_mode_past_max, .call = MBIND, .mode = 7, .nodes = N(0),
    .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL, .why = "man: invalid mode");
ROW(mbind_static_and_relative, .call = MBIND,
    .mode = MPOL_BIND | MPOL_NODE_FLAGS, .nodes = N(0), .addr = ADDR_BIND,
    .len_pages = 1, .err = EINVAL,
    .why = "man: both MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES");
ROW(mbind_unknown_flag, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_BIND, .len_pages = 1, .flags = 1 << 5, .err = EINVAL,
    .why = "man: invalid flags");
ROW(mbind_lazy_flag, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_BIND, .len_pages = 1, .flags = 1 << 3, .err = EINVAL,
    .why = "kernel: MPOL_MF_LAZY is internal, outside MPOL_MF_VALID");
ROW(mbind_unaligned, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_UNALIGNED, .len_pages = 1, .err = EINVAL,
    .why = "man: addr not a multiple of the page size");
ROW(mbind_wraps, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_BIND, .len_pages = -1, .err = EINVAL,
    .why = "man: addr + len less than addr");
ROW(mbind_hole, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_HOLE, .len_pages = 2, .err = EFAULT,
    .why = "man: an unmapped hole in the range");
ROW(mbind_across_hole, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .addr = ADDR_ACROSS, .len_pages = 6, .err = EFAULT,
    .why = "man: an unmapped hole in the range");
ROW(mbind_default_with_nodes, .call = MBIND, .mode = MPOL_DEFAULT,
    .nodes = N(0), .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL,
    .why = "man: MPOL_DEFAULT and nodemask nonempty");
ROW(mbind_local_static, .call = MBIND, .mode = MPOL_LOCAL | MPOL_F_STATIC_NODES,
    .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL,
    .why = "kernel: mpol_new() refuses node flags on MPOL_LOCAL");
ROW(mbind_bind_empty, .call = MBIND, .mode = MPOL_BIND, .addr = ADDR_BIND,
    .len_pages = 1, .err = EINVAL, .why = "man: MPOL_BIND and nodemask empty");
ROW(mbind_interleave_empty, .call = MBIND, .mode = MPOL_INTERLEAVE,
    .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL,
    .why = "man: MPOL_INTERLEAVE and nodemask empty");
ROW(mbind_offline, .call = MBIND, .mode = MPOL_BIND, .nodes = N(OFFLINE_NODE),
    .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL,
    .why = "man: none of the nodes on-line");
ROW(mbind_outside_cpuset, .call = MBIND, .mode = MPOL_BIND,
    .nodes = N(2) | N(3), .addr = ADDR_BIND, .len_pages = 1,
    .needs = NEEDS_CPUSET, .err = EINVAL,
    .why = "man: none of the nodes allowed by the cpuset");
ROW(mbind_maxnode_over_a_page, .call = MBIND, .mode = MPOL_BIND,
    .nodes = N(0), .maxnode = PAGE_BITS + 1, .addr = ADDR_BIND,
    .len_pages = 1, .err = EINVAL, .why = "man: maxnode exceeds a kernel-imposed limit");
ROW(mbind_node_above_max, .call = MBIND, .mode = MPOL_BIND, .nodes = N(0),
    .mask = MASK_HIGH_BIT, .maxnode = 2048, .addr = ADDR_BIND,
    .len_pages = 1, .err = EINVAL, .why = "man: a node ID greater than the maximum supported");
ROW(mbind_mask_fault, .call = MBIND, .mode = MPOL_BIND, .mask = MASK_FAULT,
    .addr = ADDR_BIND, .len_pages = 1, .err = EFAULT,
    .why = "man: nodemask outside the address space");
ROW(mbind_balancing_on_interleave, .call = MBIND,
    .mode = MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, .nodes = N(0),
    .addr = ADDR_BIND, .len_pages = 1, .err = EINVAL,
    .why = "kernel: sanitize_mpol_flags() takes it for BIND and PREFERRED_MANY only");
ROW(mbind_memoryless, .call = MBIND, .mode = MPOL_BIND, .addr = ADDR_BIND,
    .len_pages = 1, .needs = NEEDS_MEMLESS, .err = EINVAL,
    .why = "man: none of the specified nodes contain memory");

/* set_mempolicy_home_node(): no man page, mm/mempolicy.c only. */
ROW(home_flags, .call = HOME_NODE, .addr = ADDR_BIND, .len_pages = 1,
    .flags = 1, .err = EINVAL, .why = "kernel: flags must be 0");
ROW(home_offline, .call = HOME_NODE, .addr = ADDR_BIND, .len_pages = 1,
    .node = OFFLINE_NODE, .err = EINVAL, .why = "kernel: the home node must be online");
ROW(home_above_max, .call = HOME_NODE, .addr = ADDR_BIND, .len_pages = 1,
    .node = MAX_NUMNODES, .err = EINVAL, .why = "kernel: home node >= MAX_NUMNODES");
ROW(home_unaligned, .call = HOME_NODE, .addr = ADDR_UNALIGNED,
    .len_pages = 1, .err = EINVAL, .why = "kernel: start not page aligned");
ROW(home_wraps, .call = HOME_NODE, .addr = ADDR_BIND, .len_pages = -1,
    .err = EINVAL, .why = "kernel: start + len wraps around");
ROW(home_on_preferred, .call = HOME_NODE, .addr = ADDR_PREFERRED,
    .len_pages = 1, .err = EOPNOTSUPP,
    .why = "kernel: only MPOL_BIND and MPOL_PREFERRED_MANY take a home node");
ROW(home_unmapped, .call = HOME_NODE, .addr = ADDR_HOLE, .len_pages = 2,
    .err = ENOENT, .why = "kernel: no VMA with a policy in the range");

/* migrate_pages(2): from .nodes to {.node}. */
ROW(migrate_no_such_pid, .call = MIGRATE_PAGES, .nodes = N(1), .node = 0,
    .no_such_pid = true, .err = ESRCH, .why = "man: no process matching pid");
ROW(migrate_to_offline, .call = MIGRATE_PAGES, .nodes = N(1),
    .node = OFFLINE_NODE, .err = EINVAL,
    .why = "man: none of new_nodes on-line (root passes the cpuset check)");
ROW(migrate_to_memoryless, .call = MIGRATE_PAGES, .nodes = N(1),
    .node = -1, .needs = NEEDS_MEMLESS, .err = EINVAL,
    .why = "kernel: new_nodes must have memory");
ROW(migrate_maxnode_over_a_page, .call = MIGRATE_PAGES, .nodes = N(1),
    .node = 0, .maxnode = PAGE_BITS + 1, .err = EINVAL,
    .why = "man: maxnode exceeds a kernel-imposed limit");
ROW(migrate_old_above_max, .call = MIGRATE_PAGES, .nodes = N(1),
    .mask = MASK_HIGH_BIT, .maxnode = 2048, .node = 0, .err = EINVAL,
    .why = "man: a node ID greater than the maximum supported");
ROW(migrate_old_fault, .call = MIGRATE_PAGES, .mask = MASK_FAULT,
    .node = 0, .err = EFAULT, .why = "man: old_nodes outside the address space");

/* move_pages(2): the BIND pages to .node. */
ROW(move_unknown_flag, .call = MOVE_PAGES, .node = 0,
    .flags = MPOL_MF_STRICT, .err = EINVAL,
    .why = "man: flags other than MPOL_MF_MOVE and MPOL_MF_MOVE_ALL");
ROW(move_no_such_pid, .call = MOVE_PAGES, .node = 0, .no_such_pid = true,
    .flags = MPOL_MF_MOVE, .err = ESRCH, .why = "man: process does not exist");
ROW(move_to_offline, .call = MOVE_PAGES, .node = OFFLINE_NODE,
    .flags = MPOL_MF_MOVE, .err = ENODEV, .why = "man: a target node is not online");
ROW(move_to_node_above_max, .call = MOVE_PAGES, .node = MAX_NUMNODES,
    .flags = MPOL_MF_MOVE, .err = ENODEV,
    .why = "kernel: a node >= MAX_NUMNODES is -ENODEV");
ROW(move_to_negative_node, .call = MOVE_PAGES, .node = -5,
    .flags = MPOL_MF_MOVE, .err = ENODEV, .why = "kernel: a negative node is -ENODEV");
ROW(move_outside_cpuset, .call = MOVE_PAGES, .node = 3,
    .flags = MPOL_MF_MOVE, .needs = NEEDS_CPUSET, .err = EACCES,
    .why = "man: a target node not allowed by the current cpuset");
ROW(move_to_memoryless, .call = MOVE_PAGES, .node = -1,
    .flags = MPOL_MF_MOVE, .needs = NEEDS_MEMLESS, .err = ENODEV,
    .why = "kernel: a node without memory is -ENODEV (man: not online)");
ROW(move_pages_fault, .call = MOVE_PAGES, .node = 0, .addr = ADDR_FAULT,
    .flags = MPOL_MF_MOVE, .err = EFAULT, .why = "man: the pages array cannot be read");

FIXTURE_SETUP(call)
{
	nodeset_t bind = N(1), preferred = N(0);

	self->memless = cmdline_number("numapol.memless", -1);
	if (variant->needs == NEEDS_MEMLESS && self->memless < 0)
		SKIP(return, "the topology has no memoryless node");
	self->page = sysconf(_SC_PAGESIZE);
	self->fault = mmap(NULL, self->page, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	self->region = mmap(NULL, REGION_PAGES * self->page,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->fault);
	ASSERT_NE(MAP_FAILED, self->region);
	ASSERT_EQ(0, munmap(self->region + HOLE_PAGE * self->page,
			    2 * self->page));
	ASSERT_EQ(0, mbind(self->region, HOLE_PAGE * self->page, MPOL_BIND,
			   &bind, NODESET_BITS, 0));
	ASSERT_EQ(0, mbind(self->region + PREFERRED_PAGE * self->page,
			   2 * self->page, MPOL_PREFERRED, &preferred,
			   NODESET_BITS, 0));
	memset(self->region, 1, HOLE_PAGE * self->page);
	memset(self->region + PREFERRED_PAGE * self->page, 1, 2 * self->page);
	/* The task policy the calls must leave alone. */
	ASSERT_EQ(0, set_mempolicy(MPOL_PREFERRED, &bind, NODESET_BITS));
	if (variant->needs == NEEDS_CPUSET) {
		ASSERT_EQ(0, cpuset_create(&self->cs, CGROUP_V2, "badinput",
					   N(0) | N(1)));
		ASSERT_EQ(0, cpuset_attach(&self->cs, getpid()));
	}
}

FIXTURE_TEARDOWN(call)
{
	if (self->cs.dir[0])
		cpuset_destroy(&self->cs);
}

/* What the calls must not change: policies and page placement. */
struct state {
	int task_mode, vma_mode[2];
	nodeset_t task_nodes, vma_nodes[2];
	int pages[REGION_PAGES];
};

static void snapshot(char *region, long page, struct state *s)
{
	memset(s, 0, sizeof(*s));
	get_mempolicy(&s->task_mode, &s->task_nodes, NODESET_BITS, NULL, 0);
	get_mempolicy(&s->vma_mode[0], &s->vma_nodes[0], NODESET_BITS,
		      region + BIND_PAGE * page, MPOL_F_ADDR);
	get_mempolicy(&s->vma_mode[1], &s->vma_nodes[1], NODESET_BITS,
		      region + PREFERRED_PAGE * page, MPOL_F_ADDR);
	page_nodes(region, HOLE_PAGE, s->pages);
	page_nodes(region + PREFERRED_PAGE * page, 2, s->pages + PREFERRED_PAGE);
}

static char *address(FIXTURE_DATA(call) *self, enum addr_kind kind)
{
	switch (kind) {
	case ADDR_BIND:
	case ADDR_ACROSS:
		return self->region + BIND_PAGE * self->page;
	case ADDR_PREFERRED:
		return self->region + PREFERRED_PAGE * self->page;
	case ADDR_UNALIGNED:
		return self->region + BIND_PAGE * self->page + 1;
	case ADDR_HOLE:
		return self->region + HOLE_PAGE * self->page;
	case ADDR_FAULT:
		return self->fault;
	case ADDR_NONE:
		break;
	}
	return NULL;
}

static long invoke(FIXTURE_DATA(call) *self,
		   const FIXTURE_VARIANT(call) *v)
{
	static unsigned long mask[MASK_WORDS], to[MASK_WORDS];
	unsigned long *nodes = mask, maxnode = NODESET_BITS;
	unsigned long len = v->len_pages * self->page;
	char *addr = address(self, v->addr);
	pid_t pid = v->no_such_pid ? 0x3fffffff : 0;
	int node = v->node < 0 ? self->memless : v->node;
	int mode, targets[HOLE_PAGE], status[HOLE_PAGE];
	void *pages[HOLE_PAGE];

	memset(mask, 0, sizeof(mask));
	memset(to, 0, sizeof(to));
	to[0] = node >= 0 && node < 64 ? NODE(node) : 0;
	mask[0] = v->needs == NEEDS_MEMLESS && v->call != MIGRATE_PAGES ?
		  NODE(self->memless) : v->nodes;
	if (v->mask == MASK_FAULT)
		nodes = self->fault;
	if (v->mask == MASK_HIGH_BIT)
		mask[1500 / 64] |= 1UL << (1500 % 64);
	if (v->maxnode)
		maxnode = v->maxnode < 0 ? 0 : v->maxnode;
	if (v->len_pages < 0)
		len = -2 * self->page;

	switch (v->call) {
	case SET_MEMPOLICY:
		return set_mempolicy(v->mode, nodes, maxnode);
	case GET_MEMPOLICY:
		/* ADDR_FAULT: the mode pointer faults, addr is valid. */
		return get_mempolicy(addr == self->fault ? self->fault : &mode,
				     nodes, maxnode,
				     addr == self->fault ? self->region : addr,
				     v->mode);
	case MBIND:
		return mbind(addr, len, v->mode, nodes, maxnode, v->flags);
	case HOME_NODE:
		return syscall(__NR_set_mempolicy_home_node, addr, len,
			       node, v->flags);
	case MIGRATE_PAGES:
		return migrate_pages(pid, maxnode, nodes, to);
	case MOVE_PAGES:
		for (int i = 0; i < HOLE_PAGE; i++) {
			pages[i] = self->region + (BIND_PAGE + i) * self->page;
			targets[i] = node;
		}
		return move_pages(pid, HOLE_PAGE,
				  addr == self->fault ? self->fault : pages,
				  targets, status, v->flags);
	}
	return 0;
}

TEST_F(call, fails_and_changes_nothing)
{
	struct state before, after;
	long ret;

	snapshot(self->region, self->page, &before);
	errno = 0;
	ret = invoke(self, variant);
	ASSERT_EQ(-1, ret) TH_LOG("succeeded, expected %s (%s)",
				  strerror(variant->err), variant->why);
	ASSERT_EQ(variant->err, errno) TH_LOG("got %s, expected %s (%s)",
					      strerror(errno),
					      strerror(variant->err),
					      variant->why);
	snapshot(self->region, self->page, &after);
	EXPECT_EQ(before.task_mode, after.task_mode);
	EXPECT_EQ(before.task_nodes, after.task_nodes);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(before.vma_mode[i], after.vma_mode[i]);
		EXPECT_EQ(before.vma_nodes[i], after.vma_nodes[i]);
	}
	EXPECT_EQ(0, memcmp(before.pages, after.pages, sizeof(before.pages)))
		TH_LOG("pages moved");
}

/*
 * Not an error, although node flags mean nothing without nodes: mpol_new()
 * returns the default policy before it looks at the flags. The man pages
 * are silent; this pins the behaviour down.
 */
TEST(default_ignores_node_flags)
{
	int mode = -1;

	ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT | MPOL_F_STATIC_NODES, NULL, 0));
	ASSERT_EQ(0, get_mempolicy(&mode, NULL, 0, NULL, 0));
	ASSERT_EQ(MPOL_DEFAULT, mode);
}

/* /sys/kernel/mm/mempolicy/weighted_interleave/nodeN takes a u8. */
#define WEIGHT_KNOB "/sys/kernel/mm/mempolicy/weighted_interleave/node0"

FIXTURE(weight) {
	char before[16];
};

FIXTURE_VARIANT(weight) {
	const char *text;
};

FIXTURE_VARIANT_ADD(weight, too_big) { .text = "256" };
FIXTURE_VARIANT_ADD(weight, negative) { .text = "-1" };
FIXTURE_VARIANT_ADD(weight, not_a_number) { .text = "heavy" };
FIXTURE_VARIANT_ADD(weight, two_numbers) { .text = "1 2" };
FIXTURE_VARIANT_ADD(weight, hex_too_big) { .text = "0x100" };

FIXTURE_SETUP(weight)
{
	if (read_text(WEIGHT_KNOB, self->before, sizeof(self->before)))
		SKIP(return, "no %s", WEIGHT_KNOB);
}

FIXTURE_TEARDOWN(weight)
{
}

TEST_F(weight, rejected_and_unchanged)
{
	char after[16];

	ASSERT_EQ(-EINVAL, write_text(WEIGHT_KNOB, variant->text))
		TH_LOG("kernel: node_store() takes what kstrtou8() parses");
	ASSERT_EQ(0, read_text(WEIGHT_KNOB, after, sizeof(after)));
	ASSERT_STREQ(self->before, after);
}

TEST_HARNESS_MAIN
