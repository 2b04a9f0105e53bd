/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pressure stall information (PSI): the cumulative stall totals. */
#ifndef OFFCPU_PSI_H
#define OFFCPU_PSI_H

#include <stdbool.h>
#include <stdint.h>

enum psi_res { PSI_CPU, PSI_IO, PSI_MEM, PSI_N };

struct psi {
	bool have[PSI_N];
	uint64_t some_us[PSI_N], full_us[PSI_N];	/* cumulative totals */
};

/*
 * Read the totals of cpu, io and memory. @cgroup_dir: a cgroup v2
 * directory with *.pressure, or NULL for /proc/pressure. A resource whose
 * file cannot be read has have[] false.
 */
void psi_read(struct psi *p, const char *cgroup_dir);

#endif
