/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the report layer's files share among themselves (not for other layers). */
#ifndef OFFCPU_REPORT_LOCAL_H
#define OFFCPU_REPORT_LOCAL_H

#include <stdio.h>

#include "report.h"

/* "Run-queue latency", "Off-CPU time": what @m measures, as a title. */
const char *report_measure_title(enum rep_measure m);
/* "pid", "tid", "cpu", "comm", or NULL for one histogram. */
const char *report_key_name(enum an_key k);
/* Groups to print, largest first: all, or --top's N. */
uint32_t report_groups_shown(const struct report *r);
/* The intervals and time of the groups from @shown on (those --top left out). */
void report_not_shown(const struct report *r, uint32_t shown, uint64_t *n, uint64_t *ns);
/* "# and N more processes (--top N): ..." when some were not printed. */
void report_print_not_shown(FILE *f, const struct report *r, uint32_t shown);
/* @ns as people read it: "830 us", "12.5 ms", "2.31 s" */
void report_human_ns(char *buf, size_t len, double ns);
/* comm for text output: control characters would corrupt the layout */
void report_text_comm(FILE *f, const char *s);
/* Groups named rather than numbered: per comm, per cgroup */
bool report_key_named(enum an_key k);
/* A named group's name: its comm, or its cgroup's display name */
const char *report_group_name(const struct report *r, const struct group *g);
/* ... for text output (control characters replaced) */
void report_text_name(FILE *f, const struct report *r, const struct group *g);
/* the groups' plural: "processes", "cgroups", ... */
const char *report_key_plural(enum an_key k);

/* sampled.c: a sampling backend's totals, as a table, a footer, JSON */
void sampled_print_table(FILE *f, struct report *r);
void sampled_print_footer(FILE *f, const struct backend_sampling *s, uint64_t command_cpu_ns);
void sampled_print_json(FILE *f, const struct backend_sampling *s, uint64_t command_cpu_ns);

#endif
