// SPDX-License-Identifier: GPL-2.0-or-later
/* compare's normalization and distance; --xval's generated programs. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "fixture.h"
#include "xval.h"

static struct peerhist *parse(const char *text, enum peerhist_format fmt, const char *unit)
{
	struct peerhist_opts o = { .format = fmt, .unit = unit };
	struct peerhist *h = NULL, *m = NULL;
	char err[256];

	ck_assert_msg(peerhist_parse(text, strlen(text), &o, &h, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(peerhist_merge(h, NULL, &m, err, sizeof(err)) == 0, "%s", err);
	peerhist_free(h);
	return m;
}

START_TEST(test_normalize)
{
	struct peerhist *h;
	struct cmp_dist d;
	char err[256];

	/* bpftrace [0] and [1] share BCC's first row; [2, 4) is row 1 */
	h = parse("@usecs: \n[0]      3 |@@@|\n[1]      1 |@|\n[2, 4)   4 |@@@@|\n",
		  PEERHIST_BPFTRACE, NULL);
	ck_assert_int_eq(cmp_normalize(h, 0, &d, err, sizeof(err)), 0);
	ck_assert(d.row[0] == 4 && d.row[1] == 4 && d.total == 8 && d.split == 0);
	peerhist_free(h);

	/* milliseconds: 1 ms = 1000..1999 us spreads over rows 9 and 10 */
	h = parse("@msecs: \n[1]      10 |@@@|\n", PEERHIST_BPFTRACE, NULL);
	ck_assert_int_eq(cmp_normalize(h, 0, &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d.split, 1);
	ck_assert(fabs(d.row[9] - 10.0 * 24 / 1000) < 1e-9);
	ck_assert(fabs(d.row[10] - 10.0 * 976 / 1000) < 1e-9);
	peerhist_free(h);

	/* a unit must be known */
	h = parse("@bytid: \n[1]      10 |@@@|\n", PEERHIST_BPFTRACE, NULL);
	ck_assert_int_eq(cmp_normalize(h, 0, &d, err, sizeof(err)), -22);
	ck_assert_ptr_nonnull(strstr(err, "the unit of the histogram is unknown"));
	ck_assert_int_eq(cmp_normalize(h, 1000, &d, err, sizeof(err)), 0);
	peerhist_free(h);
}
END_TEST

START_TEST(test_distance)
{
	struct cmp_dist a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ck_assert(cmp_distance(&a, &b) == 0);
	a.row[0] = 10, a.total = 10;
	ck_assert(cmp_distance(&a, &b) == 1);
	b.row[0] = 1, b.row[1] = 1, b.total = 2;
	ck_assert(fabs(cmp_distance(&a, &b) - 0.5) < 1e-12);
	b.row[1] = 0, b.row[0] = 5, b.total = 5;
	ck_assert(cmp_distance(&a, &b) == 0);	/* same shape, other scale */
	b.row[0] = 0, b.row[5] = 5;
	ck_assert(cmp_distance(&a, &b) == 1);	/* disjoint */
	/* quantiles */
	memset(&a, 0, sizeof(a));
	a.row[2] = 50, a.row[4] = 49, a.row[10] = 1, a.total = 100;
	ck_assert_int_eq(cmp_quantile_row(&a, 0.5), 2);
	ck_assert_int_eq(cmp_quantile_row(&a, 0.99), 4);
	ck_assert_int_eq(cmp_quantile_row(&a, 1.0), 10);
}
END_TEST

/* The real fixtures: our JSON and BCC text compare against themselves. */
START_TEST(test_fixtures)
{
	char *t = fixture_read(fixture_path("bcc-runqlat.txt"), NULL);
	struct peerhist *h = parse(t, PEERHIST_UNKNOWN, NULL);
	struct cmp_dist d;
	char err[256];

	ck_assert_int_eq(cmp_normalize(h, 0, &d, err, sizeof(err)), 0);
	ck_assert(d.total > 0 && cmp_distance(&d, &d) == 0);
	peerhist_free(h);
	free(t);
}
END_TEST

