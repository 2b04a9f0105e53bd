// SPDX-License-Identifier: GPL-2.0-or-later
/* waits: the snapshot as text and JSON (waits.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "report_local.h"
#include "waits.h"

#define TEXT_MAX 512	/* the most of one untrusted string printed */
#define TREE_DEPTH 24	/* holders of holders shown in the text tree */

bool waits_wait_shown(const struct wwait *w)
{
	size_t i;

	for (i = 0; i < w->nh; i++)
		if (w->h[i].blocks)
			return true;
	switch (w->kind) {
	case WK_IO:
	case WK_LOCK:
	case WK_REAP:
	case WK_TRACER:
	case WK_STOPPED:
	case WK_CHILD:
	case WK_FIFO:
	case WK_TTY:
	case WK_PIPE:
		return true;
	case WK_UNIX:
	case WK_TCP:
		/* a server waiting for clients waits on nobody in particular */
		return !w->passive;
	default:
		return false;
	}
}

static bool thread_shown(const struct waits_view *v, const struct wthread *t)
{
	size_t k;

	if (v->all || t->state == 'D')
		return true;
	for (k = 0; k < t->nw; k++)
		if (waits_wait_shown(&t->w[k]))
			return true;
	return false;
}

/* untrusted text (names, paths) on a terminal */
static void txt(FILE *f, const char *s)
{
	text_field(f, s, TEXT_MAX, 0);
}

static void label(FILE *f, const char *comm, int32_t pid, int32_t tid)
{
	txt(f, comm);
	if (tid && tid != pid)
		fprintf(f, " %d/%d", pid, tid);
	else
		fprintf(f, " %d", pid);
}

static const char *state_word(char st)
{
	switch (st) {
	case 'R':
		return "running";
	case 'S':
		return "asleep";
	case 'D':
		return "uninterruptible";
	case 'T':
		return "stopped";
	case 't':
		return "traced";
	case 'Z':
		return "zombie";
	case 'I':
		return "idle";
	default:
		return "state";
	}
}

/* "S (asleep) for at least 3.71 s, in anon_pipe_read" */
static void thread_status(FILE *f, const struct wthread *t)
{
	char d[32];

	fprintf(f, "%c (%s)", t->state, state_word(t->state));
	if (t->dur_known) {
		report_human_ns(d, sizeof(d), (double)t->dur_ns);
		fprintf(f, " for at least %s", d);
	} else if (t->state != 'R') {
		fputs(", how long not known: ", f);
		txt(f, t->dur_why);
	}
	if (t->wchan[0]) {
		fputs(", in ", f);
		txt(f, t->wchan);
	}
}

/* does @t wait on what @w names (its kind and object)? */
static bool thread_has_wait(const struct wthread *t, const struct wwait *w)
{
	size_t k;

	for (k = 0; k < t->nw; k++)
		if (t->w[k].kind == w->kind && !strcmp(t->w[k].object, w->object))
			return true;
	return false;
}

/* was the thread in this wait in the round before, in the same state? */
static bool wait_seen_before(const struct waits_view *v, const struct wthread *t,
			     const struct wwait *w)
{
	const struct wthread *o = v->prev ? wscan_thread(v->prev, t->tid) : NULL;

	return o && o->pid == t->pid && o->state == t->state && thread_has_wait(o, w);
}

static bool thread_seen_before(const struct waits_view *v, const struct wthread *t)
{
	size_t k;

	if (!v->prev || !wscan_thread(v->prev, t->tid))
		return false;
	for (k = 0; k < t->nw; k++)
		if ((v->all || waits_wait_shown(&t->w[k])) && !wait_seen_before(v, t, &t->w[k]))
			return false;
	return true;
}

struct tree {
	FILE *f;
	const struct waits_view *v;
	bool *printed, *on_path;
};

static void tree_thread(struct tree *tr, size_t i, int depth, const char *role, int fd);

/* the thread a holder names, in the snapshot; NULL when it was not read */
static const struct wthread *holder_thread(const struct wsnap *s, const struct wholder *h)
{
	return h->tid ? wscan_thread(s, h->tid) : NULL;
}

