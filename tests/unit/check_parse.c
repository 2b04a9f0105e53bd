// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text parsers: the kernel's hist files from real kernels, bpftrace and
 * BCC output, our JSON; entries checked by hand against the fixtures, and
 * broken input (truncated, garbage, wrong rows, mutations) that must give
 * "line N: ..." and never crash.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"
#include "peerhist.h"
#include "fixture.h"

#define K61 "6.1.0-57-cloud-amd64"
#define K612 "6.12.117+deb13-cloud-amd64"

static char err[512];

/* Parse fixture @rel as a hist file; caller frees. */
static struct khist *hf_load(const char *rel)
{
	struct khist *hf = NULL;
	size_t len;
	char *text = fixture_read(fixture_path("%s", rel), &len);
	int ret = khist_parse(text, len, &hf, err, sizeof(err));

	ck_assert_msg(ret == 0, "%s: %d %s", rel, ret, err);
	free(text);
	return hf;
}

/* Parse fixture @rel with @o; caller frees. */
static struct peerhist *hp_load(const char *rel, const struct peerhist_opts *o)
{
	struct peerhist *h = NULL;
	size_t len;
	char *text = fixture_read(fixture_path("%s", rel), &len);
	int ret = peerhist_parse(text, len, o, &h, err, sizeof(err));

	ck_assert_msg(ret == 0, "%s: %d %s", rel, ret, err);
	free(text);
	return h;
}

static int hp_text(const char *text, const struct peerhist_opts *o,
		   struct peerhist **h)
{
	return peerhist_parse(text, strlen(text), o, h, err, sizeof(err));
}

/* @text must fail with an error starting with @msg ("line 3: expected"). */
static void hp_bad(const char *text, enum peerhist_format fmt, const char *msg)
{
	struct peerhist_opts o = { .format = fmt };
	struct peerhist *h = (struct peerhist *)1;
	int ret = hp_text(text, &o, &h);

	ck_assert_msg(ret == -EINVAL, "expected -EINVAL for <%s>, got %d", text, ret);
	ck_assert_ptr_null(h);
	ck_assert_msg(!strncmp(err, msg, strlen(msg)), "error <%s>, expected <%s...>",
		      err, msg);
}

static void hf_bad(const char *text, size_t len, const char *msg)
{
	struct khist *hf = (struct khist *)1;
	int ret = khist_parse(text, len, &hf, err, sizeof(err));

	ck_assert_msg(ret == -EINVAL, "expected -EINVAL for <%s>, got %d", text, ret);
	ck_assert_ptr_null(hf);
	ck_assert_msg(!strncmp(err, msg, strlen(msg)), "error <%s>, expected <%s...>",
		      err, msg);
}

static void hf_bads(const char *text, const char *msg)
{
	hf_bad(text, strlen(text), msg);
}

static const struct peerhist_group *group_of(const struct peerhist *h,
					      const char *map, const char *label)
{
	size_t i;

	for (i = 0; i < h->ng; i++)
		if (!strcmp(h->g[i].map, map) && !strcmp(h->g[i].label, label))
			return &h->g[i];
	ck_abort_msg("no group map '%s' label '%s'", map, label);
	return NULL;
}

static void bucket_is(const struct peerhist_group *g, size_t i, uint64_t low,
		      uint64_t high, uint64_t count)
{
	ck_assert_uint_lt(i, g->nb);
	ck_assert_uint_eq(g->b[i].low, low);
	ck_assert_uint_eq(g->b[i].high, high);
	ck_assert_uint_eq(g->b[i].count, count);
}

static uint64_t hitcount(const struct khist_entry *e)
{
	uint64_t v = 0;

	ck_assert_int_eq(khist_entry_val(e, "hitcount", &v), 0);
	return v;
}

/* ---- kernel hist files ------------------------------------------- */

/*
 * Read while the trigger was active: an event was between its map insert
 * (counted in Hits) and its hitcount update when the file was read.
 */
static const struct {
	const char *kernel, *file;
	unsigned hist;
	uint64_t in_flight;
} in_flight[] = {
	{ K612, "d1_common_stacktrace.synthetic.block_lat.hist", 0, 1 },
	{ K612, "d3_common_stacktrace_log2.sched.sched_switch.hist", 0, 1 },
};

static uint64_t expected_in_flight(const char *k, const char *file, size_t hist)
{
	size_t i;

	for (i = 0; i < sizeof(in_flight) / sizeof(in_flight[0]); i++)
		if (!strcmp(in_flight[i].kernel, k) && !strcmp(in_flight[i].file, file) &&
		    in_flight[i].hist == hist)
			return in_flight[i].in_flight;
	return 0;
}

START_TEST(test_hist_all_fixtures)
{
	unsigned files = 0, hists = 0, k;

	for (k = 0; fixture_kernels[k]; k++) {
		DIR *d = opendir(fixture_path("kernels/%s/hist", fixture_kernels[k]));
		struct dirent *de;

		if (!d)
			continue;	/* this kernel has no hist triggers */
		while ((de = readdir(d))) {
			size_t n = strlen(de->d_name), i;
			struct khist *hf;
			char rel[512];

			if (n < 6 || strcmp(de->d_name + n - 5, ".hist"))
				continue;
			snprintf(rel, sizeof(rel), "kernels/%s/hist/%s",
				 fixture_kernels[k], de->d_name);
			hf = hf_load(rel);
			files++;
			ck_assert_msg(hf->nhists >= 1, "%s: no histogram", rel);
			for (i = 0; i < hf->nhists; i++) {
				const struct khist_hist *h = &hf->hists[i];
				uint64_t sum = khist_hist_sum(h, "hitcount");

				hists++;
				ck_assert_msg(!h->truncated, "%s: no Totals", rel);
				ck_assert_ptr_nonnull(h->trigger);
				ck_assert_msg(!strncmp(h->trigger, "hist:keys=", 10), "%s", h->trigger);
				ck_assert_uint_eq(h->nentries, h->entries_total);
				ck_assert_uint_eq(h->dropped, 0);
				ck_assert_msg(sum + expected_in_flight(fixture_kernels[k], de->d_name, i) == h->hits,
					      "%s #%zu: hitcounts %llu, Hits %llu", rel, i,
					      (unsigned long long)sum, (unsigned long long)h->hits);
			}
			khist_free(hf);
		}
		closedir(d);
	}
	ck_assert_uint_ge(files, 31);
	ck_assert_uint_ge(hists, 36);
}
END_TEST

