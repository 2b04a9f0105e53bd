// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist backend's result files (captured from 6.1 under QEMU) fed into
 * the analyzer: every entry lands in the floor-log2 slot of its bucket's
 * low value, per key, with the kernel's exact sums. The expected numbers
 * come from a scan of the same text here, not from the parser.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "fixture.h"
#include "trigfeed.h"

#define UNIT 1000	/* the captures used lat.buckets=1000 (usecs) */
#define MAXK 64

static int an_arg;

struct expect {
	int64_t id[MAXK];
	uint64_t count[MAXK], sum_ns[MAXK], slot[MAXK][HIST_SLOTS];
	unsigned n;
	uint64_t hits;
};

/* "{ pid: 15, lat: ~ 31000-31999 } hitcount: 1  lat: 31319" by sscanf */
static void scan(const char *text, const char *key, struct expect *x)
{
	const char *line = text;

	memset(x, 0, sizeof(*x));
	while (line && *line) {
		unsigned long long id = 0, low, high, hits, sum;
		char name[16];
		int ok;
		unsigned k;

		if (key)
			ok = sscanf(line, "{ %15[a-z_]: %llu, lat: ~ %llu-%llu } hitcount: %llu "
				    "lat: %llu", name, &id, &low, &high, &hits, &sum) == 6 &&
			     strcmp(name, key) == 0;
		else
			ok = sscanf(line, "{ lat: ~ %llu-%llu } hitcount: %llu lat: %llu",
				    &low, &high, &hits, &sum) == 4;
		if (ok) {
			for (k = 0; k < x->n && x->id[k] != (int64_t)id; k++)
				;
			if (k == x->n) {
				ck_assert_uint_lt(x->n, MAXK);
				x->id[x->n++] = (int64_t)id;
			}
			x->count[k] += hits;
			x->sum_ns[k] += sum;
			x->slot[k][hist_slot_of(low / UNIT)] += hits;
			x->hits += hits;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	ck_assert_uint_gt(x->hits, 50);
}

static struct an_cfg cfg(enum an_key key)
{
	struct an_cfg c;

	memset(&c, 0, sizeof(c));
	c.modes = AN_RUNQ | AN_OFFCPU;
	c.key = key;
	c.unit_ns = UNIT;
	c.pid = c.tid = -1;
	c.off_state_all = true;
	c.off_max_ns = UINT64_MAX;
	c.max_tasks = 64;
	c.max_groups = 128;
	return c;
}

static int fake_comm(int32_t tid, char *buf, size_t len, void *arg)
{
	ck_assert_ptr_eq(arg, &an_arg);
	if (tid == 15)
		return -1;	/* gone */
	snprintf(buf, len, "t%d", tid);
	return 0;
}

static const struct trigfeed_ops names = { .comm_of = fake_comm, .arg = &an_arg };

static void check_file(const char *name, const char *key, enum an_key akey, unsigned mode)
{
	uint64_t dropped = 0;
	struct an_cfg c = cfg(akey);
	struct analyzer an;
	struct expect x;
	struct groups *g;
	char err[256] = "";
	size_t len;
	char *text = fixture_read(fixture_path("hist/%s", name), &len);
	unsigned i, k, s;

	scan(text, key, &x);
	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_msg(trigfeed(text, len, &an, mode, UNIT, &names, &dropped, err, sizeof(err)) == 0,
		      "%s", err);
	g = mode == AN_RUNQ ? &an.runq.groups : &an.off.groups;
	ck_assert_uint_eq(g->n, x.n);
	for (i = 0; i < g->n; i++) {
		const struct group *gr = g->v[i];

		for (k = 0; k < x.n && x.id[k] != gr->id; k++)
			;
		ck_assert_uint_lt(k, x.n);
		ck_assert_uint_eq(gr->h.count, x.count[k]);
		ck_assert_uint_eq(gr->h.sum_ns, x.sum_ns[k]);
		for (s = 0; s < HIST_SLOTS; s++)
			ck_assert_uint_eq(gr->h.slot[s], x.slot[k][s]);
		if (akey == KEY_TID && gr->id == 15)
			ck_assert_str_eq(gr->comm, "");
		else if (akey == KEY_TID)
			ck_assert_int_eq(atoi(gr->comm + 1), (int)gr->id);
	}
	ck_assert_uint_eq(dropped, 0);
	analyzer_fini(&an);
	free(text);
}

START_TEST(test_runq_by_pid)
{
	check_file("6.1-runq-pid.hist", "pid", KEY_TID, AN_RUNQ);
}
END_TEST

START_TEST(test_runq_by_cpu)
{
	check_file("6.1-runq-cpu.hist", "cpu", KEY_CPU, AN_RUNQ);
}
END_TEST

START_TEST(test_offcpu_one_group)
{
	check_file("6.1-offcpu.hist", NULL, KEY_NONE, AN_OFFCPU);
}
END_TEST

/* -p keeps one process's threads; -c needs a name, which gone threads lack */
START_TEST(test_filters)
{
	uint64_t dropped = 0;
	struct an_cfg c = cfg(KEY_TID);
	struct analyzer an;
	char err[256];
	size_t len;
	char *text = fixture_read(fixture_path("hist/6.1-runq-pid.hist"), &len);

	snprintf(c.comm, sizeof(c.comm), "t106");
	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_int_eq(trigfeed(text, len, &an, AN_RUNQ, UNIT, &names, &dropped, err, sizeof(err)), 0);
	ck_assert_uint_eq(an.runq.groups.n, 1);
	ck_assert_int_eq(an.runq.groups.v[0]->id, 106);
	analyzer_fini(&an);

	c.comm[0] = '\0';
	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_int_eq(trigfeed(text, len, &an, AN_RUNQ, UNIT, NULL, &dropped, err, sizeof(err)), 0);
	ck_assert_uint_gt(an.runq.groups.n, 5);
	ck_assert_str_eq(an.runq.groups.v[0]->comm, "");
	analyzer_fini(&an);
	free(text);
}
END_TEST

/* The Dropped count reaches the analyzer; a broken file is an error */
START_TEST(test_dropped_and_garbage)
{
	uint64_t dropped = 0;
	const char *t = "# event histogram\n#\n# trigger info: hist:keys=lat.buckets=1000:"
		"vals=hitcount,lat:sort=lat:size=32768 [active]\n#\n\n"
		"{ lat: ~ 5000-5999 } hitcount:          3  lat:      16000\n\n"
		"Totals:\n    Hits: 10\n    Entries: 1\n    Dropped: 7\n";
	struct an_cfg c = cfg(KEY_NONE);
	struct analyzer an;
	char err[256] = "";

	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_int_eq(trigfeed(t, strlen(t), &an, AN_RUNQ, UNIT, NULL, &dropped, err, sizeof(err)), 0);
	ck_assert_uint_eq(dropped, 7);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.count, 3);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.slot[hist_slot_of(5)], 3);
	ck_assert_int_ne(trigfeed("{ lat: ~ 5000-", 14, &an, AN_RUNQ, UNIT, NULL, &dropped,
				  err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "histogram"), "%s", err);
	analyzer_fini(&an);
}
END_TEST