/* a holder not expanded: "comm PID (fd N, above)" */
static void holder_brief(struct tree *tr, const struct wholder *h)
{
	const struct wthread *ht = holder_thread(tr->v->s, h);
	size_t hi = ht ? (size_t)(ht - tr->v->s->t) : 0;

	label(tr->f, h->comm[0] ? h->comm : "?", h->pid, h->tid);
	fputs(" (", tr->f);
	if (h->fd >= 0)
		fprintf(tr->f, "fd %d, ", h->fd);
	if (!ht)
		fputs("not read: it exited, or /proc hides it", tr->f);
	else
		fprintf(tr->f, "%c, %s", ht->state, tr->on_path[hi] ? "loops back" :
			tr->printed[hi] ? "shown above" : "deeper than shown");
	fputc(')', tr->f);
}

#define BRIEF_MAX 8	/* holders listed on one line, the rest counted */

/*
 * The holders of @w: each one not shown yet as a tree of its own, then
 * the others, one line per role ("also writer: sh 12 (fd 1, S, shown
 * above), ..."): children that inherited a descriptor are many.
 */
static void tree_holders(struct tree *tr, const struct wwait *w, int depth)
{
	bool *brief = calloc(w->nh + 1, sizeof(bool));
	size_t j, k, n;

	if (!brief)
		return;
	for (j = 0; j < w->nh; j++) {
		const struct wthread *ht = holder_thread(tr->v->s, &w->h[j]);

		if (ht && !tr->printed[ht - tr->v->s->t] && depth < TREE_DEPTH)
			tree_thread(tr, (size_t)(ht - tr->v->s->t), depth, w->h[j].role, w->h[j].fd);
		else
			brief[j] = true;
	}
	for (j = 0; j < w->nh; j++) {
		if (!brief[j])
			continue;
		/* "also writer: ...": a role that says "also" already is not doubled */
		fprintf(tr->f, "%*s%s%s: ", depth * 2, "",
			strncmp(w->h[j].role, "also ", 5) ? "also " : "", w->h[j].role);
		for (k = j, n = 0; k < w->nh; k++) {
			if (!brief[k] || strcmp(w->h[k].role, w->h[j].role))
				continue;
			brief[k] = false;
			if (n++ < BRIEF_MAX) {
				if (n > 1)
					fputs(", ", tr->f);
				holder_brief(tr, &w->h[k]);
			}
		}
		if (n > BRIEF_MAX)
			fprintf(tr->f, " and %zu more", n - BRIEF_MAX);
		fputc('\n', tr->f);
	}
	free(brief);
}

static void tree_wait(struct tree *tr, const struct wwait *w, int depth)
{
	FILE *f = tr->f;

	fprintf(f, "%*swaits on ", depth * 2, "");
	txt(f, w->object);
	fprintf(f, " [%s]", wkind_name(w->kind));
	if (w->detail[0]) {
		fputs(": ", f);
		txt(f, w->detail);
	}
	fputc('\n', f);
	if (w->note[0]) {
		fprintf(f, "%*s(", depth * 2 + 2, "");
		txt(f, w->note);
		fputs(")\n", f);
	}
	tree_holders(tr, w, depth + 1);
}

static void tree_thread(struct tree *tr, size_t i, int depth, const char *role, int fd)
{
	const struct wthread *t = &tr->v->s->t[i];
	FILE *f = tr->f;
	size_t k;

	tr->printed[i] = tr->on_path[i] = true;
	fprintf(f, "%*s", depth * 2, "");
	if (tr->v->round > 1 && depth == 0)
		fputs(thread_seen_before(tr->v, t) ? "[still] " : "[new] ", f);
	if (role)
		fprintf(f, "%s ", role);
	label(f, t->comm, t->pid, t->tid);
	if (fd >= 0)
		fprintf(f, " (fd %d)", fd);
	fputs(": ", f);
	thread_status(f, t);
	fputc('\n', f);
	/* a holder's own waits, whatever they are, say why it does not release */
	for (k = 0; k < t->nw; k++)
		if (tr->v->all || depth || waits_wait_shown(&t->w[k]) || t->state == 'D')
			tree_wait(tr, &t->w[k], depth + 1);
	if (t->w_more)
		fprintf(f, "%*s(and %zu more descriptors it polls)\n", depth * 2 + 2, "", t->w_more);
	/* why a thread that waits on holders is not counted stuck (no cycle through it) */
	if (t->wakes[0] && wgraph_next(tr->v->s->g, i, NULL, 0)) {
		fprintf(f, "%*s(may wake with its holders asleep: ", depth * 2 + 2, "");
		txt(f, t->wakes);
		fputs(")\n", f);
	}
	tr->on_path[i] = false;
}

