// SPDX-License-Identifier: GPL-2.0-or-later
/* The hist backend's result files fed into the analyzer's histograms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "grow.h"
#include "trigfeed.h"
#include "khist.h"

#define MAX_FRAMES 64

/* Thread names the kernel recorded (the keys=pid,comm histogram), by tid */
struct name {
	int32_t tid;
	const char *comm;
};

struct names {
	struct name *v;
	size_t n;
};

static bool is_names_hist(const struct khist_hist *hh)
{
	return hh->trigger && !strncmp(hh->trigger, "hist:keys=pid,comm:", 19);
}

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Collect the names histogram's (tid, comm) pairs; 0 or -ENOMEM. */
static int names_load(struct names *nm, const struct khist *hf)
{
	size_t h, i, cap = 0;

	for (h = 0; h < hf->nhists; h++) {
		const struct khist_hist *hh = &hf->hists[h];

		if (!is_names_hist(hh))
			continue;
		for (i = 0; i < hh->nentries; i++) {
			const struct khist_key *pid = khist_entry_key(&hh->entries[i], "pid");
			const struct khist_key *comm = khist_entry_key(&hh->entries[i], "comm");
			struct name *v;

			if (!pid || !comm || !comm->str || !comm->str[0])
				continue;
			v = mem_grow_from(nm->v, &cap, nm->n, sizeof(*v), 64);
			if (!v)
				return -ENOMEM;
			nm->v = v;
			nm->v[nm->n].tid = (int32_t)pid->value;
			nm->v[nm->n++].comm = comm->str;
		}
	}
	if (nm->n)
		qsort(nm->v, nm->n, sizeof(*nm->v), cmp_name);
	return 0;
}

/*
 * The name of @tid: the kernel's (as it switched in), else the ops' (from
 * /proc, while the thread lives); looked up once per run of its entries.
 */
static const char *name_of(const struct trigfeed_ops *ops, const struct names *nm,
			   int32_t tid, int32_t *last, char *comm, size_t len)
{
	if (tid <= 0)
		return NULL;
	if (tid != *last) {
		struct name key = { .tid = tid }, *k;

		*last = tid;
		k = nm->n ? bsearch(&key, nm->v, nm->n, sizeof(*nm->v), cmp_name) : NULL;
		if (k)
			snprintf(comm, len, "%s", k->comm);
		else if (!ops || !ops->comm_of || ops->comm_of(tid, comm, len, ops->arg))
			comm[0] = '\0';
	}
	return comm[0] ? comm : NULL;
}

int trigfeed(const char *text, size_t len, struct analyzer *an, unsigned mode,
	     uint64_t unit_ns, const struct trigfeed_ops *ops, uint64_t *dropped, char *err,
	     size_t errlen)
{
	struct khist *hf = NULL;
	struct names nm = { 0 };
	char msg[256], comm[COMM_LEN] = "";
	int32_t comm_tid = 0;
	size_t i, h;
	int ret;

	if (!unit_ns)
		return -EINVAL;
	ret = khist_parse(text, len, &hf, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "cannot read the kernel's histogram: %s", msg);
		return ret;
	}
	if (names_load(&nm, hf)) {
		khist_free(hf);
		snprintf(err, errlen, "cannot read the kernel's histogram: out of memory");
		return -ENOMEM;
	}
	for (h = 0; h < hf->nhists; h++) {
		const struct khist_hist *hh = &hf->hists[h];

		/* names beyond the names map's size come from /proc instead */
		if (is_names_hist(hh))
			continue;
		*dropped += hh->dropped;
		for (i = 0; i < hh->nentries; i++) {
			const struct khist_entry *e = &hh->entries[i];
			const struct khist_key *lat = khist_entry_key(e, "lat");
			const struct khist_key *pid = khist_entry_key(e, "pid");
			const struct khist_key *cpu = khist_entry_key(e, "cpu");
			int32_t tid = pid ? (int32_t)pid->value : 0;
			const char *name = name_of(ops, &nm, tid, &comm_tid, comm, sizeof(comm));
			uint64_t n = 0, sum = 0;
			size_t k;

			if (khist_entry_val(e, "hitcount", &n))
				continue;
			khist_entry_val(e, "lat", &sum);
			if (lat) {
				analyzer_add_intervals(an, mode, tid, cpu ? (int32_t)cpu->value : -1,
						       name, lat->low / unit_ns, n, sum);
				continue;
			}
			for (k = 0; k < e->nkeys; k++) {
				const struct khist_key *st = &e->keys[k];
				uint64_t frames[MAX_FRAMES];
				uint32_t depth = 0;
				size_t f;

				if (st->kind != KHIST_KEY_STACK)
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
	free(nm.v);
	khist_free(hf);
	return 0;
}