/* The names histogram (6.12's layout) names threads /proc no longer has */
START_TEST(test_names)
{
	uint64_t dropped = 0;
	const char *t = "# event histogram\n#\n"
		"# trigger info: hist:keys=pid,comm:vals=hitcount:sort=hitcount:size=32768 [active]\n"
		"#\n\n"
		"{ pid:         15, comm: sleep                                              } hitcount:          1\n"
		"{ pid:         27, comm: ksoftirqd/1                                        } hitcount:          2\n"
		"\nTotals:\n    Hits: 3\n    Entries: 2\n    Dropped: 4\n\n"
		"# event histogram\n#\n"
		"# trigger info: hist:keys=pid,lat.buckets=1000:vals=hitcount,lat:sort=lat:size=32768 [active]\n"
		"#\n\n"
		"{ pid:         15, lat: ~ 40000-40999 } hitcount:          1  lat:      40519\n"
		"{ pid:         27, lat: ~ 42000-42999 } hitcount:          2  lat:      84925\n"
		"{ pid:         31, lat: ~ 5000-5999 } hitcount:          1  lat:       5001\n"
		"\nTotals:\n    Hits: 4\n    Entries: 3\n    Dropped: 0\n";
	struct an_cfg c = cfg(KEY_TID);
	struct analyzer an;
	char err[256] = "";
	unsigned i, seen = 0;

	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_msg(trigfeed(t, strlen(t), &an, AN_RUNQ, UNIT, &names, &dropped, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(an.runq.groups.n, 3);
	for (i = 0; i < an.runq.groups.n; i++) {
		const struct group *g = an.runq.groups.v[i];

		if (g->id == 15) {		/* gone from /proc: the kernel's name */
			ck_assert_str_eq(g->comm, "sleep");
			seen |= 1;
		} else if (g->id == 27) {	/* the kernel's name before /proc's */
			ck_assert_str_eq(g->comm, "ksoftirqd/1");
			ck_assert_uint_eq(g->h.count, 2);
			seen |= 2;
		} else if (g->id == 31) {	/* not in the names map: /proc's */
			ck_assert_str_eq(g->comm, "t31");
			seen |= 4;
		}
	}
	ck_assert_uint_eq(seen, 7);
	/* a full names map loses names, not intervals */
	ck_assert_uint_eq(dropped, 0);
	analyzer_fini(&an);
}
END_TEST

/* a frame table, as the hist backend keeps one */
static char frame_names[64][64];
static unsigned nframe_names;

static uint64_t frame_tok(const char *text, void *arg)
{
	char name[64];
	unsigned i;

	ck_assert_ptr_eq(arg, &an_arg);
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(text, "+ "), text);
	for (i = 0; i < nframe_names; i++)
		if (!strcmp(frame_names[i], name))
			return i + 1;
	ck_assert_uint_lt(nframe_names, 64);
	snprintf(frame_names[nframe_names++], sizeof(frame_names[0]), "%s", name);
	return nframe_names;
}

/*
 * offcpu -K on 6.12: the histogram and the (pid, stack) sums in one file.
 * Per thread, the stacks' counts and sums equal the histogram's, and the
 * innermost frame of every stack is __schedule.
 */
START_TEST(test_kstack)
{
	uint64_t dropped = 0;
	struct trigfeed_ops ops = { .comm_of = fake_comm, .frame = frame_tok, .arg = &an_arg };
	struct an_cfg c = cfg(KEY_TID);
	struct analyzer an;
	struct expect x;
	char err[256] = "";
	size_t len;
	char *text = fixture_read(fixture_path("hist/6.12-offcpu-kstack.hist"), &len);
	uint32_t i, k, depth;

	scan(text, "pid", &x);
	c.modes = AN_OFFCPU;
	c.stacks = AN_KSTACK;
	c.max_stacks = 256;
	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_msg(trigfeed(text, len, &an, AN_OFFCPU, UNIT, &ops, &dropped, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(an.off.groups.n, x.n);
	ck_assert_uint_gt(an.agg.n, 5);
	for (k = 0; k < x.n; k++) {
		uint64_t cnt = 0, sum = 0;

		for (i = 0; i < an.agg.n; i++) {
			const struct stackagg_ent *e = &an.agg.v[i];
			const uint64_t *f = stacktab_get(&an.kstacks, e->kstack, &depth);

			ck_assert_ptr_nonnull(f);
			ck_assert_uint_ge(depth, 3);
			ck_assert_str_eq(frame_names[f[0] - 1], "__schedule");
			if (e->id == x.id[k]) {
				cnt += e->count;
				sum += e->total_ns;
			}
		}
		ck_assert_uint_eq(cnt, x.count[k]);
		ck_assert_uint_eq(sum, x.sum_ns[k]);
	}
	ck_assert_uint_eq(an.counts.no_stack, 0);
	analyzer_fini(&an);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trigfeed");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_runq_by_pid);
	tcase_add_test(tc, test_runq_by_cpu);
	tcase_add_test(tc, test_offcpu_one_group);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_dropped_and_garbage);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_kstack);
	suite_add_tcase(s, tc);
	return check_run(s);
}