START_TEST(test_hist_log2)
{
	struct khist *hf = hf_load("kernels/" K612 "/hist/a_log2.synthetic.wakeup_lat.hist");
	const struct khist_hist *h = &hf->hists[0];
	const struct khist_key *k;

	ck_assert_uint_eq(hf->nhists, 1);
	ck_assert_str_eq(h->trigger, "hist:keys=lat.log2:vals=hitcount:sort=lat.log2:size=2048 [active]");
	ck_assert_uint_eq(h->nentries, 11);
	/* { lat: ~ 2^4  } hitcount:        161 */
	ck_assert_uint_eq(h->entries[0].line, 6);
	ck_assert_uint_eq(h->entries[0].nkeys, 1);
	k = khist_entry_key(&h->entries[0], "lat");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->kind, KHIST_KEY_LOG2);
	ck_assert_uint_eq(k->value, 4);
	/* ceiling: ilog2(roundup_pow_of_two(v)) == 4 for v in 9..16 */
	ck_assert_uint_eq(k->low, 9);
	ck_assert_uint_eq(k->high, 16);
	ck_assert_uint_eq(h->entries[0].nvals, 1);
	ck_assert_str_eq(h->entries[0].vals[0].name, "hitcount");
	ck_assert_uint_eq(hitcount(&h->entries[0]), 161);
	/* { lat: ~ 2^10 } hitcount:         81 */
	k = &h->entries[6].keys[0];
	ck_assert_uint_eq(k->value, 10);
	ck_assert_uint_eq(k->low, 513);
	ck_assert_uint_eq(k->high, 1024);
	ck_assert_uint_eq(hitcount(&h->entries[6]), 81);
	ck_assert_uint_eq(hitcount(&h->entries[10]), 6);
	ck_assert_uint_eq(h->hits, 1377);
	ck_assert_uint_eq(h->entries_total, 11);
	ck_assert_uint_eq(h->dropped, 0);
	khist_free(hf);
}
END_TEST

START_TEST(test_hist_buckets)
{
	struct khist *hf = hf_load("kernels/" K612 "/hist/c_buckets.synthetic.wakeup_lat.hist");
	const struct khist_hist *h = &hf->hists[0];
	const struct khist_key *k;

	ck_assert_uint_eq(h->nentries, 72);
	/* { lat: ~ 0-99 } hitcount:        840 */
	k = &h->entries[0].keys[0];
	ck_assert_str_eq(k->name, "lat");
	ck_assert_int_eq(k->kind, KHIST_KEY_BUCKETS);
	ck_assert_uint_eq(k->low, 0);
	ck_assert_uint_eq(k->high, 99);
	ck_assert_uint_eq(hitcount(&h->entries[0]), 840);
	/* { lat: ~ 4700-4799 } hitcount:          1 (4500-4699 are empty) */
	k = &h->entries[45].keys[0];
	ck_assert_uint_eq(k->low, 4700);
	ck_assert_uint_eq(k->high, 4799);
	/* { lat: ~ 13100-13199 } hitcount:          1 */
	k = &h->entries[71].keys[0];
	ck_assert_uint_eq(k->low, 13100);
	ck_assert_uint_eq(k->high, 13199);
	ck_assert_uint_eq(h->hits, 1375);
	khist_free(hf);
}
END_TEST

START_TEST(test_hist_stacktrace)
{
	struct khist *hf = hf_load("kernels/" K612 "/hist/e1_common_stacktrace.sched.sched_switch.hist");
	const struct khist_hist *h = &hf->hists[0];
	const struct khist_key *k;

	ck_assert_str_eq(h->trigger, "hist:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=2048 if prev_state & 3 [active]");
	ck_assert_uint_eq(h->nentries, 7);
	k = &h->entries[0].keys[0];
	ck_assert_str_eq(k->name, "common_stacktrace");
	ck_assert_int_eq(k->kind, KHIST_KEY_STACK);
	ck_assert_uint_eq(k->nframes, 13);
	ck_assert_str_eq(k->frames[0], "__schedule+0x61f/0xbe0");
	ck_assert_str_eq(k->frames[4], "shmem_get_folio_gfp+0x43b/0x5d0");
	ck_assert_str_eq(k->frames[12], "asm_exc_page_fault+0x26/0x30");
	ck_assert_uint_eq(hitcount(&h->entries[0]), 1);
	ck_assert_uint_eq(h->entries[1].line, 21);
	/* the last: pipe_read, 389 */
	k = &h->entries[6].keys[0];
	ck_assert_uint_eq(k->nframes, 7);
	ck_assert_str_eq(k->frames[2], "pipe_read+0x3f2/0x480");
	ck_assert_str_eq(k->frames[6], "entry_SYSCALL_64_after_hwframe+0x76/0x7e");
	ck_assert_uint_eq(hitcount(&h->entries[6]), 389);
	ck_assert_uint_eq(h->hits, 1079);
	khist_free(hf);

	/* 6.1 names the key "stacktrace" */
	hf = hf_load("kernels/" K61 "/hist/e2_stacktrace.sched.sched_switch.hist");
	h = &hf->hists[0];
	ck_assert_uint_eq(h->nentries, 6);
	k = &h->entries[2].keys[0];
	ck_assert_str_eq(k->name, "stacktrace");
	ck_assert_int_eq(k->kind, KHIST_KEY_STACK);
	ck_assert_uint_eq(k->nframes, 5);
	ck_assert_str_eq(k->frames[2], "smpboot_thread_fn+0x147/0x1d0");
	ck_assert_uint_eq(hitcount(&h->entries[2]), 60);
	khist_free(hf);
}
END_TEST

/* A synthetic event's stack field: "stack.stacktrace", first frame inline. */
START_TEST(test_hist_synthetic_stack)
{
	struct khist *hf = hf_load("kernels/" K612 "/hist/d1_common_stacktrace.synthetic.block_lat.hist");
	const struct khist_hist *h = &hf->hists[0];
	const struct khist_entry *e = &h->entries[0];
	const struct khist_key *k;

	ck_assert_uint_eq(e->nkeys, 2);
	k = khist_entry_key(e, "delta");
	ck_assert_int_eq(k->kind, KHIST_KEY_BUCKETS);
	ck_assert_uint_eq(k->low, 0);
	ck_assert_uint_eq(k->high, 99);
	k = khist_entry_key(e, "stack.stacktrace");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->kind, KHIST_KEY_STACK);
	ck_assert_uint_eq(k->nframes, 7);
	ck_assert_str_eq(k->frames[0], "__schedule+0x61f/0xbe0");
	ck_assert_str_eq(k->frames[2], "do_wait+0x60/0x110");
	ck_assert_uint_eq(hitcount(e), 79);
	/* { delta: ~ 1996400-1996499, stack.stacktrace ... sigsuspend ... } 1 */
	e = &h->entries[h->nentries - 1];
	ck_assert_uint_eq(e->keys[0].low, 1996400);
	ck_assert_str_eq(e->keys[1].frames[2], "sigsuspend.isra.0+0x6d/0x90");
	khist_free(hf);

	hf = hf_load("kernels/" K612 "/hist/d3_common_stacktrace_log2.synthetic.block_lat.hist");
	e = &hf->hists[0].entries[0];
	ck_assert_int_eq(e->keys[0].kind, KHIST_KEY_LOG2);
	ck_assert_int_eq(e->keys[1].kind, KHIST_KEY_STACK);
	ck_assert_uint_eq(hf->hists[0].hits, 1044);
	khist_free(hf);
}
END_TEST

