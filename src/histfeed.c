// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>

#include "analyzer.h"
#include "histfeed.h"
#include "histfile.h"

int histfeed(const char *text, size_t len, struct analyzer *an, unsigned mode,
	     uint64_t unit_ns, int (*comm_of)(int32_t tid, char *buf, size_t len, void *arg),
	     void *arg, char *err, size_t errlen)
{
	struct histfile *hf = NULL;
	char msg[256], comm[COMM_LEN] = "";
	int32_t comm_tid = 0;
	size_t i, h;
	int ret;

	if (!unit_ns)
		return -EINVAL;
	ret = histfile_parse(text, len, &hf, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "cannot read the kernel's histogram: %s", msg);
		return ret;
	}
	for (h = 0; h < hf->nhists; h++) {
		const struct histfile_hist *hh = &hf->hists[h];

		an->counts.dropped += hh->dropped;
		for (i = 0; i < hh->nentries; i++) {
			const struct histfile_entry *e = &hh->entries[i];
			const struct histfile_key *lat = histfile_entry_key(e, "lat");
			const struct histfile_key *pid = histfile_entry_key(e, "pid");
			const struct histfile_key *cpu = histfile_entry_key(e, "cpu");
			int32_t tid = pid ? (int32_t)pid->value : 0;
			uint64_t n = 0, sum = 0;

			if (!lat || histfile_entry_val(e, "hitcount", &n))
				continue;
			histfile_entry_val(e, "lat", &sum);
			/* the kernel keys by pid only: names of live threads */
			if (tid > 0 && tid != comm_tid) {
				comm_tid = tid;
				if (!comm_of || comm_of(tid, comm, sizeof(comm), arg))
					comm[0] = '\0';
			}
			analyzer_add_intervals(an, mode, tid, cpu ? (int32_t)cpu->value : -1,
					       tid > 0 && comm[0] ? comm : NULL,
					       lat->low / unit_ns, n, sum);
		}
	}
	histfile_free(hf);
	return 0;
}
