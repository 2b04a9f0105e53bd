/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --xval: the bpftrace program equivalent to a runq/offcpu command line,
 * run beside the tool over the same window, its histogram returned for
 * comparison.
 */
#ifndef OFFCPU_XVAL_H
#define OFFCPU_XVAL_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "peerhist.h"

/*
 * The bpftrace program for @o (runq or offcpu), with this kernel's
 * preempted flag and dead-state bits. Newly allocated; caller frees.
 * NULL when an option has no bpftrace equivalent (message in @err).
 */
char *xval_program(const struct trace_opts *o, uint64_t preempt_mask,
		   uint64_t dead_bits, uint64_t state_bits, char *err, size_t errlen);

struct xval;

/*
 * Start bpftrace with @prog and wait until its probes are attached.
 * Returns 0, or a negative errno with the reason in @err (bpftrace not
 * installed, BPF refused, ...); *x is then NULL.
 */
int xval_start(struct xval **x, const char *prog, char *err, size_t errlen);
/*
 * Stop bpftrace (it prints its maps) and parse its histogram. Returns 0
 * with *out (caller frees with peerhist_free), or a negative errno.
 */
int xval_finish(struct xval *x, struct peerhist **out, char *err, size_t errlen);
void xval_free(struct xval *x);

#endif
