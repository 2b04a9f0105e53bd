/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file backend's shell (recshell.c): struct backend_ops implemented
 * once for a recording, over a per-CPU reader. The shell opens the file,
 * checks its structure (tdat_scan), counts its records, merges the CPUs in
 * time order and answers clock, lost, states, events, recording,
 * task_tgid and info; a reader turns the file's per-CPU data into
 * records. Two readers: libtracecmd's (replay.c, not in the static build)
 * and our own (tdatread.c). Local to tracefs/.
 */
#ifndef OFFCPU_RECSHELL_H
#define OFFCPU_RECSHELL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "fmt.h"
#include "recfile.h"
#include "tdat.h"

/* The recording as the shell opened it; the reader reads through it. */
struct rec_file {
	char path[PATH_MAX];		/* as given, for messages */
	int fd;				/* open on it, checked by tdat_scan() */
	struct tdat dat;		/* its structure */
	unsigned ncpu;			/* dat.ncpu, at least 1 */
	struct sched_layout layout;	/* the reader fills it from the file's
					 * formats and finalizes it in close() */
	bool layout_ok;			/* set by the reader: layout to finalize */
	uint64_t *lost;			/* per CPU; the reader adds what the
					 * page headers say */
};

/* One record of a CPU: valid until the next call for that CPU. */
struct rec_record {
	const void *data;
	uint32_t size;
	uint64_t ts;
};

/* A reader's state (each reader defines it). */
struct rec_streams;

/* What a reader provides. */
struct rec_reader {
	/*
	 * It applies the file's timestamp adjustments (guests, TSC offsets);
	 * the shell refuses such files for a reader that does not.
	 */
	bool ts_adjust;
	/*
	 * Read @f's formats into f->layout and make its per-CPU data ready to
	 * read. 0, or a negative errno with a one-line message in @err; *s is
	 * set even on failure when something must be closed.
	 */
	int (*open)(struct rec_streams **s, struct rec_file *f, char *err, size_t errlen);
	/* Start CPU @cpu at its first record again. 0 or a negative errno. */
	int (*rewind)(struct rec_streams *s, unsigned cpu);
	/* CPU @cpu's next record into @rec: 1, 0 at its end, or a negative errno. */
	int (*next)(struct rec_streams *s, unsigned cpu, struct rec_record *rec);
	/*
	 * The first pass read @n records of CPU @cpu and its last next()
	 * returned @ret (0 or a negative errno): 0, or a negative errno with
	 * a one-line message in @err.
	 */
	int (*counted)(struct rec_streams *s, unsigned cpu, uint64_t n, int ret, char *err,
		       size_t errlen);
	/* The kernel function at @addr from the recording's symbols: ksyms_format()'s contract. */
	int (*kframe)(struct rec_streams *s, uint64_t addr, char *buf, size_t len);
	/* Thread @tid's name from the file's saved_cmdlines: 0, or -ENOENT. */
	int (*comm)(struct rec_streams *s, int32_t tid, char *buf, size_t len);
	/* Free @s (finalizing f->layout when layout_ok); accepts NULL. */
	void (*close)(struct rec_streams *s);
};

/*
 * The file backend's open() with reader @rd. Also the shell's, declared
 * in recfile.h: replay_info() and replay_ksym_name() (the kframe op).
 */
int recshell_open(struct backend **b, const struct trace_req *req, const struct rec_reader *rd,
		  char *err, size_t errlen);

/* The ops every reader shares (RECSHELL_OPS), each over struct rec_reader. */
int recshell_nop(struct backend *b);
int recshell_wait(struct backend *b, int timeout_ms);
int recshell_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg);
const char *recshell_clock(struct backend *b, bool *is_mono);
unsigned recshell_lost(struct backend *b, uint64_t *lost, unsigned max);
const struct sched_states *recshell_states(struct backend *b);
unsigned recshell_events(struct backend *b);
int recshell_recording(struct backend *b, struct backend_window *w);
int recshell_switches(struct backend *b);
int32_t recshell_task_tgid(struct backend *b, int32_t tid);
int recshell_task_comm(struct backend *b, int32_t tid, char *buf, size_t len);
uint64_t recshell_recovered(struct backend *b);
uint64_t recshell_rejected(struct backend *b);
int recshell_close(struct backend *b, char *err, size_t errlen);

/*
 * The file backend's ops table with @open_fn (recshell_open() with a
 * reader). kframe is replay_ksym_name() (recfile.h): frames are addresses,
 * named from the recording's kallsyms, never the host's.
 */
#define RECSHELL_OPS(open_fn) {			\
	.name = "file",				\
	.caps = BCAP_EVENTS | BCAP_REPLAY,	\
	.source = "the recording's",		\
	.open = (open_fn),			\
	.start = recshell_nop,			\
	.stop = recshell_nop,			\
	.wait = recshell_wait,			\
	.read = recshell_read,			\
	.clock = recshell_clock,		\
	.lost = recshell_lost,			\
	.states = recshell_states,		\
	.events = recshell_events,		\
	.kframe = replay_ksym_name,		\
	.recording = recshell_recording,	\
	.task_tgid = recshell_task_tgid,	\
	.task_comm = recshell_task_comm,	\
	.recovered = recshell_recovered,	\
	.switches = recshell_switches,		\
	.rejected = recshell_rejected,		\
	.close = recshell_close,		\
}

#endif
