// SPDX-License-Identifier: GPL-2.0
#include "shared.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void sleep_unless_stopped(atomic_int *stop, double seconds)
{
	double end = now_seconds() + seconds;

	while (!atomic_load(stop) && now_seconds() < end)
		usleep(1000);
}

void stress_fail(struct stress_shared *sh, const char *fmt, ...)
{
	int expected = 0;
	va_list ap;

	if (!atomic_compare_exchange_strong(&sh->failed, &expected, 1))
		return;
	sh->failed_at = now_seconds() - sh->started;
	va_start(ap, fmt);
	vsnprintf(sh->failure, sizeof(sh->failure), fmt, ap);
	va_end(ap);
	atomic_store(&sh->stop, 1);
}
