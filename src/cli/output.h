/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -o FILE: results written atomically. Each output goes to a temporary
 * file in FILE's directory and is renamed over FILE once complete, so a
 * reader (node_exporter's textfile collector, a CI step) never sees half
 * of one; with -i every interval replaces the last.
 */
#ifndef OFFCPU_OUTPUT_H
#define OFFCPU_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct out {
	const char *path;	/* FILE, or NULL for stdout */
	char tmp[4200];		/* the temporary beside it, "" when none open */
	FILE *f;		/* where to print: the temporary, or stdout */
	int saved_stdout;	/* out_redirect(): fd 1 before, else -1 */
};

/*
 * Start one output to @path (NULL: stdout). 0, or -errno with "cannot
 * write FILE: why" in @err (a directory that is missing or not writable,
 * a path that is a directory or in /proc).
 */
int out_begin(struct out *o, const char *path, char *err, size_t errlen);
/* ... and make stdout (fd 1) write there too, for commands that printf. */
int out_redirect(struct out *o, char *err, size_t errlen);
/*
 * Finish it: flushed, synced and renamed over @path when @keep and
 * nothing failed, else removed. 0, or -errno with the reason in @err.
 */
int out_end(struct out *o, bool keep, char *err, size_t errlen);

#endif
