// SPDX-License-Identifier: GPL-2.0-or-later
/* OpenMetrics: the families, fixed-bound histograms, and each window's status. */
#include <inttypes.h>
#include <string.h>

#include "backend.h"
#include "openmetrics.h"

static const struct {
	const char *name, *type, *help;
	unsigned max_exp;
} fams[OM_NFAMILIES] = {
	[OM_RUNQ] = { "offcpu_ftrace_runq_latency_seconds", "histogram",
		      "Run-queue latency: from runnable (a wakeup or a preemption) to running.",
		      24 },
	[OM_OFFCPU] = { "offcpu_ftrace_offcpu_time_seconds", "histogram",
			"Off-CPU time: from switch-out to switch-in.", 32 },
	[OM_BLOCKED] = { "offcpu_ftrace_blocked_seconds", "histogram",
			 "Off-CPU intervals that began blocked (not preempted), without the "
			 "wait for a CPU after the wakeup.", 32 },
	[OM_SAMPLED_RUNQ] = { "offcpu_ftrace_sampled_runq_latency_seconds", "summary",
			      "Run-queue waits from the kernel's counters sampled in /proc: "
			      "count and total, no distribution.", 0 },
	[OM_SAMPLED_OFFCPU] = { "offcpu_ftrace_sampled_offcpu_time_seconds", "summary",
				"Off-CPU intervals from the kernel's counters sampled in /proc: "
				"count and total, no distribution.", 0 },
	[OM_SAMPLED_BLOCKED] = { "offcpu_ftrace_sampled_blocked_seconds", "summary",
				 "Blocked intervals from the kernel's counters sampled in /proc: "
				 "count and total, no distribution.", 0 },
	[OM_ONCPU] = { "offcpu_ftrace_oncpu_time_seconds", "histogram",
		       "On-CPU time per timeslice: from switch-in to switch-out.", 32 },
	[OM_SAMPLED_ONCPU] = { "offcpu_ftrace_sampled_oncpu_time_seconds", "summary",
			       "On-CPU time from the kernel's counters sampled in /proc: "
			       "timeslices and total, no distribution.", 0 },
};

unsigned om_max_exponent(enum om_family fam)
{
	return fams[fam].max_exp;
}

void om_family_head(FILE *f, enum om_family fam)
{
	fprintf(f, "# TYPE %s %s\n# UNIT %s seconds\n# HELP %s %s\n", fams[fam].name,
		fams[fam].type, fams[fam].name, fams[fam].name, fams[fam].help);
}

enum om_family om_sampled(enum om_family traced)
{
	return traced == OM_RUNQ ? OM_SAMPLED_RUNQ : traced == OM_OFFCPU ? OM_SAMPLED_OFFCPU :
	       traced == OM_BLOCKED ? OM_SAMPLED_BLOCKED : traced == OM_ONCPU ? OM_SAMPLED_ONCPU :
	       traced;
}

void om_series(FILE *f, enum om_family fam, const char *labels, const struct hist *h)
{
	const char *name = fams[fam].name;
	const char *sep = labels[0] ? "," : "";
	uint64_t cum = 0;
	unsigned k;

	if (fams[fam].max_exp) {
		/* slot k holds floored microseconds below 2^k: le = 2^k us */
		for (k = 0; k <= fams[fam].max_exp; k++) {
			cum += h->slot[k];
			fprintf(f, "%s_bucket{%s%sle=\"%.12g\"} %" PRIu64 "\n", name, labels, sep,
				(double)((uint64_t)1 << k) / 1e6, cum);
		}
		fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, sep,
			h->count);
	}
	fprintf(f, "%s_count%s%s%s %" PRIu64 "\n", name, labels[0] ? "{" : "", labels,
		labels[0] ? "}" : "", h->count);
	fprintf(f, "%s_sum%s%s%s %.9f\n", name, labels[0] ? "{" : "", labels,
		labels[0] ? "}" : "", (double)h->sum_ns / 1e9);
}

static void gauge(FILE *f, const char *name, const char *unit, const char *help)
{
	fprintf(f, "# TYPE %s gauge\n", name);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

void om_status_init(struct om_status *s, const char *command, const char *backend,
		    double window_s, time_t end, const struct backend_sampling *sampling)
{
	memset(s, 0, sizeof(*s));
	s->command = command;
	s->backend = backend;
	s->window_s = window_s;
	s->end = end;
	s->sampled = sampling != NULL;
	s->sample_hz = sampling ? sampling->hz_min : 0;
}

void om_status_print(FILE *f, const struct om_status *s)
{
	const char *c = s->command;

	gauge(f, "offcpu_ftrace_window_seconds", "seconds",
	      "How long tracing (or sampling) was on for these values.");
	fprintf(f, "offcpu_ftrace_window_seconds{command=\"%s\",backend=\"%s\"} %.6f\n", c,
		s->backend, s->window_s);
	gauge(f, "offcpu_ftrace_window_end_timestamp_seconds", "seconds",
	      "When the window ended (Unix time): alert when it gets old.");
	fprintf(f, "offcpu_ftrace_window_end_timestamp_seconds{command=\"%s\"} %lld\n", c,
		(long long)s->end);
	gauge(f, "offcpu_ftrace_lost_events", NULL,
	      "Events the kernel could not store in the window (results partial when > 0).");
	fprintf(f, "offcpu_ftrace_lost_events{command=\"%s\"} %" PRIu64 "\n", c, s->lost);
	gauge(f, "offcpu_ftrace_missed_switches", NULL,
	      "Context switches of the selected threads the trace lacked.");
	fprintf(f, "offcpu_ftrace_missed_switches{command=\"%s\"} %" PRIu64 "\n", c,
		s->missed_switches);
	gauge(f, "offcpu_ftrace_unmeasured_intervals", NULL,
	      "Intervals of the selected threads the trace could not measure (a wakeup or "
	      "switch missing).");
	fprintf(f, "offcpu_ftrace_unmeasured_intervals{command=\"%s\"} %" PRIu64 "\n", c,
		s->unmeasured);
	gauge(f, "offcpu_ftrace_recovered_switches", NULL,
	      "Context switches the sched_switch tracepoint did not record, taken from perf's "
	      "context-switch records.");
	fprintf(f, "offcpu_ftrace_recovered_switches{command=\"%s\"} %" PRIu64 "\n", c,
		s->recovered);
	gauge(f, "offcpu_ftrace_partial", NULL,
	      "1 when events, switches or intervals of the selected threads are missing from "
	      "these values.");
	fprintf(f, "offcpu_ftrace_partial{command=\"%s\"} %d\n", c, s->partial ? 1 : 0);
	gauge(f, "offcpu_ftrace_sampled", NULL,
	      "1 when the values are the kernel's counters sampled in /proc (no tracing "
	      "privileges): totals exact, no distribution.");
	fprintf(f, "offcpu_ftrace_sampled{command=\"%s\"} %d\n", c, s->sampled ? 1 : 0);
	if (s->sampled) {
		gauge(f, "offcpu_ftrace_sample_rate_hertz", "hertz",
		      "The lowest rate /proc was sampled at in the window.");
		fprintf(f, "offcpu_ftrace_sample_rate_hertz{command=\"%s\"} %g\n", c,
			s->sample_hz);
	}
	fputs("# EOF\n", f);
}
