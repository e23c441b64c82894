// SPDX-License-Identifier: GPL-2.0
#include "feeders.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/mpol.h"
#include "../lib/placement.h"

/* Eight times a node of the usual guest: the reads never hit the cache. */
#define FEED_FILE_SIZE		(4LL << 30)
#define FEED_CHUNK		(1 << 20)

static void feed_path(int node, int reader, char *buf, size_t len)
{
	snprintf(buf, len, DISK_DIR "/feed-%d-%d", node, reader);
}

/* A feeder's life: bound to @node, it reads @fd's holes for ever. */
static void feed(int node, int fd)
{
	nodeset_t mask = NODE(node);
	char *buf;

	/* Like the workers, it must not hold the suite's output pipe. */
	if (!freopen("/dev/null", "w", stdout) ||
	    !freopen("/dev/null", "w", stderr))
		_exit(1);
	/*
	 * On the node's CPUs, where its kswapd runs: sharing them with the
	 * feeders leaves kswapd less time to keep ahead of the allocators.
	 */
	if (set_mempolicy(MPOL_BIND, &mask, NODESET_BITS) || pin_to_node(node))
		_exit(1);
	buf = malloc(FEED_CHUNK);
	if (!buf)
		_exit(1);
	for (off_t off = 0;; off = (off + FEED_CHUNK) % FEED_FILE_SIZE)
		if (pread(fd, buf, FEED_CHUNK, off) < 0 && errno != EINTR)
			_exit(1);
}

int feeders_start(struct feeders *f, nodeset_t nodes)
{
	f->count = 0;
	for (int i = 0; i < (int)NODESET_BITS * FEEDERS_PER_NODE; i++) {
		int n = i / FEEDERS_PER_NODE, fd;
		char path[64];
		pid_t pid;

		if (!(nodes & NODE(n)))
			continue;
		feed_path(n, i % FEEDERS_PER_NODE, path, sizeof(path));
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, FEED_FILE_SIZE)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		pid = fork();
		if (pid == 0)
			feed(n, fd);
		close(fd);
		if (pid < 0)
			return -1;
		f->pids[f->count++] = pid;
	}
	return 0;
}

void feeders_stop(struct feeders *f)
{
	for (int i = 0; i < f->count; i++) {
		kill(f->pids[i], SIGKILL);
		waitpid(f->pids[i], NULL, 0);
	}
	f->count = 0;
	for (int i = 0; i < (int)NODESET_BITS * FEEDERS_PER_NODE; i++) {
		char path[64];

		feed_path(i / FEEDERS_PER_NODE, i % FEEDERS_PER_NODE, path,
			  sizeof(path));
		unlink(path);
	}
}
