/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which backend a command gets, and why: one rule for runs and for info. */
#ifndef OFFCPU_CHOOSE_H
#define OFFCPU_CHOOSE_H

#include <stddef.h>

#include "backend.h"

/*
 * @want: "auto" or a backend name. Returns the backend, with the reason in
 * @why; or NULL with, in @why, one line naming each backend and why it
 * cannot work here.
 */
const struct backend_ops *backend_choose(const char *want, const char *tracefs,
					 char *why, size_t len);

#endif
