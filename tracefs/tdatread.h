/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The project's own trace.dat reader (no libtracecmd): the static build's
 * file backend, and in every build a second reader the tests hold against
 * libtracecmd's.
 */
#ifndef OFFCPU_TDATREAD_H
#define OFFCPU_TDATREAD_H

#include "backend.h"
#include "recfile.h"

extern const struct backend_ops tdatread_backend_ops;

/* What a recording opened by tdatread_backend_ops says about itself. */
int tdatread_info(struct backend *b, struct replay_info *out);

#endif
