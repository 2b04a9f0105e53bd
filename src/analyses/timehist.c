// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timehist: one line per context switch, as perf sched timehist prints
 * them: when a task left a CPU, how long it had been off a CPU before
 * that run (wait time), how much of that it waited for a CPU (sch delay)
 * and how long it ran; -w adds the wakeups, -M the migrations, -V a
 * column per CPU, --state the state it left in; -s/-S a summary per
 * thread with perf sched latency's worst delay and when; -I the idle
 * stretches. What the trace could not see is marked on the line.
 *
 * The runs come from the timeline (tline.c), whose state is per CPU;
 * lines go to a spool until the run says they may stream to standard
 * output, so memory does not grow with the window (the summary's threads
 * are bounded by --max-tasks). JSON: events[], with the envelope every
 * command has. --format=perfetto: the same runs as thread-state slices,
 * a track per CPU and flows from waker to wakee (src/report/perfetto.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "grow.h"
#include "hash.h"
#include "svg.h"
#include "timehist.h"

#define COMM_W 30		/* perf's task name column */

static const char timehist_help[] =
"Usage: offcpu-ftrace timehist [OPTIONS] [DURATION]\n"
"       offcpu-ftrace timehist [OPTIONS] -- COMMAND [ARGS]\n"
"       offcpu-ftrace report FILE timehist [OPTIONS]\n"
"\n"
"One line per context switch, as perf sched timehist: when a task left a\n"
"CPU, which CPU, the task (comm[tid/pid]), its wait time (off the CPU\n"
"before this run), its sch delay (of that, waiting for a CPU: from its\n"
"first sched_waking, or from its switch-out when preempted) and its run\n"
"time, in milliseconds. <idle> lines are a CPU's idle stretches (without\n"
"a filter). A value the trace cannot give prints '-', and a line the\n"
"trace saw only in part says what it lacks at its end. Without DURATION:\n"
"until Ctrl-C. --format=json lists the events; --format=perfetto writes a\n"
"timeline for Perfetto's UI and speedscope: each thread running, runnable\n"
"and blocked (by state), a track per CPU, wakeups as flows.\n";

/* timehist's own rows (timehist_set) */
enum {
	TH_WAKEUPS = 1, TH_MIGRATIONS, TH_VISUAL, TH_STATE, TH_SUMMARY, TH_WITH_SUMMARY,
	TH_IDLE_HIST, TH_COMPAT,
};

static const char *timehist_set(struct trace_opts *o, const struct an_option *opt,
				const char *arg, char *buf, size_t len)
{
	/* perf sched timehist now, perf 6.1's, or runqlat's waits */
	static const char *const peers[] = { "perf", "perf6.1", "bcc", NULL };
	struct timehist_opts *t = timehist_own_set(o);
	const char *bad;
	int i;

	switch (opt->id) {
	case TH_WAKEUPS: t->wakeups = true; return NULL;
	case TH_MIGRATIONS: t->migrations = true; return NULL;
	case TH_VISUAL: t->visual = true; return NULL;
	case TH_STATE: t->state = true; return NULL;
	case TH_SUMMARY: t->summary = true; return NULL;
	case TH_WITH_SUMMARY: t->with_summary = true; return NULL;
	case TH_IDLE_HIST: t->idle_hist = true; return NULL;
	case TH_COMPAT:
		if ((bad = anopt_pick(opt, arg, peers, &i, buf, len)))
			return bad;
		o->compat = i == 2 ? COMPAT_BCC : COMPAT_PERF;
		t->perf61 = i == 1;
		o->compat_given = true;
		return NULL;
	}
	return "internal: an option without a setter";
}

#define A required_argument
#define N no_argument
#define ROW(name, letter, has, id, argname, help) { name, letter, has, id, timehist_set, argname, help, 0 }
static const struct an_option timehist_opts[] = {
	ROW("wakeups", 'w', N, TH_WAKEUPS, NULL, "a line per wakeup (who woke whom), and each\n"
	    "event's waker in JSON"),
	ROW("migrations", 'M', N, TH_MIGRATIONS, NULL, "a line where a task runs on another CPU than its\n"
	    "last run (from the switches: cpu A => B)"),
	ROW("cpu-visual", 'V', N, TH_VISUAL, NULL, "a column per CPU: s a switch, i idle, m a migration"),
	ROW("state", 0, N, TH_STATE, NULL, "the state each task left the CPU in (with -s: wait\n"
	    "time split into sleep, iowait and preempt)"),
	ROW("summary", 's', N, TH_SUMMARY, NULL, "only the summary per thread: runs, run time, and\n"
	    "the delay (average, worst and when, as perf sched\n"
	    "latency); unprivileged: each thread's totals from\n/proc"),
	ROW("with-summary", 'S', N, TH_WITH_SUMMARY, NULL, "the lines, then the summary"),
	ROW("idle-hist", 'I', N, TH_IDLE_HIST, NULL, "only the CPUs' idle stretches, each charged to the\n"
	    "task the CPU idled after"),
	ROW("compat", 0, A, TH_COMPAT, "PEER", "perf (default: sch delay from the first\n"
	    "sched_waking, or the switch-out when preempted, as\n"
	    "current perf), perf6.1 (a preempted task's wait is\n"
	    "wait time only, sch delay 0), bcc (sch delay from\n"
	    "sched_wakeup, the last one, as runqlat)"),
	AN_OPT_END,
};
#undef ROW
#undef A
#undef N

static const char timehist_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace timehist 5                 # every switch for 5 seconds\n"
"  offcpu-ftrace timehist -w -M -V -p 1234 10   # its wakeups and migrations too\n"
"  offcpu-ftrace timehist -S -- make -j8    # a build's switches, then the summary\n"
"  offcpu-ftrace timehist -s 10             # the summary only (unprivileged: /proc)\n"
"  offcpu-ftrace timehist --format=perfetto -o t.json -- ./job   # open in Perfetto\n"
"  offcpu-ftrace report ci.dat timehist --state -t 4321\n";

static const char *timehist_what(const struct trace_opts *o)
{
	if (timehist_own(o)->summary)
		return "each thread's runs and scheduling delays (timehist -s)";
	if (o->fmt == FMT_PERFETTO)
		return "a timeline of every switch, as a Perfetto trace";
	return "every context switch, one line each (timehist)";
}

static void timehist_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ | AN_OFFCPU;
	o->compat = COMPAT_PERF;	/* perf sched's columns: --compat=bcc for runqlat's */
}

