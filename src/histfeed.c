// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "histfeed.h"
#include "histfile.h"

#define MAX_FRAMES 64

/* The name of @tid: looked up once per run of entries with that tid */
static const char *name_of(const struct histfeed_ops *ops, int32_t tid, int32_t *last,
			   char *comm, size_t len)
{
	if (tid <= 0)
		return NULL;
	if (tid != *last) {
		*last = tid;
		if (!ops || !ops->comm_of || ops->comm_of(tid, comm, len, ops->arg))
			comm[0] = '\0';
	}
	return comm[0] ? comm : NULL;
}

int histfeed(const char *text, size_t len, struct analyzer *an, unsigned mode,
	     uint64_t unit_ns, const struct histfeed_ops *ops, char *err, size_t errlen)
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
			const char *name = name_of(ops, tid, &comm_tid, comm, sizeof(comm));
			uint64_t n = 0, sum = 0;
			size_t k;

			if (histfile_entry_val(e, "hitcount", &n))
				continue;
			histfile_entry_val(e, "lat", &sum);
			if (lat) {
				analyzer_add_intervals(an, mode, tid, cpu ? (int32_t)cpu->value : -1,
						       name, lat->low / unit_ns, n, sum);
				continue;
			}
			for (k = 0; k < e->nkeys; k++) {
				const struct histfile_key *st = &e->keys[k];
				uint64_t frames[MAX_FRAMES];
				uint32_t depth = 0;
				size_t f;

				if (st->kind != HISTFILE_KEY_STACK)
					continue;
				for (f = 0; f < st->nframes && depth < MAX_FRAMES; f++) {
					uint64_t tok = ops && ops->frame ?
						       ops->frame(st->frames[f], ops->arg) : 0;

					if (tok)
						frames[depth++] = tok;
				}
				analyzer_add_kstack_n(an, tid, name, frames, depth, n, sum);
				break;
			}
		}
	}
	histfile_free(hf);
	return 0;
}
