/* SPDX-License-Identifier: GPL-2.0 */
/* A program started in a cpuset, talked to through its stdin and stdout. */
#ifndef NUMAPOL_TOOLS_PROCESS_H
#define NUMAPOL_TOOLS_PROCESS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "cpuset.h"

struct process {
	pid_t pid;
	FILE *in;	/* its stdin, line buffered */
	FILE *out;	/* its stdout */
};

/*
 * Start @argv (a path and its arguments) in @cs, or where we are when @cs
 * is NULL: it joins the cpuset before it execs, so that whatever policy
 * it sets is made there. Its stderr goes where its stdout does (stress-ng
 * logs there). Returns 0 or -1.
 */
int process_start(struct process *p, const struct cpuset *cs,
		  char *const argv[]);
/*
 * Read its output into @buf (up to @len bytes) until a line that
 * contains @until, which is not kept, or to its end when @until is NULL.
 * Returns 0, or -1 when the output ended before @until.
 */
int process_read(struct process *p, const char *until, char *buf, size_t len);
/*
 * Close its stdin, read the rest of its output into @buf (up to @len
 * bytes; none when @buf is NULL) and wait: its exit status, or -1 if a
 * signal ended it.
 */
int process_finish(struct process *p, char *buf, size_t len);
/* Run @argv in @cs (or here) to its end, its output into @buf. */
int process_run(const struct cpuset *cs, char *const argv[], char *buf,
		size_t len);
/*
 * Pages of @pid per node, from its numa_maps: those of its anonymous
 * mappings (no file behind them) alone when @anon_only. Returns 0 or -1.
 */
int process_pages(pid_t pid, bool anon_only, long pages[NODESET_BITS]);

#endif
