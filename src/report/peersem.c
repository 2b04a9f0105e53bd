// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare: who made each histogram (this tool, with which command,
 * --compat and backend, or a peer recognised by its banner), and which
 * difference in what they count explains a gap (the peers as Debian 12
 * ships them: BCC's python tools and libbpf-tools 0.26, bpftrace 0.17's
 * .bt tools, perf 6.1's sched timehist).
 */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "escape.h"

/* @text holds @s (not NUL-terminated: @len bytes) */
static const char *find(const char *text, size_t len, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (text[i] == s[0] && !memcmp(text + i, s, n))
			return text + i;
	return NULL;
}

/* the value of @key ("\"command\":\"") up to the next quote, into @out */
static void json_value(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
	const char *p = find(text, len, key), *end = text + len;
	size_t n = 0;

	out[0] = '\0';
	if (!p)
		return;
	for (p += strlen(key); p < end && *p != '"' && n + 1 < outlen; p++)
		out[n++] = *p;
	out[n] = '\0';
}

/* our text trailer "# NAME: 3.000 s traced, backend B, clock C[, --compat=X]" */
static bool ours_trailer(const char *text, size_t len, struct cmp_source *s)
{
	const char *p = find(text, len, " s traced, backend "), *q, *end = text + len;
	size_t n;

	if (!p)
		return false;
	for (q = p; q > text && q[-1] != '\n'; q--)
		;
	if (q + 2 >= p || q[0] != '#' || q[1] != ' ')
		return false;
	for (n = 0, q += 2; q < p && *q != ':' && n + 1 < sizeof(s->command); q++)
		s->command[n++] = *q;
	s->command[n] = '\0';
	p += strlen(" s traced, backend ");
	for (n = 0; p < end && *p != ',' && *p != '\n' && n + 1 < sizeof(s->backend); p++)
		s->backend[n++] = *p;
	s->backend[n] = '\0';
	q = find(p, (size_t)(end - p), ", --compat=");
	if (q && !memchr(p, '\n', (size_t)(q - p))) {
		for (n = 0, q += strlen(", --compat="); q < end && *q != '\n' &&
		     n + 1 < sizeof(s->compat); q++)
			s->compat[n++] = *q;
		s->compat[n] = '\0';
	}
	return true;
}

void cmp_source_detect(const char *text, size_t len, enum peerhist_format format,
		       struct cmp_source *s)
{
	memset(s, 0, sizeof(*s));
	if (format == PEERHIST_JSON) {
		json_value(text, len, "\"command\":\"", s->command, sizeof(s->command));
		json_value(text, len, "\"compat\":\"", s->compat, sizeof(s->compat));
		json_value(text, len, "\"backend\":\"", s->backend, sizeof(s->backend));
		s->tool = s->command[0] ? CMP_OURS : CMP_UNKNOWN;
		return;
	}
	if (ours_trailer(text, len, s)) {
		s->tool = CMP_OURS;
		s->off = !strcmp(s->command, "oncpu") && find(text, len, "Tracing off-CPU time");
		return;
	}
	if (find(text, len, "Tracing run queue latency"))
		s->tool = CMP_RUNQLAT;
	else if (find(text, len, "Tracing CPU scheduler"))
		s->tool = CMP_RUNQLAT_BT;
	else if (find(text, len, "Tracing on-CPU time"))
		s->tool = CMP_CPUDIST;
	else if (find(text, len, "Tracing off-CPU time"))
		s->tool = CMP_CPUDIST_OFF;
	/* libbpf-tools' cpudist keys the idle task's slices too; BCC's python leaves it out */
	s->idle_section = find(text, len, "pid = 0 ") || find(text, len, "tid = 0 ");
}

/* what a source measures: 'r' run-queue waits, 'n' on-CPU slices, 'f' off-CPU, 0 unknown */
static char measure_of(const struct cmp_source *s)
{
	switch (s->tool) {
	case CMP_OURS:
		if (!strcmp(s->command, "runq") || !strcmp(s->command, "runqlen"))
			return 'r';
		if (!strcmp(s->command, "oncpu"))
			return s->off ? 'f' : 'n';
		if (!strcmp(s->command, "offcpu"))
			return 'f';
		return 0;
	case CMP_RUNQLAT:
	case CMP_RUNQLAT_BT:
		return 'r';
	case CMP_CPUDIST:
		return 'n';
	case CMP_CPUDIST_OFF:
		return 'f';
	case CMP_UNKNOWN:
		break;
	}
	return 0;
}

void cmp_source_name(const struct cmp_source *s, char *buf, size_t len)
{
	switch (s->tool) {
	case CMP_OURS:
		snprintf(buf, len, "offcpu-ftrace %s%s%s%s%s%s", s->command, s->off ? " -O" : "",
			 s->compat[0] ? " --compat=" : "", s->compat, s->backend[0] ? ", backend " :
			 "", s->backend);
		return;
	case CMP_RUNQLAT:
		snprintf(buf, len, "runqlat (BCC's python tool or libbpf-tools', by its banner)");
		return;
	case CMP_RUNQLAT_BT:
		snprintf(buf, len, "bpftrace's runqlat.bt (by its banner)");
		return;
	case CMP_CPUDIST:
		snprintf(buf, len, "cpudist (%s, by its banner)", s->idle_section ?
			 "libbpf-tools': it has the idle task's section" :
			 "BCC's python tool or libbpf-tools'");
		return;
	case CMP_CPUDIST_OFF:
		snprintf(buf, len, "cpudist -O (by its banner)");
		return;
	case CMP_UNKNOWN:
		break;
	}
	snprintf(buf, len, "not recognised");
}

/* a line of explanation into @e */
static void say(struct cmp_explain *e, const char *text)
{
	if (e->n < CMP_EXPLAIN_MAX)
		snprintf(e->line[e->n++], sizeof(e->line[0]), "%s", text);
}

/* ours (@o, @on counted) against a peer (@p, @pn counted) */
static void explain_pair(const struct cmp_source *o, double on, const struct cmp_source *p,
			 double pn, struct cmp_explain *e)
{
	bool bt = !strcmp(o->compat, "bpftrace"), perf = !strcmp(o->compat, "perf");
	bool libbpf = !strcmp(o->compat, "libbpf-tools");

	if (p->tool == CMP_RUNQLAT_BT && !bt)
		say(e, "runqlat.bt counts a preemption only in R (prev_state 0), not R+ "
		    "(preempted inside the kernel), and times the idle task: compare with "
		    "runq --compat=bpftrace");
	if (p->tool == CMP_RUNQLAT && bt)
		say(e, "runqlat (BCC's, libbpf-tools') counts R+ preemptions too, which "
		    "--compat=bpftrace leaves out: compare with runq --compat=bcc");
	if ((p->tool == CMP_RUNQLAT || p->tool == CMP_RUNQLAT_BT) && perf)
		say(e, "--compat=perf counts perf 6.1 sched timehist's sch delay (from the first "
		    "sched_waking; 0 after a preemption), which runqlat does not: compare without "
		    "--compat");
	if (p->tool == CMP_RUNQLAT && !bt && !perf)
		say(e, "the same rules as runqlat (BCC's and libbpf-tools'): from sched_wakeup, "
		    "sched_wakeup_new or a preemption (R or R+) to the switch-in");
	if ((p->tool == CMP_RUNQLAT || p->tool == CMP_RUNQLAT_BT) && !strcmp(o->backend, "perf"))
		say(e, "this run took its switches from perf's context-switch records: a switch "
		    "from an idle CPU is stamped after the switch (the tracepoint BPF reads, before "
		    "it), so its shortest waits read a microsecond or so longer");
	if (p->tool == CMP_RUNQLAT || p->tool == CMP_RUNQLAT_BT)
		say(e, "BPF's programs read 1-3 us a wait more than the kernel's run_delay on "
		    "short waits (their own time between the two timestamps)");
	if (p->tool == CMP_CPUDIST && !libbpf &&
	    (p->idle_section || (pn > 0 && on > 1.5 * pn)))
		say(e, "B looks like libbpf-tools 0.26's cpudist: it counts only slices that end "
		    "runnable (preempted, R or R+) and the idle task's, where BCC's python cpudist "
		    "and oncpu count every slice: compare with oncpu --compat=libbpf-tools");
	else if (p->tool == CMP_CPUDIST && !libbpf)
		say(e, "BCC's python cpudist counts every slice, as oncpu does; libbpf-tools "
		    "0.26's counts only slices that end runnable, and the idle task's (oncpu "
		    "--compat=libbpf-tools)");
	if (p->tool == CMP_CPUDIST && libbpf && on > 0 && pn > 1.5 * on && !p->idle_section)
		say(e, "B looks like BCC's python cpudist, which counts every slice: compare with "
		    "oncpu without --compat");
	else if (p->tool == CMP_CPUDIST && libbpf)
		say(e, "the same rules as libbpf-tools 0.26's cpudist: slices that end runnable, "
		    "and the idle task's (its start kept under pid 0 for all CPUs)");
	if (p->tool == CMP_CPUDIST_OFF)
		say(e, "cpudist -O times every off-CPU interval, switch-out to switch-in, as "
		    "offcpu and oncpu -O do");
}

void cmp_explain_sources(const struct cmp_source *a, double an, const struct cmp_source *b,
			 double bn, struct cmp_explain *e)
{
	char ma = measure_of(a), mb = measure_of(b);
	static const char *const what[] = { ['r'] = "run-queue waits", ['n'] = "on-CPU slices",
					    ['f'] = "off-CPU intervals" };
	char buf[300];

	memset(e, 0, sizeof(*e));
	if (ma && mb && ma != mb) {
		snprintf(buf, sizeof(buf), "A counts %s, B %s: not the same quantity",
			 what[(unsigned char)ma], what[(unsigned char)mb]);
		say(e, buf);
		return;
	}
	if (a->tool == CMP_OURS && b->tool != CMP_OURS && b->tool != CMP_UNKNOWN)
		explain_pair(a, an, b, bn, e);
	else if (b->tool == CMP_OURS && a->tool != CMP_OURS && a->tool != CMP_UNKNOWN)
		explain_pair(b, bn, a, an, e);
	else if (a->tool == CMP_OURS && b->tool == CMP_OURS && strcmp(a->compat, b->compat)) {
		snprintf(buf, sizeof(buf), "A counts by --compat=%s, B by --compat=%s",
			 a->compat[0] ? a->compat : "bcc", b->compat[0] ? b->compat : "bcc");
		say(e, buf);
	}
}

/* both sides' sources named, and why they may differ; false: a side's source is not known */
static bool explain_sides(const struct cmp_side *a, const struct cmp_side *b, char *na, char *nb,
			  size_t len, struct cmp_explain *e)
{
	if (!a->src || !b->src)
		return false;
	cmp_source_name(a->src, na, len);
	cmp_source_name(b->src, nb, len);
	cmp_explain_sources(a->src, a->d->total, b->src, b->d->total, e);
	return true;
}

void cmp_print_explain(FILE *f, const struct cmp_side *a, const struct cmp_side *b)
{
	struct cmp_explain e;
	char na[200], nb[200];
	unsigned i;

	if (!explain_sides(a, b, na, nb, sizeof(na), &e))
		return;
	fprintf(f, "sources: A %s; B %s\n", na, nb);
	for (i = 0; i < e.n; i++)
		fprintf(f, "why: %s\n", e.line[i]);
}

void cmp_print_explain_json(FILE *f, const struct cmp_side *a, const struct cmp_side *b)
{
	struct cmp_explain e;
	char na[200], nb[200];
	unsigned i;

	if (!explain_sides(a, b, na, nb, sizeof(na), &e))
		return;
	fputs(",\"sources\":{\"a\":", f);
	json_str(f, na, sizeof(na));
	fputs(",\"b\":", f);
	json_str(f, nb, sizeof(nb));
	fputs("},\"why\":[", f);
	for (i = 0; i < e.n; i++) {
		fputs(i ? "," : "", f);
		json_str(f, e.line[i], sizeof(e.line[i]));
	}
	fputc(']', f);
}