#define CHAIN_LEN 64	/* the longest chain printed (wgraph_chains()'s bound) */

struct chainp {
	FILE *f;
	const struct wsnap *s;
	bool json;
	bool first;
	/* text: the chain held back, and how many threads of its first process share it */
	size_t held[CHAIN_LEN], hlen;
	enum wchain_end hend;
	unsigned threads;
};

/* one chain's line; @threads > 1: its first node stands for that many threads of its process */
static void chain_line(struct chainp *cp, const size_t *path, size_t len, enum wchain_end end,
		       unsigned threads)
{
	const struct wthread *t;
	size_t k;

	fputs("  ", cp->f);
	for (k = 0; k < len; k++) {
		t = &cp->s->t[path[k]];
		if (k)
			fputs(" -> ", cp->f);
		if (!k && threads > 1) {
			txt(cp->f, t->comm);
			fprintf(cp->f, " %d (%u threads)", t->pid, threads);
		} else {
			label(cp->f, t->comm, t->pid, t->tid);
		}
	}
	t = &cp->s->t[path[len - 1]];
	if (end == WCHAIN_LOOP) {
		fputs(" (loops back)\n", cp->f);
		return;
	}
	fprintf(cp->f, " (%c", t->state);
	if (t->wchan[0]) {
		fputs(", in ", cp->f);
		txt(cp->f, t->wchan);
	}
	fputs(end == WCHAIN_JOIN ? "; on as above)\n" : ")\n", cp->f);
}

static void chain_flush(struct chainp *cp)
{
	if (cp->hlen)
		chain_line(cp, cp->held, cp->hlen, cp->hend, cp->threads);
	cp->hlen = 0;
}

/*
 * Text: chains that differ only in which thread of one process starts
 * them (a pool of workers waiting on the same thing) are one line
 */
static void chain_text(const size_t *path, size_t len, enum wchain_end end, void *arg)
{
	struct chainp *cp = arg;

	if (cp->hlen && len == cp->hlen && end == cp->hend &&
	    cp->s->t[path[0]].pid == cp->s->t[cp->held[0]].pid &&
	    !memcmp(path + 1, cp->held + 1, (len - 1) * sizeof(*path))) {
		cp->threads++;
		return;
	}
	chain_flush(cp);
	if (len > CHAIN_LEN)
		len = CHAIN_LEN;
	memcpy(cp->held, path, len * sizeof(*path));
	cp->hlen = len;
	cp->hend = end;
	cp->threads = 1;
}

static void cycles_text(FILE *f, const struct wsnap *s)
{
	size_t k, j, len, n = wgraph_ncycles(s->g);

	if (!n) {
		fputs("no cycle\n", f);
		return;
	}
	for (k = 0; k < n; k++) {
		const size_t *c = wgraph_cycle(s->g, k, &len);

		fputs("cycle (a deadlock unless a timeout or a signal breaks it): ", f);
		for (j = 0; j <= len; j++) {
			const struct wthread *t = &s->t[c[j % len]];

			if (j)
				fputs(" -> ", f);
			label(f, t->comm, t->pid, t->tid);
		}
		fputc('\n', f);
	}
}