static struct trace_opts opts(const char *cmd)
{
	struct trace_opts o;

	memset(&o, 0, sizeof(o));
	o.cmd = cmd;
	o.modes = strcmp(cmd, "runq") ? AN_OFFCPU : AN_RUNQ;
	o.pid = o.tid = -1;
	o.max_us = UINT64_MAX;
	o.duration_ns = 1000000000;
	o.count = 1;
	return o;
}

START_TEST(test_programs)
{
	struct trace_opts o = opts("runq");
	char err[256], *p;

	/* runqlat.bt's own rule, idle included */
	o.compat = COMPAT_BPFTRACE;
	p = xval_program(&o, 0x100, 0x30, 0, err, sizeof(err));
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p, "if (args->prev_state == 0) {"));
	ck_assert_ptr_nonnull(strstr(p, "@usecs = hist((nsecs - $ns) / 1000)"));
	ck_assert_ptr_null(strstr(p, "args->next_pid != 0"));
	/* what xval_start waits for: BEGIN runs once every probe is attached */
	ck_assert_ptr_nonnull(strstr(p, "BEGIN\n{\n\tprintf(\"offcpu-ftrace: bpftrace attached\\n\");\n}"));
	free(p);
	/* BCC's: R or R+ with this kernel's flag, idle skipped; -L, -m, -c */
	o.compat = COMPAT_BCC;
	o.key = KEY_TID;
	o.msecs = true;
	strcpy(o.comm, "a\"b\\c");
	p = xval_program(&o, 0x400, 0x30, 0, err, sizeof(err));
	ck_assert_ptr_nonnull(strstr(p, "args->prev_state == 1024"));
	ck_assert_ptr_nonnull(strstr(p, "@msecs[args->next_pid] = hist((nsecs - $ns) / 1000000)"));
	ck_assert_ptr_nonnull(strstr(p, "args->next_comm == \"a\\\"b\\\\c\""));
	free(p);
	/* perf sched: the first sched_waking */
	o = opts("runq");
	o.compat = COMPAT_PERF;
	p = xval_program(&o, 0x100, 0x30, 0, err, sizeof(err));
	ck_assert_ptr_nonnull(strstr(p, "tracepoint:sched:sched_waking"));
	ck_assert_ptr_nonnull(strstr(p, "if (!@qtime[args->pid])"));
	free(p);
	/* offcpu: --state D,R and --min/--max in ns */
	o = opts("offcpu");
	o.state = "D,R";
	o.min_us = 10;
	o.max_us = 20;
	p = xval_program(&o, 0x100, 0x30, 0x2, err, sizeof(err));
	ck_assert_ptr_nonnull(strstr(p, "(args->prev_state & 48) == 0"));
	ck_assert_ptr_nonnull(strstr(p, "((args->prev_state & 2) != 0 || "
				     "(args->prev_state & 18446744073709551359) == 0)"));
	ck_assert_ptr_nonnull(strstr(p, "$d >= 10000 && $d <= 20000"));
	free(p);
	/* no equivalent */
	o = opts("runq");
	o.pid = 1;
	ck_assert_ptr_null(xval_program(&o, 0x100, 0x30, 0, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "-p"));
}
END_TEST

/* which peer made a histogram, by its text, and what explains a gap */
static void detect(const char *text, struct cmp_source *s)
{
	cmp_source_detect(text, strlen(text), peerhist_detect(text, strlen(text)), s);
}

static bool says(const struct cmp_explain *e, const char *what)
{
	unsigned i;

	for (i = 0; i < e->n; i++)
		if (strstr(e->line[i], what))
			return true;
	return false;
}