static const char *check_format(const struct trace_opts *o)
{
	const struct timehist_opts *t = timehist_own(o);

	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && o->fmt != FMT_PERFETTO)
		return "timehist prints perf's lines (the default), --format=json or "
		       "--format=perfetto";
	if (o->fmt == FMT_PERFETTO && (t->summary || t->with_summary || t->idle_hist ||
				       t->wakeups || t->migrations || t->visual || t->state))
		return "--format=perfetto draws every run, wait and wakeup (as flows) of every "
		       "thread: no -s, -S, -I, -w, -M, -V or --state";
	if (o->fmt == FMT_PERFETTO && o->interval_mode)
		return "--format=perfetto is one timeline: no -i";
	if (o->fmt == FMT_JSON && t->visual)
		return "-V is a column of the text lines: not with --format=json";
	return NULL;
}

static const char *timehist_check(const struct trace_opts *o)
{
	const struct timehist_opts *t = timehist_own(o);
	const char *bad = check_format(o);

	if (bad)
		return bad;
	if (o->key == KEY_CPU)
		return "--by groups the summary by pid, tid, comm or cgroup, not cpu (the lines "
		       "have the CPU)";
	if (o->key != KEY_NONE && o->key != KEY_CGROUP && !t->summary && !t->with_summary)
		return "--by groups the summary: add -s or -S (--by cgroup also adds the cgroup to "
		       "each line)";
	if (o->top && !t->summary && !t->with_summary)
		return "--top ranks the summary's rows: add -s or -S";
	if (t->summary && t->with_summary)
		return "-s is the summary alone, -S the lines and the summary: give one";
	if (t->summary && (t->wakeups || t->migrations || t->visual))
		return "-w, -M and -V add lines: not with -s (the summary alone; -S has both)";
	return NULL;
}

static unsigned timehist_events(const struct trace_opts *o)
{
	return o->compat == COMPAT_PERF ? 1u << SEV_WAKING : 0;
}

static enum hist_refusal timehist_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

static void timehist_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key == KEY_CGROUP ? KEY_CGROUP : KEY_NONE;
}

/* --- names ---------------------------------------------------------------- */

void th_task_name(char *buf, size_t len, const char *comm, int32_t tid, int32_t tgid)
{
	char c[COMM_LEN + 1];
	size_t i;

	/* control characters would break the layout */
	for (i = 0; i < COMM_LEN && comm[i]; i++)
		c[i] = (unsigned char)comm[i] < 0x20 ? '?' : comm[i];
	c[i] = '\0';
	if (tid == 0)
		snprintf(buf, len, "<idle>");
	else if (tgid < 0)
		snprintf(buf, len, "%s[%d/?]", c[0] ? c : "?", tid);
	else if (tgid != tid)
		snprintf(buf, len, "%s[%d/%d]", c[0] ? c : "?", tid, tgid);
	else
		snprintf(buf, len, "%s[%d]", c[0] ? c : "?", tid);
}

void th_msec(FILE *f, uint64_t ns, int width)
{
	fprintf(f, "%*" PRIu64 ".%03" PRIu64 " ", width, ns / 1000000, ns / 1000 % 1000);
}

/* a name seen for @tid (runs, waits): wakers and the like */
static void name_put(struct timehist *t, int32_t tid, const char *comm)
{
	if (tid <= 0 || !comm || !comm[0])
		return;
	t->names[tid_hash32(tid) % 256].tid = tid;
	comm_copy(t->names[tid_hash32(tid) % 256].comm, comm);
}

/* @tid's name: seen, or the run's lookup (/proc, a recording's cmdlines) */
static const char *name_of(struct timehist *t, int32_t tid, const char *given, char *buf)
{
	const struct an_cfg *c = &t->an->cfg;

	if (given && given[0])
		return given;
	if (t->names[tid_hash32(tid) % 256].tid == tid)
		return t->names[tid_hash32(tid) % 256].comm;
	if (tid > 0 && c->comm_of && !c->comm_of(tid, buf, COMM_LEN, c->tgid_arg)) {
		name_put(t, tid, buf);
		return buf;
	}
	return "";
}