/* --watch: the waits of the round before that are over */
static void gone_text(FILE *f, const struct waits_view *v)
{
	const struct wsnap *p = v->prev;
	size_t i, k;

	for (i = 0; p && i < p->n; i++) {
		const struct wthread *o = &p->t[i], *t = wscan_thread(v->s, o->tid);

		for (k = 0; k < o->nw; k++) {
			if (!waits_wait_shown(&o->w[k]) || (t && t->pid == o->pid &&
			    t->state == o->state && thread_has_wait(t, &o->w[k])))
				continue;
			fputs("[over] ", f);
			label(f, o->comm, o->pid, o->tid);
			fprintf(f, " no longer waits on %s ", wkind_name(o->w[k].kind));
			txt(f, o->w[k].object);
			if (t)
				fprintf(f, " (now %c)\n", t->state);
			else
				fputs(" (it exited)\n", f);
		}
	}
}

static void header_text(FILE *f, const struct waits_view *v)
{
	const struct wsnap *s = v->s;
	char when[32];
	struct tm tm;

	localtime_r(&s->wall, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "# waits of ");
	txt(f, v->scope);
	fprintf(f, ", %s: %zu process%s, %zu thread%s read", when, s->ntargets,
		s->ntargets == 1 ? "" : "es", s->n, s->n == 1 ? "" : "s");
	if (v->round)
		fprintf(f, " (round %u)", v->round);
	fputc('\n', f);
}

void waits_print_text(FILE *f, const struct waits_view *v)
{
	const struct wsnap *s = v->s;
	struct tree tr = { .f = f, .v = v };
	struct chainp cp = { .f = f, .s = s };
	size_t i, n, shown = 0;
	unsigned k;

	header_text(f, v);
	tr.printed = calloc(s->n + 1, sizeof(bool));
	tr.on_path = calloc(s->n + 1, sizeof(bool));
	if (!tr.printed || !tr.on_path) {
		fputs("# out of memory\n", f);
		goto out;
	}
	/* a tree from each thread nobody waits on, then what is left (cycles) */
	for (i = 0; i < s->n; i++)
		if (thread_shown(v, &s->t[i]) && !wgraph_waited_on(s->g, i) && !tr.printed[i]) {
			tree_thread(&tr, i, 0, NULL, -1);
			shown++;
		}
	for (i = 0; i < s->n; i++)
		if (thread_shown(v, &s->t[i]) && !tr.printed[i]) {
			tree_thread(&tr, i, 0, NULL, -1);
			shown++;
		}
	if (!s->ntargets)
		fputs("no process in the scope (this one is left out)\n", f);
	else if (!shown)
		fputs("nothing waits on anything /proc can name (threads run, sleep on timers, "
		      "or wait for events nobody holds); --all lists every thread\n", f);
	gone_text(f, v);
	fputs("chains:\n", f);
	n = wgraph_chains(s->g, 200, CHAIN_LEN, chain_text, &cp);
	chain_flush(&cp);
	if (!n)
		fputs("  none\n", f);
	else if (n > 200)
		fputs("  (and more: --format=json lists 200 too)\n", f);
	cycles_text(f, s);
	if (s->fd_denied)
		fprintf(f, "# the descriptors of %u process%s could not be read (not this user's: "
			"root can read them): holders among them are not named\n", s->fd_denied,
			s->fd_denied == 1 ? "" : "es");
	for (k = 0; k < s->nnotes; k++) {
		fputs("# ", f);
		txt(f, s->notes[k]);
		fputc('\n', f);
	}
out:
	free(tr.printed);
	free(tr.on_path);
}

/* ,"key":"text" (null for "") */
static void json_kv(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	json_str_or_null(f, s && s[0] ? s : NULL, TEXT_MAX);
}

static void json_state(FILE *f, char st)
{
	char s[2] = { st, '\0' };

	fputs(",\"state\":", f);
	json_str_or_null(f, st && st != '?' ? s : NULL, 2);
}

