/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Off-CPU time by stack, printed as offcputime does, folded, or JSON. */
#ifndef OFFCPU_STACKOUT_H
#define OFFCPU_STACKOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer.h"

/* Names frames; each returns 0 when resolved, else writes a raw form. */
struct symbolizer {
	int (*kernel)(void *arg, uint64_t addr, char *buf, size_t len);
	int (*user)(void *arg, int32_t tgid, uint64_t addr, char *buf, size_t len);
	void *karg, *uarg;
};

struct stack_report {
	struct stackagg *agg;		/* sorted in place */
	const struct stacktab *kstacks, *ustacks;
	bool kstack, ustack;		/* what was asked for */
	bool folded, delimited;
	uint32_t depth;			/* frames printed per stack */
	uint32_t top;			/* 0 = all */
	enum an_key key;		/* KEY_PID: per process, else per thread */
	uint64_t unit_ns;
	const struct symbolizer *sym;
	/* KEY_CGROUP: the entries' cgroups named (an_cfg's cgroup_names) */
	void (*cgroup_names)(int id, const char **label, const char **path, void *arg);
	void *cgroup_arg;
};

/* One folded stack ("comm;outer;...;inner") and its off-CPU time. */
struct fold_line {
	char *line;
	uint64_t ns;
};

/*
 * The stacks of @r as folded lines, identical ones merged (threads of one
 * name with the same stack), largest first; free with stacks_fold_free().
 * 0 or -ENOMEM.
 */
int stacks_fold(const struct stack_report *r, struct fold_line **v, uint32_t *n);
void stacks_fold_free(struct fold_line *v, uint32_t n);

/* The bytes a frame's name takes, NUL included, at most. */
#define STACK_NAME_LEN 256
/*
 * The frames of stack @id in @tab named through @sym into @buf
 * (STACK_MAX_DEPTH entries), innermost first: kernel frames, or @tgid's
 * user frames. Returns how many; *@skip: of them, the tracer's own at the
 * start of a switch's kernel stack (before __schedule), 0 for user frames.
 */
uint32_t stack_name_frames(const struct stacktab *tab, const struct symbolizer *sym, bool kernel,
			   uint32_t id, int32_t tgid, char (*buf)[STACK_NAME_LEN], uint32_t *skip);
/* Where a blocked thread sleeps: the first frame of kernel stack @id not of the scheduler ("" none). */
void stack_where(const struct stacktab *kstacks, const struct symbolizer *sym, uint32_t id,
		 char *buf, size_t len);
/* A frame in a folded line: ';' written ':', control characters '?'. */
void stack_fold_frame(FILE *f, const char *s);
/* A thread's name as a folded line's first frame: ';' and ' ' as '_' ("[unknown]" when empty). */
void stack_fold_comm(FILE *f, const char *comm);

/* Text: offcputime's multi-line layout, or folded lines with r->folded. */
void stacks_print_text(FILE *f, const struct stack_report *r);
/* The JSON array value of "stacks". */
void stacks_print_json(FILE *f, const struct stack_report *r);
/*
 * The stacks --top left out: how many, their intervals and time; r->agg
 * as the print that came first sorted it. Returns the number left out.
 */
uint32_t stacks_not_shown(const struct stack_report *r, uint64_t *count, uint64_t *ns);

#endif
