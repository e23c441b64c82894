// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own selftests for cpusets and NUMA page migration, as they
 * come with the tree (tools/testing/selftests/cgroup and mm, built by
 * tests/Makefile; the shell scripts run under Debian's bash-static): each
 * is a case here. It passes when the selftest passes, skips when the
 * selftest skips (exit 4) with the selftest's last line as the reason, and
 * fails otherwise. The selftest's output is logged as comments.
 *
 * Left out: test_cpuset_prs.sh, which needs 8 CPUs and util-linux, and is
 * about CPU partitions, which the series does not touch.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/cpuset.h"

#define KSFT_SKIP_EXIT	4

#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

FIXTURE(kselftest) {
	struct cpuset v1;
	char saved_hugepages[32];
};

FIXTURE_VARIANT(kselftest) {
	const char *argv[3];
	bool cpuset_v1;		/* finds a cgroup v1 cpuset mount */
	bool cpu_hotplug;	/* takes CPU 1 offline */
	/*
	 * Persistent huge pages to reserve first, as the kernel's
	 * run_vmtests.sh does: spread over the nodes, so that each has one
	 * to migrate to.
	 */
	const char *hugepages;
};

FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset) {
	.argv = { "/tests/ksft-test_cpuset" },
};
FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset_v1_base) {
	.argv = { "/bin/bash", "/tests/ksft-test_cpuset_v1_base.sh" },
	.cpuset_v1 = true,
};
FIXTURE_VARIANT_ADD(kselftest, cgroup_test_cpuset_v1_hp) {
	.argv = { "/bin/bash", "/tests/ksft-test_cpuset_v1_hp.sh" },
	.cpuset_v1 = true, .cpu_hotplug = true,
};
FIXTURE_VARIANT_ADD(kselftest, mm_migration) {
	.argv = { "/tests/ksft-migration" },
	.hugepages = "16",
};

FIXTURE_SETUP(kselftest)
{
	nodeset_t memory;

	if (variant->cpu_hotplug &&
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "this kernel cannot take CPU 1 offline");
	if (variant->hugepages) {
		ASSERT_EQ(0, read_text(NR_HUGEPAGES, self->saved_hugepages,
				       sizeof(self->saved_hugepages)));
		ASSERT_EQ(0, write_text(NR_HUGEPAGES, variant->hugepages));
	}
	/*
	 * The v1 scripts look for a mounted v1 cpuset hierarchy: a cpuset
	 * there makes one, once cgroup v2 has let the controller go.
	 */
	if (variant->cpuset_v1) {
		ASSERT_EQ(0, read_nodeset("/sys/devices/system/node/has_memory",
					  &memory));
		ASSERT_EQ(0, cpuset_create(&self->v1, CGROUP_V1,
					   "numapol-kselftest", memory));
	}
}

FIXTURE_TEARDOWN(kselftest)
{
	if (self->v1.dir[0])
		cpuset_destroy(&self->v1);
	if (self->saved_hugepages[0])
		write_text(NR_HUGEPAGES, self->saved_hugepages);
}

/*
 * Run @argv with its output logged; its exit status, -1 if it could not
 * run or was killed. @last gets its last line of output.
 */
static int run_logged(const char *const argv[], char *last, size_t len)
{
	char line[512];
	int pipefd[2], status;
	FILE *out;
	pid_t pid;

	last[0] = '\0';
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		printf("#   %s\n", line);
		if (line[0])
			snprintf(last, len, "%s", line);
	}
	if (out)
		fclose(out);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* mm_migration runs six cases of 20 s each, under TCG. */
TEST_F_TIMEOUT(kselftest, passes, 600)
{
	char last[512];
	int status;

	fflush(stdout);
	status = run_logged(variant->argv, last, sizeof(last));
	if (status == KSFT_SKIP_EXIT)
		SKIP(return, "%s", last);
	EXPECT_EQ(0, status) TH_LOG("exit status %d: %s", status, last);
}

TEST_HARNESS_MAIN
