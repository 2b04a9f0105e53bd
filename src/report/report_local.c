// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers the report layer's files share: key names, comm for text. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_local.h"

const char *report_measure_title(enum rep_measure m)
{
	return m == MEASURE_RUNQ ? "Run-queue latency" : m == MEASURE_ONCPU ? "On-CPU time" :
	       "Off-CPU time";
}

const char *report_key_name(enum an_key k)
{
	switch (k) {
	case KEY_PID:
		return "pid";
	case KEY_TID:
		return "tid";
	case KEY_CPU:
		return "cpu";
	case KEY_COMM:
		return "comm";
	case KEY_CGROUP:
		return "cgroup";
	default:
		return NULL;
	}
}

bool report_key_named(enum an_key k)
{
	return k == KEY_COMM || k == KEY_CGROUP;
}

const char *report_group_name(const struct report *r, const struct group *g)
{
	if (r->key == KEY_CGROUP)
		return g->label ? g->label : "(unknown)";
	return g->comm;
}

void report_text_name(FILE *f, const struct report *r, const struct group *g)
{
	text_field(f, report_group_name(r, g), r->key == KEY_CGROUP ? 256 : COMM_LEN, 0);
}

const char *report_key_plural(enum an_key k)
{
	switch (k) {
	case KEY_PID:
		return "processes";
	case KEY_TID:
		return "threads";
	case KEY_CPU:
		return "CPUs";
	case KEY_CGROUP:
		return "cgroups";
	default:
		return "command names";
	}
}

/* comm for text output: control characters would corrupt the layout */
void report_text_comm(FILE *f, const char *s)
{
	text_field(f, s, COMM_LEN, 0);
}


uint32_t report_groups_shown(const struct report *r)
{
	return r->top && r->top < r->groups->n ? r->top : r->groups->n;
}

void report_not_shown(const struct report *r, uint32_t shown, uint64_t *n, uint64_t *ns)
{
	const struct groups *gs = r->groups;
	uint32_t i;

	*n = *ns = 0;
	for (i = shown; i < gs->n; i++) {
		*n += gs->v[i]->h.count;
		*ns += gs->v[i]->h.sum_ns;
	}
}

void report_print_not_shown(FILE *f, const struct report *r, uint32_t shown)
{
	const struct groups *gs = r->groups;
	uint64_t n, ns;

	if (shown >= gs->n)
		return;
	report_not_shown(r, shown, &n, &ns);
	fprintf(f, "# and %u more %s (--top %u): %" PRIu64 " interval%s, %.3f ms in all\n",
		gs->n - shown, report_key_plural(r->key), r->top, n, n == 1 ? "" : "s",
		(double)ns / 1e6);
}

void report_human_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e6)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}
