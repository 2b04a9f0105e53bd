// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile's output (the analysis is src/analyses/profile.c's): the
 * totals of all rows by kind with their shares, the table of rows, the
 * footer saying what the numbers are and what the trace could not place,
 * -f's folded lines (a tower per name, thread, process or cgroup; user
 * then kernel frames; the kind last), JSON and the flame graph drawn
 * from the same lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "escape.h"
#include "svg.h"
#include "wallprof.h"

#define DEFAULT_HZ 99

static const char *const kind_name[PK_N] = {
	"[on-cpu]", "[on-cpu, no samples]", "[runq]", "[off-cpu S]", "[off-cpu D]", "[off-cpu]",
	"[waiting for children]",
};

/*
 * a stack's frames named; @user: user frames of @tgid; @switched: a
 * switch-out's kernel stack, whose frames inside the tracer are dropped
 */
static uint32_t name_frames(const struct prof_out *a, bool user, bool switched, uint32_t id,
			    int32_t tgid, char (*buf)[NAME_LEN])
{
	const struct symbolizer *sym = a->sym;
	const struct stacktab *tab = user ? a->ustacks : a->kstacks;
	uint32_t depth = 0, i, skip = 0;
	const uint64_t *fr = stacktab_get(tab, id, &depth);

	if (!sym || (user ? !sym->user : !sym->kernel))
		return 0;
	for (i = 0; i < depth && i < STACK_MAX_DEPTH; i++) {
		if (user)
			sym->user(sym->uarg, tgid, fr[i], buf[i], NAME_LEN);
		else
			sym->kernel(sym->karg, fr[i], buf[i], NAME_LEN);
	}
	/* a switch-out's stack begins in the tracer: from __schedule */
	for (i = 0; switched && !user && i < depth && i < 8; i++)
		if (!strcmp(buf[i], "__schedule")) {
			skip = i;
			break;
		}
	if (skip)
		memmove(buf, buf + skip, (depth - skip) * sizeof(*buf));
	depth -= skip;
	/*
	 * a user stack walked past code without frame pointers goes on
	 * through whatever the stack holds: from its first frame in no
	 * mapping on, one [unknown] stands for the rest
	 */
	for (i = 0; user && i < depth && i < STACK_MAX_DEPTH; i++)
		if (!strcmp(buf[i], "[unknown]")) {
			depth = i + 1;
			break;
		}
	return depth < a->stack_depth ? depth : a->stack_depth;
}

/*
 * the first frames of an entry of thread @id: its name (one tower per
 * tool: the default, --by comm), "comm-tid" (-L), the process's
 * "comm-pid" (-P), or the cgroup's name then the thread's (--by cgroup)
 */
static void line_head(FILE *f, const struct prof_out *a, const struct pent *e)
{
	const struct prow *t = a->thread(a->arg, e->k.id), *leader;
	const char *path;

	switch (a->key) {
	case KEY_TID:
		stack_fold_frame(f, t ? t->comm : "[unknown]");
		fprintf(f, "-%d", e->k.id);
		break;
	case KEY_PID:
		leader = e->k.tgid > 0 ? a->thread(a->arg, e->k.tgid) : NULL;
		stack_fold_frame(f, leader ? leader->comm : t ? t->comm : "[unknown]");
		fprintf(f, "-%d", e->k.tgid > 0 ? e->k.tgid : e->k.id);
		break;
	case KEY_CGROUP:
		folded_cgroup(f, a->cgroup_name(a->arg, e->k.cg, &path));
		/* fall through */
	default:
		stack_fold_frame(f, t ? t->comm : "[unknown]");
	}
}

/* "head;user root->leaf;kernel root->leaf;[kind]" */
static void print_line(FILE *f, const struct prof_out *a, const struct pent *e,
		       char (*kb)[NAME_LEN], char (*ub)[NAME_LEN])
{
	bool sw = e->k.kind != PK_ONCPU;
	uint32_t nk = e->k.kstack ? name_frames(a, false, sw, e->k.kstack, e->k.tgid, kb) : 0;
	uint32_t nu = e->k.ustack ? name_frames(a, true, sw, e->k.ustack, e->k.tgid, ub) : 0;

	line_head(f, a, e);
	while (nu-- > 0) {
		fputc(';', f);
		stack_fold_frame(f, ub[nu]);
	}
	while (nk-- > 0) {
		fputc(';', f);
		stack_fold_frame(f, kb[nk]);
	}
	fprintf(f, ";%s", kind_name[e->k.kind]);
}

