// SPDX-License-Identifier: GPL-2.0
#include "squeeze.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/nodes.h"
#include "shared.h"

#define MIN_FREE	"/proc/sys/vm/min_free_kbytes"
/*
 * The allocators meet a raise within LEAD_SECONDS: then the writer may
 * write. It stays raised HOLD_SECONDS more; the pause lets the allocators
 * run at full speed between two squeezes.
 */
#define LEAD_SECONDS	0.1
#define HOLD_SECONDS	0.4
#define PAUSE_SECONDS	0.5

static int set_min_free(long kb)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", kb);
	return write_text(MIN_FREE, text);
}

static void *squeezer(void *arg)
{
	struct squeeze *s = arg;

	while (!atomic_load(&s->stop)) {
		if (set_min_free(s->raised_kb))
			goto failed;
		sleep_unless_stopped(&s->stop, LEAD_SECONDS);
		atomic_fetch_add(&s->squeezes, 1);
		sleep_unless_stopped(&s->stop, HOLD_SECONDS);
		if (set_min_free(s->old_kb))
			goto failed;
		sleep_unless_stopped(&s->stop, PAUSE_SECONDS);
	}
	return NULL;
failed:
	atomic_store(&s->error, errno);
	atomic_store(&s->stop, 1);
	return NULL;
}

int squeeze_start(struct squeeze *s)
{
	char text[32];
	nodeset_t memory;
	int err;

	s->running = false;
	atomic_store(&s->stop, 0);
	atomic_store(&s->error, 0);
	atomic_store(&s->squeezes, 0);
	if (read_text(MIN_FREE, text, sizeof(text)) ||
	    read_nodeset("/sys/devices/system/node/has_memory", &memory))
		return -1;
	s->old_kb = atol(text);
	s->raised_kb = s->old_kb +
		       (long)SQUEEZE_KB_PER_NODE * nodeset_weight(memory);
	err = pthread_create(&s->tid, NULL, squeezer, s);
	if (err) {
		errno = err;
		return -1;
	}
	s->running = true;
	return 0;
}

bool squeeze_wait(struct squeeze *s, atomic_int *stop)
{
	unsigned long seen = atomic_load(&s->squeezes);

	while (atomic_load(&s->squeezes) == seen) {
		if (atomic_load(stop) || atomic_load(&s->stop))
			return false;
		usleep(1000);
	}
	return true;
}

void squeeze_stop(struct squeeze *s)
{
	if (!s->running)
		return;
	atomic_store(&s->stop, 1);
	pthread_join(s->tid, NULL);
	if (set_min_free(s->old_kb) && !atomic_load(&s->error))
		atomic_store(&s->error, errno);
	s->running = false;
}
