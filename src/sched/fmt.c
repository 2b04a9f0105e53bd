// SPDX-License-Identifier: GPL-2.0-or-later
/* Sched event formats reduced to field offsets; prev_state letters from the print fmt. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "fmt.h"

int fmt_init(struct sched_layout *l)
{
	unsigned i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < SEV_NTYPES; i++)
		l->id[i] = -1;
	l->tep = tep_alloc();
	if (!l->tep)
		return -ENOMEM;
	/* the host's long: x86-64 writes 8-byte longs in its trace buffers */
	tep_set_long_size(l->tep, sizeof(long));
	tep_set_file_bigendian(l->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(l->tep, TEP_LITTLE_ENDIAN);
	return 0;
}

void fmt_fini(struct sched_layout *l)
{
	if (l->tep)
		tep_free(l->tep);
	l->tep = NULL;
}

int fmt_header_page(struct sched_layout *l, const char *text, size_t len)
{
	const char *p = strstr(text, "field: char data;");
	const char *c = strstr(text, "commit;");
	unsigned off, size, coff, csize;

	/* sums checked without wrapping: page_size must not come out 0 */
	if (!p || sscanf(p, "field: char data;\toffset:%u;\tsize:%u;", &off, &size) != 2 ||
	    !size || size > UINT32_MAX - off)
		return -EINVAL;
	if (!c || sscanf(c, "commit;\toffset:%u;\tsize:%u;", &coff, &csize) != 2 ||
	    (csize != 4 && csize != 8) || coff > off || csize > off - coff)
		return -EINVAL;
	l->page_commit_off = coff;
	l->page_commit_size = csize;
	l->page_data_off = off;
	l->page_size = off + size;
	/* libtraceevent wants a writable copy */
	{
		char *copy = strndup(text, len);
		int ret;

		if (!copy)
			return -ENOMEM;
		ret = tep_parse_header_page(l->tep, copy, len, sizeof(long));
		free(copy);
		if (ret)
			return -EINVAL;
	}
	return 0;
}

static int ev_type_of(const char *text)
{
	unsigned i;

	if (strncmp(text, "name: ", 6))
		return -EINVAL;
	for (i = SEV_SWITCH; i < SEV_NTYPES; i++) {
		size_t n = strlen(sched_ev_name(i));

		if (!strncmp(text + 6, sched_ev_name(i), n) &&
		    (text[6 + n] == '\n' || text[6 + n] == '\0'))
			return (int)i;
	}
	return -ENOENT;
}

static bool line_starts(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

/*
 * Where the header and field lines at the start of a format end: lines
 * "name:", "ID:", "format:", blank ones and "field:" ones (after blanks);
 * the first other line (the print fmt, however spaced) starts the rest.
 */
static size_t fields_end(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end, *q = p;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le && !line_starts(q, le, "field:") && !line_starts(p, le, "name:") &&
		    !line_starts(p, le, "ID:") && !line_starts(p, le, "format:"))
			break;
		p = eol ? eol + 1 : end;
	}
	return (size_t)(p - text);
}

int fmt_add_event(struct sched_layout *l, const char *text, size_t len)
{
	int type = ev_type_of(text);
	enum tep_errno err;

	if (type < 0)
		return type;
	/*
	 * libtraceevent gets the fields only, with an empty print fmt: the
	 * layout needs nothing from its print parser (the prev_state letters
	 * are read below, by fmt_parse_states), and that parser crashes on
	 * malformed text (an unknown token before "->", say) that a damaged
	 * recording can carry.
	 */
	{
		size_t head = fields_end(text, len);
		static const char empty[] = "print fmt: \"\"\n";
		char *copy = malloc(head + sizeof(empty));

		if (!copy)
			return -ENOMEM;
		memcpy(copy, text, head);
		memcpy(copy + head, empty, sizeof(empty));
		err = tep_parse_event(l->tep, copy, head + sizeof(empty) - 1,
				      sched_ev_system((unsigned)type));
		free(copy);
	}
	if (err)
		return -EINVAL;
	l->id[type] = 0;	/* set for real in fmt_resolve() */
	if (type == SEV_SWITCH) {
		bool from;

		if (fmt_parse_states(text, &l->states, &from))
			return -EINVAL;
		l->preempt_from_fmt = from;
	}
	return 0;
}

