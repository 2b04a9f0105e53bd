// SPDX-License-Identifier: GPL-2.0-or-later
/* Pressure stall information: cumulative stall totals from /proc/pressure or a cgroup. */
#include <stdio.h>
#include <string.h>

#include "psi.h"

static const char *const psi_names[PSI_N] = { "cpu", "io", "memory" };

void psi_read(struct psi *p, const char *cgroup_dir)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < PSI_N; i++) {
		char path[4200], kind[8];
		unsigned long long total;
		double a, b, c;
		FILE *f;

		if (cgroup_dir)
			snprintf(path, sizeof(path), "%s/%s.pressure", cgroup_dir, psi_names[i]);
		else
			snprintf(path, sizeof(path), "/proc/pressure/%s", psi_names[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fscanf(f, "%7s avg10=%lf avg60=%lf avg300=%lf total=%llu\n",
			      kind, &a, &b, &c, &total) == 5) {
			p->have[i] = true;
			if (!strcmp(kind, "some"))
				p->some_us[i] = total;
			else if (!strcmp(kind, "full"))
				p->full_us[i] = total;
		}
		fclose(f);
	}
}