static int32_t tgid_of(struct timehist *t, int32_t tid)
{
	const struct an_cfg *c = &t->an->cfg;
	struct th_row *r;

	if (tid <= 0)
		return tid;
	r = th_row_find(t, tid);
	if (r && r->tgid < 0 && c->tgid_of)
		r->tgid = c->tgid_of(tid, c->tgid_arg);
	return r ? r->tgid : c->tgid_of ? c->tgid_of(tid, c->tgid_arg) : -1;
}

/* --- the output document: spooled, then streamed ----------------------------- */

/* the text header, or the JSON/trace object's opening, on t->out */
static void doc_open(struct timehist *t)
{
	const struct trace_opts *o = t->o;
	int i;

	if (t->doc_open)
		return;
	t->doc_open = true;
	t->listed = 0;
	if (o->fmt == FMT_PERFETTO) {
		pf_begin(&t->pf, t->out);
		return;
	}
	if (o->fmt == FMT_JSON) {
		/* the envelope's "events" counts them by type: the list is timehist's */
		fputs("{\"timehist\":{\"events\":[", t->out);
		return;
	}
	if (timehist_own(o)->summary)
		return;
	fprintf(t->out, "%15s %6s ", "time", "cpu");
	if (timehist_own(o)->visual) {
		fputc(' ', t->out);
		for (i = 0; i < t->vis_cpus; i++)
			fprintf(t->out, "%x", i % 16);
		fputc(' ', t->out);
	}
	fprintf(t->out, " %-*s  %9s  %9s  %9s", COMM_W, "task name", "wait time", "sch delay",
		"run time");
	if (timehist_own(o)->state)
		fputs("  state", t->out);
	fprintf(t->out, "\n%15s %-6s ", "", "");
	if (timehist_own(o)->visual)
		fprintf(t->out, " %*s ", t->vis_cpus, "");
	fprintf(t->out, " %-*s  %9s  %9s  %9s\n", COMM_W, "[tid/pid]", "(msec)", "(msec)",
		"(msec)");
	fputs("--------------- ------ ", t->out);
	if (timehist_own(o)->visual) {
		fputc(' ', t->out);
		for (i = 0; i < t->vis_cpus; i++)
			fputc('-', t->out);
		fputc(' ', t->out);
	}
	fprintf(t->out, " %.*s  ---------  ---------  ---------", COMM_W,
		"------------------------------");
	if (timehist_own(o)->state)
		fputs("  -----", t->out);
	fputc('\n', t->out);
}

/* the JSON separator before an event */
static void json_next(struct timehist *t)
{
	fputs(t->listed++ ? ",\n" : "\n", t->out);
}

/* "%15s [%04d] " and -V's column: @c at @cpu */
static void line_head(struct timehist *t, uint64_t ts, int32_t cpu, char c)
{
	FILE *f = t->out;
	int i;

	fprintf(f, "%8" PRIu64 ".%06" PRIu64 " [%04d] ", ts / 1000000000, ts / 1000 % 1000000, cpu);
	if (!timehist_own(t->o)->visual)
		return;
	fputc(' ', f);
	for (i = 0; i < t->vis_cpus || i <= cpu; i++)
		fputc(i == cpu ? c : ' ', f);
	fputc(' ', f);
}

/* --- one run -------------------------------------------------------------------- */

/* what a run's columns hold: each known or not */
struct cols {
	bool wait_ok, delay_ok, run_ok;
	uint64_t wait, delay, run;
};

static void run_cols(const struct timehist *t, const struct tl_run *r, struct cols *c)
{
	uint64_t in = r->in_ns ? r->in_ns : r->off_end_ns;

	memset(c, 0, sizeof(*c));
	if (r->tid == 0) {
		/* an idle stretch: its run time, as perf prints <idle> */
		c->wait_ok = c->delay_ok = true;
	} else {
		c->wait_ok = r->have_off && r->off_end_ns >= r->off_ns;
		c->wait = c->wait_ok ? r->off_end_ns - r->off_ns : 0;
		c->delay_ok = r->have_wait && in >= r->wait_ns;
		c->delay = c->delay_ok ? in - r->wait_ns : 0;
		/* perf 6.1: a preempted task's wait is wait time, not sch delay */
		if (c->delay_ok && r->preempted && timehist_own(t->o)->perf61)
			c->delay = 0;
	}
	c->run_ok = r->in_ns && r->out_ns >= r->in_ns;
	c->run = c->run_ok ? r->out_ns - r->in_ns : 0;
}

static void col(FILE *f, bool ok, uint64_t ns)
{
	if (ok)
		th_msec(f, ns, 6);
	else
		fprintf(f, "%10s ", "-");
}

static void text_run(struct timehist *t, const struct tl_run *r, const struct cols *c)
{
	FILE *f = t->out;
	char name[64], st[16], marks[160];

	t->listed++;
	line_head(t, r->out_ns, r->cpu, r->tid ? 's' : 'i');
	th_task_name(name, sizeof(name), r->comm, r->tid, r->tid ? tgid_of(t, r->tid) : 0);
	fprintf(f, " %-*s ", COMM_W, name);
	col(f, c->wait_ok, c->wait);
	col(f, c->delay_ok, c->delay);
	col(f, c->run_ok, c->run);
	if (timehist_own(t->o)->state)
		fprintf(f, " %5s ", r->tid == 0 ? "I" : r->state == SCHED_STATE_UNKNOWN ? "?" :
			sched_state_str(&t->an->cfg.states, r->state, st, sizeof(st)));
	if (t->o->key == KEY_CGROUP && r->tid) {
		const char *path;

		fputs(" [", f);
		text_field(f, an_cgroup_name(t->an, an_cgroup_id(t->an, r->tid), &path), 256, 0);
		fputc(']', f);
	}
	tline_marks_text(r->marks & ~TL_WINDOW_END, marks, sizeof(marks));
	if (marks[0])
		fprintf(f, " (%s)", marks);
	fputc('\n', f);
}