static int loc(struct tep_event *ev, const char *name, struct field_loc *out,
	       uint32_t *min_size)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	/* libtraceevent keeps them as int: a "negative" one is hostile text */
	if (!f || f->offset < 0 || f->offset > UINT16_MAX || f->size < 0 ||
	    f->size > UINT16_MAX || (f->size > 8 && !(f->flags & TEP_FIELD_IS_ARRAY)))
		return -EINVAL;
	out->off = (uint16_t)f->offset;
	out->size = (uint16_t)f->size;
	out->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
	if ((uint32_t)(f->offset + f->size) > *min_size)
		*min_size = (uint32_t)(f->offset + f->size);
	return 0;
}

/* Where the last of @ev's fields ends: the size of its records. */
static uint32_t record_size(struct tep_event *ev)
{
	struct tep_format_field **f = tep_event_fields(ev);
	uint32_t end = 0;
	unsigned i;

	for (i = 0; f && f[i]; i++)
		if (f[i]->offset >= 0 && f[i]->size >= 0 && f[i]->offset <= UINT16_MAX &&
		    f[i]->size <= UINT16_MAX && (uint32_t)(f[i]->offset + f[i]->size) > end)
			end = (uint32_t)(f[i]->offset + f[i]->size);
	free(f);
	return end;
}

/* an integer field of 1..8 bytes, or none (size 0) when @optional */
static int loc_int(struct tep_event *ev, const char *name, struct field_loc *out,
		   uint32_t *min_size, bool optional)
{
	memset(out, 0, sizeof(*out));
	if (!tep_find_any_field(ev, name))
		return optional ? 0 : -EINVAL;
	if (loc(ev, name, out, min_size) || (out->size != 1 && out->size != 2 &&
					     out->size != 4 && out->size != 8))
		return -EINVAL;
	return 0;
}

/*
 * cgroup_attach_task, cgroup_transfer_tasks: the offsets read from the
 * format, as they moved between kernels (dst_id an int after dst_root
 * before 5.17 and its stable backports, a u64 after dst_level since;
 * dst_path before pid in 4.x)
 */
static int resolve_cgroup(struct sched_layout *l, struct tep_event *ev, unsigned type)
{
	struct cgroup_loc *c = &l->cg[type - SEV_CGROUP_ATTACH];
	uint32_t *ms = &l->min_size[type];
	struct tep_format_field *f = tep_find_any_field(ev, "dst_path");

	if (loc_int(ev, "pid", &l->pid[type], ms, false) || l->pid[type].size != 4 ||
	    loc_int(ev, "dst_root", &c->root, ms, false) || c->root.size != 4 ||
	    loc_int(ev, "dst_level", &c->level, ms, true) ||
	    loc_int(ev, "dst_id", &c->id, ms, true))
		return -EINVAL;
	/* the string: a u32 of its offset (low 16 bits) and length (high 16) */
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || loc(ev, "dst_path", &c->path, ms) ||
	    c->path.size != 4)
		return -EINVAL;
	/* by the type: TEP_FIELD_IS_RELATIVE is not in every libtraceevent */
	c->path_rel = f->type && strstr(f->type, "__rel_loc") != NULL;
	return 0;
}