START_TEST(test_hist_pid_and_multi)
{
	struct khist *hf = hf_load("kernels/" K612 "/hist/b_pid_log2.synthetic.wakeup_lat.hist");
	const struct khist_entry *e = &hf->hists[0].entries[0];

	/* { pid:         10, lat: ~ 2^5  } hitcount:          7 */
	ck_assert_uint_eq(e->nkeys, 2);
	ck_assert_str_eq(e->keys[0].name, "pid");
	ck_assert_int_eq(e->keys[0].kind, KHIST_KEY_NUMBER);
	ck_assert_uint_eq(e->keys[0].value, 10);
	ck_assert_str_eq(e->keys[1].name, "lat");
	ck_assert_uint_eq(e->keys[1].value, 5);
	ck_assert_uint_eq(hitcount(e), 7);
	khist_free(hf);

	/* two triggers on sched_switch: two histograms in one file */
	hf = hf_load("kernels/" K612 "/hist/d1_common_stacktrace.sched.sched_switch.hist");
	ck_assert_uint_eq(hf->nhists, 2);
	ck_assert_uint_eq(hf->hists[0].line, 1);
	ck_assert_uint_eq(hf->hists[1].line, 317);
	ck_assert_ptr_nonnull(strstr(hf->hists[0].trigger, "keys=prev_pid:"));
	ck_assert_ptr_nonnull(strstr(hf->hists[1].trigger, "onmatch(sched.sched_switch)"));
	ck_assert_str_eq(hf->hists[1].entries[0].keys[0].name, "next_pid");
	ck_assert_uint_eq(hf->hists[1].hits, 1116);
	khist_free(hf);
}
END_TEST

/* Key and value layouts the fixtures do not have, from hist_trigger_print_key(). */
static const char kinds_text[] =
	"# event histogram\n"
	"#\n"
	"# trigger info: hist:keys=common_pid.execname,id.syscall:vals=hitcount,bytes.hex:sort=hitcount:size=2048 [active]\n"
	"#\n"
	"\n"
	"{ common_pid: bash            [      1234], id: sys_read                      [  0] } hitcount:          5  bytes:        1f4\n"
	"\tmax:         42  next_comm: bash\n"
	"{ common_pid: kworker/0:1     [        11], id: sys_write                     [  1] } hitcount:          2  bytes:          a\n"
	"\n"
	"Totals:\n"
	"    Hits: 7\n"
	"    Entries: 2\n"
	"    Dropped: 0\n"
	"\n"
	"\n"
	"# event histogram\n"
	"#\n"
	"# trigger info: hist:keys=call_site.sym,comm,ptr.hex:vals=hitcount.percent,bytes_req.graph:sort=hitcount:size=2048 [active]\n"
	"#\n"
	"\n"
	"{ call_site: [ffffffff8155c4b0] kmalloc_trace                                , comm: sshd                                              , ptr: ffff888003a1c000 } hitcount (%):  75.00 bytes_req: ####################\n"
	"{ call_site: [ffffffff81234560] seq_read                                     , comm: a, b: c                                           , ptr: 10 } hitcount (%):  25.00 bytes_req:           ##########\n"
	"\n"
	"Totals:\n"
	"    Hits: 4\n"
	"    Entries: 2\n"
	"    Dropped: 1\n";

START_TEST(test_hist_key_kinds)
{
	struct khist *hf = NULL;
	const struct khist_entry *e;
	uint64_t v;

	ck_assert_int_eq(khist_parse(kinds_text, strlen(kinds_text), &hf, err, sizeof(err)), 0);
	ck_assert_uint_eq(hf->nhists, 2);
	e = &hf->hists[0].entries[0];
	ck_assert_int_eq(e->keys[0].kind, KHIST_KEY_COMM);
	ck_assert_str_eq(e->keys[0].str, "bash");
	ck_assert_uint_eq(e->keys[0].value, 1234);
	ck_assert_int_eq(e->keys[1].kind, KHIST_KEY_SYSCALL);
	ck_assert_str_eq(e->keys[1].str, "sys_read");
	ck_assert_uint_eq(e->keys[1].value, 0);
	ck_assert_uint_eq(e->nvals, 2);
	ck_assert_int_eq(khist_entry_val(e, "bytes", &v), 0);
	ck_assert_uint_eq(v, 500);	/* .hex */
	ck_assert_int_eq(khist_entry_val(e, "max", &v), -ENOENT);
	e = &hf->hists[0].entries[1];
	ck_assert_str_eq(e->keys[0].str, "kworker/0:1");
	ck_assert_uint_eq(e->keys[0].value, 11);
	ck_assert_int_eq(khist_entry_val(e, "bytes", &v), 0);
	ck_assert_uint_eq(v, 10);

	e = &hf->hists[1].entries[0];
	ck_assert_uint_eq(e->nkeys, 3);
	ck_assert_int_eq(e->keys[0].kind, KHIST_KEY_SYM);
	ck_assert_uint_eq(e->keys[0].value, 0xffffffff8155c4b0ULL);
	ck_assert_str_eq(e->keys[0].str, "kmalloc_trace");
	ck_assert_int_eq(e->keys[1].kind, KHIST_KEY_STRING);
	ck_assert_str_eq(e->keys[1].str, "sshd");
	ck_assert_int_eq(e->keys[2].kind, KHIST_KEY_NUMBER);
	ck_assert_uint_eq(e->keys[2].value, 0xffff888003a1c000ULL);
	/* percent in hundredths under its printed name; graph bars dropped */
	ck_assert_uint_eq(e->nvals, 1);
	ck_assert_str_eq(e->vals[0].name, "hitcount (%)");
	ck_assert_uint_eq(e->vals[0].value, 7500);
	e = &hf->hists[1].entries[1];
	ck_assert_str_eq(e->keys[1].str, "a, b: c");
	ck_assert_uint_eq(e->keys[2].value, 16);
	ck_assert_uint_eq(e->vals[0].value, 2500);
	ck_assert_uint_eq(hf->hists[1].dropped, 1);
	khist_free(hf);
	khist_free(NULL);
}
END_TEST