static void json_ns(FILE *f, const char *key, bool ok, uint64_t ns)
{
	if (ok)
		fprintf(f, ",\"%s\":%" PRIu64, key, ns);
	else
		fprintf(f, ",\"%s\":null", key);
}

static void json_run(struct timehist *t, const struct tl_run *r, const struct cols *c)
{
	FILE *f = t->out;
	int32_t tgid = r->tid ? tgid_of(t, r->tid) : 0;
	char st[16], buf[COMM_LEN];
	unsigned b, n = 0;

	json_next(t);
	fprintf(f, "{\"type\":\"switch\",\"time_ns\":%" PRIu64 ",\"cpu\":%d,\"tid\":%d,\"pid\":",
		r->out_ns, r->cpu, r->tid);
	if (tgid >= 0)
		fprintf(f, "%d", tgid);
	else
		fputs("null", f);
	fputs(",\"comm\":", f);
	json_str(f, r->tid ? r->comm : "<idle>", COMM_LEN);
	json_ns(f, "wait_ns", c->wait_ok, c->wait);
	json_ns(f, "sch_delay_ns", c->delay_ok, c->delay);
	json_ns(f, "run_ns", c->run_ok, c->run);
	json_ns(f, "switch_in_ns", r->in_ns != 0, r->in_ns);
	fputs(",\"prev_state\":", f);
	if (r->tid && r->state != SCHED_STATE_UNKNOWN)
		json_str(f, sched_state_str(&t->an->cfg.states, r->state, st, sizeof(st)), 16);
	else
		fputs(r->tid ? "null" : "\"I\"", f);
	fprintf(f, ",\"preempted\":%s", r->have_wait && r->preempted ? "true" : "false");
	if (timehist_own(t->o)->wakeups) {
		fputs(",\"waker\":", f);
		if (r->waker > 0) {
			fprintf(f, "{\"tid\":%d,\"comm\":", r->waker);
			json_str(f, name_of(t, r->waker, r->waker_comm, buf), COMM_LEN);
			fprintf(f, ",\"time_ns\":%" PRIu64 "}", r->waking_ns);
		} else {
			fputs("null", f);
		}
	}
	if (t->o->key == KEY_CGROUP && r->tid) {
		const char *path;

		fputs(",\"cgroup\":", f);
		json_str(f, an_cgroup_name(t->an, an_cgroup_id(t->an, r->tid), &path), 256);
	}
	fputs(",\"marks\":[", f);
	for (b = 1; b <= TL_WINDOW_END; b <<= 1)
		if (r->marks & b)
			fprintf(f, "%s\"%s\"", n++ ? "," : "", tline_mark_name(b));
	fputs("]}", f);
}

/* a run as thread-state slices: blocked, runnable, running; its CPU's; the wakeup's flow */
static void trace_run(struct timehist *t, const struct tl_run *r)
{
	int32_t tgid = tgid_of(t, r->tid), pid = tgid > 0 ? tgid : r->tid;
	uint64_t in = r->in_ns ? r->in_ns : r->off_end_ns;
	struct pf_arg a[2];
	char marks[160], bn[48], cn[COMM_LEN + 16];
	unsigned na = 0;

	tline_marks_text(r->marks, marks, sizeof(marks));
	if (r->in_ns && r->out_ns >= r->in_ns) {
		snprintf(cn, sizeof(cn), "%s [%d]", r->tid ? r->comm : "<idle>", r->tid);
		if (r->tid)
			pf_cpu_slice(&t->pf, r->cpu, r->in_ns, r->out_ns - r->in_ns, cn, NULL, 0);
	}
	if (!r->tid || !r->selected)
		return;
	pf_thread_name(&t->pf, pid, r->tid, r->comm[0] ? r->comm : "?");
	if (in && (r->have_off || r->have_wait)) {
		/* runnable from its wait's start (a new thread: its wakeup_new) */
		uint64_t w = r->have_wait && r->wait_ns <= in ? r->wait_ns : in;

		if (r->have_off && w < r->off_ns)
			w = r->off_ns;
		if (r->have_off && w > r->off_ns && !(r->have_wait && r->preempted))
			pf_slice(&t->pf, pid, r->tid, r->off_ns, w - r->off_ns,
				 r->have_wait ? pf_blocked_name(&t->an->cfg.states, r->off_state, bn, sizeof(bn)) :
				 "Blocked (wakeup not in the trace)", "sched", NULL, 0);
		if (r->have_wait && in > w)
			pf_slice(&t->pf, pid, r->tid, w, in - w, r->preempted ?
				 "Runnable (Preempted)" : "Runnable", "sched", NULL, 0);
		if (r->waker > 0 && r->waking_ns <= in && (!r->have_off || r->waking_ns >= r->off_ns)) {
			int32_t wg = tgid_of(t, r->waker);

			pf_flow(&t->pf, wg > 0 ? wg : r->waker, r->waker, r->waking_ns, pid, r->tid,
				w, "wakeup");
		}
	}
	if (!r->in_ns || r->out_ns < r->in_ns)
		return;
	a[na++] = (struct pf_arg){ .key = "cpu", .i = r->cpu };
	if (marks[0])
		a[na++] = (struct pf_arg){ .key = "marks", .s = marks };
	pf_slice(&t->pf, pid, r->tid, r->in_ns, r->out_ns - r->in_ns, "Running", "sched", a, na);
}