START_TEST(test_sources)
{
	struct cmp_source ours, peer;
	struct cmp_explain e;
	char name[200];

	/* our text: the trailer names the command, the backend and --compat */
	detect("Tracing on-CPU time... Hit Ctrl-C to end.\n\n     usecs : count distribution\n"
	       "# oncpu: 5.000 s traced, backend perf, clock mono, --compat=libbpf-tools\n", &ours);
	ck_assert_int_eq(ours.tool, CMP_OURS);
	ck_assert_str_eq(ours.command, "oncpu");
	ck_assert_str_eq(ours.backend, "perf");
	ck_assert_str_eq(ours.compat, "libbpf-tools");
	/* our JSON */
	detect("{\"command\":\"runq\",\"compat\":\"bpftrace\",\"backend\":\"ring\",\"groups\":[]}",
	       &ours);
	ck_assert_int_eq(ours.tool, CMP_OURS);
	ck_assert_str_eq(ours.command, "runq");
	ck_assert_str_eq(ours.compat, "bpftrace");
	ck_assert_str_eq(ours.backend, "ring");
	/* peers, by their banners */
	detect("Attaching 6 probes...\nTracing CPU scheduler... Hit Ctrl-C to end.\n@usecs:\n", &peer);
	ck_assert_int_eq(peer.tool, CMP_RUNQLAT_BT);
	detect("Tracing run queue latency... Hit Ctrl-C to end.\n", &peer);
	ck_assert_int_eq(peer.tool, CMP_RUNQLAT);
	detect("Tracing on-CPU time... Hit Ctrl-C to end.\n\npid = 0 swapper/0\n", &peer);
	ck_assert_int_eq(peer.tool, CMP_CPUDIST);
	ck_assert(peer.idle_section);
	cmp_source_name(&peer, name, sizeof(name));
	ck_assert_ptr_nonnull(strstr(name, "libbpf-tools'"));

	/* oncpu (every slice) against libbpf-tools' cpudist: --compat=libbpf-tools */
	detect("# oncpu: 5.000 s traced, backend ring, clock mono\n", &ours);
	detect("Tracing on-CPU time... Hit Ctrl-C to end.\n", &peer);
	cmp_explain_sources(&ours, 10511, &peer, 1726, &e);
	ck_assert(says(&e, "compare with oncpu --compat=libbpf-tools"));
	/* ... about as many slices: BCC's python cpudist, the same rules */
	cmp_explain_sources(&peer, 1000, &ours, 1020, &e);
	ck_assert(says(&e, "BCC's python cpudist counts every slice, as oncpu does"));
	/* runq against runqlat.bt: R+ */
	detect("{\"command\":\"runq\",\"backend\":\"perf\"}", &ours);
	detect("Tracing CPU scheduler... Hit Ctrl-C to end.\n", &peer);
	cmp_explain_sources(&ours, 100, &peer, 90, &e);
	ck_assert(says(&e, "--compat=bpftrace"));
	ck_assert(says(&e, "perf's context-switch records"));
	/* runq --compat=perf against runqlat */
	detect("{\"command\":\"runq\",\"compat\":\"perf\",\"backend\":\"ring\"}", &ours);
	detect("Tracing run queue latency... Hit Ctrl-C to end.\n", &peer);
	cmp_explain_sources(&ours, 100, &peer, 100, &e);
	ck_assert(says(&e, "sch delay"));
	ck_assert(!says(&e, "context-switch records"));
	/* different quantities */
	detect("Tracing on-CPU time... Hit Ctrl-C to end.\n", &peer);
	cmp_explain_sources(&ours, 100, &peer, 100, &e);
	ck_assert_uint_eq(e.n, 1);
	ck_assert(says(&e, "not the same quantity"));
	/* nothing known: nothing said */
	memset(&peer, 0, sizeof(peer));
	cmp_explain_sources(&peer, 1, &peer, 1, &e);
	ck_assert_uint_eq(e.n, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_distance);
	tcase_add_test(tc, test_fixtures);
	tcase_add_test(tc, test_programs);
	tcase_add_test(tc, test_sources);
	suite_add_tcase(s, tc);
	return check_run(s);
}
