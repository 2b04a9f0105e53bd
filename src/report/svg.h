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
/*
 * A flame graph of folded @lines ("a;b;c", largest first; the first @top,
 * 0 all) titled @title: frames above a "--" (offwaketime's waker part)
 * in a palette of their own. FLAME_WALL: a wall-clock profile's lines,
 * whose last frame is [on-cpu...], [runq] or an off-CPU kind; frames
 * mostly on a CPU are drawn warm, mostly waiting for one purple, the
 * rest blue, and the totals say wall-clock. FLAME_PROFILE: FLAME_WALL
 * with [waiting for children] (a parent in wait4) in green, a legend of
 * the four colours, and a label only where three characters and "..."
 * fit (or the whole name).
 */
enum flame_palette { FLAME_OFFCPU, FLAME_WALL, FLAME_PROFILE };
struct fold_line;
void svg_flame_lines(FILE *f, const struct report *r, const struct fold_line *lines, uint32_t n,
		     uint32_t top, const char *title, enum flame_palette pal);
/*
 * Writes entry @i's folded line (no time) to @f and its time to *@ns;
 * false leaves the entry out. @a and @b hold STACK_MAX_DEPTH frame names
 * each, for naming the entry's two stacks (kernel and user, or the
 * blocked thread's and its waker's).
 */
typedef bool flame_entry_fn(FILE *f, void *arg, size_t i, char (*a)[STACK_NAME_LEN],
			    char (*b)[STACK_NAME_LEN], uint64_t *ns);
/*
 * The folded lines of entries 0 to @n - 1 for svg_flame_lines() (or -f),
 * in entry order; @merge: identical lines merged, then the largest first
 * (by line where times tie). In *@out (free with stacks_fold_free()),
 * their number in *@nout. 0 or -ENOMEM.
 */
int flame_fold(size_t n, flame_entry_fn *entry, void *arg, bool merge, struct fold_line **out,
	       uint32_t *nout);
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
