// SPDX-License-Identifier: GPL-2.0-or-later
/* The sched layout rebuilt from a recording's formats (a tep handle). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "fmt_tep.h"

/* A constant expression of the print fmt: atoms, casts and + - << >> | &. */
static int eval_arg(const struct tep_print_arg *a, uint64_t *out, unsigned depth)
{
	uint64_t l, r;
	char *end;

	if (!a || depth > 64)
		return -EINVAL;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		errno = 0;
		*out = strtoull(a->atom.atom, &end, 0);
		/* integer suffixes (UL, ULL) */
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		return errno || end == a->atom.atom || *end ? -EINVAL : 0;
	case TEP_PRINT_TYPE:
		return eval_arg(a->typecast.item, out, depth + 1);
	case TEP_PRINT_OP:
		if (!a->op.left || !a->op.right ||
		    eval_arg(a->op.left, &l, depth + 1) || eval_arg(a->op.right, &r, depth + 1))
			return -EINVAL;
		if (!strcmp(a->op.op, "+"))
			*out = l + r;
		else if (!strcmp(a->op.op, "-"))
			*out = l - r;
		else if (!strcmp(a->op.op, "|"))
			*out = l | r;
		else if (!strcmp(a->op.op, "&"))
			*out = l & r;
		else if (!strcmp(a->op.op, "<<") && r < 64)
			*out = l << r;
		else if (!strcmp(a->op.op, ">>") && r < 64)
			*out = l >> r;
		else
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

static bool is_field(const struct tep_print_arg *a, const char *name)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD && !strcmp(a->field.name, name);
}

static bool is_atom(const struct tep_print_arg *a, const char *s)
{
	return a && a->type == TEP_PRINT_ATOM && !strcmp(a->atom.atom, s);
}

/* "REC->prev_state" or "REC->prev_state & <mask>" */
static bool of_prev_state(const struct tep_print_arg *a)
{
	if (a && a->type == TEP_PRINT_OP && !strcmp(a->op.op, "&"))
		a = a->op.left;
	return is_field(a, "prev_state");
}

struct walk {
	struct sched_states *st;
	uint64_t plus_mask;	/* "prev_state & M ? "+" : """: the last M */
	bool plus_found;
};

/* Find __print_flags(prev_state...) and the "+" operand in @a and below. */
static void walk_arg(struct walk *w, const struct tep_print_arg *a, unsigned depth)
{
	const struct tep_print_flag_sym *f;

	if (!a || depth > 64)
		return;
	switch (a->type) {
	case TEP_PRINT_FLAGS:
		if (w->st->nletters || !of_prev_state(a->flags.field))
			break;
		for (f = a->flags.flags; f && w->st->nletters < STATE_LETTERS; f = f->next) {
			unsigned long long bit;
			char *end;

			errno = 0;
			bit = strtoull(f->value, &end, 0);
			if (errno || *end || !bit || !f->str[0])
				continue;
			w->st->letter[w->st->nletters].bit = bit;
			w->st->letter[w->st->nletters].letter = f->str[0];
			w->st->nletters++;
		}
		break;
	case TEP_PRINT_OP: {
		const struct tep_print_arg *cond = a->op.left, *alt = a->op.right;
		uint64_t m;

		if (!strcmp(a->op.op, "?") && cond && cond->type == TEP_PRINT_OP &&
		    !strcmp(cond->op.op, "&") && is_field(cond->op.left, "prev_state") &&
		    alt && alt->type == TEP_PRINT_OP && !strcmp(alt->op.op, ":") &&
		    is_atom(alt->op.left, "+") && eval_arg(cond->op.right, &m, 0) == 0) {
			w->plus_mask = m;
			w->plus_found = true;
		}
		walk_arg(w, a->op.left, depth + 1);
		walk_arg(w, a->op.right, depth + 1);
		break;
	}
	case TEP_PRINT_TYPE:
		walk_arg(w, a->typecast.item, depth + 1);
		break;
	default:
		break;
	}
}

int fmt_tep_states(struct tep_handle *tep, struct sched_states *st, bool *from_fmt)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	struct walk w = { .st = st };
	const struct tep_print_arg *a;
	uint64_t top = 0;
	unsigned i;

	memset(st, 0, sizeof(*st));
	*from_fmt = false;
	if (!ev)
		return -EINVAL;
	/* the print fmt's arguments, in order */
	for (a = ev->print_fmt.args; a; a = a->next)
		walk_arg(&w, a, 0);
	if (!st->nletters)
		return -EINVAL;
	for (i = 0; i < st->nletters; i++)
		if (st->letter[i].bit > top)
			top = st->letter[i].bit;
	if (w.plus_found && w.plus_mask && !(w.plus_mask & (w.plus_mask - 1))) {
		st->preempt_mask = w.plus_mask;
		*from_fmt = true;
	} else {
		/* TASK_REPORT_MAX is the bit above the highest reported state */
		st->preempt_mask = top << 1;
	}
	return 0;
}

int fmt_from_tep(struct sched_layout *l, struct tep_handle *tep, uint32_t page_size,
		 const char **missing)
{
	unsigned t;
	int commit;

	*missing = NULL;
	memset(l, 0, sizeof(*l));
	for (t = 0; t < SEV_NTYPES; t++)
		l->id[t] = -1;
	l->tep = tep;
	for (t = SEV_SWITCH; t < SEV_NTYPES; t++)
		if (tep_find_event_by_name(tep, sched_ev_system(t), sched_ev_name(t)))
			l->id[t] = 0;	/* set for real by fmt_resolve() */
	if (l->id[SEV_SWITCH] < 0) {
		*missing = sched_ev_name(SEV_SWITCH);
		return -ENOENT;
	}
	if (fmt_tep_states(tep, &l->states, &l->preempt_from_fmt)) {
		*missing = sched_ev_name(SEV_SWITCH);
		return -EINVAL;
	}
	/* header_page: u64 timestamp, then a long commit, then the data */
	commit = tep_get_header_page_size(tep);
	if ((commit != 4 && commit != 8) || page_size <= 8u + (unsigned)commit) {
		*missing = "header_page";
		return -EINVAL;
	}
	l->page_commit_off = 8;
	l->page_commit_size = (uint32_t)commit;
	l->page_data_off = 8 + (uint32_t)commit;
	l->page_size = page_size;
	return fmt_resolve(l, missing);
}

void fmt_tep_fini(struct sched_layout *l)
{
	/* the tep belongs to whoever parsed the events */
	l->tep = NULL;
}
