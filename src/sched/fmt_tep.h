/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct sched_layout from events libtraceevent has already parsed (a
 * trace.dat's, through libtracecmd), when the format text itself is not
 * at hand: libtracecmd parses the formats stored in the file and keeps
 * only the parsed events.
 */
#ifndef OFFCPU_FMT_TEP_H
#define OFFCPU_FMT_TEP_H

#include <stdint.h>

#include "fmt.h"

struct tep_handle;

/*
 * Fill @l from the sched and ftrace stack events found in @tep: what
 * fmt_init() + fmt_header_page() + fmt_add_event() + fmt_resolve() give
 * from the text. @page_size is the ring-buffer sub-buffer size. @tep is
 * borrowed, not owned: it must outlive @l, and @l is released with
 * fmt_tep_fini(), never fmt_fini(). Returns 0, -ENOENT without
 * sched_switch, or -EINVAL with the unusable event's name in *missing.
 */
int fmt_from_tep(struct sched_layout *l, struct tep_handle *tep, uint32_t page_size,
		 const char **missing);
void fmt_tep_fini(struct sched_layout *l);

/*
 * prev_state's letters and the preempt flag from sched_switch's parsed
 * print fmt, as fmt_parse_states() reads them from the text. Returns 0 or
 * -EINVAL when the print fmt has no __print_flags() of prev_state.
 */
int fmt_tep_states(struct tep_handle *tep, struct sched_states *st, bool *from_fmt);

#endif