START_TEST(test_hist_malformed)
{
	static const char nul[] = "# event histogram\n{ lat: 1 }\0 hitcount: 1\n";
	struct khist *hf = NULL;
	size_t len, cut;
	char *text;

	hf_bads("{ lat: ~ 2^4  } hitcount:\n", "line 1: expected a number after 'hitcount:'");
	hf_bads("\n{ lat: ~ 2^4   hitcount: 3\n", "line 2: expected '}' to close the entry");
	hf_bads("{ lat: ~ 2^99 } hitcount: 1", "line 1: key 'lat': expected '~ 2^N' with N <= 64");
	hf_bads("{ lat: ~ 5-3 } hitcount: 1", "line 1: key 'lat': expected '~ LOW-HIGH' bucket");
	hf_bads("{ pid: 99999999999999999999999 } hitcount: 1", "line 1: key 'pid': number out of range");
	hf_bads("{ pid: 1 } hitcount: 18446744073709551616", "line 1: value of 'hitcount' out of range");
	hf_bads("{ pid: 1 } hitcount: 12abc", "line 1: value of 'hitcount' is not a number");
	hf_bads("{ lat ~ 2^3 } hitcount: 1", "line 1: expected ':' after key 'lat'");
	hf_bads("{ } hitcount: 1", "line 1: entry has no key");
	hf_bads("# event histogram\ngarbage\n", "line 2: expected a '{' entry, 'Totals:' or a '#' line");
	hf_bad(nul, sizeof(nul) - 1, "line 2: NUL byte");
	hf_bads("{ pid: 1 } hitcount: 1\nTotals:\n    Hits: x\n", "line 3: Hits: expected a number");
	hf_bads("Totals:\n    Hits: 1\n{ lat: 1 } hitcount: 1\n", "line 3: entry after Totals");
	hf_bads("{ common_stacktrace:\n         a+0x1/0x2\n\n} hitcount: 1\n",
		       "line 3: expected a stack frame or '}'");

	/* cut inside a stack: the entry of line 6 never closes */
	text = fixture_read(fixture_path("kernels/" K612 "/hist/e1_common_stacktrace.sched.sched_switch.hist"), &len);
	cut = (size_t)(strstr(text, "         io_schedule") - text);
	hf_bad(text, cut, "line 8: end of input inside the entry of line 6");
	/* cut before Totals: parses, marked truncated */
	cut = (size_t)(strstr(text, "Totals:") - text);
	ck_assert_int_eq(khist_parse(text, cut, &hf, err, sizeof(err)), 0);
	ck_assert(hf->hists[0].truncated);
	ck_assert_uint_eq(hf->hists[0].nentries, 7);
	ck_assert_uint_eq(hf->hists[0].hits, 0);
	khist_free(hf);
	/* cut after Hits: still truncated */
	cut = (size_t)(strstr(text, "    Entries") - text);
	ck_assert_int_eq(khist_parse(text, cut, &hf, err, sizeof(err)), 0);
	ck_assert(hf->hists[0].truncated);
	khist_free(hf);
	/* every prefix: parses or says which line, never crashes */
	for (cut = 0; cut <= len; cut++) {
		int ret = khist_parse(text, cut, &hf, err, sizeof(err));

		ck_assert_msg(ret == 0 || (ret == -EINVAL && !strncmp(err, "line ", 5)),
			      "prefix %zu: %d %s", cut, ret, err);
		khist_free(hf);
		hf = NULL;
	}
	free(text);

	/* empty input: no histogram, not an error */
	ck_assert_int_eq(khist_parse("", 0, &hf, err, sizeof(err)), 0);
	ck_assert_uint_eq(hf->nhists, 0);
	khist_free(hf);
	ck_assert_int_eq(khist_parse(NULL, 0, &hf, NULL, 0), 0);
	khist_free(hf);
}
END_TEST

/* ---- one latency histogram from any format --------------------------- */

START_TEST(test_detect)
{
	static const struct {
		const char *rel;
		enum peerhist_format f;
	} t[] = {
		{ "bpftrace-0.17-runq.txt", PEERHIST_BPFTRACE },
		{ "bcc-runqlat.txt", PEERHIST_BCC },
		{ "bcc-runqlat-single.txt", PEERHIST_BCC },
		{ "offcpu-runq.json", PEERHIST_JSON },
		{ "kernels/" K612 "/hist/a_log2.synthetic.wakeup_lat.hist", PEERHIST_KERNEL },
		{ "kernels/" K61 "/hist/e2_stacktrace.sched.sched_switch.hist", PEERHIST_KERNEL },
	};
	size_t i, len;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *text = fixture_read(fixture_path("%s", t[i].rel), &len);

		ck_assert_msg(peerhist_detect(text, len) == t[i].f, "%s: %s", t[i].rel,
			      peerhist_format_name(peerhist_detect(text, len)));
		free(text);
	}
	ck_assert_int_eq(peerhist_detect("", 0), PEERHIST_UNKNOWN);
	ck_assert_int_eq(peerhist_detect(NULL, 0), PEERHIST_UNKNOWN);
	ck_assert_int_eq(peerhist_detect("hello\nworld\n", 12), PEERHIST_UNKNOWN);
	ck_assert_int_eq(peerhist_detect("{ lat: 3 } hitcount: 1\n", 23), PEERHIST_KERNEL);
	ck_assert_int_eq(peerhist_detect(" {\"unit\":1}", 11), PEERHIST_JSON);
	ck_assert_str_eq(peerhist_format_name(PEERHIST_BCC), "bcc");
}
END_TEST