/* a flame graph's entry @i: its folded line; one whose time moved to another kind is left out */
static bool flame_entry(FILE *f, void *arg, size_t i, char (*kb)[NAME_LEN], char (*ub)[NAME_LEN],
			uint64_t *ns)
{
	const struct prof_out *a = arg;
	const struct pent *e = &a->v[i];

	if (!e->ns)
		return false;
	print_line(f, a, e, kb, ub);
	*ns = e->ns;
	return true;
}

/*
 * The folded lines of every entry (without the time), identical ones
 * merged (the threads of one name, one process), largest first: in *@out
 * (the caller frees with stacks_fold_free), their number in *@n. 0 or
 * -ENOMEM.
 */
static int fold_lines(struct prof_out *a, struct fold_line **out, uint32_t *n)
{
	return flame_fold(a->n, flame_entry, a, true, out, n);
}

/* the part of @t's life no kind holds: switches the trace lost */
static uint64_t unplaced_of(const struct prow *t, const struct prof_out *a)
{
	uint64_t w = wall_ns(t, a->start, a->end), tot = total_ns(t);

	return w > tot ? w - tot : 0;
}

/* the rows with unplaced time, and (*ns) how much */
static size_t unplaced(const struct prof_out *a, uint64_t *ns)
{
	size_t i, n = 0;

	*ns = 0;
	for (i = 0; i < a->nrows; i++) {
		uint64_t u = unplaced_of(&a->rows[i], a);

		n += u > 0;
		*ns += u;
	}
	return n;
}

/* all rows added up: the totals */
struct ptotal {
	size_t rows, threads;
	uint64_t wall, on, sampled, samples, unplaced;
	uint64_t ns[PK_N];
};

static void totals_of(const struct prof_out *a, struct ptotal *s)
{
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->rows = a->nrows;
	for (i = 0; i < a->nrows; i++) {
		const struct prow *t = &a->rows[i];

		s->threads += t->nthreads ? t->nthreads : 1;
		s->wall += wall_ns(t, a->start, a->end);
		s->on += t->on_ns;
		s->sampled += t->samples_ns;
		s->samples += t->samples;
		s->unplaced += unplaced_of(t, a);
		for (k = 0; k < PK_N; k++)
			s->ns[k] += t->ns[k];
	}
}

static void human(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.1f", (double)ns / 1e6);
}

/* a total: milliseconds below 10 s, else seconds */
static void human_total(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000000000ULL)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1f s", (double)ns / 1e9);
}

static const char *row_noun(const struct prof_out *a, size_t n)
{
	switch (a->key) {
	case KEY_PID:
		return n == 1 ? "process" : "processes";
	case KEY_COMM:
		return n == 1 ? "name" : "names";
	case KEY_CGROUP:
		return n == 1 ? "cgroup" : "cgroups";
	default:
		return n == 1 ? "thread" : "threads";
	}
}

/* the totals of all rows, by kind, with their shares of the threads' time */
static void print_totals(FILE *f, const struct prof_out *a, const struct ptotal *s)
{
	static const struct { const char *what; int kind; } lines[] = {
		{ "on a CPU", -1 }, { "waiting for a CPU", PK_RUNQ }, { "blocked (S)", PK_OFF_S },
		{ "blocked (D)", PK_OFF_D }, { "blocked (other)", PK_OFF_OTHER },
		{ "waiting for children", PK_CHILDREN }, { "not placed", -2 },
	};
	char w[32], win[32], v[32];
	size_t i;

	human_total(w, sizeof(w), s->wall);
	human_total(win, sizeof(win), a->end > a->start ? a->end - a->start : 0);
	fprintf(f, "All %zu %s", s->threads, s->threads == 1 ? "thread" : "threads");
	if (a->key != KEY_NONE && a->key != KEY_TID)
		fprintf(f, " (%zu %s)", s->rows, row_noun(a, s->rows));
	fprintf(f, ": %s of thread time (their lives in the %s window, added)\n", w, win);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		uint64_t ns = lines[i].kind >= 0 ? s->ns[lines[i].kind] :
			      lines[i].kind == -1 ? s->on : s->unplaced;

		if (lines[i].kind == -2 && !ns)
			continue;
		human_total(v, sizeof(v), ns);
		fprintf(f, "  %-22s %12s %6.1f%%\n", lines[i].what, v,
			s->wall ? 100.0 * (double)ns / (double)s->wall : 0.0);
	}
	fputc('\n', f);
}

