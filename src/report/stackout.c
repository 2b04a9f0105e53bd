// SPDX-License-Identifier: GPL-2.0-or-later
/* Off-CPU time by stack, printed: offcputime's text, folded lines, JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "stackout.h"
#include "svg.h"

#define NAME_LEN STACK_NAME_LEN

/* One stack, named: frames innermost first. */
struct named {
	char (*name)[NAME_LEN];
	uint32_t n;
};

/*
 * The kernel stack of a sched_switch starts inside the tracer
 * (trace_event_raw_event_sched_switch, __traceiter_sched_switch): begin at
 * __schedule, as a stack taken at the switch by BPF would.
 */
static uint32_t skip_tracer_frames(char (*name)[NAME_LEN], uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && i < 8; i++)
		if (!strcmp(name[i], "__schedule"))
			return i;
	return 0;
}

uint32_t stack_name_frames(const struct stacktab *tab, const struct symbolizer *sym, bool kernel,
			   uint32_t id, int32_t tgid, char (*buf)[STACK_NAME_LEN], uint32_t *skip)
{
	uint32_t depth = 0, i;
	const uint64_t *fr = id ? stacktab_get(tab, id, &depth) : NULL;

	if (!fr)
		depth = 0;
	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	for (i = 0; i < depth; i++) {
		if (kernel)
			sym->kernel(sym->karg, fr[i], buf[i], STACK_NAME_LEN);
		else
			sym->user(sym->uarg, tgid, fr[i], buf[i], STACK_NAME_LEN);
	}
	*skip = kernel ? skip_tracer_frames(buf, depth) : 0;
	return depth;
}

void stack_where(const struct stacktab *kstacks, const struct symbolizer *sym, uint32_t id,
		 char *buf, size_t len)
{
	const uint64_t *fr;
	uint32_t depth = 0, i;
	char name[STACK_NAME_LEN];

	buf[0] = '\0';
	if (!id || !sym || !sym->kernel || !(fr = stacktab_get(kstacks, id, &depth)))
		return;
	/* a switch's stack begins inside the tracer: from __schedule, if there */
	for (i = 0; i < depth && i < 8; i++)
		if (!sym->kernel(sym->karg, fr[i], name, sizeof(name)) && !strcmp(name, "__schedule"))
			break;
	for (i = i < depth && i < 8 ? i : 0; i < depth; i++) {
		if (sym->kernel(sym->karg, fr[i], name, sizeof(name)) || strstr(name, "schedule"))
			continue;
		snprintf(buf, len, "%s", name);
		return;
	}
}

static void name_stack(const struct stack_report *r, bool kernel, uint32_t id,
		       int32_t tgid, char (*buf)[NAME_LEN], struct named *out)
{
	uint32_t skip, depth = stack_name_frames(kernel ? r->kstacks : r->ustacks, r->sym, kernel,
						  id, tgid, buf, &skip);

	out->name = buf + skip;
	out->n = depth - skip;
	if (out->n > r->depth)
		out->n = r->depth;
}

void stack_fold_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 ? '?' : *s, f);
}