/* a thread off the CPU when the window closed: blocked (then runnable) to its end */
static void on_open(void *arg, const struct an_off *o, uint64_t end_ns)
{
	struct timehist *t = arg;
	int32_t tgid, pid;
	uint64_t w;
	char bn[48];

	if (t->o->fmt != FMT_PERFETTO || t->spool_failed || o->tid <= 0 || end_ns < o->start_ns)
		return;
	doc_open(t);
	tgid = o->tgid >= 0 ? o->tgid : tgid_of(t, o->tid);
	pid = tgid > 0 ? tgid : o->tid;
	w = o->wake_ns > o->start_ns && o->wake_ns < end_ns ? o->wake_ns : end_ns;
	if (sched_state_runnable(&t->an->cfg.states, o->state) && o->state != SCHED_STATE_UNKNOWN)
		w = o->start_ns;
	pf_thread_name(&t->pf, pid, o->tid, o->comm[0] ? o->comm : "?");
	if (w > o->start_ns)
		pf_slice(&t->pf, pid, o->tid, o->start_ns, w - o->start_ns,
			 pf_blocked_name(&t->an->cfg.states, o->state, bn, sizeof(bn)), "sched", NULL, 0);
	if (end_ns > w)
		pf_slice(&t->pf, pid, o->tid, w, end_ns - w, w == o->start_ns ?
			 "Runnable (Preempted)" : "Runnable", "sched", NULL, 0);
}

/* Is @r listed? The selected threads' runs; <idle> without a filter (-I: only those) */
static bool listed(const struct timehist *t, const struct tl_run *r)
{
	if (r->marks & TL_WINDOW_END)
		return false;	/* no switch: not a line (the trace draws it) */
	if (timehist_own(t->o)->idle_hist)
		return r->tid == 0 && (!t->filtered || (r->cpu >= 0 && (uint32_t)r->cpu < t->ncpus &&
							t->cpus[r->cpu].went_idle > 0));
	return r->tid ? r->selected : !t->filtered;
}

static void on_run(void *arg, const struct tl_run *r)
{
	struct timehist *t = arg;
	const struct trace_opts *o = t->o;
	struct cols c;
	unsigned b;

	if (r->tid > 0)
		name_put(t, r->tid, r->comm);
	if (r->tid > 0 && r->selected && r->tgid >= 0) {
		struct th_row *row = th_row_of(t, r->tid);

		if (row && row->tgid < 0)
			row->tgid = r->tgid;
	}
	if (t->spool_failed)
		return;
	if (o->fmt == FMT_PERFETTO) {
		doc_open(t);
		trace_run(t, r);
		return;
	}
	th_sum_run(t, r);
	if (!listed(t, r) || timehist_own(o)->summary)
		return;
	run_cols(t, r, &c);
	for (b = 0; b < 8; b++)
		if (r->marks & (1u << b))
			t->marks[b]++;
	doc_open(t);
	if (o->fmt == FMT_JSON)
		json_run(t, r, &c);
	else
		text_run(t, r, &c);
}

/* -M: a selected task switched in on another CPU than its last run */
static void on_in(void *arg, int32_t cpu, int32_t tid, const char *comm, uint64_t ts,
		  bool selected)
{
	struct timehist *t = arg;
	struct th_row *row;
	int32_t from;
	char name[64], buf[COMM_LEN];

	name_put(t, tid, comm);	/* the task on that CPU now: a waker's name */
	if (!selected || !(row = th_row_of(t, tid)))
		return;
	from = row->last_cpu;
	row->last_cpu = cpu;
	if (from < 0 || from == cpu)
		return;
	row->migrations++;
	t->migrations++;
	if (!timehist_own(t->o)->migrations || timehist_own(t->o)->summary || t->spool_failed)
		return;
	doc_open(t);
	if (t->o->fmt == FMT_JSON) {
		json_next(t);
		fprintf(t->out, "{\"type\":\"migration\",\"time_ns\":%" PRIu64 ",\"cpu\":%d,"
			"\"tid\":%d,\"comm\":", ts, cpu, tid);
		json_str(t->out, name_of(t, tid, row->comm, buf), COMM_LEN);
		fprintf(t->out, ",\"from_cpu\":%d}", from);
		return;
	}
	line_head(t, ts, cpu, 'm');
	th_task_name(name, sizeof(name), name_of(t, tid, row->comm, buf), tid, tgid_of(t, tid));
	fprintf(t->out, " %-*s   %9s  %9s  %9s migrated: %s cpu %d => %d\n", COMM_W, name, "", "",
		"", name, from, cpu);
}

/*
 * -w: a wakeup line, as perf prints its sched_waking (sched_wakeup where
 * no waking is traced) in the waker's context: the waker in the task
 * column, "awakened:" the woken
 */
