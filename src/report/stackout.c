// SPDX-License-Identifier: GPL-2.0-or-later
/* Off-CPU time by stack, printed: offcputime's text, folded lines, JSON. */
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "stackout.h"

#define NAME_LEN 256

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

static void name_stack(const struct stack_report *r, bool kernel, uint32_t id,
		       int32_t tgid, char (*buf)[NAME_LEN], struct named *out)
{
	const struct stacktab *tab = kernel ? r->kstacks : r->ustacks;
	uint32_t depth, i, skip = 0;
	const uint64_t *fr = stacktab_get(tab, id, &depth);

	for (i = 0; i < depth; i++) {
		if (kernel)
			r->sym->kernel(r->sym->karg, fr[i], buf[i], NAME_LEN);
		else
			r->sym->user(r->sym->uarg, tgid, fr[i], buf[i], NAME_LEN);
	}
	if (kernel)
		skip = skip_tracer_frames(buf, depth);
	out->name = buf + skip;
	out->n = depth - skip;
	if (out->n > r->depth)
		out->n = r->depth;
}

/* Folded lines use ';' between frames and ' ' before the value. */
static void folded_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 ? '?' : *s, f);
}

static void folded_comm(FILE *f, const char *comm)
{
	size_t i, n = strnlen(comm, COMM_LEN);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)comm[i];

		fputc(c == ';' || c == ' ' ? '_' : c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

static char kbuf[STACK_MAX_DEPTH][NAME_LEN], ubuf[STACK_MAX_DEPTH][NAME_LEN];

static uint32_t shown(const struct stack_report *r)
{
	return r->top && r->top < r->agg->n ? r->top : r->agg->n;
}

void stacks_print_text(FILE *f, const struct stack_report *r)
{
	uint32_t n = shown(r), k, i;

	stackagg_sort(r->agg);
	/* like offcputime: the largest last, nearest the prompt */
	for (k = n; k-- > 0;) {
		const struct stackagg_ent *e = &r->agg->v[k];
		struct named ks = { NULL, 0 }, us = { NULL, 0 };
		uint64_t total = e->total_ns / r->unit_ns;

		if (r->kstack)
			name_stack(r, true, e->kstack, e->tgid, kbuf, &ks);
		if (r->ustack)
			name_stack(r, false, e->ustack, e->tgid, ubuf, &us);
		if (r->folded) {
			folded_comm(f, e->comm);
			if (r->ustack) {
				if (!e->ustack)
					fputs(";[Missed User Stack]", f);
				for (i = us.n; i-- > 0;) {
					fputc(';', f);
					folded_frame(f, us.name[i]);
				}
			}
			if (r->kstack) {
				if (r->ustack && r->delimited)
					fputs(";-", f);
				if (!e->kstack)
					fputs(";[Missed Kernel Stack]", f);
				for (i = ks.n; i-- > 0;) {
					fputc(';', f);
					folded_frame(f, ks.name[i]);
				}
			}
			fprintf(f, " %" PRIu64 "\n", total);
			continue;
		}
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
		folded_comm(f, e->comm);
		fprintf(f, " (%" PRId64 ")\n        %" PRIu64 "\n\n", e->id, total);
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
		fprintf(f, "%s{\"%s\":%" PRId64 ",\"comm\":", k ? "," : "",
			r->key == KEY_PID ? "pid" : "tid", e->id);
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
