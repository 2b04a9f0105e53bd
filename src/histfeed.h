/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hist backend's result: the text of the kernel's hist file of the
 * <p>lat synthetic event (keys [pid|cpu,]lat.buckets=UNIT, vals hitcount
 * and lat, the sum) fed into the analyzer as counted intervals.
 */
#ifndef OFFCPU_HISTFEED_H
#define OFFCPU_HISTFEED_H

#include <stddef.h>
#include <stdint.h>

struct analyzer;

/*
 * Feed @len bytes of hist file @text to @an as intervals of @mode
 * (AN_RUNQ or AN_OFFCPU), values in buckets of @unit_ns. @comm_of names a
 * thread (0 on success; may be NULL), called with @arg. The kernel's "Dropped" count is
 * added to an->counts.dropped. Returns 0, or a negative errno with a
 * message in @err.
 */
int histfeed(const char *text, size_t len, struct analyzer *an, unsigned mode,
	     uint64_t unit_ns, int (*comm_of)(int32_t tid, char *buf, size_t len, void *arg),
	     void *arg, char *err, size_t errlen);

#endif
