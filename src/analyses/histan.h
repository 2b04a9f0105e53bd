/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the analyses share: the report every one fills from the run
 * (report_from_view); and, for the histogram analyses (runq, offcpu,
 * oncpu, slower, wakers, profile), a histogram per group of what the
 * analyzer measured (run-queue waits, off-CPU intervals, on-CPU slices),
 * by stack with -K/-U, printed through report_print(), and the heat map
 * an svg with -i keeps. Not for other layers.
 */
#ifndef OFFCPU_HISTAN_H
#define OFFCPU_HISTAN_H

#include "analysis.h"
#include "openblk.h"

struct histan {
	struct heat *heat;		/* --format=svg -i: every interval */
	struct openblk open;		/* off-CPU: blocks open at the window's end */
	bool open_on;
};

int histan_setup(const struct trace_opts *o, struct analyzer *an, void **state);
void histan_free(void *state);
/*
 * What every analysis's report takes from the run (@v): the backend, the
 * window, the counts, what was lost, the steal; @rep zeroed first. The
 * analysis adds its groups and its own parts.
 */
void report_from_view(struct report *rep, const struct an_view *v,
		      enum rep_measure measure);
/*
 * report_from_view(), and the report of @m (the analyzer's runq or off
 * state) measuring @measure, in @rep (its stack part in @sr, with -K/-U);
 * an analysis may add its own part (rep->json_extra, text_body) before
 * report_emit().
 */
void histan_fill(struct histan *h, const struct an_view *v, enum out_format fmt,
		 struct an_mode_state *m, enum rep_measure measure, struct report *rep,
		 struct stack_report *sr);
/* histan_fill() and report_emit(). */
int histan_print(struct histan *h, const struct an_view *v, enum out_format fmt, FILE *f,
		 struct an_mode_state *m, enum rep_measure measure);
/* The options runq and offcpu refuse alike (stacks, formats): a usage error or NULL. */
const char *histan_check(const struct trace_opts *o);
/*
 * Why perf's context-switch records alone cannot serve these options
 * (stacks, --state, -c, --compat, a recording), or NULL: the runq,
 * offcpu and oncpu histograms need only who left, preempted or not, and
 * who came.
 */
const char *histan_no_records(const struct trace_opts *o);
/* What the common fields of an_cfg leave: the key as given. */
void histan_configure(const struct trace_opts *o, struct an_cfg *cfg);

/* --by cgroup, for analyses with rows of their own: thread @tid's cgroup id now, 0 unknown */
int an_cgroup_id(const struct analyzer *an, int32_t tid);
/* ... cgroup @id's name ("(unknown)" where none) and path (*path NULL: unknown) */
const char *an_cgroup_name(const struct analyzer *an, int id, const char **path);

#endif
