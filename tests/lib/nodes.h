/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Node sets as plain bitmasks, and the guest facts the suites read.
 *
 * The guests have at most 16 nodes, so one unsigned long holds a node set;
 * it is passed to the syscalls with maxnode = NODESET_BITS.
 */
#ifndef NUMAPOL_NODES_H
#define NUMAPOL_NODES_H

#include <stdbool.h>
#include <stddef.h>

typedef unsigned long nodeset_t;

#define NODESET_BITS	(8 * sizeof(nodeset_t))
#define NODE(n)		(1UL << (n))

static inline int nodeset_weight(nodeset_t s)
{
	return __builtin_popcountl(s);
}

static inline int nodeset_first(nodeset_t s)
{
	return s ? __builtin_ctzl(s) : -1;
}

/* Parse a kernel node list ("0-2,5"); returns -1 on malformed input. */
int nodeset_parse(const char *list, nodeset_t *out);
/* Format as a kernel node list; "" for the empty set. Returns buf. */
char *nodeset_format(nodeset_t s, char *buf, size_t len);

/* Read a whole small file into buf, newline stripped; -1 on error. */
int read_text(const char *path, char *buf, size_t len);
/* Write a string to a file (cgroup and sysfs knobs); -errno on error. */
int write_text(const char *path, const char *text);
/* Read a node list file such as /sys/devices/system/node/online. */
int read_nodeset(const char *path, nodeset_t *out);

/* The value of the last "name=" on the kernel command line, or NULL. */
const char *cmdline_param(const char *name, char *buf, size_t len);
/* The same as a number, or @fallback when "name=" is not there. */
double cmdline_number(const char *name, double fallback);
/*
 * The sum of the /proc/vmstat counters whose names start with @prefix, or
 * -1 when there is none (no CONFIG_VM_EVENT_COUNTERS).
 */
long vm_events(const char *prefix);

/*
 * Where guest/init mounts the empty ext4 file system of the virtio disk
 * scripts/boot.sh gives every guest; kernels without virtio block or ext4
 * (the tiny flavours) have none.
 */
#define DISK_DIR	"/mnt/disk"
/* True when DISK_DIR is an ext4 file system. */
bool disk_mounted(void);
/* The second virtio disk, which guest/init makes swap, not turned on. */
#define SWAP_DEVICE	"/dev/vdb"

/* CLOCK_MONOTONIC in seconds. */
double now_seconds(void);

/*
 * The node each page of [addr, addr + npages * page size) is on, through
 * move_pages() with no target nodes. Fills nodes[]; a page that is not
 * present gets a negative errno. Returns 0 or -errno.
 */
int page_nodes(void *addr, size_t npages, int *nodes);
/* The same for pages @stride bytes apart: huge pages. */
int page_nodes_every(void *addr, size_t npages, size_t stride, int *nodes);
/*
 * How many of the @npages pages at @addr are on each node. Returns 0, or
 * -errno when one is not present or the query fails.
 */
int count_page_nodes(void *addr, size_t npages, int counts[NODESET_BITS]);

#endif