/* one row's label: TID COMM, PID COMM, COMM THREADS or CGROUP THREADS */
static void row_label(FILE *f, const struct prof_out *a, const struct prow *t)
{
	const char *path;

	switch (a->key) {
	case KEY_CGROUP:
		text_field(f, a->cgroup_name(a->arg, t->cg, &path), NAME_LEN, 25);
		fprintf(f, " %7u", t->nthreads);
		break;
	case KEY_COMM:
		text_field(f, t->comm, COMM_LEN, 16);
		fprintf(f, " %7u", t->nthreads);
		break;
	default:
		fprintf(f, "%8d ", t->tid);
		text_field(f, t->comm, COMM_LEN, 16);
	}
}

static void row_times(FILE *f, uint64_t wall, uint64_t on, const uint64_t *ns, uint64_t samples)
{
	char w[24], c[24], rq[24], s[24], d[24], o[24], ch[24];

	human(w, sizeof(w), wall);
	human(c, sizeof(c), on);
	human(rq, sizeof(rq), ns[PK_RUNQ]);
	human(s, sizeof(s), ns[PK_OFF_S]);
	human(d, sizeof(d), ns[PK_OFF_D]);
	human(o, sizeof(o), ns[PK_OFF_OTHER]);
	human(ch, sizeof(ch), ns[PK_CHILDREN]);
	fprintf(f, " %10s %10s %10s %10s %10s %10s %10s %8" PRIu64 "\n", w, c, rq, s, d, o, ch,
		samples);
}

static void print_table(FILE *f, const struct prof_out *a)
{
	size_t i, n = a->top && a->top < a->nrows ? a->top : a->nrows;
	bool wide = a->key == KEY_CGROUP;
	struct ptotal s;
	char all[64];

	if (a->totals)
		fprintf(f, "Profiling wall-clock time from /proc: on-CPU and waits for a CPU from "
			"schedstat, off-CPU split by the states sampled (no stacks)\n\n");
	else
		fprintf(f, "Profiling wall-clock time: on-CPU %s, waits for a CPU and off-CPU "
			"traced\n\n", a->sampled ? "sampled" : "from the switches (no samples)");
	totals_of(a, &s);
	print_totals(f, a, &s);
	if (wide)
		fprintf(f, "%-25s %7s", "CGROUP", "THREADS");
	else if (a->key == KEY_COMM)
		fprintf(f, "%-16s %7s", "COMM", "THREADS");
	else
		fprintf(f, "%8s %-16s", a->key == KEY_PID ? "PID" : "TID", "COMM");
	fprintf(f, " %10s %10s %10s %10s %10s %10s %10s %8s\n", "WALL(ms)", "ON-CPU", "RUNQ",
		"OFF(S)", "OFF(D)", "OFF(other)", "CHILDREN", "SAMPLES");
	for (i = 0; i < n; i++) {
		row_label(f, a, &a->rows[i]);
		row_times(f, wall_ns(&a->rows[i], a->start, a->end), a->rows[i].on_ns,
			  a->rows[i].ns, a->rows[i].samples);
	}
	if (n < a->nrows)
		fprintf(f, "# and %zu more %s (--top %u)\n", a->nrows - n, row_noun(a, 2),
			a->top);
	/* the rows' sum (all of them, --top or not) */
	if (wide || a->key == KEY_COMM) {
		fprintf(f, "%-*s %7zu", wide ? 25 : 16, "all", s.threads);
	} else {
		snprintf(all, sizeof(all), "%zu %s", s.rows, row_noun(a, s.rows));
		fprintf(f, "%8s %-16s", "all", all);
	}
	row_times(f, s.wall, s.on, s.ns, s.samples);
	if (a->key == KEY_PID)
		fprintf(f, "# -P: a process's wall time is its threads' lives in the window, "
			"added\n");
	if (a->key == KEY_COMM)
		fprintf(f, "# --by comm: a name's wall time is its threads' lives in the window, "
			"added; a thread is in the row of its last name (after an exec, the "
			"program's)\n");
	if (wide)
		fprintf(f, "# --by cgroup: a cgroup's wall time is its threads' lives in the window, "
			"added; a thread moved in the window is in the row of its last cgroup, its "
			"stacks (-f, svg) in each for their share\n");
	fputc('\n', f);
	if (a->sampled)
		fprintf(f, "# on-CPU samples weighted by their period: %.1f ms against %.1f ms from "
			"the switches (%+.1f%%; at %" PRIu64 " samples a sampling error of about "
			"%.0f%% is expected); -f or --format=svg for the stacks\n",
			(double)s.sampled / 1e6, (double)s.on / 1e6,
			s.on ? 100.0 * ((double)s.sampled - (double)s.on) / (double)s.on : 0.0,
			s.samples, s.samples ? 100.0 / sqrt((double)s.samples) : 0.0);
}