static void json_holder(FILE *f, const struct wholder *h)
{
	fprintf(f, "{\"pid\":%d,\"tid\":", h->pid);
	if (h->tid)
		fprintf(f, "%d", h->tid);
	else
		fputs("null", f);
	json_kv(f, "comm", h->comm);
	json_state(f, h->state);
	json_kv(f, "wchan", h->wchan);
	json_kv(f, "role", h->role);
	if (h->fd >= 0)
		fprintf(f, ",\"fd\":%d", h->fd);
	else
		fputs(",\"fd\":null", f);
	fprintf(f, ",\"blocks\":%s}", h->blocks ? "true" : "false");
}

static void json_wait(FILE *f, const struct wwait *w)
{
	size_t j;

	fputs("{\"kind\":", f);
	json_str(f, wkind_name(w->kind), 16);
	json_kv(f, "object", w->object);
	json_kv(f, "detail", w->detail);
	json_kv(f, "source", w->source);
	json_kv(f, "note", w->note);
	fputs(",\"holders\":[", f);
	for (j = 0; j < w->nh; j++) {
		if (j)
			fputc(',', f);
		json_holder(f, &w->h[j]);
	}
	fputs("]}", f);
}

/* the frames " <- "-joined, as an array */
static void json_frames(FILE *f, const char *s)
{
	bool first = true;

	fputc('[', f);
	while (*s) {
		const char *e = strstr(s, " <- ");
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (!first)
			fputc(',', f);
		json_str(f, s, n);
		first = false;
		s += n + (e ? 4 : 0);
	}
	fputc(']', f);
}

static void json_thread_sys(FILE *f, const struct wthread *t)
{
	int a;

	fputs(",\"syscall\":", f);
	if (!t->have_sys || t->sys.state != WSYS_IN) {
		fputs(t->have_sys && t->sys.state == WSYS_RUNNING ? "\"running\"" :
		      t->have_sys ? "\"none\"" : "null", f);
	} else {
		fprintf(f, "{\"nr\":%ld", t->sys.nr);
		json_kv(f, "name", wscan_syscall_name(t->sys.nr));
		fputs(",\"args\":[", f);
		for (a = 0; a < 6; a++)
			fprintf(f, "%s\"0x%" PRIx64 "\"", a ? "," : "", t->sys.arg[a]);
		fputs("]}", f);
	}
	json_kv(f, "syscall_why", t->have_sys ? NULL : t->sys_why);
}

static void json_thread(FILE *f, const struct waits_view *v, size_t i)
{
	const struct wthread *t = &v->s->t[i];
	size_t k;

	fprintf(f, "{\"tid\":%d,\"pid\":%d,\"ppid\":%d", t->tid, t->pid, t->ppid);
	json_kv(f, "comm", t->comm);
	json_state(f, t->state);
	if (t->dur_known)
		fprintf(f, ",\"state_ns\":%" PRIu64 ",\"state_ns_is\":\"at_least\"", t->dur_ns);
	else
		fputs(",\"state_ns\":null,\"state_ns_is\":\"unknown\"", f);
	json_kv(f, "state_ns_from", t->dur_known ? t->dur_from : NULL);
	json_kv(f, "state_ns_why", t->dur_known ? NULL : t->dur_why);
	if (t->cpu >= 0)
		fprintf(f, ",\"cpu\":%d", t->cpu);
	else
		fputs(",\"cpu\":null", f);
	json_kv(f, "wchan", t->wchan);
	json_kv(f, "wchan_why", t->wchan[0] ? NULL : t->wchan_why);
	json_thread_sys(f, t);
	fputs(",\"kstack\":", f);
	if (t->kstack[0])
		json_frames(f, t->kstack);
	else
		fputs("null", f);
	json_kv(f, "kstack_why", t->kstack[0] ? NULL : t->kstack_why);
	fprintf(f, ",\"scope\":\"%s\",\"stuck\":%s", t->target ? "target" : "holder",
		wgraph_stuck(v->s->g, i) ? "true" : "false");
	json_kv(f, "wakes", t->wakes);
	if (v->round)
		fprintf(f, ",\"still\":%s", thread_seen_before(v, t) ? "true" : "false");
	fputs(",\"waits_on\":[", f);
	for (k = 0; k < t->nw; k++) {
		if (k)
			fputc(',', f);
		json_wait(f, &t->w[k]);
	}
	fprintf(f, "],\"waits_on_more\":%zu}", t->w_more);
}