START_TEST(test_bpftrace)
{
	struct peerhist_opts o = { .format = PEERHIST_UNKNOWN };
	struct peerhist *h = hp_load("bpftrace-0.17-runq.txt", NULL), *m = NULL;
	const struct peerhist_group *g;
	uint64_t bytid = 0;
	size_t i;

	ck_assert_int_eq(h->format, PEERHIST_BPFTRACE);
	ck_assert_uint_eq(h->nmaps, 3);
	ck_assert_uint_eq(h->ng, 23);	/* 11 @bytid, 11 @l, @usecs */
	ck_assert_str_eq(h->unit, "us");
	ck_assert_uint_eq(h->unit_ns, 1000);
	g = group_of(h, "usecs", "");
	ck_assert_uint_eq(g->nb, 6);
	bucket_is(g, 0, 2, 3, 2);
	bucket_is(g, 1, 4, 7, 14);
	bucket_is(g, 2, 8, 15, 15);
	bucket_is(g, 3, 16, 31, 39);
	bucket_is(g, 4, 32, 63, 17);
	bucket_is(g, 5, 64, 127, 1);
	ck_assert_uint_eq(g->total, 88);
	/* [8M, 16M) is powers of 1024 */
	g = group_of(h, "l", "@l[kworker/0:1, 11]");
	ck_assert_uint_eq(g->nb, 3);
	bucket_is(g, 0, 8ULL << 20, (16ULL << 20) - 1, 1);
	bucket_is(g, 1, 16ULL << 20, (32ULL << 20) - 1, 0);
	bucket_is(g, 2, 32ULL << 20, (64ULL << 20) - 1, 1);
	g = group_of(h, "bytid", "@bytid[1185]");
	ck_assert_uint_eq(g->nb, 5);
	bucket_is(g, 4, 64, 127, 1);
	for (i = 0; i < h->ng; i++)
		if (!strcmp(h->g[i].map, "bytid"))
			bytid += h->g[i].total;

	/* several maps: merging needs a choice */
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 1: the input has 3 maps: choose one");
	ck_assert_int_eq(peerhist_merge(h, "nope", &m, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(peerhist_merge(h, "@usecs", &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->ng, 1);
	ck_assert_uint_eq(m->g[0].total, 88);
	ck_assert_uint_eq(m->g[0].nb, 6);
	peerhist_free(m);
	ck_assert_int_eq(peerhist_merge(h, "bytid", &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].total, bytid);
	ck_assert_uint_eq(bytid, 2 + 2 + 2 + 2 + 2 + 4 + 4 + 5 + 6 + 19 + 40);
	bucket_is(&m->g[0], 0, 4, 7, 1 + 2 + 1 + 1 + 9);
	peerhist_free(m);
	peerhist_free(h);

	o.map = "@usecs";
	h = hp_load("bpftrace-0.17-runq.txt", &o);
	ck_assert_uint_eq(h->ng, 1);
	ck_assert_uint_eq(h->nmaps, 1);
	ck_assert_str_eq(h->g[0].label, "");
	ck_assert_str_eq(h->unit, "us");
	peerhist_free(h);
	o.map = "bytid";
	h = hp_load("bpftrace-0.17-runq.txt", &o);
	ck_assert_uint_eq(h->ng, 11);
	ck_assert_str_eq(h->unit, "bytid");
	ck_assert_uint_eq(h->unit_ns, 0);
	peerhist_free(h);
}
END_TEST

/* Our own --format=bpftrace: keyed maps, summaries, trailer, "[0]", "(..., 0)" */
START_TEST(test_bpftrace_layouts)
{
	static const char text[] =
		"@usecs[123]: \n"
		"[0]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1]                    1 |@@@@@@@@@@@@@@@@@                                   |\n"
		"[2, 4)                 0 |                                                    |\n"
		"[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
		"count=6 avg=1.8 p50=1 p90=5 p99=5 max=5 (usecs)\n"
		"# and 5 waits not measured (not in the histogram): partial\n"
		"\n"
		"@usecs[7]: \n"
		"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[512, 1K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1G, 2G)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count=3 avg=1.0 p50=1 p90=1 p99=1 max=1 (usecs)\n"
		"\n"
		"@count: 42\n"
		"@lh: \n"
		"[100, ...)             5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n"
		"# runq: 1.000 s traced, backend ring, clock mono\n";
	struct peerhist_opts o = { .map = "usecs" };
	struct peerhist *h = NULL, *m = NULL;
	const struct peerhist_group *g;

	ck_assert_int_eq(hp_text(text, NULL, &h), 0);
	ck_assert(h->partial);	/* "# and 5 waits not measured ...: partial" */
	ck_assert_uint_eq(h->nmaps, 2);
	ck_assert_uint_eq(h->ng, 3);
	g = group_of(h, "lh", "");
	bucket_is(g, 0, 100, UINT64_MAX, 5);
	peerhist_free(h);

	ck_assert_int_eq(hp_text(text, &o, &h), 0);
	ck_assert_uint_eq(h->ng, 2);
	g = group_of(h, "usecs", "@usecs[123]");
	ck_assert_uint_eq(g->nb, 4);
	bucket_is(g, 0, 0, 0, 3);
	bucket_is(g, 1, 1, 1, 1);
	bucket_is(g, 3, 4, 7, 2);
	g = group_of(h, "usecs", "@usecs[7]");
	ck_assert_uint_eq(g->negative, 1);
	ck_assert_uint_eq(g->total, 4);
	bucket_is(g, 0, 512, 1023, 1);
	bucket_is(g, 1, 1024, 2047, 1);
	bucket_is(g, 2, 1ULL << 30, (2ULL << 30) - 1, 1);
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].nb, 7);
	ck_assert_uint_eq(m->g[0].negative, 1);
	ck_assert_uint_eq(m->g[0].total, 10);
	peerhist_free(m);
	peerhist_free(h);

	/* our output when nothing ended: a header and a summary */
	ck_assert_int_eq(hp_text("@usecs: \ncount=0 avg=0.0 p50=0 p90=0 p99=0 max=0 (usecs)\n\n", NULL, &h), 0);
	ck_assert_uint_eq(h->ng, 1);
	ck_assert_uint_eq(h->g[0].nb, 0);
	peerhist_free(h);
}
END_TEST

START_TEST(test_bcc)
{
	struct peerhist *h = hp_load("bcc-runqlat.txt", NULL), *m = NULL;
	const struct peerhist_group *g;

	ck_assert_int_eq(h->format, PEERHIST_BCC);
	ck_assert_str_eq(h->unit, "us");
	ck_assert_uint_eq(h->unit_ns, 1000);
	ck_assert_uint_eq(h->ng, 2);
	g = &h->g[0];
	ck_assert_str_eq(g->label, "pid = 1832 sshd");
	ck_assert_str_eq(g->map, "");
	ck_assert_uint_eq(g->nb, 8);
	bucket_is(g, 0, 0, 1, 3);
	bucket_is(g, 2, 4, 7, 24);
	bucket_is(g, 7, 128, 255, 2);
	ck_assert_uint_eq(g->total, 54);
	g = &h->g[1];
	ck_assert_str_eq(g->label, "pid = 2210 stress-ng-cpu");
	ck_assert_uint_eq(g->nb, 12);
	bucket_is(g, 4, 16, 31, 131);
	bucket_is(g, 11, 2048, 4095, 1);
	ck_assert_uint_eq(g->total, 382);
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->ng, 1);
	ck_assert_str_eq(m->g[0].label, "");
	ck_assert_uint_eq(m->g[0].nb, 12);
	bucket_is(&m->g[0], 0, 0, 1, 3);
	bucket_is(&m->g[0], 4, 16, 31, 135);
	ck_assert_uint_eq(m->g[0].total, 436);
	ck_assert_str_eq(m->unit, "us");
	peerhist_free(m);
	peerhist_free(h);

	h = hp_load("bcc-runqlat-single.txt", NULL);
	ck_assert_uint_eq(h->ng, 1);
	ck_assert_str_eq(h->g[0].label, "");
	ck_assert_uint_eq(h->g[0].nb, 13);
	bucket_is(&h->g[0], 3, 8, 15, 611);
	bucket_is(&h->g[0], 12, 4096, 8191, 1);
	ck_assert_uint_eq(h->g[0].total, 2125);
	peerhist_free(h);
}
END_TEST

/* BCC's wide layout (> 32 rows), libbpf-tools' header and sections, -T */
START_TEST(test_bcc_layouts)
{
	static const char wide[] =
		"               msecs                         : count     distribution\n"
		"                   0 -> 1                    : 1        |********************|\n"
		"                   2 -> 3                    : 0        |                    |\n"
		"          4294967296 -> 8589934591           : 1        |********************|\n";
	static const char libbpf[] =
		"Tracing run queue latency... Hit Ctrl-C to end.\n"
		"\n"
		"12:00:01\n"
		"\n"
		"tid = 12 kworker/0:1\n"
		"     nsecs               : count    distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 4        |****************************************|\n"
		"tid = 13\n"
		"     nsecs               : count    distribution\n"
		"         0 -> 1          : 2        |****************************************|\n"
		"count=2 avg=0.5 p50=0 p90=1 p99=1 max=1 (nsecs)\n";
	struct peerhist *h = NULL;

	ck_assert_int_eq(hp_text(wide, NULL, &h), 0);
	ck_assert_str_eq(h->unit, "ms");
	ck_assert_uint_eq(h->unit_ns, 1000000);
	bucket_is(&h->g[0], 2, 4294967296ULL, 8589934591ULL, 1);
	peerhist_free(h);

	ck_assert_int_eq(hp_text(libbpf, NULL, &h), 0);
	ck_assert_str_eq(h->unit, "ns");
	ck_assert_uint_eq(h->ng, 2);
	ck_assert_str_eq(h->g[0].label, "tid = 12 kworker/0:1");
	ck_assert_str_eq(h->g[1].label, "tid = 13");
	bucket_is(&h->g[1], 0, 0, 1, 2);
	peerhist_free(h);
}
END_TEST

