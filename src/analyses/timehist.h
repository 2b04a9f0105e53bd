/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist's parts (timehist.c: the lines and the trace; thsum.c: the
 * summary, perf sched timehist -s and perf sched latency's columns).
 * Not for other files.
 */
#ifndef OFFCPU_TIMEHIST_H
#define OFFCPU_TIMEHIST_H

#include "histan.h"
#include "perfetto.h"
#include "posindex.h"
#include "tline.h"

/* timehist's own options (trace_opts.own): perf sched timehist's columns and parts */
struct timehist_opts {
	bool wakeups, migrations, visual, state;	/* -w, -M, -V, --state */
	bool summary, with_summary, idle_hist;		/* -s, -S, -I */
	bool perf61;		/* --compat=perf6.1: a preempted task's wait
				 * is wait time, not sch delay */
};
AN_OWN_OPTS(timehist_own, struct timehist_opts)

/* a running mean and spread (Welford), as perf's struct stats */
struct th_stats {
	uint64_t n, sum, min, max;
	double mean, m2;
};

/* one thread's account in the interval (the summary's row) */
struct th_row {
	int32_t tid, tgid;		/* tgid -1 unknown */
	char comm[COMM_LEN];
	int32_t last_cpu;		/* where it last ran, -1 unknown (-M) */
	struct th_stats run;		/* its runs (sched-in count, run time) */
	uint64_t delay_n, delay_ns;	/* its measured waits for a CPU */
	uint64_t delay_max, delay_max_at;	/* ... the longest, and its switch-in */
	uint64_t sleep_ns, iowait_ns, preempt_ns;	/* wait time by how it began */
	uint64_t migrations;
	struct th_stats idle;		/* -I: the CPU's idle after it left */
	bool totals;			/* the proc backend's: no single runs */
};

struct th_cpu {				/* per CPU */
	uint64_t idle_ns, idle_n;	/* its idle stretches in the interval */
	int32_t went_idle;		/* -I: the selected thread it idled after, 0 none */
};

struct timehist {
	const struct trace_opts *o;
	struct analyzer *an;
	struct histan h;
	struct tline tl;
	bool filtered;			/* -p/-t/-c/--cgroup/-- COMMAND: no idle lines */
	/* the lines: to the spool until stream() says they may go to stdout */
	FILE *spool, *out;
	bool streaming, doc_open, spool_failed;
	uint64_t listed;		/* events listed in this output */
	struct pftrace pf;		/* --format=perfetto */
	int vis_cpus;			/* -V: the CPU columns */
	bool wakings_seen;		/* -w: sched_waking is traced (perf prefers it) */
	/* the threads (bounded by --max-tasks) */
	struct th_row *rows;
	size_t nrows, caprows;
	struct posindex index;
	uint32_t maxrows;
	uint64_t rows_over;		/* runs of threads beyond --max-tasks */
	struct th_cpu *cpus;
	uint32_t ncpus;
	uint64_t first_ns, last_ns;	/* the interval's first and last switch */
	uint64_t marks[8];		/* runs listed with each TL_* bit */
	uint64_t wakeups, migrations;	/* -w, -M lines */
	/* profile --format=perfetto: its on-CPU samples, named through the run's symbols */
	const struct symbolizer *sym;
	uint64_t samples;
	/* a name cache for wakers and next tasks, direct-mapped */
	struct { int32_t tid; char comm[COMM_LEN]; } names[256];
};

/* @tid's row, made at its first run; NULL past --max-tasks */
struct th_row *th_row_of(struct timehist *t, int32_t tid);
/* ... or NULL when it has none */
struct th_row *th_row_find(struct timehist *t, int32_t tid);
/* the stretch @r of the summary's thread (and the CPU's idle) */
void th_sum_run(struct timehist *t, const struct tl_run *r);
/* the proc backend's totals of one thread */
void th_sum_totals(struct timehist *t, const struct an_thread *a, int32_t tgid);
/* the interval's account cleared (the threads kept) */
void th_sum_clear(struct timehist *t);
/* the summary, in text and in JSON (a member: ,"summary":{...}) */
void th_sum_text(FILE *f, struct timehist *t, const struct an_view *v);
void th_sum_json(FILE *f, struct timehist *t, const struct an_view *v);
/* "comm[tid/pid]" (perf's task name) for @tid into @buf */
void th_task_name(char *buf, size_t len, const char *comm, int32_t tid, int32_t tgid);
/* msec.usec as perf prints scheduling times, in @width */
void th_msec(FILE *f, uint64_t ns, int width);

#endif