/* the trailer's own lines: what the numbers are, and what they could not hold */
static void footer(FILE *f, void *arg)
{
	const struct prof_out *a = arg;
	uint64_t un;
	size_t nun = unplaced(a, &un);

	if (a->totals)
		fprintf(f, "# profile: each thread's totals from /proc: on-CPU and waiting for a CPU "
			"exact (schedstat), blocked split S/D by the states sampled; no samples and "
			"no stacks (a tracing backend has them)\n");
	else if (a->replay && !a->sampled)
		fprintf(f, "# profile: a recording keeps no samples: on-CPU time comes from the "
			"switches, as [on-cpu, no samples]\n");
	else
		fprintf(f, "# profile: %" PRIu64 " on-CPU samples at %u Hz (each weighted by its "
			"period, the CPU time since the CPU's last)%s\n", a->samples, a->hz ?
			a->hz : DEFAULT_HZ, a->sampled ? "" : "; none here: on-CPU time "
			"comes from the switches, as [on-cpu, no samples] (the perf backend "
			"samples)");
	if (nun)
		fprintf(f, "# %zu %s %.3f ms the trace could not place (switches it lost)%s\n",
			nun, nun == 1 ? "row has" : "rows have", (double)un / 1e6,
			!a->replay && !a->switch_records ?
			": --backend=perf has every switch (its context-switch records)" : "");
	if (a->overflow_ns)
		fprintf(f, "# %.3f ms beyond --max-stacks, not shown\n", (double)a->overflow_ns / 1e6);
	if (a->threads_over)
		fprintf(f, "# %" PRIu64 " events of threads beyond --max-tasks not counted\n",
			a->threads_over);
}

/* -f: the merged lines, the --top largest, in microseconds */
static void print_folded(FILE *f, struct prof_out *a)
{
	struct fold_line *l = NULL;
	uint32_t i, n, shown;

	if (fold_lines(a, &l, &n)) {
		fputs("offcpu-ftrace: out of memory folding the stacks\n", stderr);
		return;
	}
	shown = a->top && a->top < n ? a->top : n;
	for (i = 0; i < shown; i++)
		fprintf(f, "%s %" PRIu64 "\n", l[i].line, l[i].ns / 1000);
	stacks_fold_free(l, n);
}

/* a row's or the totals' times, as JSON members after the label's */
static void json_times(FILE *f, uint64_t wall, uint64_t on, uint64_t sampled, uint64_t samples,
		       const uint64_t *ns, uint64_t unplaced_ns)
{
	fprintf(f, ",\"wall_ns\":%" PRIu64 ",\"on_cpu_ns\":%" PRIu64 ",\"on_cpu_sampled_ns\":%"
		PRIu64 ",\"samples\":%" PRIu64 ",\"runq_ns\":%" PRIu64 ",\"off_cpu_ns\":%" PRIu64
		",\"off_cpu_s_ns\":%" PRIu64 ",\"off_cpu_d_ns\":%" PRIu64 ",\"off_cpu_other_ns\":%"
		PRIu64 ",\"children_ns\":%" PRIu64 ",\"unplaced_ns\":%" PRIu64, wall, on, sampled,
		samples, ns[PK_RUNQ], ns[PK_OFF_S] + ns[PK_OFF_D] + ns[PK_OFF_OTHER], ns[PK_OFF_S],
		ns[PK_OFF_D], ns[PK_OFF_OTHER], ns[PK_CHILDREN], unplaced_ns);
}

static void json_row(FILE *f, const struct prof_out *a, const struct prow *t)
{
	const char *path, *label;

	switch (a->key) {
	case KEY_CGROUP:
		label = a->cgroup_name(a->arg, t->cg, &path);
		fputs("{\"cgroup\":", f);
		json_str(f, label, NAME_LEN);
		fputs(",\"path\":", f);
		json_str_or_null(f, path, 4096);
		fprintf(f, ",\"threads\":%u", t->nthreads);
		break;
	case KEY_COMM:
		fputs("{\"comm\":", f);
		json_str(f, t->comm, COMM_LEN);
		fprintf(f, ",\"threads\":%u", t->nthreads);
		break;
	case KEY_PID:
		fprintf(f, "{\"pid\":%d,\"threads\":%u,\"comm\":", t->tid, t->nthreads);
		json_str(f, t->comm, COMM_LEN);
		break;
	default:
		fprintf(f, "{\"tid\":%d,\"pid\":%d,\"comm\":", t->tid, t->tgid);
		json_str(f, t->comm, COMM_LEN);
	}
	json_times(f, wall_ns(t, a->start, a->end), t->on_ns, t->samples_ns, t->samples, t->ns,
		   unplaced_of(t, a));
	fputc('}', f);
}