void stack_fold_comm(FILE *f, const char *comm)
{
	size_t i, n = strnlen(comm, COMM_LEN);

	if (!n) {
		fputs("[unknown]", f);	/* a line must start with a name */
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)comm[i];

		fputc(c == ';' || c == ' ' ? '_' : c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

static char kbuf[STACK_MAX_DEPTH][NAME_LEN], ubuf[STACK_MAX_DEPTH][NAME_LEN];

/* --by cgroup: the entry's cgroup, named and its path ("(unknown)", NULL where none) */
static const char *cgroup_of_entry(const struct stack_report *r, const struct stackagg_ent *e,
				   const char **path)
{
	const char *label = NULL;

	*path = NULL;
	if (r->cgroup_names)
		r->cgroup_names(STACK_ID_CG(e->id), &label, path, r->cgroup_arg);
	return label ? label : "(unknown)";
}

/* an entry's name: its thread's (or process's) comm; with --by cgroup, "cgroup;comm" */
static void folded_name(FILE *f, const struct stack_report *r, const struct stackagg_ent *e)
{
	const char *path, *cg;

	if (r->key == KEY_CGROUP) {
		cg = cgroup_of_entry(r, e, &path);
		folded_cgroup(f, cg);
	}
	stack_fold_comm(f, e->comm);
}

/* the id JSON and text show: the thread's with --by cgroup */
static int64_t shown_id(const struct stack_report *r, const struct stackagg_ent *e)
{
	return r->key == KEY_CGROUP ? STACK_ID_TID(e->id) : e->id;
}

static uint32_t shown(const struct stack_report *r)
{
	return r->top && r->top < r->agg->n ? r->top : r->agg->n;
}

/* "comm;outer;...;inner" of one entry, without the value */
static void folded_line(FILE *f, const struct stack_report *r, const struct stackagg_ent *e)
{
	struct named ks = { NULL, 0 }, us = { NULL, 0 };
	uint32_t i;

	if (r->kstack)
		name_stack(r, true, e->kstack, e->tgid, kbuf, &ks);
	if (r->ustack)
		name_stack(r, false, e->ustack, e->tgid, ubuf, &us);
	folded_name(f, r, e);
	if (r->ustack) {
		if (!e->ustack)
			fputs(";[Missed User Stack]", f);
		for (i = us.n; i-- > 0;) {
			fputc(';', f);
			stack_fold_frame(f, us.name[i]);
		}
	}
	if (r->kstack) {
		if (r->ustack && r->delimited)
			fputs(";-", f);
		if (!e->kstack)
			fputs(";[Missed Kernel Stack]", f);
		for (i = ks.n; i-- > 0;) {
			fputc(';', f);
			stack_fold_frame(f, ks.name[i]);
		}
	}
}

void stacks_fold_free(struct fold_line *v, uint32_t n)
{
	uint32_t k;

	for (k = 0; v && k < n; k++)
		free(v[k].line);
	free(v);
}

/* flame_fold()'s entry: one aggregated stack's folded line */
static bool stacks_entry(FILE *f, void *arg, size_t i, char (*a)[STACK_NAME_LEN],
			 char (*b)[STACK_NAME_LEN], uint64_t *ns)
{
	const struct stack_report *r = arg;

	(void)a;
	(void)b;
	folded_line(f, r, &r->agg->v[i]);
	*ns = r->agg->v[i].total_ns;
	return true;
}

int stacks_fold(const struct stack_report *r, struct fold_line **out, uint32_t *nout)
{
	return flame_fold(r->agg->n, stacks_entry, (void *)r, true, out, nout);
}

/*
 * Folded output: one line per distinct stack and name. Threads of one
 * name with the same stack (a pool of workers) are summed into one line,
 * as flame graph tools expect; --top keeps the N largest lines.
 */
static int print_folded(FILE *f, const struct stack_report *r)
{
	struct fold_line *v;
	uint32_t n, k, top;
	int ret = stacks_fold(r, &v, &n);

	if (ret)
		return ret;
	top = r->top && r->top < n ? r->top : n;
	for (k = 0; k < top; k++)
		fprintf(f, "%s %" PRIu64 "\n", v[k].line, v[k].ns / r->unit_ns);
	stacks_fold_free(v, n);
	return 0;
}

uint32_t stacks_not_shown(const struct stack_report *r, uint64_t *count, uint64_t *ns)
{
	uint32_t k, n = shown(r);

	*count = *ns = 0;
	for (k = n; k < r->agg->n; k++) {
		*count += r->agg->v[k].count;
		*ns += r->agg->v[k].total_ns;
	}
	return r->agg->n - n;
}

void stacks_print_text(FILE *f, const struct stack_report *r)
{
	uint32_t n = shown(r), k, i, left;
	uint64_t lc, lns;

	if (r->folded) {
		if (print_folded(f, r))
			fputs("offcpu-ftrace: out of memory merging the folded stacks\n", stderr);
		return;
	}
	stackagg_sort(r->agg);
	/* first, since the largest print last: what --top left out */
	left = stacks_not_shown(r, &lc, &lns);
	if (left)
		fprintf(f, "# and %u more stack%s (--top %u): %" PRIu64 " interval%s, %.3f ms in "
			"all, not shown\n\n", left, left == 1 ? "" : "s", r->top, lc,
			lc == 1 ? "" : "s", (double)lns / 1e6);
	/* like offcputime: the largest last, nearest the prompt */
	for (k = n; k-- > 0;) {
		const struct stackagg_ent *e = &r->agg->v[k];
		struct named ks = { NULL, 0 }, us = { NULL, 0 };
		uint64_t total = e->total_ns / r->unit_ns;

		if (r->kstack)
			name_stack(r, true, e->kstack, e->tgid, kbuf, &ks);
		if (r->ustack)
			name_stack(r, false, e->ustack, e->tgid, ubuf, &us);
		if (r->kstack) {
			if (!e->kstack)
				fputs("    [Missed Kernel Stack]\n", f);
			for (i = 0; i < ks.n; i++)
				fprintf(f, "    %s\n", ks.name[i]);
		}
		if (r->kstack && r->ustack)
			fputs("    --\n", f);
		if (r->ustack) {
			if (!e->ustack)
				fputs("    [Missed User Stack]\n", f);
			for (i = 0; i < us.n; i++)
				fprintf(f, "    %s\n", us.name[i]);
		}
		fprintf(f, "    %-16s ", "-");
		folded_name(f, r, e);
		fprintf(f, " (%" PRId64 ")\n        %" PRIu64 "\n\n", shown_id(r, e), total);
	}
}

void stacks_print_json(FILE *f, const struct stack_report *r)
{
	uint32_t n = shown(r), k, i;

	stackagg_sort(r->agg);
	fputc('[', f);
	for (k = 0; k < n; k++) {
		const struct stackagg_ent *e = &r->agg->v[k];
		struct named ks = { NULL, 0 }, us = { NULL, 0 };

		if (r->kstack)
			name_stack(r, true, e->kstack, e->tgid, kbuf, &ks);
		if (r->ustack)
			name_stack(r, false, e->ustack, e->tgid, ubuf, &us);
		fprintf(f, "%s{", k ? "," : "");
		if (r->key == KEY_CGROUP) {
			const char *path, *cg = cgroup_of_entry(r, e, &path);

			fputs("\"cgroup\":", f);
			json_str(f, cg, 256);
			fputs(",\"cgroup_path\":", f);
			json_str_or_null(f, path, 4096);
			fputc(',', f);
		}
		fprintf(f, "\"%s\":%" PRId64 ",\"comm\":", r->key == KEY_PID ? "pid" : "tid",
			shown_id(r, e));
		json_str(f, e->comm, COMM_LEN);
		fprintf(f, ",\"count\":%" PRIu64 ",\"total\":%" PRIu64 ",\"total_ns\":%" PRIu64
			",\"kernel_frames\":%u,\"frames\":[", e->count,
			e->total_ns / r->unit_ns, e->total_ns, ks.n);
		for (i = 0; i < ks.n; i++) {
			fputs(i ? "," : "", f);
			json_str(f, ks.name[i], NAME_LEN);
		}
		for (i = 0; i < us.n; i++) {
			fputs(i || ks.n ? "," : "", f);
			json_str(f, us.name[i], NAME_LEN);
		}
		fprintf(f, "],\"missed_kernel_stack\":%s,\"missed_user_stack\":%s}",
			r->kstack && !e->kstack ? "true" : "false",
			r->ustack && !e->ustack ? "true" : "false");
	}
	fputc(']', f);
}
