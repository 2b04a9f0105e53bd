/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /proc sampling backend, as the command line sees it: its ops table. */
#ifndef OFFCPU_PROC_BACKENDS_H
#define OFFCPU_PROC_BACKENDS_H

#include "backend.h"

#define PROC_DEFAULT_HZ 20	/* samples per second without --rate */
#define PROC_MAX_HZ 1000

extern const struct backend_ops proc_backend_ops;

#endif