static void chain_json(const size_t *path, size_t len, enum wchain_end end, void *arg)
{
	struct chainp *cp = arg;
	size_t k;

	fputs(cp->first ? "{\"pids\":[" : ",{\"pids\":[", cp->f);
	cp->first = false;
	for (k = 0; k < len; k++)
		fprintf(cp->f, "%s%d", k ? "," : "", cp->s->t[path[k]].pid);
	fputs("],\"tids\":[", cp->f);
	for (k = 0; k < len; k++)
		fprintf(cp->f, "%s%d", k ? "," : "", cp->s->t[path[k]].tid);
	fprintf(cp->f, "],\"loops\":%s,\"joins\":%s}", end == WCHAIN_LOOP ? "true" : "false",
		end == WCHAIN_JOIN ? "true" : "false");
}

static void cycles_json(FILE *f, const struct wsnap *s, bool tids)
{
	size_t k, j, len, n = wgraph_ncycles(s->g);

	fprintf(f, ",\"%s\":[", tids ? "cycle_tids" : "cycles");
	for (k = 0; k < n; k++) {
		const size_t *c = wgraph_cycle(s->g, k, &len);

		fputs(k ? ",[" : "[", f);
		for (j = 0; j < len; j++)
			fprintf(f, "%s%d", j ? "," : "", tids ? s->t[c[j]].tid : s->t[c[j]].pid);
		fputc(']', f);
	}
	fputc(']', f);
}

/* --watch: the waits of the round before that are over */
static void over_json(FILE *f, const struct waits_view *v)
{
	const struct wsnap *p = v->prev;
	bool first = true;
	size_t i, k;

	fputs(",\"over\":[", f);
	for (i = 0; p && i < p->n; i++) {
		const struct wthread *o = &p->t[i], *t = wscan_thread(v->s, o->tid);

		for (k = 0; k < o->nw; k++) {
			if (!waits_wait_shown(&o->w[k]) || (t && t->pid == o->pid &&
			    t->state == o->state && thread_has_wait(t, &o->w[k])))
				continue;
			fprintf(f, "%s{\"tid\":%d,\"pid\":%d", first ? "" : ",", o->tid, o->pid);
			first = false;
			json_kv(f, "comm", o->comm);
			json_kv(f, "kind", wkind_name(o->w[k].kind));
			json_kv(f, "object", o->w[k].object);
			json_state(f, t ? t->state : '?');
			fputc('}', f);
		}
	}
	fputc(']', f);
}

void waits_print_json(FILE *f, const struct waits_view *v)
{
	const struct wsnap *s = v->s;
	struct chainp cp = { .f = f, .s = s, .json = true, .first = true };
	size_t i, n;
	unsigned k;

	fputs("{\"command\":\"waits\"", f);
	json_kv(f, "scope", v->scope);
	fprintf(f, ",\"time\":%lld", (long long)s->wall);
	if (v->round)
		fprintf(f, ",\"round\":%u", v->round);
	fprintf(f, ",\"processes\":%zu,\"fd_unreadable_processes\":%u,\"gone_processes\":%u",
		s->ntargets, s->fd_denied, s->gone);
	fputs(",\"threads\":[", f);
	for (i = 0; i < s->n; i++) {
		if (i)
			fputc(',', f);
		json_thread(f, v, i);
	}
	fputs("],\"chains\":[", f);
	n = wgraph_chains(s->g, 200, 64, chain_json, &cp);
	fprintf(f, "],\"chains_more\":%s", n > 200 ? "true" : "false");
	cycles_json(f, s, false);
	cycles_json(f, s, true);
	if (v->round)
		over_json(f, v);
	fputs(",\"notes\":[", f);
	for (k = 0; k < s->nnotes; k++) {
		if (k)
			fputc(',', f);
		json_str(f, s->notes[k], sizeof(s->notes[k]));
	}
	fputs("]}\n", f);
}
