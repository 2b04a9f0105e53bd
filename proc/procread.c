// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers of a thread's /proc files: schedstat, stat, status, wchan, stack. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "procread.h"

int proc_parse_schedstat(const char *text, struct proc_sample *s)
{
	unsigned long long a, b, c;

	if (sscanf(text, "%llu %llu %llu", &a, &b, &c) != 3)
		return -EINVAL;
	s->exec_ns = a;
	s->run_delay_ns = b;
	s->pcount = c;
	return 0;
}

int proc_parse_stat(const char *text, struct proc_sample *s)
{
	unsigned long long v[PROC_STAT_NFIELDS];

	if (proc_stat_split(text, s->comm, sizeof(s->comm), &s->state, v))
		return -EINVAL;
	s->ppid = (int32_t)v[0];
	s->utime = v[10];	/* field 14 */
	s->stime = v[11];
	s->cutime = v[12];
	s->cstime = v[13];
	s->start_ticks = v[18];	/* field 22 */
	return 0;
}

int proc_parse_status(const char *text, struct proc_sample *s)
{
	const char *v = strstr(text, "\nvoluntary_ctxt_switches:");
	const char *nv = strstr(text, "\nnonvoluntary_ctxt_switches:");

	const char *name = !strncmp(text, "Name:\t", 6) ? text + 6 : NULL;
	const char *st = strstr(text, "\nState:\t");

	if (!v || !nv)
		return -EINVAL;
	s->vol = strtoull(v + 25, NULL, 10);
	s->invol = strtoull(nv + 28, NULL, 10);
	/* the name and state too, so a sample need not read stat again */
	if (name) {
		size_t n = strcspn(name, "\n");

		if (n > sizeof(s->comm) - 1)
			n = sizeof(s->comm) - 1;
		memcpy(s->comm, name, n);
		s->comm[n] = '\0';
	}
	if (st && st[8])
		s->state = st[8];
	return 0;
}

bool proc_parse_wchan(const char *text, char fn[PROC_FRAME_LEN])
{
	size_t n = strcspn(text, "\n");

	if (!n || (n == 1 && text[0] == '0'))
		return false;
	if (n >= PROC_FRAME_LEN)
		n = PROC_FRAME_LEN - 1;
	memcpy(fn, text, n);
	fn[n] = '\0';
	return true;
}

unsigned proc_parse_stack(const char *text, char frames[PROC_FRAMES][PROC_FRAME_LEN])
{
	struct proc_kframe f;
	const char *p = text;
	unsigned n = 0;

	while (*p && n < PROC_FRAMES) {
		size_t len;

		p = proc_kstack_line(p, &f);
		if (!f.name)
			continue;
		len = f.len < PROC_FRAME_LEN ? f.len : PROC_FRAME_LEN - 1;
		memcpy(frames[n], f.name, len);
		frames[n][len] = '\0';
		/* "func [mod]" when it fits */
		if (f.mod && len + 3 < PROC_FRAME_LEN)
			snprintf(frames[n] + len, PROC_FRAME_LEN - len, " [%.*s]", (int)f.mod_len,
				 f.mod);
		n++;
	}
	return n;
}