START_TEST(test_kernel_log2_buckets)
{
	struct peerhist_opts o = { .unit = "usecs" };
	struct peerhist *h;
	const struct peerhist_group *g;

	h = hp_load("kernels/" K612 "/hist/a_log2.synthetic.wakeup_lat.hist", NULL);
	ck_assert_int_eq(h->format, PEERHIST_KERNEL);
	ck_assert_str_eq(h->unit, "");	/* the hist file does not say */
	ck_assert_uint_eq(h->unit_ns, 0);
	ck_assert(!h->partial);
	ck_assert_uint_eq(h->ng, 1);
	g = &h->g[0];
	ck_assert_str_eq(g->label, "");
	ck_assert_uint_eq(g->nb, 11);
	/* ~ 2^4 is a ceiling: 9..16, which floor buckets [8,15] cannot hold */
	bucket_is(g, 0, 9, 16, 161);
	bucket_is(g, 1, 17, 32, 377);
	bucket_is(g, 10, 8193, 16384, 6);
	ck_assert_uint_eq(g->total, 1377);
	peerhist_free(h);

	h = hp_load("kernels/" K612 "/hist/a_log2.synthetic.wakeup_lat.hist", &o);
	ck_assert_str_eq(h->unit, "us");
	ck_assert_uint_eq(h->unit_ns, 1000);
	peerhist_free(h);

	h = hp_load("kernels/" K61 "/hist/c_buckets.synthetic.wakeup_lat.hist", NULL);
	g = &h->g[0];
	ck_assert_uint_eq(g->nb, 64);
	bucket_is(g, 0, 0, 99, 1259);
	bucket_is(g, 1, 100, 199, 99);
	ck_assert_uint_eq(g->total, 1636);
	peerhist_free(h);

	h = hp_load("kernels/" K612 "/hist/c_buckets.synthetic.wakeup_lat.hist", NULL);
	g = &h->g[0];
	ck_assert_uint_eq(g->nb, 72);
	bucket_is(g, 0, 0, 99, 840);
	bucket_is(g, 1, 100, 199, 117);
	bucket_is(g, 71, 13100, 13199, 1);
	ck_assert_uint_eq(g->total, 1375);
	peerhist_free(h);
}
END_TEST

