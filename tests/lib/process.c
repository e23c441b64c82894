// SPDX-License-Identifier: GPL-2.0
#include "process.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int process_start(struct process *p, const struct cpuset *cs,
		  char *const argv[])
{
	int in[2], out[2];

	if (pipe(in))
		return -1;
	if (pipe(out)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0)
			_exit(126);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		if (cs && cpuset_attach(cs, getpid()))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = p->pid > 0 ? fdopen(in[1], "w") : NULL;
	p->out = p->pid > 0 ? fdopen(out[0], "r") : NULL;
	if (!p->in || !p->out) {
		if (p->pid > 0)
			kill(p->pid, SIGKILL);
		process_finish(p, NULL, 0);
		return -1;
	}
	setvbuf(p->in, NULL, _IOLBF, 0);
	return 0;
}

int process_read(struct process *p, const char *until, char *buf, size_t len)
{
	char line[256];
	size_t used = 0;

	if (buf && len)
		buf[0] = '\0';
	while (p->out && fgets(line, sizeof(line), p->out)) {
		if (until && strstr(line, until))
			return 0;
		if (buf && used + strlen(line) < len) {
			strcpy(buf + used, line);
			used += strlen(line);
		}
	}
	return until ? -1 : 0;
}

int process_finish(struct process *p, char *buf, size_t len)
{
	int status;

	if (p->in)
		fclose(p->in);
	/* Read to the end: a writer to a closed pipe would die of SIGPIPE. */
	process_read(p, NULL, buf, len);
	if (p->out)
		fclose(p->out);
	p->in = p->out = NULL;
	if (p->pid <= 0 || waitpid(p->pid, &status, 0) != p->pid)
		return -1;
	p->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int process_run(const struct cpuset *cs, char *const argv[], char *buf,
		size_t len)
{
	struct process p;

	if (process_start(&p, cs, argv))
		return -1;
	return process_finish(&p, buf, len);
}

int process_pages(pid_t pid, bool anon_only, long pages[NODESET_BITS])
{
	char path[64], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(pages, 0, NODESET_BITS * sizeof(*pages));
	while (fgets(line, sizeof(line), f)) {
		char *save, *word;

		if (anon_only && strstr(line, " file="))
			continue;
		for (word = strtok_r(line, " \n", &save); word;
		     word = strtok_r(NULL, " \n", &save)) {
			int node;
			long count;

			if (sscanf(word, "N%d=%ld", &node, &count) == 2 &&
			    node >= 0 && node < (int)NODESET_BITS)
				pages[node] += count;
		}
	}
	fclose(f);
	return 0;
}