int fmt_resolve(struct sched_layout *l, const char **missing)
{
	unsigned i;

	*missing = NULL;
	for (i = SEV_SWITCH; i < SEV_NTYPES; i++) {
		struct field_loc ct = l->common_type, cp = l->common_pid;
		struct tep_event *ev;
		uint32_t *ms = &l->min_size[i], scratch = 0;
		int bad = 0;

		if (l->id[i] < 0)
			continue;
		ev = tep_find_event_by_name(l->tep, sched_ev_system(i), sched_ev_name(i));
		if (!ev) {
			*missing = sched_ev_name(i);
			return -EINVAL;
		}
		l->id[i] = ev->id;
		l->full_size[i] = record_size(ev);
		bad |= loc(ev, "common_type", &l->common_type, ms);
		bad |= loc(ev, "common_pid", &l->common_pid, ms);
		/* decode_record() reads them before it knows the event: one place */
		if (ct.size && (ct.off != l->common_type.off || ct.size != l->common_type.size ||
				cp.off != l->common_pid.off || cp.size != l->common_pid.size))
			bad = 1;
		if (sched_ev_is_stack(i)) {
			/* kernel_stack: int size (entries); user_stack: u32 tgid */
			bad |= loc(ev, i == SEV_KSTACK ? "size" : "tgid", &l->pid[i], ms);
			bad |= loc(ev, "caller", &l->caller[i - SEV_KSTACK], &scratch);
			/* caller[] is declared [8] but is as long as the record */
			if (l->caller[i - SEV_KSTACK].off > *ms)
				*ms = l->caller[i - SEV_KSTACK].off;
			if (bad || l->pid[i].size != 4) {
				*missing = sched_ev_name(i);
				return -EINVAL;
			}
			continue;
		} else if (i == SEV_CGROUP_ATTACH || i == SEV_CGROUP_TRANSFER) {
			/* optional: a layout we cannot read is as if absent */
			if (bad || resolve_cgroup(l, ev, i)) {
				l->id[i] = -1;
				if (ct.size) {	/* the sched events' stand */
					l->common_type = ct;
					l->common_pid = cp;
				}
			}
			continue;
		} else if (i == SEV_FORK) {
			/* comms are __data_loc strings on newer kernels: not used */
			bad |= loc(ev, "parent_pid", &l->pid[i], ms);
			bad |= loc(ev, "child_pid", &l->child_pid, ms);
			if (bad || l->pid[i].size != 4 || l->child_pid.size != 4) {
				*missing = sched_ev_name(i);
				return -EINVAL;
			}
			continue;
		} else if (i == SEV_SWITCH) {
			bad |= loc(ev, "prev_pid", &l->pid[i], ms);
			bad |= loc(ev, "prev_comm", &l->comm[i], ms);
			bad |= loc(ev, "prev_state", &l->prev_state, ms);
			bad |= loc(ev, "next_pid", &l->next_pid, ms);
			bad |= loc(ev, "next_comm", &l->next_comm, ms);
			/* optional: a recording writes them back (trace-cmd shows them) */
			if (loc_int(ev, "prev_prio", &l->prio[i], ms, true) ||
			    loc_int(ev, "next_prio", &l->next_prio, ms, true) ||
			    !l->prio[i].size || !l->next_prio.size)
				memset(&l->prio[i], 0, sizeof(l->prio[i]));
		} else {
			bad |= loc(ev, "pid", &l->pid[i], ms);
			bad |= loc(ev, "comm", &l->comm[i], ms);
			/* optional (every kernel since 3.x has it): where it is queued */
			if (loc(ev, "target_cpu", &l->target_cpu[i], ms) || l->target_cpu[i].size != 4)
				memset(&l->target_cpu[i], 0, sizeof(l->target_cpu[i]));
			if (loc_int(ev, "prio", &l->prio[i], ms, true))
				memset(&l->prio[i], 0, sizeof(l->prio[i]));
		}
		if (bad || l->common_type.size != 2 || l->common_pid.size != 4 ||
		    l->pid[i].size != 4 ||
		    l->comm[i].size < COMM_LEN ||
		    (i == SEV_SWITCH && (l->next_pid.size != 4 ||
					 l->next_comm.size < COMM_LEN))) {
			*missing = sched_ev_name(i);
			return -EINVAL;
		}
	}
	if (l->id[SEV_SWITCH] < 0) {
		*missing = sched_ev_name(SEV_SWITCH);
		return -ENOENT;
	}
	return 0;
}

unsigned fmt_recorded_events(const struct sched_layout *l, unsigned seen)
{
	unsigned t, m = 0;

	for (t = SEV_SWITCH; t < SEV_NSCHED; t++)
		if (l->id[t] >= 0)
			m |= 1u << t;
	return m | (seen & ((1u << SEV_KSTACK) | (1u << SEV_USTACK)));
}

/* ---- prev_state letters and the preempt flag, from the print fmt ---- */

struct cexpr {
	const char *p, *end;
	int err;
	unsigned depth;		/* of '(': bounds the recursion */
};

static void skip_ws(struct cexpr *e)
{
	while (e->p < e->end && isspace((unsigned char)*e->p))
		e->p++;
}

static int peek(struct cexpr *e, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(e);
	return (size_t)(e->end - e->p) >= n && !strncmp(e->p, tok, n);
}

static uint64_t c_or(struct cexpr *e);

