// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A sampling backend's results (proc): per group the count and total from
 * the kernel's counters, as a table; no histogram, since no interval has
 * a time of its own. The footer says what this mode is and how far it saw.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "report_local.h"

void sampled_print_table(FILE *f, struct report *r)
{
	const char *kn = report_key_name(r->key);
	bool runq = r->measure == MEASURE_RUNQ, on = r->measure == MEASURE_ONCPU;
	struct groups *gs = r->groups;
	uint32_t i, shown;

	groups_sort_by_total(gs);
	shown = report_groups_shown(r);
	fprintf(f, "%s per %s, from the kernel's counters (largest first):\n",
		runq ? "run-queue waits" : on ? "on-CPU time" : "off-CPU time",
		r->key == KEY_PID ? "process" : r->key == KEY_TID ? "thread" :
		r->key == KEY_COMM ? "command name" : r->key == KEY_CGROUP ? "cgroup" : "window");
	fprintf(f, "%8s %-16s %10s %14s %12s\n", r->key == KEY_PID ? "PID" :
		r->key == KEY_TID ? "TID" : "", r->key == KEY_CGROUP ? "CGROUP" : kn ? "COMM" : "", runq ? "WAITS" : on ? "SLICES" : "INTERVALS",
		r->unit, "mean");
	if (gs->n == 0)
		fprintf(f, "%8s %-16s %10d %14d %12s\n", "", kn ? "(none)" : "all", 0, 0, "-");
	for (i = 0; i < shown; i++) {
		const struct group *g = gs->v[i];
		double tot = (double)g->h.sum_ns / (double)r->unit_ns;

		if (!kn)
			fprintf(f, "%8s %-16s", "", "all");
		else if (g->id == GROUP_OTHER)
			fprintf(f, "%8s %-16s", "other", "");
		else if (r->key == KEY_CGROUP) {
			const char *name = report_group_name(r, g);

			fprintf(f, "%8s ", "");
			report_text_name(f, r, g);
			fprintf(f, "%*s", (int)(strlen(name) < 16 ? 16 - strlen(name) : 0), "");
		} else {
			if (r->key == KEY_COMM)
				fprintf(f, "%8s ", "");
			else
				fprintf(f, "%8" PRId64 " ", g->id);
			report_text_comm(f, g->comm);
			fprintf(f, "%*s", (int)(16 - strnlen(g->comm, COMM_LEN)), "");
		}
		fprintf(f, " %10" PRIu64 " %14.1f ", g->h.count, tot);
		if (g->h.count)
			fprintf(f, "%12.1f\n", tot / (double)g->h.count);
		else
			fprintf(f, "%12s\n", "-");
	}
	report_print_not_shown(f, r, shown);
	fputc('\n', f);
}

void sampled_print_footer(FILE *f, const struct backend_sampling *s, uint64_t command_cpu_ns)
{
	fprintf(f, "# sampled from /proc at %g Hz without tracing privileges: totals exact "
		"(the kernel's schedstat and switch counts), no distribution", s->hz);
	if (s->hz_min < s->hz)
		fprintf(f, "; the rate was lowered to %.3g Hz to bound the cost of sampling "
			"this many threads", s->hz_min);
	if (s->stacks)
		fprintf(f, "; stacks sampled (%s)", !strcmp(s->stacks, "stack") ?
			"/proc/<tid>/stack" : "wchan: one frame, own processes only");
	fputc('\n', f);
	fprintf(f, "# %" PRIu64 " thread%s sampled, %" PRIu64 " ended between two samples "
		"(up to the last %.0f ms of each not seen); threads that start and end between "
		"two samples are not seen at all\n", s->threads, s->threads == 1 ? "" : "s",
		s->vanished, 1000.0 / s->hz_min);
	if (command_cpu_ns)
		fprintf(f, "# CPU time seen: %.3f s of the %.3f s the command and its waited-for "
			"children used (%.0f%%)\n", (double)s->cpu_seen_ns / 1e9,
			(double)command_cpu_ns / 1e9,
			100.0 * (double)s->cpu_seen_ns / (double)command_cpu_ns);
}

void sampled_print_json(FILE *f, const struct backend_sampling *s, uint64_t command_cpu_ns)
{
	fprintf(f, ",\"sampled\":{\"hz\":%g,\"hz_min\":%.3g,\"threads\":%" PRIu64
		",\"vanished\":%" PRIu64 ",\"cpu_seen_s\":%.6f,\"command_cpu_s\":", s->hz,
		s->hz_min, s->threads, s->vanished, (double)s->cpu_seen_ns / 1e9);
	if (command_cpu_ns)
		fprintf(f, "%.6f", (double)command_cpu_ns / 1e9);
	else
		fputs("null", f);
	fputs(",\"stacks\":", f);
	if (s->stacks)
		json_str(f, s->stacks, 16);
	else
		fputs("null", f);
	fputc('}', f);
}
