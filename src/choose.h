/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which backend a command gets, and why: one rule for runs and for info. */
#ifndef OFFCPU_CHOOSE_H
#define OFFCPU_CHOOSE_H

#include <stddef.h>

#include "backend.h"

/* Why the kernel's hist triggers cannot run a command (info and runs agree) */
#define NO_HIST_TRIAGE "triage needs every event"
#define NO_HIST_STACKS "user stacks are read in user space (the ring backend does -U)"
/* not a refusal where the kernel passes stacks through synthetic events */
#define NO_HIST_KSTACK "this kernel cannot pass stacks through synthetic events (6.3+)"
/* -c names that go into a trigger filter as "NAME"; others stay in user space */
#define HIST_COMM_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:+@=,% "
#define NO_HIST_COMM "this -c name has characters kept out of kernel filters"
#define NO_HIST_CGROUP "--cgroup is checked per thread in user space"
#define NO_HIST_COMMAND "-- COMMAND follows forks in user space"
#define NO_HIST_WAKING "--compat=perf needs the first sched_waking"

/*
 * @want: "auto" or a backend name; @no_hist: why this command cannot run
 * in the kernel's hist triggers, or NULL. Returns the backend, with the reason in
 * @why; or NULL with, in @why, one line naming each backend and why it
 * cannot work here.
 */
struct drop_probe;
/* Whether this kernel loses sched_switch hits: probed once, then cached. */
const struct drop_probe *backend_drop_probe(const char *tracefs_dir);

const struct backend_ops *backend_choose(const char *want, const char *tracefs,
					 const char *no_hist, char *why, size_t len);

#endif
