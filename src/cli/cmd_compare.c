// SPDX-License-Identifier: GPL-2.0-or-later
/* compare: two histograms side by side, from any tool, and how far apart. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileread.h"
#include "cli.h"
#include "output.h"
#include "compare.h"
#include "fmt.h"
#include "peerhist.h"

/* diff(1)'s convention: 0 agree, 1 differ, 2 trouble */
#define CMP_AGREE 0
#define CMP_DIFFER 1
#define CMP_TROUBLE 2

static const char compare_help[] =
"Usage: offcpu-ftrace compare [OPTIONS] A B\n"
"\n"
"Cross-validate two latency histograms: bpftrace hist() text (@name: /\n"
"@name[key]: sections), BCC text (usecs : count distribution, pid = N\n"
"sections), a kernel hist file, or offcpu-ftrace's JSON. Both are\n"
"normalized to microseconds on BCC's rows (0-1, 2-3, 4-7, ...), printed\n"
"side by side with counts, shares, p50, p99 and max bucket, and compared\n"
"by total variation distance (0 same shape, 1 disjoint). Keyed sections\n"
"are summed. A or B may be - for standard input.\n"
"\n"
"Options:\n"
"      --tolerance X      exit 1 when the distance exceeds X (0..1)\n"
"      --map NAME         the bpftrace map to read (e.g. usecs) when a bpftrace\n"
"                         output has several\n"
"      --format-a FMT, --format-b FMT\n"
"                         bpftrace, bcc, kernel or json (default: detect)\n"
"      --unit-a U, --unit-b U\n"
"                         ns, us or ms, when the input does not say (kernel hist)\n"
"      --key NAME         the latency key of a kernel hist file\n"
"      --json             the result as JSON\n"
"  -o, --output FILE      write it to FILE (atomically: complete or not at all)\n"
"      --dry-run          check the command line and exit\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace compare runq.json runqlat-bt.txt\n"
"  offcpu-ftrace compare --tolerance 0.05 --map usecs ours.txt bt.txt\n"
"  offcpu-ftrace compare --unit-b us --key lat runq.json hist\n"
"\n"
"Exit status: 0 the histograms were compared (and agree within --tolerance),\n"
"1 they differ beyond --tolerance, 2 bad usage or an input that cannot be\n"
"read (the message names the file and line).\n";

static int parse_format(const char *s, enum peerhist_format *f)
{
	static const struct { const char *name; enum peerhist_format f; } t[] = {
		{ "bpftrace", PEERHIST_BPFTRACE }, { "bcc", PEERHIST_BCC },
		{ "kernel", PEERHIST_KERNEL }, { "json", PEERHIST_JSON },
	};
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].name)) {
			*f = t[i].f;
			return 0;
		}
	return -EINVAL;
}

static int parse_unit(const char *s, uint64_t *ns)
{
	if (!strcmp(s, "ns") || !strcmp(s, "nsecs"))
		*ns = 1;
	else if (!strcmp(s, "us") || !strcmp(s, "usecs"))
		*ns = 1000;
	else if (!strcmp(s, "ms") || !strcmp(s, "msecs"))
		*ns = 1000000;
	else
		return -EINVAL;
	return 0;
}

/* A decimal in [0, 1], strictly. */
static int parse_tolerance(const char *s, double *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -EINVAL;
	*out = strtod(s, &end);
	if (*end || *out < 0 || *out > 1)
		return -ERANGE;
	return 0;
}

struct input {
	const char *path;
	enum peerhist_format format;
	uint64_t unit_ns;
	struct peerhist *h, *merged;
	struct cmp_dist d;
	char what[128];
};

