/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf_event_open backend, as the command line sees it: its ops table. */
#ifndef OFFCPU_PERF_BACKENDS_H
#define OFFCPU_PERF_BACKENDS_H

#include "backend.h"

extern const struct backend_ops perf_backend_ops;

#endif