static uint64_t c_primary(struct cexpr *e)
{
	uint64_t v = 0;
	char *endp;

	skip_ws(e);
	if (e->p >= e->end) {
		e->err = 1;
		return 0;
	}
	if (*e->p == '(') {
		if (++e->depth > 64) {	/* print fmts nest 4 deep */
			e->err = 1;
			return 0;
		}
		e->p++;
		v = c_or(e);
		e->depth--;
		skip_ws(e);
		if (e->p >= e->end || *e->p != ')')
			e->err = 1;
		else
			e->p++;
		return v;
	}
	if (!isdigit((unsigned char)*e->p)) {
		e->err = 1;
		return 0;
	}
	errno = 0;
	{
		/* strtoull needs a terminated string: copy the digits */
		char num[32];
		size_t n = 0;

		while (e->p + n < e->end && n < sizeof(num) - 1 &&
		       (isxdigit((unsigned char)e->p[n]) || e->p[n] == 'x' ||
			e->p[n] == 'X'))
			n++;
		memcpy(num, e->p, n);
		num[n] = '\0';
		v = strtoull(num, &endp, 0);
		if (errno || endp != num + n)
			e->err = 1;
		e->p += n;
	}
	/* integer suffixes (UL, ULL) */
	while (e->p < e->end && (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L'))
		e->p++;
	return v;
}

static uint64_t c_add(struct cexpr *e)
{
	uint64_t v = c_primary(e);

	for (;;) {
		if (peek(e, "+")) {
			e->p++;
			v += c_primary(e);
		} else if (peek(e, "-")) {
			e->p++;
			v -= c_primary(e);
		} else {
			return v;
		}
	}
}

static uint64_t c_shift(struct cexpr *e)
{
	uint64_t v = c_add(e), s;

	for (;;) {
		int left = peek(e, "<<");

		if (!left && !peek(e, ">>"))
			return v;
		e->p += 2;
		s = c_add(e);
		if (s >= 64) {
			e->err = 1;
			return 0;
		}
		v = left ? v << s : v >> s;
	}
}

static uint64_t c_and(struct cexpr *e)
{
	uint64_t v = c_shift(e);

	while (peek(e, "&") && !peek(e, "&&")) {
		e->p++;
		v &= c_shift(e);
	}
	return v;
}

static uint64_t c_or(struct cexpr *e)
{
	uint64_t v = c_and(e);

	while (peek(e, "|") && !peek(e, "||")) {
		e->p++;
		v |= c_and(e);
	}
	return v;
}

int fmt_eval_const(const char *s, size_t len, uint64_t *out)
{
	struct cexpr e = { s, s + len, 0, 0 };
	uint64_t v = c_or(&e);

	skip_ws(&e);
	if (e.err || e.p != e.end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* { 0x0001, "S" } pairs of the __print_flags() table */
static void parse_letters(const char *p, struct sched_states *st)
{
	const char *end = strstr(p, ") : \"R\"");

	st->nletters = 0;
	while ((p = strchr(p, '{')) && (!end || p < end) && st->nletters < STATE_LETTERS) {
		char letter;
		unsigned long long bit;
		int n = 0;

		if (sscanf(p, "{ %lli , \"%c\" }%n", &bit, &letter, &n) == 2 && n > 0 &&
		    bit) {
			st->letter[st->nletters].bit = bit;
			st->letter[st->nletters].letter = letter;
			st->nletters++;
		}
		p++;
	}
}

int fmt_parse_states(const char *text, struct sched_states *st, bool *from_fmt)
{
	const char *fmt = strstr(text, "print fmt:");
	const char *flags, *q, *expr = NULL, *s;
	uint64_t mask, top = 0;
	unsigned i;

	memset(st, 0, sizeof(*st));
	*from_fmt = false;
	if (!fmt)
		return -EINVAL;
	flags = strstr(fmt, "__print_flags(");
	if (flags)
		parse_letters(flags, st);
	if (st->nletters == 0)
		return -EINVAL;
	for (i = 0; i < st->nletters; i++)
		if (st->letter[i].bit > top)
			top = st->letter[i].bit;

	/* "REC->prev_state & <mask> ? "+" : """: the last such operand */
	q = strstr(fmt, "? \"+\"");
	if (q) {
		for (s = fmt; (s = strstr(s, "REC->prev_state &")) && s < q; s++)
			expr = s + strlen("REC->prev_state &");
	}
	if (expr && !fmt_eval_const(expr, (size_t)(q - expr), &mask) && mask &&
	    !(mask & (mask - 1))) {
		st->preempt_mask = mask;
		*from_fmt = true;
	} else {
		/* TASK_REPORT_MAX is the bit above the highest reported state */
		st->preempt_mask = top << 1;
	}
	return 0;
}