/* Read, parse, merge and normalize one input; prints its own error. */
static int load(struct input *in, const char *map, const char *key)
{
	struct peerhist_opts opts = { .format = in->format, .map = map, .key = key };
	char err[512];
	size_t len;
	char *text;
	int ret;

	text = file_read(strcmp(in->path, "-") ? in->path : "/dev/stdin", &len);
	if (!text) {
		err_msg("compare: cannot read %s: %s", in->path, strerror(errno));
		return -1;
	}
	/* --map names a bpftrace map: other inputs have none */
	if ((in->format ? in->format : peerhist_detect(text, len)) != PEERHIST_BPFTRACE)
		opts.map = map = NULL;
	ret = peerhist_parse(text, len, &opts, &in->h, err, sizeof(err));
	free(text);
	if (!ret)
		ret = peerhist_merge(in->h, map, &in->merged, err, sizeof(err));
	if (!ret)
		ret = cmp_normalize(in->merged, in->unit_ns, &in->d, err, sizeof(err));
	if (ret) {
		err_msg("compare: %s: %s", in->path, err);
		return -1;
	}
	snprintf(in->what, sizeof(in->what), "%s%s%s%s", peerhist_format_name(in->h->format),
		 map ? " @" : "", map ? (map[0] == '@' ? map + 1 : map) : "",
		 in->h->ng > 1 ? ", sections summed" : "");
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	enum { O_TOL = 256, O_MAP, O_FA, O_FB, O_UA, O_UB, O_KEY, O_JSON, O_DRY, O_OUT = 'o' };
	static const struct option opts[] = {
		{ "tolerance", required_argument, NULL, O_TOL },
		{ "map", required_argument, NULL, O_MAP },
		{ "format-a", required_argument, NULL, O_FA },
		{ "format-b", required_argument, NULL, O_FB },
		{ "unit-a", required_argument, NULL, O_UA },
		{ "unit-b", required_argument, NULL, O_UB },
		{ "key", required_argument, NULL, O_KEY },
		{ "json", no_argument, NULL, O_JSON },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "output", required_argument, NULL, O_OUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct input in[2];
	const char *map = NULL, *key = NULL;
	bool have_tol = false, json = false, dry = false;
	const char *path = NULL;
	char err[512];
	struct out out;
	struct cmp_side a, b;
	double tol = 0;
	bool first;
	int o, status = CMP_TROUBLE;

	memset(in, 0, sizeof(in));
	for (first = true; (o = cli_getopt("compare", argc, argv, ":ho:", opts, first)) != -1;
	     first = false) {
		if (o == CLI_OPT_BAD)
			return CMP_TROUBLE;
		switch (o) {
		case O_TOL:
			if (parse_tolerance(optarg, &tol)) {
				usage_err("compare", "--tolerance: '%s' is not a number from 0 to 1",
					  optarg);
				return CMP_TROUBLE;
			}
			have_tol = true;
			break;
		case O_MAP:
			map = optarg;
			break;
		case O_KEY:
			key = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case O_DRY:
			dry = true;
			break;
		case O_OUT:
			path = optarg;
			break;
		case O_FA:
		case O_FB:
			if (parse_format(optarg, &in[o == O_FB].format)) {
				usage_err("compare", "%s: '%s' is not one of bpftrace, bcc, kernel, json",
					  o == O_FA ? "--format-a" : "--format-b", optarg);
				return CMP_TROUBLE;
			}
			break;
		case O_UA:
		case O_UB:
			if (parse_unit(optarg, &in[o == O_UB].unit_ns)) {
				usage_err("compare", "%s: '%s' is not one of ns, us, ms",
					  o == O_UA ? "--unit-a" : "--unit-b", optarg);
				return CMP_TROUBLE;
			}
			break;
		case 'h':
			fputs(compare_help, stdout);
			return CMP_AGREE;
		}
	}
	if (argc - optind != 2) {
		usage_err("compare", "give two inputs, A and B");
		return CMP_TROUBLE;
	}
	if (dry && getenv("OFFCPU_FTRACE_PARSE_ONLY"))
		return CMP_AGREE;
	in[0].path = argv[optind];
	in[1].path = argv[optind + 1];
	if (load(&in[0], map, key) || load(&in[1], map, key))
		goto out;
	if (dry) {
		/* both read and understood: what a comparison would use */
		printf("dry run: A is %s (%s), B is %s (%s): both read, nothing compared\n",
			in[0].path, in[0].what, in[1].path, in[1].what);
		status = CMP_AGREE;
		goto out;
	}
	a = (struct cmp_side){ in[0].path, in[0].what, &in[0].d };
	b = (struct cmp_side){ in[1].path, in[1].what, &in[1].d };
	if (out_begin(&out, path, err, sizeof(err))) {
		err_msg("%s", err);
		goto out;
	}
	if (json)
		cmp_print_json(out.f, &a, &b, tol, have_tol);
	else
		cmp_print(out.f, &a, &b, tol, have_tol);
	if (out_end(&out, true, err, sizeof(err))) {
		err_msg("%s", err);
		goto out;
	}
	status = have_tol && cmp_distance(&in[0].d, &in[1].d) > tol ? CMP_DIFFER : CMP_AGREE;
out:
	peerhist_free(in[0].h);
	peerhist_free(in[0].merged);
	peerhist_free(in[1].h);
	peerhist_free(in[1].merged);
	return status;
}
