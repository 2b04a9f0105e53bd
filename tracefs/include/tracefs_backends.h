/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracefs backends, as the command line sees them: their ops tables.
 * Everything else about them stays behind the ops (struct backend_ops,
 * src/core/backend.h); what tracefs offers is in tfs_caps.h.
 */
#ifndef OFFCPU_TRACEFS_BACKENDS_H
#define OFFCPU_TRACEFS_BACKENDS_H

#include "backend.h"

extern const struct backend_ops ring_backend_ops;	/* private instance, raw pages */
extern const struct backend_ops hist_backend_ops;	/* the kernel's hist triggers */
extern const struct backend_ops file_backend_ops;	/* report: a trace.dat recording */

#endif
