/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hist backend's result: the text of the kernel's hist file of the
 * <p>lat synthetic event fed into the analyzer. Histogram entries (keys
 * [pid|cpu,]lat.buckets=UNIT, vals hitcount and lat, the sum) become
 * counted intervals; stack entries (keys pid,stack.stacktrace, vals
 * hitcount and lat) become off-CPU time by kernel stack; a names
 * histogram (keys=pid,comm) names the threads, exited ones included.
 */
#ifndef OFFCPU_TRIGFEED_H
#define OFFCPU_TRIGFEED_H

#include <stddef.h>
#include <stdint.h>

struct analyzer;

struct trigfeed_ops {
	/* the name of thread @tid into @buf: 0, or nonzero when unknown */
	int (*comm_of)(int32_t tid, char *buf, size_t len, void *arg);
	/* a token for a frame as the kernel prints it ("func+0x1f/0x80"); 0 = none */
	uint64_t (*frame)(const char *text, void *arg);
	void *arg;
};

/*
 * Feed @len bytes of hist file @text to @an: intervals of @mode (AN_RUNQ
 * or AN_OFFCPU), values in buckets of @unit_ns. @ops may be NULL (no
 * names, no stacks). The kernel's "Dropped" counts (intervals its full
 * map could not hold) are added to *@dropped. Returns 0, or a negative
 * errno with a message in @err.
 */
int trigfeed(const char *text, size_t len, struct analyzer *an, unsigned mode,
	     uint64_t unit_ns, const struct trigfeed_ops *ops, uint64_t *dropped, char *err,
	     size_t errlen);

#endif