START_TEST(test_kernel_groups)
{
	struct peerhist_opts o = { .key = "nope" };
	struct peerhist *h, *m = NULL;
	const struct peerhist_group *g;
	size_t len;
	char *text;

	/* keys=pid,lat.log2: one group per pid */
	h = hp_load("kernels/" K612 "/hist/b_pid_log2.synthetic.wakeup_lat.hist", NULL);
	g = group_of(h, "", "pid = 10");
	ck_assert_uint_eq(g->nb, 7);
	bucket_is(g, 0, 17, 32, 7);
	bucket_is(g, 5, 1025, 2048, 2);
	g = group_of(h, "", "pid = 18");
	ck_assert_uint_eq(g->total, 17 + 34 + 49 + 53 + 11 + 10 + 25 + 14 + 38 + 20);
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].total, 1384);
	bucket_is(&m->g[0], 0, 5, 8, 3);	/* three pids at ~ 2^3 */
	peerhist_free(m);
	peerhist_free(h);

	/* keys=delta.log2,stack.stacktrace: groups by stack */
	h = hp_load("kernels/" K612 "/hist/d3_common_stacktrace_log2.synthetic.block_lat.hist", NULL);
	ck_assert_uint_ge(h->ng, 2);
	ck_assert_ptr_nonnull(strstr(h->g[0].label, "__schedule+0x61f/0xbe0;schedule+0x27/0xc0;"));
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].total, 1044);
	peerhist_free(m);
	peerhist_free(h);

	/* keys=delta.buckets=100,stack.stacktrace */
	h = hp_load("kernels/" K612 "/hist/d1_common_stacktrace.synthetic.block_lat.hist", NULL);
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].total, 1109);
	bucket_is(&m->g[0], 0, 0, 99, m->g[0].b[0].count);
	peerhist_free(m);
	peerhist_free(h);

	/* keys=next_pid only: no latency key unless named */
	text = fixture_read(fixture_path("kernels/" K612 "/hist/a_log2.sched.sched_switch.hist"), &len);
	ck_assert_int_eq(peerhist_parse(text, len, NULL, &h, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 1: no latency key (.log2, .buckets, lat, latency, delta or delay) in any histogram");
	ck_assert_int_eq(peerhist_parse(text, len, &o, &h, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 1: no histogram has a key 'nope'");
	o.key = "next_pid";
	ck_assert_int_eq(peerhist_parse(text, len, &o, &h, err, sizeof(err)), 0);
	ck_assert_uint_eq(h->g[0].total, 1393);
	peerhist_free(h);
	free(text);

	/* a truncated hist file is read but flagged */
	hp_bad("{ lat: ~ 2^3  } hitcount: 5\n{ lat: 7 } hitcount: 1\n", PEERHIST_UNKNOWN,
	       "line 2: bucket [7, 7] not above the previous one [5, 8]");
	ck_assert_int_eq(hp_text("{ lat: ~ 2^2  } hitcount: 5\n{ lat: ~ 2^1  } hitcount: 1\n", NULL, &h), 0);
	ck_assert(h->partial);
	bucket_is(&h->g[0], 0, 2, 2, 1);
	bucket_is(&h->g[0], 1, 3, 4, 5);
	peerhist_free(h);
}
END_TEST

START_TEST(test_json)
{
	struct peerhist_opts o = { .json_index = 1 };
	struct peerhist *h = hp_load("offcpu-runq.json", NULL), *m = NULL;
	const struct peerhist_group *g;
	size_t len;
	char *text;

	ck_assert_int_eq(h->format, PEERHIST_JSON);
	ck_assert_str_eq(h->unit, "us");
	ck_assert(!h->partial);
	ck_assert_uint_eq(h->ng, 4);
	g = &h->g[0];
	ck_assert_str_eq(g->label, "pid = 1832 sshd");
	ck_assert_uint_eq(g->nb, 9);
	bucket_is(g, 0, 0, 0, 1);
	bucket_is(g, 1, 1, 1, 1);
	bucket_is(g, 3, 4, 7, 3);
	bucket_is(g, 8, 128, 255, 1);
	ck_assert_uint_eq(g->total, 9);
	ck_assert_str_eq(h->g[1].label, "pid = 2210 stress-ng-cpu");
	bucket_is(&h->g[1], 11, 1024, 2047, 1);
	/* json_str()'s \" and \u00XX bytes come back as the comm's bytes */
	ck_assert_str_eq(h->g[2].label, "pid = 4242 my\"app\xc3\xa9");
	ck_assert_str_eq(h->g[3].label, "pid = (other)");
	ck_assert_int_eq(peerhist_merge(h, NULL, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m->g[0].total, 9 + 12 + 3 + 3);
	bucket_is(&m->g[0], 0, 0, 0, 4);
	peerhist_free(m);
	peerhist_free(h);

	/* the second line: the next interval */
	h = hp_load("offcpu-runq.json", &o);
	ck_assert_uint_eq(h->ng, 1);
	ck_assert_uint_eq(h->g[0].total, 4);
	bucket_is(&h->g[0], 11, 2048, 4095, 1);
	peerhist_free(h);
	o.json_index = 2;
	text = fixture_read(fixture_path("offcpu-runq.json"), &len);
	ck_assert_int_eq(peerhist_parse(text, len, &o, &h, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "line 3: end of input: expected JSON value #3, found 2");
	/* cut in the middle of the first line */
	o.json_index = 0;
	ck_assert_int_eq(peerhist_parse(text, len / 4, &o, &h, err, sizeof(err)), -EINVAL);
	ck_assert_msg(!strncmp(err, "line 1: end of input", 20), "%s", err);
	free(text);

	/* no key, msecs, pretty-printed */
	ck_assert_int_eq(hp_text("{\n  \"unit\": \"msecs\",\n  \"key\": null,\n  \"partial\": true,\n"
				 "  \"groups\": [{\"count\": 3, \"x\": [1.5e3, -2, \"\\u00e9\\ud83d\\ude00\"],\n"
				 "    \"buckets\": [{\"low\": 2, \"high\": 3, \"count\": 3}]}]\n}\n", NULL, &h), 0);
	ck_assert_str_eq(h->unit, "ms");
	ck_assert(h->partial);
	ck_assert_str_eq(h->g[0].label, "");
	bucket_is(&h->g[0], 0, 2, 3, 3);
	peerhist_free(h);
	peerhist_free(NULL);
}
END_TEST

START_TEST(test_json_malformed)
{
	static const char deep[] = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
	enum peerhist_format j = PEERHIST_JSON;

	hp_bad("{\"unit\":\"usecs\",\n\"groups\":[{\"count\":5,\"buckets\":[{\"low\":0,\"high\":1,\"count\":4}]}]}",
	       j, "line 2: group \"count\" 5 is not the sum of its buckets 4");
	hp_bad("{\"unit\":\"usecs\",\"groups\":[\n{\"buckets\":[{\"low\":4,\"high\":7,\"count\":1},\n{\"low\":2,\"high\":3,\"count\":1}]}]}",
	       j, "line 3: bucket [2, 3] not above the previous one [4, 7]");
	hp_bad("{\"unit\":\"usecs\",\"groups\":[{\"buckets\":[{\"low\":-1,\"high\":7,\"count\":1}]}]}",
	       j, "line 1: expected \"low\": a non-negative integer");
	hp_bad("{\"unit\":\"usecs\",\"groups\":[{\"buckets\":[{\"low\":1,\"high\":18446744073709551616,\"count\":1}]}]}",
	       j, "line 1: expected \"high\": a non-negative integer");
	hp_bad("{\"unit\":\"usecs\",\"key\":\"pid\",\"groups\":[{\"buckets\":[]}]}",
	       j, "line 1: expected \"pid\": an integer id");
	hp_bad("{\"groups\":[]}", j, "line 1: expected \"unit\": a string");
	hp_bad("{\"unit\":\"usecs\"}", j, "line 1: expected \"groups\": an array");
	hp_bad("[1, 2]", j, "line 1: expected a JSON object");
	hp_bad("{\"unit\":\"usecs\",\n\n\"groups\":[01]}", j, "line 3: leading zero in a number");
	hp_bad("{\"unit\":\"us\\x\"}", j, "line 1: unknown escape '\\x' in a string");
	hp_bad("{\"unit\":\"\\ud800\"}", j, "line 1: high surrogate without its low half");
	hp_bad("{\"unit\":\"\\u0000\"}", j, "line 1: \\u0000 in a string is not supported");
	hp_bad("{\"unit\":\"a\tb\"}", j, "line 1: control character in a string");
	hp_bad("{\"unit\" \"us\"}", j, "line 1: expected ':' after an object key");
	hp_bad("{\"unit\":\"us\",}", j, "line 1: expected a string key in an object");
	hp_bad("{\"unit\":\"us\"\n\"groups\":[]}", j, "line 2: expected ',' or '}' in an object");
	hp_bad("{\"a\":[1 2]}", j, "line 1: expected ',' or ']' in an array");
	hp_bad("{\"a\":tru}", j, "line 1: expected a JSON value");
	hp_bad("{\"unit\":\"usecs\",\"groups\":[]} x", j, "line 1: expected the end of input or the next JSON object");
	hp_bad(deep, j, "line 1: nesting deeper than 64");
	hp_bad("{\"unit\":\"us", j, "line 1: end of input inside a string");
	hp_bad("{\"unit\":", j, "line 1: end of input: expected a JSON value");
	hp_bad("", j, "line 1: end of input: expected JSON value #1, found 0");
}
END_TEST

START_TEST(test_text_malformed)
{
	enum peerhist_format any = PEERHIST_UNKNOWN;
	size_t len, cut;
	char *text, *copy;
	const char *row;

	hp_bad("hello\nworld\n", any, "line 1: unknown format");
	hp_bad("", any, "it is empty");
	hp_bad(" \n\t\n", any, "it is empty");
	hp_bad("[2, 4)                 2 |@@  |\n", PEERHIST_BPFTRACE,
	       "line 1: row outside a map: expected '@name:' first");
	hp_bad("@usecs:\n[2, 4)                 2 |@@  |\n[4, 2)                 2 |@@  |\n", any,
	       "line 3: expected '[low, high)' row");
	hp_bad("@usecs:\n[2, 4)                 2 |@@  |\n[4, 8)                 x |@@  |\n", any,
	       "line 3: expected '[low, high)' row");
	hp_bad("@usecs:\n[2, 4)                 2 |@@  |\ngarbage\n", any,
	       "line 3: expected '[low, high)' row or an empty line");
	hp_bad("@usecs:\n[2, 4)                 2 |@@  |\n[2, 4)                 2 |@@  |\n", any,
	       "line 3: bucket [2, 3] not above the previous one [2, 3]");
	hp_bad("@usecs:\n[16T, 32T)   1 |@|\n[16777216T, 32T)   1 |@|\n", any,
	       "line 3: number out of range in '[low, high)' row");
	hp_bad("Attaching 1 probe...\n@x: 3\n", PEERHIST_BPFTRACE,
	       "line 2: end of input: no bpftrace histogram");
	hp_bad("     usecs               : count     distribution\n"
	       "         0 -> 1          : 3        |*****   |\n"
	       "         2 => 3          : 11       |**|\n", any,
	       "line 3: expected 'low -> high : count |stars|' row");
	hp_bad("     usecs               : count     distribution\n"
	       "         2 -> 3          : 3        |*****   |\n"
	       "         0 -> 1          : 11       |**|\n", any,
	       "line 3: bucket [0, 1] not above the previous one [2, 3]");
	hp_bad("     usecs               : count     distribution\n"
	       "         2 -> 1          : 3        |*****   |\n", any,
	       "line 2: bucket low 2 above high 1");
	hp_bad("Tracing...\n         0 -> 1          : 3        |*****   |\n", PEERHIST_BCC,
	       "line 2: row outside a histogram");
	/* a header that is almost one: it is at fault, not the rows under it */
	hp_bad("@a:\n[0]   1 |@|\n\n@b\n[1]   2 |@|\n", PEERHIST_BPFTRACE,
	       "line 4: expected a '@name:' map header (rows follow on line 5)");
	hp_bad("Attaching 1 probe...\n[1]   2 |@|\n", PEERHIST_BPFTRACE,
	       "line 2: row outside a map");
	hp_bad("     usecs    : count     distribution\n         0 -> 1     : 2      |**|\n\n"
	       "     usecs      count     distribution\n         2 -> 3     : 1      |*|\n",
	       PEERHIST_BCC, "line 4: expected a 'usecs : count distribution' header "
	       "(rows follow on line 5)");
	hp_bad("     usecs               : count     distribution\n"
	       "         0 -> 1          : 3        |*****   |\n"
	       "\n     msecs               : count     distribution\n", any,
	       "line 4: unit 'msecs' differs from 'usecs' above");

	/* fixtures cut in the middle of a row */
	text = fixture_read(fixture_path("bpftrace-0.17-runq.txt"), &len);
	row = strstr(text, "[32, 64)              17");
	cut = (size_t)(row - text) + 14;
	hp_bad(copy = strndup(text, cut), any, "line 124: expected '[low, high)' row");
	free(copy);
	free(text);
	text = fixture_read(fixture_path("bcc-runqlat.txt"), &len);
	row = strstr(text, "        16 -> 31         : 131");
	cut = (size_t)(row - text) + 20;
	hp_bad(copy = strndup(text, cut), any, "line 23: expected 'low -> high : count |stars|' row");
	free(copy);
	free(text);
}
END_TEST

/* ---- mutations: nothing may crash, errors always name a line ---------- */

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static size_t mutate(char *buf, size_t len, size_t cap)
{
	static const char pool[] = "{}[]():,@|~^-\n \t0123456789\"\\Kxu.#*>";
	unsigned i, n = 1 + (unsigned)(rnd() % 4);
	size_t pos, k;

	for (i = 0; i < n && len; i++) {
		pos = (size_t)(rnd() % len);
		switch (rnd() % 5) {
		case 0:		/* replace a byte */
			buf[pos] = rnd() % 8 ? pool[rnd() % (sizeof(pool) - 1)] : (char)rnd();
			break;
		case 1:		/* cut */
			len = pos;
			break;
		case 2:		/* delete a run */
			k = (size_t)(rnd() % 16);
			if (pos + k > len)
				k = len - pos;
			memmove(buf + pos, buf + pos + k, len - pos - k);
			len -= k;
			break;
		case 3:		/* duplicate a run */
			k = (size_t)(rnd() % 64);
			if (pos + k > len)
				k = len - pos;
			if (len + k <= cap) {
				memmove(buf + pos + k, buf + pos, len - pos);
				len += k;
			}
			break;
		default:	/* a huge number */
			if (len + 24 <= cap) {
				memmove(buf + pos + 24, buf + pos, len - pos);
				memcpy(buf + pos, "184467440737095516169999", 24);
				len += 24;
			}
			break;
		}
	}
	return len;
}

START_TEST(test_fuzz)
{
	static const char *const files[] = {
		"bpftrace-0.17-runq.txt",
		"bcc-runqlat.txt",
		"offcpu-runq.json",
		"kernels/" K612 "/hist/e1_common_stacktrace.sched.sched_switch.hist",
		"kernels/" K612 "/hist/b_pid_log2.synthetic.wakeup_lat.hist",
		"kernels/" K61 "/hist/c_buckets.synthetic.wakeup_lat.hist",
	};
	size_t f, len, n, cap;
	unsigned it;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *text = fixture_read(fixture_path("%s", files[f]), &len);
		char *buf;

		cap = len * 2 + 64;
		buf = malloc(cap);
		ck_assert_ptr_nonnull(buf);
		for (it = 0; it < 400; it++) {
			struct peerhist *h = NULL, *m = NULL;
			struct khist *hf = NULL;
			int ret;

			memcpy(buf, text, len);
			n = mutate(buf, len, cap);
			ret = peerhist_parse(buf, n, NULL, &h, err, sizeof(err));
			ck_assert_msg(ret == 0 || (ret == -EINVAL && (!strncmp(err, "line ", 5) ||
								!strncmp(err, "it is empty", 11))),
				      "%s #%u: %d <%s>", files[f], it, ret, err);
			if (!ret) {
				ret = peerhist_merge(h, NULL, &m, err, sizeof(err));
				ck_assert(ret == 0 || ret == -EINVAL);
			}
			peerhist_free(m);
			peerhist_free(h);
			ret = khist_parse(buf, n, &hf, err, sizeof(err));
			ck_assert_msg(ret == 0 || (ret == -EINVAL && !strncmp(err, "line ", 5)),
				      "%s #%u: %d <%s>", files[f], it, ret, err);
			khist_free(hf);
		}
		free(buf);
		free(text);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("khist");
	TCase *tp = tcase_create("peerhist");
	TCase *tf = tcase_create("fuzz");

	tcase_add_test(tc, test_hist_all_fixtures);
	tcase_add_test(tc, test_hist_log2);
	tcase_add_test(tc, test_hist_buckets);
	tcase_add_test(tc, test_hist_stacktrace);
	tcase_add_test(tc, test_hist_synthetic_stack);
	tcase_add_test(tc, test_hist_pid_and_multi);
	tcase_add_test(tc, test_hist_key_kinds);
	tcase_add_test(tc, test_hist_malformed);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tcase_add_test(tp, test_detect);
	tcase_add_test(tp, test_bpftrace);
	tcase_add_test(tp, test_bpftrace_layouts);
	tcase_add_test(tp, test_bcc);
	tcase_add_test(tp, test_bcc_layouts);
	tcase_add_test(tp, test_kernel_log2_buckets);
	tcase_add_test(tp, test_kernel_groups);
	tcase_add_test(tp, test_json);
	tcase_add_test(tp, test_json_malformed);
	tcase_add_test(tp, test_text_malformed);
	suite_add_tcase(s, tp);
	tcase_add_test(tf, test_fuzz);
	tcase_set_timeout(tf, 120);
	suite_add_tcase(s, tf);
	return check_run(s);
}
