// SPDX-License-Identifier: GPL-2.0-or-later
/* The elapsed/remaining line on a terminal's stderr during a window. */
#include <stdio.h>
#include <unistd.h>

#include "progress.h"

void progress_human(char *buf, size_t len, uint64_t s)
{
	if (s >= 3600)
		snprintf(buf, len, "%llu h %02llu min", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, len, "%llu min %02llu s", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llu s", (unsigned long long)s);
}

void progress_init(struct progress *p, uint64_t start_ns, uint64_t total_ns, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->shown = false;
	p->start_ns = start_ns;
	p->total_ns = total_ns;
	p->last_s = 0;
}

void progress_tick(struct progress *p, uint64_t now_ns)
{
	uint64_t s = now_ns > p->start_ns ? (now_ns - p->start_ns) / 1000000000ULL : 0;
	char a[32], b[32], t[32];

	/* nothing for short windows: the first line after a second */
	if (!p->on || s == 0 || s == p->last_s)
		return;
	p->last_s = s;
	progress_human(a, sizeof(a), s);
	if (p->total_ns) {
		/* whole seconds, rounded up: "3 s left" until the last second */
		uint64_t total = (p->total_ns + 999999999ULL) / 1000000000ULL;
		uint64_t left_ns = p->start_ns + p->total_ns > now_ns ?
				   p->start_ns + p->total_ns - now_ns : 0;

		progress_human(t, sizeof(t), total);
		progress_human(b, sizeof(b), (left_ns + 999999999ULL) / 1000000000ULL);
		fprintf(stderr, "\roffcpu-ftrace: %s of %s traced, %s left (Ctrl-C ends it "
			"early)\033[K", a, t, b);
	} else {
		fprintf(stderr, "\roffcpu-ftrace: %s traced (Ctrl-C ends it)\033[K", a);
	}
	fflush(stderr);
	p->shown = true;
}

void progress_clear(struct progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
}