/* the totals: all rows added up, and each kind's share of their wall time */
static void json_totals(FILE *f, const struct ptotal *s)
{
	double w = s->wall ? (double)s->wall : 1.0;

	fprintf(f, ",\"totals\":{\"rows\":%zu,\"threads\":%zu", s->rows, s->threads);
	json_times(f, s->wall, s->on, s->sampled, s->samples, s->ns, s->unplaced);
	fprintf(f, ",\"share\":{\"on_cpu\":%.4f,\"runq\":%.4f,\"off_cpu_s\":%.4f,"
		"\"off_cpu_d\":%.4f,\"off_cpu_other\":%.4f,\"children\":%.4f,\"unplaced\":%.4f}}",
		(double)s->on / w, (double)s->ns[PK_RUNQ] / w, (double)s->ns[PK_OFF_S] / w,
		(double)s->ns[PK_OFF_D] / w, (double)s->ns[PK_OFF_OTHER] / w,
		(double)s->ns[PK_CHILDREN] / w, (double)s->unplaced / w);
}

static void json_extra(FILE *f, void *arg)
{
	const struct prof_out *a = arg;
	static const char *const rows_of[] = { [KEY_PID] = "processes", [KEY_COMM] = "comms",
					       [KEY_CGROUP] = "cgroups" };
	const char *rows = (size_t)a->key < sizeof(rows_of) / sizeof(rows_of[0]) &&
			   rows_of[a->key] ? rows_of[a->key] : "threads";
	struct ptotal s;
	uint64_t un;
	size_t i, nun;

	fprintf(f, ",\"profile\":{\"hz\":%u,\"sampled\":%s,\"source\":\"%s\"",
		a->hz ? a->hz : DEFAULT_HZ, a->sampled ? "true" : "false",
		a->totals ? "proc" : a->sampled ? "samples" : "switches");
	fprintf(f, ",\"%s\":[", rows);
	for (i = 0; i < a->nrows; i++) {
		if (i)
			fputc(',', f);
		json_row(f, a, &a->rows[i]);
	}
	fputc(']', f);
	totals_of(a, &s);
	json_totals(f, &s);
	nun = unplaced(a, &un);
	fprintf(f, ",\"stacks\":%zu,\"overflow_ns\":%" PRIu64 ",\"unplaced_threads\":%zu,"
		"\"unplaced_ns\":%" PRIu64 "}", a->n, a->overflow_ns, nun, un);
}

static int print_svg(struct prof_out *a, struct report *rep, FILE *f)
{
	struct fold_line *l = NULL;
	uint32_t n = 0;
	const char *title;

	if (fold_lines(a, &l, &n))
		return -ENOMEM;
	switch (a->key) {
	case KEY_TID:
		title = "Wall-clock time per thread";
		break;
	case KEY_PID:
		title = "Wall-clock time per process";
		break;
	case KEY_CGROUP:
		title = "Wall-clock time per cgroup and name";
		break;
	default:
		title = "Wall-clock time by name (-L: per thread)";
	}
	svg_flame_lines(f, rep, l, n, a->top, title, FLAME_PROFILE);
	stacks_fold_free(l, n);
	return ferror(f) ? -EIO : 0;
}

static void text_body(FILE *f, void *arg)
{
	struct prof_out *a = arg;

	if (a->folded)
		print_folded(f, a);
	else
		print_table(f, a);
}

int wallprof_print(struct prof_out *a, enum out_format fmt, struct report *rep, FILE *f)
{
	rep->extra_arg = a;
	if (fmt == FMT_JSON) {
		/* groups: each thread's on-CPU slices, keyed by tid as measured */
		rep->key = KEY_TID;
		rep->json_extra = json_extra;
		return report_emit(f, fmt, rep);
	}
	rep->key = KEY_NONE;
	if (fmt == FMT_SVG)
		return print_svg(a, rep, f);
	return report_emit_text(f, fmt, rep, a->folded, text_body, footer);
}
