// SPDX-License-Identifier: GPL-2.0
#include "nodes.h"

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int nodeset_parse(const char *list, nodeset_t *out)
{
	nodeset_t s = 0;
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return -1;
		}
		if (hi >= (long)NODESET_BITS)
			return -1;
		for (long n = lo; n <= hi; n++)
			s |= NODE(n);
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	*out = s;
	return 0;
}

char *nodeset_format(nodeset_t s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int n = 0; n < (int)NODESET_BITS; n++) {
		int hi = n;

		if (!(s & NODE(n)))
			continue;
		while (hi + 1 < (int)NODESET_BITS && (s & NODE(hi + 1)))
			hi++;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 hi > n ? "%s%d-%d" : "%s%d", used ? "," : "",
				 n, hi);
		n = hi;
	}
	return buf;
}

int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, buf, len - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t done;
	int err;

	if (fd < 0)
		return -errno;
	done = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	return done < 0 ? -err : 0;
}

int read_nodeset(const char *path, nodeset_t *out)
{
	char buf[256];

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	return nodeset_parse(buf, out);
}

const char *cmdline_param(const char *name, char *buf, size_t len)
{
	char line[4096], *word, *save;
	size_t nlen = strlen(name);
	const char *found = NULL;

	if (read_text("/proc/cmdline", line, sizeof(line)))
		return NULL;
	/* The last one counts: CMDLINE= comes after a flavour's defaults. */
	for (word = strtok_r(line, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		if (strncmp(word, name, nlen) || word[nlen] != '=')
			continue;
		snprintf(buf, len, "%s", word + nlen + 1);
		found = buf;
	}
	return found;
}

double cmdline_number(const char *name, double fallback)
{
	char buf[32];

	return cmdline_param(name, buf, sizeof(buf)) ? atof(buf) : fallback;
}

#define EXT4_SUPER_MAGIC	0xEF53

bool disk_mounted(void)
{
	struct statfs fs;

	return statfs(DISK_DIR, &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int page_nodes(void *addr, size_t npages, int *nodes)
{
	return page_nodes_every(addr, npages, sysconf(_SC_PAGESIZE), nodes);
}

int page_nodes_every(void *addr, size_t npages, size_t stride, int *nodes)
{
	void **pages = calloc(npages, sizeof(*pages));
	long ret;

	if (!pages)
		return -ENOMEM;
	for (size_t i = 0; i < npages; i++)
		pages[i] = (char *)addr + i * stride;
	ret = move_pages(0, npages, pages, NULL, nodes, 0);
	free(pages);
	return ret < 0 ? -errno : 0;
}

int count_page_nodes(void *addr, size_t npages, int counts[NODESET_BITS])
{
	int *nodes = calloc(npages, sizeof(*nodes));
	int err = nodes ? page_nodes(addr, npages, nodes) : -ENOMEM;

	memset(counts, 0, NODESET_BITS * sizeof(*counts));
	for (size_t i = 0; !err && i < npages; i++) {
		if (nodes[i] < 0 || nodes[i] >= (int)NODESET_BITS)
			err = -ENOENT;
		else
			counts[nodes[i]]++;
	}
	free(nodes);
	return err;
}

/*
 * The sum of the /proc/vmstat counters whose names start with @prefix, or
 * -1 when there is none (no CONFIG_VM_EVENT_COUNTERS).
 */
long vm_events(const char *prefix)
{
	size_t len = strlen(prefix);
	char line[128];
	long sum = -1, value;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *space = strchr(line, ' ');

		if (strncmp(line, prefix, len) || !space ||
		    sscanf(space, "%ld", &value) != 1)
			continue;
		sum = (sum < 0 ? 0 : sum) + value;
	}
	if (f)
		fclose(f);
	return sum;
}
