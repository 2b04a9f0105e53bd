// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: khist_parse() on arbitrary text (the kernel's hist
 * file), then every accessor on the tree it returns.
 *
 * The input is the text itself, not NUL-terminated (the parser takes a
 * length). Invariants checked (abort): the result is 0, -EINVAL or
 * -ENOMEM; -EINVAL comes with a "line N: " message, 0 with a tree and an
 * empty message; the tree's counts and strings are consistent; a second
 * parse into a 7-byte error buffer (or none) gives the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_khist: %s\n", what);
	abort();
}

static void check_key(const struct khist_key *k)
{
	size_t i;

	if (!k->name)
		die("key without a name");
	sink += strlen(k->name) + strlen(khist_key_kind_name(k->kind));
	switch (k->kind) {
	case KHIST_KEY_STACK:
		if (!k->frames && k->nframes)
			die("stack key: frames NULL");
		if (k->nframes > KHIST_MAX_FRAMES)
			die("stack key: too many frames");
		for (i = 0; i < k->nframes; i++)
			sink += strlen(k->frames[i]);
		break;
	case KHIST_KEY_COMM:
	case KHIST_KEY_SYM:
	case KHIST_KEY_SYSCALL:
	case KHIST_KEY_STRING:
		if (!k->str)
			die("string key without str");
		sink += strlen(k->str);
		break;
	case KHIST_KEY_LOG2:
		if (k->value > 64)
			die("log2 exponent above 64");
		/* fall through */
	case KHIST_KEY_BUCKETS:
	case KHIST_KEY_NUMBER:
		if (k->low > k->high)
			die("key range low > high");
		break;
	default:
		die("key kind out of range");
	}
}

static void check_tree(const struct khist *hf)
{
	size_t i, j, n;
	uint64_t v;

	if (hf->nhists && !hf->hists)
		die("hists NULL");
	for (i = 0; i < hf->nhists; i++) {
		const struct khist_hist *h = &hf->hists[i];

		if (h->trigger)
			sink += strlen(h->trigger);
		if (h->truncated && (h->hits || h->entries_total || h->dropped))
			die("truncated histogram with totals");
		sink += khist_hist_sum(h, "hitcount");
		for (j = 0; j < h->nentries; j++) {
			const struct khist_entry *e = &h->entries[j];

			if (!e->nkeys || e->nkeys > KHIST_MAX_KEYS)
				die("entry key count out of range");
			if (e->nvals > KHIST_MAX_VALS || (e->nvals && !e->vals))
				die("entry value count out of range");
			for (n = 0; n < e->nkeys; n++) {
				check_key(&e->keys[n]);
				if (!khist_entry_key(e, e->keys[n].name))
					die("khist_entry_key() misses a key");
			}
			for (n = 0; n < e->nvals; n++) {
				if (!e->vals[n].name)
					die("value without a name");
				if (khist_entry_val(e, e->vals[n].name, &v))
					die("khist_entry_val() misses a value");
			}
			sink += !khist_entry_key(e, "no such key");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct khist *hf = NULL, *hf2 = NULL;
	char err[256], small[7];
	int ret, ret2;

	memset(err, 'x', sizeof(err));
	ret = khist_parse(text, size, &hf, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		die("error message not terminated");
	if (ret == 0) {
		if (!hf || err[0])
			die("success without a tree, or with a message");
		check_tree(hf);
	} else if (ret == -EINVAL) {
		if (hf || strncmp(err, "line ", 5))
			die("-EINVAL without a 'line N:' message");
	} else if (ret != -ENOMEM) {
		die("unexpected result");
	}
	/* again with a short message buffer, or none */
	memset(small, 'x', sizeof(small));
	if (size & 1)
		ret2 = khist_parse(text, size, &hf2, NULL, 0);
	else
		ret2 = khist_parse(text, size, &hf2, small, sizeof(small));
	if (ret2 != ret || (!(size & 1) && !memchr(small, '\0', sizeof(small))))
		die("second parse differs");
	khist_free(hf2);
	khist_free(hf);
	khist_free(NULL);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "standalone.h"
#endif