static void on_wake(void *arg, const struct an_wake *w)
{
	struct timehist *t = arg;
	char name[64], wname[64], b1[COMM_LEN], b2[COMM_LEN];
	const char *wc;

	if (w->type == SEV_WAKING)
		t->wakings_seen = true;
	else if (w->type == SEV_WAKEUP && t->wakings_seen)
		return;
	if (!timehist_own(t->o)->wakeups || timehist_own(t->o)->summary || t->spool_failed)
		return;
	/* as perf: unless both the woken and the waker are filtered out */
	if (!w->selected && t->filtered && (w->waker <= 0 || !th_row_find(t, w->waker)))
		return;
	t->wakeups++;
	doc_open(t);
	wc = w->waker > 0 ? name_of(t, w->waker, NULL, b1) : "";
	if (t->o->fmt == FMT_JSON) {
		json_next(t);
		fprintf(t->out, "{\"type\":\"wakeup\",\"time_ns\":%" PRIu64 ",\"cpu\":%d,\"tid\":%d,"
			"\"comm\":", w->ts, w->cpu, w->tid);
		json_str(t->out, name_of(t, w->tid, NULL, b2), COMM_LEN);
		fprintf(t->out, ",\"event\":\"%s\",\"waker\":{\"tid\":%d,\"comm\":",
			sched_ev_name(w->type), w->waker);
		json_str(t->out, w->waker > 0 ? wc : "<idle>", COMM_LEN);
		fputs("}}", t->out);
		return;
	}
	line_head(t, w->ts, w->cpu, ' ');	/* -V: blank, as perf's */
	th_task_name(wname, sizeof(wname), wc, w->waker, w->waker > 0 ? tgid_of(t, w->waker) : 0);
	th_task_name(name, sizeof(name), name_of(t, w->tid, NULL, b2), w->tid, tgid_of(t, w->tid));
	fprintf(t->out, " %-*s   %9s  %9s  %9s awakened: %s\n", COMM_W, wname, "", "", "", name);
}

static void on_totals(void *arg, const struct an_thread *a, int32_t tgid)
{
	th_sum_totals(arg, a, tgid);
}

static void on_boundary(void *arg)
{
	th_sum_clear(arg);
}

extern const struct analysis analysis_timehist_profile;

/* "root;...;leaf" of a stack, user frames then kernel frames, into @buf */
static void sample_stack(const struct timehist *t, const struct an_sample *s, char *buf,
			 size_t len)
{
	char name[256];
	size_t at = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = s->udepth; i-- > 0 && at < len;) {
		if (t->sym->user(t->sym->uarg, s->tgid, s->uframes[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "0x%" PRIx64, s->uframes[i]);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ";" : "", name);
	}
	for (i = s->kdepth; i-- > 0 && at < len;) {
		if (t->sym->kernel(t->sym->karg, s->kframes[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "0x%" PRIx64, s->kframes[i]);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ";" : "", name);
	}
}

/* profile --format=perfetto: an on-CPU sample, an instant on its thread with its stack */
static void on_sample(void *arg, const struct an_sample *s)
{
	struct timehist *t = arg;
	struct pf_arg a[2];
	char stack[2048];

	if (!s->selected || s->tid <= 0 || t->spool_failed)
		return;
	doc_open(t);
	stack[0] = '\0';
	if (t->sym)
		sample_stack(t, s, stack, sizeof(stack));
	a[0] = (struct pf_arg){ .key = "period_ns", .i = (int64_t)s->period_ns };
	a[1] = (struct pf_arg){ .key = "stack", .s = stack };
	pf_instant(&t->pf, s->tgid > 0 ? s->tgid : s->tid, s->tid, s->ts, "on-CPU sample",
		   "sample", a, 2);
	t->samples++;
}

/* the run's symbols, for the samples' stacks (a live run: profile has no report) */
static void timehist_begin(void *state, const struct an_view *v)
{
	struct timehist *t = state;

	t->sym = v->sym;
}

static int timehist_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct timehist *t = calloc(1, sizeof(*t));
	/* needs: who woke each thread (its sched_waking's task): -w, and the flows */
	struct an_sink sink = { .needs = AN_NEED_WAKERS, .wake = on_wake, .totals = on_totals,
				.boundary = on_boundary };
	int ret;

	if (!t)
		return -ENOMEM;
	*state = t;
	t->o = o;
	t->an = an;
	t->maxrows = o->max_tasks;
	t->filtered = o->pid >= 0 || o->tid >= 0 || o->comm[0] || o->cgroup || o->command ||
		      an->cfg.follow || an->cfg.pid >= 0 || an->cfg.tid >= 0;
	t->vis_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (t->vis_cpus < 1 || t->vis_cpus > AN_MAX_CPUS)
		t->vis_cpus = 1;
	/* the lines wait here until stream() says they may go out (bounded: on disk) */
	t->spool = t->out = tmpfile();
	if (!t->spool)
		return -errno;
	ret = posindex_init(&t->index, t->maxrows);
	if (!ret)
		ret = tline_init(&t->tl, an, on_run, on_open, t);
	t->tl.in = on_in;
	if (o->an == &analysis_timehist_profile)
		sink.sample = on_sample;
	sink.arg = t;
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	return ret;
}

static void timehist_free(void *state)
{
	struct timehist *t = state;

	if (!t)
		return;
	tline_fini(&t->tl);
	posindex_fini(&t->index);
	if (t->spool)
		fclose(t->spool);
	heat_free(t->h.heat);
	free(t->rows);
	free(t->cpus);
	free(t);
}

