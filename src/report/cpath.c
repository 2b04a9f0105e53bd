// SPDX-License-Identifier: GPL-2.0-or-later
/* A command's critical path, printed: the table, the story, JSON, folded lines. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpath.h"
#include "escape.h"
#include "svg.h"

#define TOP_DEFAULT 10		/* the longest segments listed */
#define STORY_STEPS 8		/* the longest steps told; the rest summed */
#define STORY_SHARE 50		/* ... each at least 1/50 of the path */
#define STORY_WHO 2		/* the threads named in a sum of shorter steps */

/* what a segment's time is, in the totals and the folded lines */
enum { K_ON, K_RUNQ, K_S, K_D, K_OTHER, K_UNKNOWN, K_N, K_ON_NOSAMPLE = K_N };

static const char *const leaf[K_N + 1] = {
	"[on-cpu]", "[runq]", "[off-cpu S]", "[off-cpu D]", "[off-cpu]", "[unknown]",
	"[on-cpu, no samples]",
};

static unsigned seg_k(const struct cpath *p, const struct cpath_seg *s)
{
	if (s->kind == CP_ON)
		return K_ON;
	if (s->kind == CP_RUNQ)
		return K_RUNQ;
	if (s->kind == CP_UNKNOWN)
		return K_UNKNOWN;
	if (s->state == SCHED_STATE_UNKNOWN || !p->states)
		return K_OTHER;
	if ((uint64_t)s->state & sched_states_mask(p->states, "S"))
		return K_S;
	if ((uint64_t)s->state & sched_states_mask(p->states, "D"))
		return K_D;
	return K_OTHER;
}

static const char *comm(const struct cpath *p, int32_t tid)
{
	const char *c = tid > 0 && p->comm_of ? p->comm_of(p->name_arg, tid) : "";

	return c && c[0] ? c : tid == 0 ? "[idle]" : "[unknown]";
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* a time in words: "0.40 s", "12.5 ms", "80 us" */
static void dur(FILE *f, uint64_t ns)
{
	if (ns >= 100000000)
		fprintf(f, "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		fprintf(f, "%.1f ms", ms(ns));
	else
		fprintf(f, "%.0f us", (double)ns / 1e3);
}

bool cpath_partial(const struct cpath *p, uint64_t *lost_ns)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->seg[i].kind == CP_UNKNOWN ||
		    (p->seg[i].kind == CP_BLOCKED && p->seg[i].why == CPW_LOST))
			ns += p->seg[i].end - p->seg[i].start;
	if (lost_ns)
		*lost_ns = ns;
	return ns > 0 || p->threads_over > 0 || p->states_dropped > 0;
}

/* --- by thread */

struct row {
	int32_t tid;
	uint64_t ns[K_N], total;
};

static int row_by_tid(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int row_by_total(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return row_by_tid(a, b);
}

/* the path's threads, the most time first (*n of them); NULL: out of memory */
static struct row *rows_of(const struct cpath *p, size_t *n)
{
	struct row *r = calloc(p->n ? p->n : 1, sizeof(*r));
	size_t i, k = 0;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < p->n; i++) {
		r[i].tid = p->seg[i].tid;
		r[i].ns[seg_k(p, &p->seg[i])] = p->seg[i].end - p->seg[i].start;
	}
	qsort(r, p->n, sizeof(*r), row_by_tid);
	for (i = 0; i < p->n; i++) {
		unsigned j;

		if (k && r[k - 1].tid == r[i].tid) {
			for (j = 0; j < K_N; j++)
				r[k - 1].ns[j] += r[i].ns[j];
		} else {
			r[k++] = r[i];
		}
	}
	for (i = 0; i < k; i++) {
		unsigned j;

		for (j = 0; j < K_N; j++)
			r[i].total += r[i].ns[j];
	}
	qsort(r, k, sizeof(*r), row_by_total);
	*n = k;
	return r;
}

static void totals(const struct cpath *p, uint64_t *ns)
{
	size_t i;

	memset(ns, 0, K_N * sizeof(*ns));
	for (i = 0; i < p->n; i++)
		ns[seg_k(p, &p->seg[i])] += p->seg[i].end - p->seg[i].start;
}

uint64_t cpath_sum(const struct cpath *p, int kind)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (kind < 0 || p->seg[i].kind == kind)
			ns += p->seg[i].end - p->seg[i].start;
	return ns;
}

/* --- samples: those of @s's thread inside it, by time */

