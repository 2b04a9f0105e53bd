/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recordings: the raw ring-buffer pages of a trace written to a trace-cmd
 * trace.dat (file version 6), which `trace-cmd report` and KernelShark
 * open, and read back later as a backend ("file": recshell.c over a
 * reader, replay.c or tdatread.c).
 *
 * Besides the pages, a recording holds what decoding needs elsewhere:
 * header_page/header_event, the formats of the sched events and of ftrace's
 * kernel_stack/user_stack, saved_cmdlines, the trace clock (TRACECLOCK
 * option), uname (UNAME), each CPU's per_cpu/cpuN/stats (CPUSTAT), the
 * kernel symbols the captured kernel stacks need, and offcpu-ftrace's own
 * option (id TDAT_OPT_OFFCPU) with the window, lost counts and saved_tgids:
 *
 *	format=offcpu-ftrace 1
 *	clock=mono
 *	window_start_ns=1234
 *	window_end_ns=5678
 *	ncpu=2
 *	lost=0,3
 *	kernel_stacks=1
 *	kallsyms=subset		(subset, all, none or restricted)
 *	release=6.1.0-57-cloud-amd64
 *	instance=offcpu-ftrace-4242
 *	scope=command		(all, command, pid or tid: what the run traced)
 *	scope_id=4243		(the command's process, or the pid/tid)
 *	scope_command=make -j8	(the command, shell-quoted, on one line)
 *	recorder_pid=4242
 *
 *	saved_tgids:
 *	<the saved_tgids file (thread, process), when not empty: the
 *	recording enables record-tgid in its instance>
 *
 * Nothing here includes tracefs or libtracecmd headers.
 */
#ifndef OFFCPU_RECFILE_H
#define OFFCPU_RECFILE_H

#include "backend.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recfile;
struct backend;

/* What only the end of a capture knows. */
/* Where a recording's metadata comes from (a test points it at fixtures). */
struct recfile_src {
	const char *tracefs;	/* tracefs root, or a copy of its layout:
				 * events/header_page, events/header_event,
				 * events/<sys>/<event>/format, saved_cmdlines,
				 * saved_tgids */
	const char *instance;	/* under tracefs/instances/: per_cpu/cpuN/stats;
				 * NULL: tracefs itself */
	const char *kallsyms;	/* normally "/proc/kallsyms"; NULL: none */
	const char *uname;	/* "sysname nodename release machine";
				 * NULL: uname(2) */
	bool no_instance;	/* no per-CPU stats or saved_tgids (perf) */
};

/*
 * Start a recording of @ncpu CPUs' pages into @path (@instance_name NULL:
 * the pages are not an instance's, no per-CPU stats): written to a new
 * temporary file next to it (O_EXCL|O_NOFOLLOW, mode 0600) and renamed
 * into place by recfile_close(), so an existing file or symlink at @path
 * is replaced, never written through. Pages are spooled to an unnamed
 * file in the same directory until then. The formats are read now (from
 * @tracefs_dir/events), the rest at close. Returns 0, or a negative errno
 * with a one-line "cannot create FILE: reason" in @err.
 */
int recfile_open(struct recfile **r, const char *path, const char *tracefs_dir,
		 const char *instance_name, unsigned ncpu, char *err, size_t errlen);
/* The same, with every source given. */
int recfile_open_src(struct recfile **r, const char *path, const struct recfile_src *src,
		     unsigned ncpu, char *err, size_t errlen);

/*
 * One raw page (sub-buffer) of @cpu's ring buffer, as trace_pipe_raw
 * returned it; @len is the sub-buffer size, the same for every page.
 * Copied at once: @page may be reused on return. Returns 0 or a negative
 * errno (and recfile_close() then fails).
 */
int recfile_add_page(struct recfile *r, unsigned cpu, const void *page, size_t len);

/*
 * Write the trace.dat and rename it into place; frees @r whatever happens
 * (on failure nothing is left behind). Call while the instance still
 * exists: its per-CPU stats are read now. Returns 0, or a negative errno
 * with a one-line reason in @err.
 */
int recfile_close(struct recfile *r, const struct backend_window *m, char *err,
		  size_t errlen);

/* Stop without a recording: remove the partial output, free @r; accepts NULL. */
void recfile_abort(struct recfile *r);

/* ---- reading: the "file" backend (file_backend_ops, recshell.c) ---- */

/* What a recording says about itself. */
struct replay_info {
	const char *clock;		/* "unknown" when the file does not say */
	uint64_t window_start_ns;	/* the recorded window, or first event */
	uint64_t window_end_ns;		/* ... and last event */
	bool from_offcpu;		/* written by offcpu-ftrace (window and
					 * lost counts are the capture's own) */
	const char *uname;		/* NULL when not recorded */
	unsigned ncpu;
	unsigned file_version;		/* 6 or 7 */
	bool compressed;
	uint64_t records;		/* ring-buffer records in the file */
};

/*
 * Fill @out for a backend file_backend_ops (or tdatread_backend_ops)
 * opened; strings live as long as @b. -EINVAL when its open() failed.
 */
int replay_info(struct backend *b, struct replay_info *out);

/*
 * Name the kernel function at @addr from the recording's kallsyms into
 * @buf ("func"); returns 0, or -ENOENT after writing "0x<hex>". Also
 * file_backend_ops.kframe, so stacks are never named from the host's
 * /proc/kallsyms.
 */
int replay_ksym_name(struct backend *b, uint64_t addr, char *buf, size_t len);

#endif