/* the spool's lines to @f, and the spool emptied; -errno when either failed */
static int spool_drain(struct timehist *t, FILE *f)
{
	char buf[65536];
	size_t n;
	int ret = 0;

	if (fflush(t->spool) || fseek(t->spool, 0, SEEK_SET))
		ret = -EIO;
	while (!ret && (n = fread(buf, 1, sizeof(buf), t->spool)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			ret = -EIO;
	if (!ret && ferror(t->spool))
		ret = -EIO;
	clearerr(t->spool);
	if (ftruncate(fileno(t->spool), 0) || fseek(t->spool, 0, SEEK_SET))
		ret = ret ? ret : -EIO;
	return ret;
}

/* results to standard output as they come: the spool's, then each line as it happens */
static void timehist_stream(void *state, const struct an_view *v, FILE *f)
{
	struct timehist *t = state;

	(void)v;
	if (timehist_own(t->o)->summary)
		return;
	if (!t->streaming) {
		doc_open(t);
		if (spool_drain(t, f))
			t->spool_failed = true;
		t->streaming = true;
		t->out = f;
		if (t->o->fmt == FMT_PERFETTO)
			pf_retarget(&t->pf, f);
	}
	fflush(f);
}

/* --- printing ------------------------------------------------------------------- */

struct parg {
	struct timehist *t;
	const struct an_view *v;
	int err;
};

static void marks_footer(FILE *f, const struct timehist *t)
{
	static const char *const what[] = {
		"whose switch-out the trace lost (run time up to the CPU's last event before "
		"the gap)", "whose switch-in the trace did not see (run time unknown)",
		"whose off-CPU time was closed at a bound (the switch-in lost)",
		"whose wait for a CPU is not in the trace (sch delay unknown)",
		"whose wait was timed from sched_waking (its sched_wakeup is not in the trace)",
		"woken onto an idle CPU without a wakeup in the trace (sch delay taken as 0)",
	};
	unsigned b;

	for (b = 0; b < sizeof(what) / sizeof(what[0]); b++)
		if (t->marks[b])
			fprintf(f, "# %" PRIu64 " line%s %s\n", t->marks[b], t->marks[b] == 1 ? "" : "s",
				what[b]);
	if (t->rows_over)
		fprintf(f, "# %" PRIu64 " runs of threads beyond --max-tasks (%u): listed, not "
			"summarized, migrations not followed\n", t->rows_over, t->maxrows);
	if (t->tl.oom)
		fprintf(f, "# %" PRIu64 " switches not followed: no memory for their CPU's state\n",
			t->tl.oom);
	if (t->spool_failed)
		fputs("# the lines could not be spooled (a temporary file failed): not all are "
		      "listed\n", f);
}

static void text_body(FILE *f, void *arg)
{
	struct parg *a = arg;
	struct timehist *t = a->t;

	if (!timehist_own(t->o)->summary) {
		doc_open(t);
		if (!t->streaming && spool_drain(t, f))
			a->err = -EIO;
		if (!t->listed && !timehist_own(t->o)->idle_hist)
			fputs("(no switch of the selected tasks in the window)\n", f);
	}
	if (timehist_own(t->o)->summary || timehist_own(t->o)->with_summary)
		th_sum_text(f, t, a->v);
	fputc('\n', f);
	if (t->o->compat == COMPAT_PERF && timehist_own(t->o)->perf61)
		fputs("# --compat=perf6.1: a preempted task's wait is in its wait time, sch delay "
		      "0\n", f);
	else if (t->o->compat == COMPAT_BCC)
		fputs("# --compat=bcc: sch delay from sched_wakeup (the last), as runqlat\n", f);
	marks_footer(f, t);
}

/* timehist's members after its events, and the object's end */
static void json_tail(FILE *f, const struct timehist *t)
{
	unsigned b;

	fprintf(f, "],\"compat\":\"%s\",\"events_listed\":%" PRIu64 ",\"wakeups\":%" PRIu64
		",\"migrations\":%" PRIu64 ",\"marks\":{",
		t->o->compat == COMPAT_BCC ? "bcc" : timehist_own(t->o)->perf61 ? "perf6.1" : "perf",
		t->listed, t->wakeups, t->migrations);
	for (b = 0; b < 7; b++)
		fprintf(f, "%s\"%s\":%" PRIu64, b ? "," : "", tline_mark_name(1u << b), t->marks[b]);
	fprintf(f, "},\"threads_over\":%" PRIu64 ",\"complete\":%s}", t->rows_over,
		t->spool_failed ? "false" : "true");
}

static void json_extra(FILE *f, void *arg)
{
	struct parg *a = arg;
	struct timehist *t = a->t;

	if (timehist_own(t->o)->summary) {
		fputs(",\"timehist\":{\"events\":[", f);	/* -s lists none */
		json_tail(f, t);
	}
	if (timehist_own(t->o)->summary || timehist_own(t->o)->with_summary)
		th_sum_json(f, t, a->v);
}

static void no_groups(FILE *f, void *arg)
{
	(void)f;
	(void)arg;
}

/* otherData of the trace: what the run was, what it lost */
static void trace_other(FILE *f, void *arg)
{
	struct parg *a = arg;
	const struct an_view *v = a->v;
	const struct an_counts *c = &v->an->counts;

	fprintf(f, "\"tool\":\"offcpu-ftrace %s\",\"backend\":", a->t->o->cmd);
	json_str(f, v->backend, 32);
	fputs(",\"clock\":", f);
	json_str(f, v->clock, 32);
	fprintf(f, ",\"duration_s\":%.6f,\"lost_events\":%" PRIu64 ",\"switch_records\":%" PRIu64
		",\"missed_switch\":%" PRIu64 ",\"unmeasured_waits\":%" PRIu64
		",\"partial\":%s", v->duration_s, v->lost, v->recovered, c->missed_switch,
		c->unmeasured, v->lost || analyzer_partial(v->an) ? "true" : "false");
	if (a->t->o->an == &analysis_timehist_profile)
		fprintf(f, ",\"samples\":%" PRIu64 ",\"sample_hz\":%u", a->t->samples,
			a->t->o->rate_hz ? a->t->o->rate_hz : 99);
	if (v->replay_path) {
		fputs(",\"recording\":", f);
		json_str(f, v->replay_path, 4096);
	}
}

static int print_trace(struct timehist *t, const struct an_view *v, FILE *f)
{
	struct parg a = { t, v, 0 };

	doc_open(t);
	if (!t->streaming) {
		pf_retarget(&t->pf, f);
		a.err = spool_drain(t, f);
	}
	pf_end(&t->pf, trace_other, &a);
	t->doc_open = false;
	return a.err ? a.err : ferror(f) ? -EIO : 0;
}

static int timehist_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct timehist *t = state;
	struct parg a = { t, v, 0 };
	struct stack_report sr;
	struct report rep;
	int ret;

	if (fmt == FMT_PERFETTO)
		return print_trace(t, v, f);
	histan_fill(&t->h, v, fmt, &v->an->runq, MEASURE_RUNQ, &rep, &sr);
	rep.key = KEY_NONE;
	rep.extra_arg = &a;
	if (fmt == FMT_JSON) {
		if (!timehist_own(t->o)->summary) {
			doc_open(t);
			if (!t->streaming && spool_drain(t, f))
				a.err = -EIO;
			fputc('\n', f);
			json_tail(f, t);
			rep.json_continues = true;
		}
		rep.json_extra = json_extra;
		rep.json_groups = no_groups;
	} else {
		rep.text_body = text_body;
	}
	ret = report_emit(f, fmt, &rep);
	/* each output a whole document: the next interval (-s -i) opens its own */
	t->doc_open = false;
	return a.err ? a.err : ret;
}

extern const struct analysis analysis_timehist_summary;

/* -s: the summary alone, which the proc backend's totals can give too */
static const struct analysis *timehist_refine(const struct trace_opts *o)
{
	return timehist_own(o)->summary ? &analysis_timehist_summary : NULL;
}

const struct analysis analysis_timehist = {
	.name = "timehist",
	.summary = "one line per context switch (perf sched timehist), Perfetto timelines",
	.flags = AN_F_REPORT | AN_F_TRACED | AN_F_TIDS | AN_F_PERFETTO,
	.options = (const struct an_option *const[]){ timehist_opts, anopt_by, anopt_intervals,
						      NULL },
	.usage = timehist_help,
	.examples = timehist_examples,
	.untraced = "timehist -s gives each thread's totals per interval from /proc",
	.text_output = "perf sched timehist's lines",
	.what = timehist_what,
	.defaults = timehist_defaults,
	.refine = timehist_refine,
	.check = timehist_check,
	.events = timehist_events,
	.hist = timehist_hist,
	.configure = timehist_configure,
	.setup = timehist_setup,
	.print = timehist_print,
	.stream = timehist_stream,
	.free = timehist_free,
};

/* timehist -s: the same analysis, with no line to list: sampling can serve it */
const struct analysis analysis_timehist_summary = {
	.name = "timehist-summary",
	.summary = "each thread's runs and delays (timehist -s)",
	.flags = AN_F_MODE | AN_F_REPORT | AN_F_TIDS,
	.what = timehist_what,
	.defaults = timehist_defaults,
	.check = timehist_check,
	.events = timehist_events,
	.hist = timehist_hist,
	.configure = timehist_configure,
	.setup = timehist_setup,
	.print = timehist_print,
	.free = timehist_free,
};

/*
 * profile --format=perfetto: the threads' timeline as timehist draws it,
 * with profile's on-CPU samples as instants on each thread (the stack in
 * their args): one writer of traces
 */
static const char *profile_trace_what(const struct trace_opts *o)
{
	(void)o;
	return "a timeline of every switch and on-CPU sample, as a Perfetto trace";
}

static const char *profile_trace_check(const struct trace_opts *o)
{
	if (o->key != KEY_NONE && o->key != KEY_TID)
		return "profile --format=perfetto draws each thread: no -P or --by";
	if (o->folded || o->top || o->interval_mode)
		return "profile --format=perfetto is one timeline: no -f, --top or -i";
	return NULL;
}

static unsigned profile_trace_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_SAMPLE | 1u << SEV_WAKING;
}

const struct analysis analysis_timehist_profile = {
	.name = "timehist-profile",
	.summary = "profile's timeline and samples (profile --format=perfetto)",
	.flags = AN_F_MODE | AN_F_SAMPLES | AN_F_TIDS | AN_F_TRACED | AN_F_PERFETTO,
	.what = profile_trace_what,
	.defaults = timehist_defaults,
	.check = profile_trace_check,
	.events = profile_trace_events,
	.hist = timehist_hist,
	.configure = timehist_configure,
	.setup = timehist_setup,
	.begin = timehist_begin,
	.print = timehist_print,
	.stream = timehist_stream,
	.free = timehist_free,
};
