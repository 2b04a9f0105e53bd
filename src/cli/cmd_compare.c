// SPDX-License-Identifier: GPL-2.0-or-later
/* compare: two histograms side by side, from any tool, and how far apart. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
"are summed. A or B may be - for standard input. Who made each (this\n"
"tool's command, --compat and backend; runqlat, runqlat.bt or cpudist by\n"
"their banners) is said, and which difference in what they count\n"
"explains a gap (\"why:\" lines).\n"
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
"read (the message names the file and line), 5 the output could not be written.\n";

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
	char side;		/* 'a' or 'b': its --format-X, --unit-X */
	const char *path;
	enum peerhist_format format;
	uint64_t unit_ns;
	struct peerhist *h, *merged;
	struct cmp_dist d;
	struct cmp_source src;
	char what[128];
};

/*
 * All of @path ("-": standard input), at most PEERHIST_MAX_INPUT bytes:
 * a regular file, never a FIFO or device that could hang the read.
 * NULL after saying why.
 */
static char *read_input(const char *path, size_t *len)
{
	mode_t type = 0;
	char *text;
	int fd, e;

	if (!strcmp(path, "-")) {
		text = file_read_fd_max(STDIN_FILENO, PEERHIST_MAX_INPUT, len);
		if (!text)
			err_msg("compare: cannot read standard input: %s", strerror(errno));
		return text;
	}
	fd = file_open_input(path, &type);
	if (fd == -EINVAL) {
		err_msg("compare: cannot read %s: it is %s, not a regular file (give - to read "
			"standard input)", path, file_kind(type));
		return NULL;
	}
	if (fd < 0) {
		err_msg("compare: cannot read %s: %s", path, strerror(-fd));
		return NULL;
	}
	text = file_read_fd_max(fd, PEERHIST_MAX_INPUT, len);
	e = errno;
	close(fd);
	if (!text)
		err_msg("compare: cannot read %s: %s", path,
			e == EFBIG ? "larger than 64 MiB: not a histogram" : strerror(e));
	return text;
}

/* "@a, @b, @usecs": the distinct maps of @h, in their order, into @buf */
static void map_names(const struct peerhist *h, char *buf, size_t len)
{
	size_t i, j, at = 0;

	buf[0] = '\0';
	for (i = 0; i < h->ng && at < len; i++) {
		for (j = 0; j < i && strcmp(h->g[j].map, h->g[i].map); j++)
			;
		if (j == i)
			at += (size_t)snprintf(buf + at, len - at, "%s@%s", at ? ", " : "",
					       h->g[i].map);
	}
}

/* Read, parse, merge and normalize one input; prints its own error. */
static int load(struct input *in, const char *map, const char *key)
{
	struct peerhist_opts opts = { .format = in->format, .map = map, .key = key };
	char err[512];
	size_t len;
	char *text;
	int ret;

	text = read_input(in->path, &len);
	if (!text)
		return -1;
	/* --map names a bpftrace map: other inputs have none */
	if ((in->format ? in->format : peerhist_detect(text, len)) != PEERHIST_BPFTRACE)
		opts.map = map = NULL;
	ret = peerhist_parse(text, len, &opts, &in->h, err, sizeof(err));
	if (!ret)
		cmp_source_detect(text, len, in->h->format, &in->src);
	free(text);
	if (!ret && !map && in->h->nmaps > 1) {
		map_names(in->h, err, sizeof(err));
		err_msg("compare: %s: %zu bpftrace maps (%s): choose one with --map NAME",
			in->path, in->h->nmaps, err);
		return -1;
	}
	if (!ret)
		ret = peerhist_merge(in->h, map, &in->merged, err, sizeof(err));
	if (!ret && !in->unit_ns && !in->merged->unit_ns) {
		err_msg("compare: %s: the unit of the histogram is unknown (%s%s%s): give it "
			"with --unit-%c ns, us or ms", in->path, in->merged->unit[0] ? "'" : "",
			in->merged->unit[0] ? in->merged->unit : "not stated",
			in->merged->unit[0] ? "'" : "", in->side);
		return -1;
	}
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
	const char *map = NULL, *key = NULL, *inputs[3];
	bool have_tol = false, json = false, dry = false;
	const char *path = NULL;
	char err[512];
	struct out out;
	struct cmp_side a, b;
	double tol = 0;
	bool first;
	int o, ret, status = CMP_TROUBLE;

	memset(in, 0, sizeof(in));
	in[0].side = 'a';
	in[1].side = 'b';
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
	in[0].path = inputs[0] = argv[optind];
	in[1].path = inputs[1] = argv[optind + 1];
	inputs[2] = NULL;
	/* -o is checked first: the inputs may be long to read, and one of them */
	ret = out_open(&out, path, inputs, dry ? OUT_CHECK_ONLY : 0, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		return ret == -EINVAL ? CMP_TROUBLE : EXIT_OUTPUT;
	}
	if (load(&in[0], map, key) || load(&in[1], map, key))
		goto out;
	if (dry) {
		/* both read and understood: what a comparison would use */
		printf("dry run: A is %s (%s), B is %s (%s): both read, nothing compared\n",
			in[0].path, in[0].what, in[1].path, in[1].what);
		status = CMP_AGREE;
		goto out;
	}
	a = (struct cmp_side){ in[0].path, in[0].what, &in[0].d, &in[0].src };
	b = (struct cmp_side){ in[1].path, in[1].what, &in[1].d, &in[1].src };
	if (out_begin(&out, err, sizeof(err))) {
		err_msg("%s", err);
		status = EXIT_OUTPUT;
		goto out;
	}
	if (json)
		cmp_print_json(out.f, &a, &b, tol, have_tol);
	else
		cmp_print(out.f, &a, &b, tol, have_tol);
	if (out_end(&out, true, err, sizeof(err))) {
		err_msg("%s", err);
		status = EXIT_OUTPUT;
		goto out;
	}
	status = have_tol && cmp_distance(&in[0].d, &in[1].d) > tol ? CMP_DIFFER : CMP_AGREE;
out:
	out_close(&out);
	peerhist_free(in[0].h);
	peerhist_free(in[0].merged);
	peerhist_free(in[1].h);
	peerhist_free(in[1].merged);
	return status;
}