static size_t first_sample(const struct cpath *p, uint64_t ts)
{
	size_t lo = 0, hi = p->nsamples;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->samples[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t samples_in(const struct cpath *p, const struct cpath_seg *s)
{
	uint32_t n = 0;
	size_t i;

	for (i = first_sample(p, s->start); i < p->nsamples && p->samples[i].ts <= s->end; i++)
		n += p->samples[i].tid == s->tid;
	return n;
}

/* --- words */

static void state_letters(const struct cpath *p, const struct cpath_seg *s, char *buf, size_t len)
{
	if (!p->states || s->state == SCHED_STATE_UNKNOWN)
		snprintf(buf, len, "state unknown");
	else
		sched_state_str(p->states, s->state, buf, len);
}

static void where(const struct cpath *p, const struct cpath_seg *s, char *buf, size_t len)
{
	stack_where(p->kstacks, p->sym, s->kstack, buf, len);
}

/* how a blocked segment ended, or why an unknown one is */
static void why_text(FILE *f, const struct cpath *p, const struct cpath_seg *s, bool brief)
{
	switch (s->why) {
	case CPW_OUTSIDE:
		fprintf(f, "woken by %s (%d)%s", comm(p, s->other), s->other,
			brief ? "" : ", outside the command");
		break;
	case CPW_IRQ:
		if (brief)
			fputs("woken in an interrupt", f);
		else
			fprintf(f, "woken in an interrupt (a timer, a device) while %s (%d) ran",
				comm(p, s->other), s->other);
		break;
	case CPW_IDLE:
		fputs(brief ? "woken in an idle CPU's interrupt" :
		      "no waking in the trace: woken in an idle CPU's interrupt (a timer, a "
		      "device)", f);
		break;
	case CPW_LOST:
		fputs(brief ? "its wakeup lost from the trace" :
		      "its wakeup is not in the trace (lost events, or not traced): who woke it "
		      "is not known, the time stays here", f);
		break;
	case CPW_OPEN:
		fputs("still blocked when the window closed", f);
		break;
	case CPW_CYCLE:
		fprintf(f, "woken by %s (%d)%s", comm(p, s->other), s->other,
			brief ? "" : ", which the walk could not follow there");
		break;
	case CPW_GAP:
		fputs("its switches here are not in the trace", f);
		break;
	case CPW_BEFORE:
		fputs("before its first event in the trace", f);
		break;
	case CPW_NOT_KEPT:
		fputs("older than the thread states kept", f);
		break;
	}
}

/* "blocked (S) in do_nanosleep: ..." and the like, for the list of segments */
static void seg_text(FILE *f, const struct cpath *p, const struct cpath_seg *s)
{
	char st[24], wh[STACK_NAME_LEN];
	uint32_t n;

	switch (s->kind) {
	case CP_ON:
		n = samples_in(p, s);
		if (s->cpu >= 0)
			fprintf(f, "on CPU %d", s->cpu);
		else
			fputs("on a CPU", f);
		if (p->sampled)
			fprintf(f, ", %u sample%s", n, n == 1 ? "" : "s");
		break;
	case CP_RUNQ:
		fputs(s->preempted ? "waiting for a CPU (preempted)" : "waiting for a CPU", f);
		if (s->other > 0)
			fprintf(f, ": CPU %d held by %s (%d)", s->cpu, comm(p, s->other), s->other);
		else if (s->other == 0 && s->cpu >= 0)
			fprintf(f, ": CPU %d idle", s->cpu);
		break;
	case CP_BLOCKED:
		state_letters(p, s, st, sizeof(st));
		where(p, s, wh, sizeof(wh));
		fprintf(f, "blocked (%s)%s", st, wh[0] ? " in " : "");
		text_field(f, wh, sizeof(wh), 0);
		fputs(": ", f);
		why_text(f, p, s, false);
		break;
	default:
		fputs("not known: ", f);
		why_text(f, p, s, false);
		break;
	}
	if (s->via != CPV_SAME)
		fprintf(f, " [after %s (%d) %s it]", comm(p, s->via_tid), s->via_tid,
			s->via == CPV_WAKE ? "woke" : "created");
}

/* --- the story: the path in steps, one per stretch on one thread */

struct step {
	size_t first, last;		/* its segments */
	uint64_t ns[K_N], total;
	size_t big;			/* its longest segment not on a CPU */
};

static struct step *steps_of(const struct cpath *p, size_t *n)
{
	struct step *v = calloc(p->n ? p->n : 1, sizeof(*v));
	size_t i, k = 0;

	*n = 0;
	for (i = 0; v && i < p->n; i++) {
		const struct cpath_seg *s = &p->seg[i];
		uint64_t d = s->end - s->start;
		struct step *st;

		if (!k || p->seg[v[k - 1].last].tid != s->tid) {
			v[k].first = i;
			v[k].big = (size_t)-1;
			k++;
		}
		st = &v[k - 1];
		st->last = i;
		st->ns[seg_k(p, s)] += d;
		st->total += d;
		if (s->kind != CP_ON && s->kind != CP_RUNQ &&
		    (st->big == (size_t)-1 || d > p->seg[st->big].end - p->seg[st->big].start))
			st->big = i;
	}
	*n = k;
	return v;
}

static void step_text(FILE *f, const struct cpath *p, const struct step *st)
{
	static const char *const what[K_N] = { "on CPU", "waiting for a CPU", "blocked",
					       "blocked", "blocked", "not in the trace" };
	const struct cpath_seg *first = &p->seg[st->first];
	unsigned k, top = K_ON, parts = 0;
	char buf[STACK_NAME_LEN], sl[24];

	dur(f, st->total);
	fputc(' ', f);
	text_field(f, comm(p, first->tid), COMM_LEN, 0);
	if (first->via != CPV_SAME)
		fprintf(f, " (%s by %s)", first->via == CPV_WAKE ? "woken" : "created",
			comm(p, first->via_tid));
	for (k = 0; k < K_N; k++)
		if (st->ns[k] > st->ns[top])
			top = k;
	if (st->ns[top] * 10 < st->total * 9)
		fputc(':', f);
	for (k = 0; k < K_N; k++) {
		bool alone = st->ns[top] * 10 >= st->total * 9;

		if ((alone && k != top) || !st->ns[k] || st->ns[k] * 100 < st->total)
			continue;
		fprintf(f, "%s %s", parts++ ? "," : "", what[k]);
		if (!alone) {
			fputc(' ', f);
			dur(f, st->ns[k]);
		}
		if ((k == K_S || k == K_D || k == K_OTHER || k == K_UNKNOWN) &&
		    st->big != (size_t)-1 && seg_k(p, &p->seg[st->big]) == k) {
			const struct cpath_seg *b = &p->seg[st->big];

			where(p, b, buf, sizeof(buf));
			if (buf[0] && k != K_UNKNOWN) {
				fputs(" in ", f);
				text_field(f, buf, sizeof(buf), 0);
			}
			if (k != K_UNKNOWN)
				state_letters(p, b, sl, sizeof(sl));
			fprintf(f, " (%s%s", k != K_UNKNOWN ? sl : "", k != K_UNKNOWN ? ", " : "");
			why_text(f, p, b, true);
			fputc(')', f);
		}
	}
}

/*
 * What the story tells: one step, or a stretch where two threads take
 * turns (a pipeline's writer and reader, at least PAIR_STEPS steps)
 */
#define PAIR_STEPS 4
struct unit {
	size_t a, b;			/* its steps, [a, b) */
	int32_t tid[2];			/* a pair's threads */
	uint64_t ns[2][K_N], total;
	bool shown;
};

static struct unit *units_of(const struct cpath *p, const struct step *v, size_t n, size_t *nu)
{
	struct unit *u = calloc(n ? n : 1, sizeof(*u));
	size_t i = 0, j, k = 0, m;

	*nu = 0;
	while (u && i < n) {
		int32_t a = p->seg[v[i].first].tid, b = 0, t;

		for (j = i + 1; j < n; j++) {
			t = p->seg[v[j].first].tid;
			if (!b && t != a)
				b = t;
			else if (t != a && t != b)
				break;
		}
		if (j - i < PAIR_STEPS)
			j = i + 1;	/* one step alone */
		u[k].a = i;
		u[k].b = j;
		u[k].tid[0] = a;
		u[k].tid[1] = j - i > 1 ? b : 0;
		for (; i < j; i++) {
			int w = p->seg[v[i].first].tid == a ? 0 : 1;

			for (m = 0; m < K_N; m++)
				u[k].ns[w][m] += v[i].ns[m];
			u[k].total += v[i].total;
		}
		k++;
	}
	*nu = k;
	return u;
}

/* the units told: the STORY_STEPS longest of at least 1/STORY_SHARE of the path */
static void units_pick(struct unit *u, size_t n, uint64_t total)
{
	size_t shown, i, best;

	for (shown = 0; shown < STORY_STEPS; shown++) {
		for (i = 0, best = n; i < n; i++)
			if (!u[i].shown && (best == n || u[i].total > u[best].total))
				best = i;
		if (best == n || u[best].total * STORY_SHARE < total)
			break;
		u[best].shown = true;
	}
}

/* "0.85 s sha256sum and head taking turns (150 steps): sha256sum on CPU ..., head ..." */
static void pair_text(FILE *f, const struct cpath *p, const struct unit *u)
{
	static const char *const what[K_N] = { "on CPU", "waiting for a CPU", "blocked",
					       "blocked", "blocked", "not in the trace" };
	unsigned w, k, parts;

	dur(f, u->total);
	fputc(' ', f);
	text_field(f, comm(p, u->tid[0]), COMM_LEN, 0);
	fputs(" and ", f);
	text_field(f, comm(p, u->tid[1]), COMM_LEN, 0);
	fprintf(f, " taking turns (%zu steps):", u->b - u->a);
	for (w = 0; w < 2; w++) {
		uint64_t blk = u->ns[w][K_S] + u->ns[w][K_D] + u->ns[w][K_OTHER];

		fputs(w ? ";" : "", f);
		fputc(' ', f);
		text_field(f, comm(p, u->tid[w]), COMM_LEN, 0);
		for (k = parts = 0; k < K_N; k++) {
			uint64_t ns = k == K_S ? blk : u->ns[w][k];

			if (k == K_D || k == K_OTHER || !ns || ns * 100 < u->total)
				continue;
			fprintf(f, "%s %s ", parts++ ? "," : "", what[k]);
			dur(f, ns);
		}
	}
}

struct who {
	int32_t tid;
	uint64_t ns;
};

/*
 * Steps [a, b) not told one by one: how many, their time, and the
 * threads that hold most of it ("12 shorter steps (90.1 ms: sha256sum
 * 70.2 ms, head 19.9 ms)")
 */
static void steps_summed(FILE *f, const struct cpath *p, const struct step *v, size_t a, size_t b)
{
	struct who who[32];
	size_t nwho = 0, i, k, top;
	uint64_t ns = 0, shown = 0;

	for (i = a; i < b; i++) {
		int32_t tid = p->seg[v[i].first].tid;

		ns += v[i].total;
		for (k = 0; k < nwho && who[k].tid != tid; k++)
			;
		if (k == nwho && nwho < sizeof(who) / sizeof(who[0]))
			who[nwho++] = (struct who){ tid, 0 };
		if (k < nwho)
			who[k].ns += v[i].total;
	}
	fprintf(f, "%zu shorter steps (", b - a);
	dur(f, ns);
	for (k = 0; k < STORY_WHO && k < nwho; k++) {
		for (i = k + 1, top = k; i < nwho; i++)
			if (who[i].ns > who[top].ns)
				top = i;
		if (top != k) {
			struct who x = who[k];

			who[k] = who[top];
			who[top] = x;
		}
		if (who[k].ns * 10 < ns)
			break;		/* a thread among many: not worth naming */
		fputs(k ? ", " : ": ", f);
		text_field(f, comm(p, who[k].tid), COMM_LEN, 0);
		fputc(' ', f);
		dur(f, who[k].ns);
		shown += who[k].ns;
	}
	if (k && shown < ns)
		fputs(", ...", f);
	fputc(')', f);
}

/* units [a, b) not told: one step as any, else summed */
static void untold(FILE *f, const struct cpath *p, const struct step *v, const struct unit *u,
		   size_t a, size_t b, bool *said)
{
	if (a == b)
		return;
	fputs(*said ? ", then " : "", f);
	if (u[b - 1].b - u[a].a == 1)
		step_text(f, p, &v[u[a].a]);
	else
		steps_summed(f, p, v, u[a].a, u[b - 1].b);
	*said = true;
}

/* the whole path in words, time order, into @f (one paragraph, no newline) */
static void story(FILE *f, const struct cpath *p, uint64_t total)
{
	struct step *v;
	struct unit *u = NULL;
	size_t n, nu = 0, i, from = 0;
	bool said = false;

	v = steps_of(p, &n);
	if (v)
		u = units_of(p, v, n, &nu);
	if (!v || !u) {
		fputs("(out of memory)", f);
		free(v);
		return;
	}
	units_pick(u, nu, total);
	for (i = 0; i < nu; i++) {
		if (!u[i].shown)
			continue;
		untold(f, p, v, u, from, i, &said);
		from = i + 1;
		fputs(said ? ", then " : "", f);
		if (u[i].tid[1])
			pair_text(f, p, &u[i]);
		else
			step_text(f, p, &v[u[i].a]);
		said = true;
	}
	untold(f, p, v, u, from, nu, &said);
	if (!said)
		fputs("(empty: the command took no time in the trace)", f);
	free(u);
	free(v);
}

/* @text wrapped at about 76 columns, each line indented by two spaces */
static void wrapped(FILE *f, const char *text)
{
	const char *s = text;

	while (*s) {
		size_t len = strlen(s), cut = len;

		if (len > 76) {
			for (cut = 76; cut > 20 && s[cut] != ' '; cut--)
				;
			if (s[cut] != ' ')
				cut = 76;
		}
		fprintf(f, "  %.*s\n", (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* --- the text */

static int by_length(const void *a, const void *b)
{
	const struct cpath_seg *const *x = a, *const *y = b;
	uint64_t dx = (*x)->end - (*x)->start, dy = (*y)->end - (*y)->start;

	return dx > dy ? -1 : dx < dy;
}

static int by_start(const void *a, const void *b)
{
	const struct cpath_seg *const *x = a, *const *y = b;

	return (*x)->start < (*y)->start ? -1 : (*x)->start > (*y)->start;
}

static void print_longest(FILE *f, const struct cpath *p)
{
	size_t top = p->top ? p->top : TOP_DEFAULT, n = p->n < top ? p->n : top, i;
	const struct cpath_seg **v = malloc((p->n ? p->n : 1) * sizeof(*v));

	if (!v)
		return;
	for (i = 0; i < p->n; i++)
		v[i] = &p->seg[i];
	qsort(v, p->n, sizeof(*v), by_length);
	qsort(v, n, sizeof(*v), by_start);
	fprintf(f, "\nThe %zu longest segment%s of %zu, in time order:\n", n, n == 1 ? "" : "s",
		p->n);
	fprintf(f, "%10s %10s %8s %-16s %s\n", "AT(ms)", "LENGTH(ms)", "TID", "COMM", "WHAT");
	for (i = 0; i < n; i++) {
		fprintf(f, "%10.3f %10.3f %8d ", ms(v[i]->start - p->start),
			ms(v[i]->end - v[i]->start), v[i]->tid);
		text_field(f, comm(p, v[i]->tid), COMM_LEN, 16);
		fputc(' ', f);
		seg_text(f, p, v[i]);
		fputc('\n', f);
	}
	free(v);
}

void cpath_print_notes(FILE *f, const struct cpath *p)
{
	uint64_t lost = 0, unknown = cpath_sum(p, CP_UNKNOWN);
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->seg[i].kind == CP_BLOCKED && p->seg[i].why == CPW_LOST)
			lost += p->seg[i].end - p->seg[i].start;
	if (!p->ended)
		fputs("# the command had not ended when the window closed: the path runs back "
		      "from the window's end\n", f);
	if (lost)
		fprintf(f, "# partial: %.3f ms of the path are blocks whose wakeup is not in the "
			"trace: who woke them is not known, the time stays with the waiting "
			"thread\n", ms(lost));
	if (unknown)
		fprintf(f, "# partial: %.3f ms of the path are not in the trace (switches lost, "
			"or before a thread's first event)\n", ms(unknown));
	if (p->states_dropped)
		fprintf(f, "# %" PRIu64 " thread states dropped: the walk keeps %" PRIu64 " (the "
			"newest)%s\n", p->states_dropped, p->states_cap, p->kept_from ?
			"; the path before that is not known" : "");
	if (p->threads_over)
		fprintf(f, "# partial: %" PRIu64 " threads beyond --max-tasks not followed\n",
			p->threads_over);
	if (p->samples_dropped)
		fprintf(f, "# %" PRIu64 " older on-CPU samples dropped (their cap)\n",
			p->samples_dropped);
	if (p->irq_unchecked)
		fprintf(f, "# %" PRIu64 " wake%s followed without the waker's stack, which tells a "
			"wake in an interrupt (credited to the task it interrupted) apart: a "
			"recording needs 'record -K --wakers'\n", p->irq_unchecked,
			p->irq_unchecked == 1 ? "" : "s");
	if (!p->sampled)
		fputs("# no on-CPU samples (the perf backend samples): on-CPU parts have no stacks\n",
		      f);
}

void cpath_print_text(FILE *f, const struct cpath *p)
{
	static const char *const names[K_N] = { "on-CPU", "waiting for a CPU", "blocked (S)",
						"blocked (D)", "blocked (other)",
						"not in the trace" };
	uint64_t total = p->end - p->start, ns[K_N];
	struct row *r;
	size_t n, i, top;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	fputs("Critical path of ", f);
	text_field(f, p->command ? p->command : "the command", 256, 0);
	fprintf(f, ": %.3f s, from its start to its %s\n\n", (double)total / 1e9,
		p->ended ? "exit" : "last moment in the window");
	r = rows_of(p, &n);
	top = p->top && p->top < n ? p->top : n;
	fprintf(f, "%8s %-16s %10s %7s %10s %10s %10s %10s\n", "TID", "COMM", "PATH(ms)", "SHARE",
		"ON-CPU", "RUNQ", "BLOCKED", "UNKNOWN");
	for (i = 0; r && i < top; i++) {
		fprintf(f, "%8d ", r[i].tid);
		text_field(f, comm(p, r[i].tid), COMM_LEN, 16);
		fprintf(f, " %10.1f %6.1f%% %10.1f %10.1f %10.1f %10.1f\n", ms(r[i].total),
			total ? 100.0 * (double)r[i].total / (double)total : 0.0, ms(r[i].ns[K_ON]),
			ms(r[i].ns[K_RUNQ]), ms(r[i].ns[K_S] + r[i].ns[K_D] + r[i].ns[K_OTHER]),
			ms(r[i].ns[K_UNKNOWN]));
	}
	if (top < n)
		fprintf(f, "# and %zu more threads (--top %u)\n", n - top, p->top);
	free(r);
	totals(p, ns);
	fputc('\n', f);
	for (i = 0; i < K_N; i++)
		if (ns[i] || i < K_S)
			fprintf(f, "  %-18s %10.1f ms %6.1f%%\n", names[i], ms(ns[i]),
				total ? 100.0 * (double)ns[i] / (double)total : 0.0);
	fputs("\nThe path:\n", f);
	m = open_memstream(&text, &len);
	if (m) {
		story(m, p, total);
		fputc('.', m);
		fclose(m);
		wrapped(f, text);
	}
	free(text);
	print_longest(f, p);
	fputc('\n', f);
	cpath_print_notes(f, p);
}

/* --- JSON */

static const char *const state_name[] = { "on_cpu", "runq", "blocked", "unknown" };
static const char *const why_name[] = {
	NULL, "woken_outside", "interrupt", "idle_interrupt", "wakeup_lost", "open",
	"not_followed", "gap", "before_first_event", "not_kept",
};

static void json_task(FILE *f, const struct cpath *p, const char *key, int32_t tid)
{
	fprintf(f, ",\"%s\":", key);
	if (tid <= 0) {
		fputs(tid == 0 && !strcmp(key, "held_by") ? "{\"tid\":0,\"comm\":\"[idle]\"}" :
		      "null", f);
		return;
	}
	fprintf(f, "{\"tid\":%d,\"comm\":", tid);
	json_str(f, comm(p, tid), COMM_LEN);
	fputc('}', f);
}

static void json_stack(FILE *f, const struct cpath *p, const struct cpath_seg *s,
		       char (*buf)[STACK_NAME_LEN])
{
	uint32_t skip = 0, depth = buf && s->kstack && p->sym ? stack_name_frames(p->kstacks, p->sym, true,
									 s->kstack, -1, buf, &skip) : 0;
	uint32_t i;

	fputs(",\"kernel_stack\":[", f);
	for (i = skip; i < depth && i - skip < p->depth; i++) {
		fputs(i > skip ? "," : "", f);
		json_str(f, buf[i], STACK_NAME_LEN);
	}
	fputc(']', f);
}

static void json_seg(FILE *f, const struct cpath *p, const struct cpath_seg *s,
		     char (*buf)[STACK_NAME_LEN])
{
	char st[24], wh[STACK_NAME_LEN];

	fprintf(f, "{\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"offset_ns\":%" PRIu64
		",\"duration_ns\":%" PRIu64 ",\"tid\":%d,\"comm\":", s->start, s->end,
		s->start - p->start, s->end - s->start, s->tid);
	json_str(f, comm(p, s->tid), COMM_LEN);
	fprintf(f, ",\"state\":\"%s\"", state_name[s->kind]);
	if (s->kind == CP_ON || s->kind == CP_RUNQ)
		fprintf(f, ",\"cpu\":%d", s->cpu);
	if (s->kind == CP_ON)
		fprintf(f, ",\"samples\":%u", samples_in(p, s));
	if (s->kind == CP_RUNQ) {
		fprintf(f, ",\"preempted\":%s", s->preempted ? "true" : "false");
		json_task(f, p, "held_by", s->other);
	}
	if (s->kind == CP_BLOCKED) {
		state_letters(p, s, st, sizeof(st));
		where(p, s, wh, sizeof(wh));
		fputs(",\"sched_state\":", f);
		json_str(f, st, sizeof(st));
		fputs(",\"where\":", f);
		json_str_or_null(f, wh[0] ? wh : NULL, sizeof(wh));
		json_stack(f, p, s, buf);
		json_task(f, p, "waker", s->other);
	}
	if (s->why)
		fprintf(f, ",\"%s\":\"%s\"", s->kind == CP_UNKNOWN ? "reason" : "ended_by",
			why_name[s->why]);
	if (s->via != CPV_SAME) {
		fprintf(f, ",\"via\":\"%s\"", s->via == CPV_WAKE ? "wake" : "fork");
		json_task(f, p, "from", s->via_tid);
	}
	fputc('}', f);
}

static void json_kinds(FILE *f, const uint64_t *ns)
{
	fprintf(f, "\"on_cpu_ns\":%" PRIu64 ",\"runq_ns\":%" PRIu64 ",\"off_cpu_ns\":%" PRIu64
		",\"off_cpu_s_ns\":%" PRIu64 ",\"off_cpu_d_ns\":%" PRIu64 ",\"off_cpu_other_ns\":%"
		PRIu64 ",\"unknown_ns\":%" PRIu64, ns[K_ON], ns[K_RUNQ],
		ns[K_S] + ns[K_D] + ns[K_OTHER], ns[K_S], ns[K_D], ns[K_OTHER], ns[K_UNKNOWN]);
}

static void json_story(FILE *f, const struct cpath *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	fputs(",\"story\":", f);
	if (m) {
		story(m, p, p->end - p->start);
		fclose(m);
	}
	json_str_or_null(f, text, len + 1);
	free(text);
}

static void json_stacks(FILE *f, const struct cpath *p)
{
	struct fold_line *v = NULL;
	uint32_t n = 0, i;

	fputs(",\"stacks\":[", f);
	if (!cpath_fold(p, &v, &n))
		for (i = 0; i < n; i++) {
			fputs("{\"line\":", f);
			json_str(f, v[i].line, 1 << 16);
			fprintf(f, ",\"ns\":%" PRIu64 "}%s", v[i].ns, i + 1 < n ? "," : "");
		}
	fputc(']', f);
	stacks_fold_free(v, n);
}

void cpath_print_json(FILE *f, const struct cpath *p)
{
	char (*buf)[STACK_NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*buf));
	uint64_t ns[K_N], lost;
	struct row *r;
	size_t n, i;
	bool partial = cpath_partial(p, &lost);

	fputs("{\"command\":", f);
	json_str_or_null(f, p->command, 256);
	fprintf(f, ",\"root\":%d,\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"ended\":%s,"
		"\"total_ns\":%" PRIu64 ",\"segments_ns\":%" PRIu64 ",", p->root, p->start, p->end,
		p->ended ? "true" : "false", p->end - p->start, cpath_sum(p, -1));
	totals(p, ns);
	json_kinds(f, ns);
	fprintf(f, ",\"lost_link_ns\":%" PRIu64 ",\"partial\":%s,\"states_dropped\":%" PRIu64
		",\"kept_from_ns\":%" PRIu64 ",\"threads_over\":%" PRIu64 ",\"samples\":%zu"
		",\"samples_dropped\":%" PRIu64 ",\"irq_unchecked\":%" PRIu64 ",\"by_thread\":[",
		lost, partial ? "true" : "false", p->states_dropped, p->kept_from, p->threads_over,
		p->nsamples, p->samples_dropped, p->irq_unchecked);
	r = rows_of(p, &n);
	for (i = 0; r && i < n; i++) {
		int32_t tgid = p->tgid_of ? p->tgid_of(p->name_arg, r[i].tid) : -1;

		fprintf(f, "%s{\"tid\":%d,\"pid\":", i ? "," : "", r[i].tid);
		if (tgid > 0)
			fprintf(f, "%d", tgid);
		else
			fputs("null", f);
		fputs(",\"comm\":", f);
		json_str(f, comm(p, r[i].tid), COMM_LEN);
		fprintf(f, ",\"total_ns\":%" PRIu64 ",", r[i].total);
		json_kinds(f, r[i].ns);
		fputc('}', f);
	}
	free(r);
	fputs("],\"segments\":[", f);
	for (i = 0; i < p->n; i++) {
		if (i)
			fputc(',', f);
		json_seg(f, p, &p->seg[i], buf);
	}
	fputc(']', f);
	json_story(f, p);
	json_stacks(f, p);
	fputc('}', f);
	free(buf);
}

/* --- folded lines */

struct fent {
	int32_t tid, tgid;
	uint32_t k, kstack, ustack;
	bool switched;			/* a switch-out's stack (the tracer's frames first) */
	uint64_t ns;
};

static int fent_cmp(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	if (x->k != y->k)
		return (x->k > y->k) - (x->k < y->k);
	if (x->kstack != y->kstack)
		return (x->kstack > y->kstack) - (x->kstack < y->kstack);
	return (x->ustack > y->ustack) - (x->ustack < y->ustack);
}

/* each segment's time by what it was, an on-CPU one shared among its samples */
static struct fent *fents_of(const struct cpath *p, size_t *n)
{
	size_t cap = p->n + 1, k = 0, i, j;
	struct fent *v = malloc(cap * sizeof(*v)), *nv;

	for (i = 0; v && i < p->n; i++) {
		const struct cpath_seg *s = &p->seg[i];
		uint64_t d = s->end - s->start;
		uint32_t m = s->kind == CP_ON ? samples_in(p, s) : 0, done = 0;

		if (k + m + 1 > cap) {
			cap = 2 * (k + m + 1);
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		if (!m) {
			v[k++] = (struct fent){ .tid = s->tid, .k = s->kind == CP_ON ? K_ON_NOSAMPLE :
						seg_k(p, s), .kstack = s->kind == CP_BLOCKED ?
						s->kstack : 0, .ustack = s->kind == CP_BLOCKED ?
						s->ustack : 0, .switched = true, .ns = d,
						.tgid = p->tgid_of ? p->tgid_of(p->name_arg, s->tid) : -1 };
			continue;
		}
		for (j = first_sample(p, s->start); j < p->nsamples && p->samples[j].ts <= s->end;
		     j++) {
			const struct cpath_sample *sm = &p->samples[j];

			if (sm->tid != s->tid)
				continue;
			done++;
			/* the last takes the rest of the division */
			v[k++] = (struct fent){ .tid = s->tid, .tgid = sm->tgid, .k = K_ON,
						.kstack = sm->kstack, .ustack = sm->ustack,
						.ns = done == m ? d - (m - 1) * (d / m) : d / m };
		}
	}
	*n = k;
	return v;
}

/* "comm-tid;user frames root->leaf;kernel frames root->leaf;[kind]" */
static void fent_line(FILE *f, const struct cpath *p, const struct fent *e,
		      char (*kb)[STACK_NAME_LEN], char (*ub)[STACK_NAME_LEN])
{
	uint32_t nk = 0, nu = 0, ks = 0, us = 0, i;

	if (e->kstack && p->sym)
		nk = stack_name_frames(p->kstacks, p->sym, true, e->kstack, e->tgid, kb, &ks);
	if (e->ustack && p->sym)
		nu = stack_name_frames(p->ustacks, p->sym, false, e->ustack, e->tgid, ub, &us);
	if (!e->switched)
		ks = 0;		/* a sample's kernel stack: all of it */
	/* a user stack walked past code without frame pointers: one [unknown] for the rest */
	for (i = 0; i < nu; i++)
		if (!strcmp(ub[i], "[unknown]")) {
			nu = i + 1;
			break;
		}
	if (nu > p->depth)
		nu = p->depth;
	if (nk - ks > p->depth)
		nk = ks + p->depth;
	stack_fold_comm(f, comm(p, e->tid));
	fprintf(f, "-%d", e->tid);
	while (nu-- > 0) {
		fputc(';', f);
		stack_fold_frame(f, ub[nu]);
	}
	while (nk-- > ks) {
		fputc(';', f);
		stack_fold_frame(f, kb[nk]);
	}
	fprintf(f, ";%s", leaf[e->k]);
}

/* flame_fold()'s entry: one merged piece of the path */
struct fent_arg {
	const struct cpath *p;
	const struct fent *v;
};

static bool fent_entry(FILE *f, void *arg, size_t i, char (*kb)[STACK_NAME_LEN],
		       char (*ub)[STACK_NAME_LEN], uint64_t *ns)
{
	const struct fent_arg *x = arg;

	fent_line(f, x->p, &x->v[i], kb, ub);
	*ns = x->v[i].ns;
	return true;
}

int cpath_fold(const struct cpath *p, struct fold_line **lines, uint32_t *nout)
{
	size_t n = 0, i, k = 0;
	struct fent *v = fents_of(p, &n);
	struct fent_arg x = { p, v };
	int ret;

	*lines = NULL;
	*nout = 0;
	if (!v)
		return -ENOMEM;
	/* the same thread, kind and stacks: one entry before any line is written */
	qsort(v, n, sizeof(*v), fent_cmp);
	for (i = 0; i < n; i++) {
		if (k && !fent_cmp(&v[k - 1], &v[i]))
			v[k - 1].ns += v[i].ns;
		else
			v[k++] = v[i];
	}
	/* stacks that name alike (cut at --stack-depth) merge into one line */
	ret = flame_fold(k, fent_entry, &x, true, lines, nout);
	free(v);
	return ret;
}

/* --- Perfetto */

/* the lane's pseudo-process, beside the CPUs' (no pid reaches it: pid_max is 2^22) */
#define PF_PATH_PID (PF_CPU_PID + 1)

static int32_t pid_of(const struct cpath *p, int32_t tid)
{
	int32_t tgid = p->tgid_of ? p->tgid_of(p->name_arg, tid) : -1;

	return tgid > 0 ? tgid : tid;
}

/* a segment in words, for the lane: "sleep 1234: blocked (S) in do_nanosleep" */
static void lane_name(char *buf, size_t len, const struct cpath *p, const struct cpath_seg *s)
{
	static const char *const what[] = { "on CPU", "waiting for a CPU", "blocked",
					    "not in the trace" };
	char st[24] = "", wh[STACK_NAME_LEN] = "";

	if (s->kind == CP_BLOCKED) {
		state_letters(p, s, st, sizeof(st));
		where(p, s, wh, sizeof(wh));
	}
	snprintf(buf, len, "%s %d: %s%s%s%s%s%s", comm(p, s->tid), s->tid, what[s->kind],
		 st[0] ? " (" : "", st, st[0] ? ")" : "", wh[0] ? " in " : "", wh);
}

void cpath_print_perfetto(struct pftrace *pf, const struct cpath *p)
{
	char name[STACK_NAME_LEN + 64];
	struct pf_arg a[3];
	size_t i;

	pf_thread_name(pf, PF_PATH_PID, PF_PATH_PID, "critical path");
	for (i = 0; i < p->n; i++) {
		const struct cpath_seg *s = &p->seg[i];
		int32_t pid = pid_of(p, s->tid);
		unsigned na = 0;

		a[na++] = (struct pf_arg){ .key = "tid", .i = s->tid };
		a[na++] = (struct pf_arg){ .key = "state", .s = state_name[s->kind] };
		if (s->why)
			a[na++] = (struct pf_arg){ .key = s->kind == CP_UNKNOWN ? "reason" :
						   "ended_by", .s = why_name[s->why] };
		lane_name(name, sizeof(name), p, s);
		pf_slice(pf, PF_PATH_PID, PF_PATH_PID, s->start, s->end - s->start, name,
			 "critical_path", a, na);
		pf_slice(pf, pid, s->tid, s->start, s->end - s->start, "critical path",
			 "critical_path", a + 1, na - 1);
		if (s->via != CPV_SAME)
			pf_flow(pf, pid_of(p, s->via_tid), s->via_tid, s->start, pid, s->tid, s->start,
				s->via == CPV_WAKE ? "critical path: woke" : "critical path: created");
	}
}
