// SPDX-License-Identifier: GPL-2.0
/*
 * A program for operators' tools to run (numactl ... toucher): it keeps
 * whatever memory policy they gave it and, on commands read from stdin,
 * allocates and reports, so that a suite can change the cpuset under it
 * and see what the tools' policy does.
 *
 *   probe NODE   touch TOUCH_PAGES fresh pages from the CPUs of NODE (-1:
 *                any CPU) and print "counts N0 N1 ...", pages per node
 *   hold MIB     touch MIB MiB more and keep them; prints "held"
 *   show         run "numactl --show" in a child, which inherits the
 *                policy; its output, then "end"
 *
 * Exits at the end of its input, or 2 when a command fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/placement.h"

static int probe(int node)
{
	int counts[NODESET_BITS];

	if (pin_to_node(node) || touch_and_count(NULL, counts))
		return -1;
	printf("counts");
	for (int n = 0; n < (int)NODESET_BITS; n++)
		printf(" %d", counts[n]);
	printf("\n");
	return 0;
}

static int hold(long mib)
{
	size_t len = (size_t)mib << 20;
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED)
		return -1;
	memset(region, 1, len);
	printf("held\n");
	return 0;
}

static int show(void)
{
	int status;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		execl("/usr/bin/numactl", "numactl", "--show", (char *)NULL);
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	printf("end\n");
	return 0;
}

int main(void)
{
	char line[64];
	long arg;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		int rc = -1;

		if (sscanf(line, "probe %ld", &arg) == 1)
			rc = probe(arg);
		else if (sscanf(line, "hold %ld", &arg) == 1)
			rc = hold(arg);
		else if (!strcmp(line, "show\n"))
			rc = show();
		if (rc) {
			fprintf(stderr, "toucher: %s failed", line);
			return 2;
		}
	}
	return 0;
}
