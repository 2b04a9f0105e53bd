/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pictures: --format=svg. One self-contained SVG document per output, no
 * external references (no fonts, scripts or images fetched), every text
 * escaped. An off-CPU flame graph for stacks (flame.c), a log2 bucket
 * chart for one window's histograms and a latency heat map over -i
 * intervals (chart.c); svg.c holds what they share.
 */
#ifndef OFFCPU_SVG_H
#define OFFCPU_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "stackout.h"

/* Text for element content or an attribute value: & < > " ' escaped,
 * control characters as '?', at most @max bytes of @s. */
void svg_escape(FILE *f, const char *s, size_t max);
/* The XML prolog and <svg> element, a white background. */
void svg_begin(FILE *f, unsigned width, unsigned height);
/* The title and status lines every picture starts with; returns the y
 * below them. @status may be NULL. */
unsigned svg_heading(FILE *f, unsigned width, const char *title, const char *status);
void svg_end(FILE *f);
/* The report's window, backend and partial state, in one line. */
void svg_status(char *buf, size_t len, const struct report *r);

/* Off-CPU flame graph of r->stacks (interactive: tooltips, zoom, search). */
void svg_flame(FILE *f, const struct report *r);
/* One window's histograms: a bucket chart per group (--top N of them). */
void svg_charts(FILE *f, struct report *r);

/* -i: every interval's histograms, kept for a heat map. */
struct heat;
struct heat *heat_new(void);
void heat_free(struct heat *h);
/* Keep interval @r (its groups, and all of them merged). */
int heat_add(struct heat *h, const struct report *r);
/* The heat map of all intervals kept: x time, y latency bucket, colour
 * count; one panel for all threads and one per group of the --top N. */
void svg_heatmap(FILE *f, const struct heat *h, const struct report *last);

#endif
