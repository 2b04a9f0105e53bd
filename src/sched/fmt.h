/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sched event formats: parsed once (libtraceevent) from the kernel's format
 * files, reduced to field offsets so the per-event path does no lookups.
 */
#ifndef OFFCPU_FMT_H
#define OFFCPU_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct tep_handle;

struct field_loc {
	uint16_t off, size;	/* size 0: field absent */
	bool is_signed;
};

struct sched_layout {
	struct tep_handle *tep;
	int id[SEV_NTYPES];			/* event id, -1 when not loaded */
	uint32_t min_size[SEV_NTYPES];		/* record must hold all fields */
	uint32_t full_size[SEV_NTYPES];		/* every field's end (encode.c) */
	struct field_loc common_type, common_pid;
	/* per type: pid/comm (switch: prev_*), next_* for switch */
	struct field_loc pid[SEV_NTYPES], comm[SEV_NTYPES];
	struct field_loc prev_state, next_pid, next_comm, child_pid;
	/* switch: prev_prio in prio[], next_prio; wakeups: prio; size 0 absent */
	struct field_loc prio[SEV_NTYPES], next_prio;
	struct field_loc target_cpu[SEV_NTYPES];	/* wakeups; size 0: absent */
	struct field_loc caller[2];		/* kernel_stack, user_stack */
	/*
	 * the cgroup events (class cgroup_migrate), by type - SEV_CGROUP_ATTACH;
	 * the moved task in pid[]. dst_path is a __data_loc string (the
	 * record's offset and length of it; from its field's end with
	 * __rel_loc); dst_level and dst_id may be absent (size 0)
	 */
	struct cgroup_loc {
		struct field_loc root, level, id, path;
		bool path_rel;
	} cg[2];
	struct sched_states states;
	bool preempt_from_fmt;	/* mask read from print fmt, not derived */
	uint32_t page_commit_off, page_commit_size;	/* header_page "commit" */
	uint32_t page_data_off;	/* header_page "data" offset */
	uint32_t page_size;	/* header_page "data" offset + size */
};

/* Returns 0 or a negative errno. */
int fmt_init(struct sched_layout *l);
void fmt_fini(struct sched_layout *l);
/* Parse the text of header_page. */
int fmt_header_page(struct sched_layout *l, const char *text, size_t len);
/*
 * Parse the text of one format file: a sched event, or ftrace's
 * kernel_stack/user_stack; -ENOENT if not one we use.
 */
int fmt_add_event(struct sched_layout *l, const char *text, size_t len);
/*
 * Resolve offsets of everything added; -EINVAL names in *missing. A cgroup
 * event whose fields are not as expected is dropped (its id -1), not an
 * error: --by cgroup then keys threads by their first sight.
 */
int fmt_resolve(struct sched_layout *l, const char **missing);

/*
 * A recording's events (1 << SEV_x): the sched ones whose format it
 * holds (none may have fired), the stack ones by @seen, the records read.
 */
unsigned fmt_recorded_events(const struct sched_layout *l, unsigned seen);

/* Read prev_state's letters and the preempt flag from sched_switch's print fmt. */
int fmt_parse_states(const char *format_text, struct sched_states *st, bool *from_fmt);
/* Evaluate a C constant expression of integers, ( ) | & + - << >>. */
int fmt_eval_const(const char *s, size_t len, uint64_t *out);


#endif
