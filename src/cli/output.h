/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -o FILE: where results go, and that nothing else is broken on the way.
 *
 * A regular file (or a name not there yet) is written atomically: each
 * output goes to a temporary file in FILE's directory and is renamed over
 * FILE once complete, so a reader (node_exporter's textfile collector, a
 * CI step) never sees half of one; with -i every interval replaces the
 * last. An existing FILE keeps its mode, and its owner where we may set
 * it. A symlink at FILE is replaced, never written through.
 *
 * A character device (/dev/null, a terminal) or a FIFO cannot be replaced
 * without destroying it: named itself, it is opened once and written
 * through, as standard output would be (intervals follow one another); a
 * symlink to one is replaced like any symlink. FILE naming our standard
 * output (/dev/stdout) is standard output. Block devices,
 * sockets and directories are refused, and so is FILE when it is one of
 * the command's inputs (the same device and inode): the input would be
 * gone.
 */
#ifndef OFFCPU_OUTPUT_H
#define OFFCPU_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "fileattr.h"

enum out_kind {
	OUT_STDOUT,	/* no -o, or -o naming our standard output */
	OUT_FILE,	/* a regular file: temporary + rename */
	OUT_THROUGH,	/* a character device or FIFO: written through */
};

struct out {
	const char *path;	/* FILE, or NULL for stdout */
	enum out_kind kind;
	int fd;			/* OUT_THROUGH: open for the command, else -1 */
	struct file_attrs attrs;	/* OUT_FILE: the mode and owner of the file replaced */
	char tmp[4200];		/* the temporary beside it, "" when none open */
	FILE *f;		/* where to print: the temporary, the target, or stdout */
	int saved_stdout;	/* out_redirect(): fd 1 before, else -1 */
};

/* out_open() flags */
#define OUT_CHECK_ONLY	1u	/* --dry-run, a recording's target: check, open nothing */
#define OUT_RECORDING	2u	/* a trace.dat: only a regular file can hold one */

/*
 * Decide where -o @path (NULL: stdout) goes and check it can be written:
 * a directory that exists and is writable, not /proc, not a directory,
 * block device or socket, not any of @inputs (NULL-terminated paths, or
 * NULL; "-" is standard input); a FIFO has a reader. Opens a device or
 * FIFO target (out_close() closes it). 0, or a negative errno with
 * "cannot write FILE: why" in @err: -EINVAL for a usage error (no name,
 * one of the inputs), another errno when the target cannot be written.
 */
int out_open(struct out *o, const char *path, const char *const *inputs, unsigned flags,
	     char *err, size_t errlen);
/* Start one output (a temporary file for OUT_FILE). 0, or -errno with the reason in @err. */
int out_begin(struct out *o, char *err, size_t errlen);
/* ... and make stdout (fd 1) write there too, for commands that printf. */
int out_redirect(struct out *o, char *err, size_t errlen);
/*
 * Finish it: flushed; OUT_FILE: synced and renamed over @path when @keep
 * and nothing failed, else removed. 0, or -errno with the reason in @err.
 */
int out_end(struct out *o, bool keep, char *err, size_t errlen);
/* Close what out_open() opened; accepts an out never opened (zeroed). */
void out_close(struct out *o);

#endif
