// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An off-CPU flame graph, as one interactive SVG: the folded stacks
 * (comm;outer;...;inner, identical ones merged) become a tree whose frames
 * are as wide as the off-CPU time below them, in blues; the process or
 * thread name is the first layer. Frames narrower than MIN_PX are merged
 * into one per parent, so ten thousand stacks stay fast in a browser.
 * Tooltips (a <title> per frame and a details line), click to zoom,
 * Reset, Search (highlights matches and shows their share). Opened with
 * "#selftest=REGEX", the page searches, zooms into the first match and
 * writes the outcome into the element "selftest" (the live test reads it
 * back from a headless browser).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "report_local.h"
#include "svg.h"
#include "hash.h"

#define WIDTH 1200u
#define PAD 10u
#define FRAME_H 16u
#define MIN_PX 0.1
#define MAX_DEPTH 300u

struct node {
	const char *name;	/* into a fold line; not NUL-terminated at len */
	uint32_t len;
	uint64_t ns;
	uint64_t on_ns, runq_ns;	/* of ns, in lines ending [on-cpu...] / [runq] */
	uint64_t child_ns;		/* ... [waiting for children] */
	int32_t child, next;	/* first child, next sibling: -1 none */
};

struct tree {
	struct node *v;
	uint32_t n;
	size_t cap;
	uint32_t depth;		/* the deepest frame */
	uint64_t total;
};

static int32_t node_new(struct tree *t, const char *name, uint32_t len)
{
	struct node *v = mem_grow_from(t->v, &t->cap, t->n, sizeof(*v), 1024);

	if (!v)
		return -1;
	t->v = v;
	t->v[t->n] = (struct node){ name, len, 0, 0, 0, 0, -1, -1 };
	return (int32_t)t->n++;
}

/*
 * what a wall-clock line's last frame says it is: 1 on a CPU, 2 waiting
 * for one, 3 waiting for children, 0 off
 */
static unsigned line_kind(const char *line)
{
	const char *leaf = strrchr(line, ';');

	leaf = leaf ? leaf + 1 : line;
	if (!strncmp(leaf, "[on-cpu", 7))
		return 1;
	if (!strcmp(leaf, "[waiting for children]"))
		return 3;
	return !strcmp(leaf, "[runq]") ? 2 : 0;
}

/* Add one folded line of @ns under the root (node 0). */
static int tree_add(struct tree *t, const char *line, uint64_t ns)
{
	int32_t p = 0;
	uint32_t depth = 0;
	const char *s = line;
	unsigned kind = line_kind(line);

	t->v[0].ns += ns;
	t->total += ns;
	while (*s && depth < MAX_DEPTH) {
		const char *e = strchr(s, ';');
		uint32_t len = (uint32_t)(e ? (size_t)(e - s) : strlen(s));
		int32_t c;

		for (c = t->v[p].child; c >= 0; c = t->v[c].next)
			if (t->v[c].len == len && !memcmp(t->v[c].name, s, len))
				break;
		if (c < 0) {
			c = node_new(t, s, len);
			if (c < 0)
				return -ENOMEM;
			t->v[c].next = t->v[p].child;
			t->v[p].child = c;
		}
		t->v[c].ns += ns;
		t->v[c].on_ns += kind == 1 ? ns : 0;
		t->v[c].runq_ns += kind == 2 ? ns : 0;
		t->v[c].child_ns += kind == 3 ? ns : 0;
		p = c;
		if (++depth > t->depth)
			t->depth = depth;
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

/* the deepest row that has a frame wide enough to draw: the picture's height */
static unsigned drawn_depth(const struct tree *t, int32_t id, unsigned depth, double scale)
{
	unsigned best = depth, d;
	int32_t c;

	for (c = t->v[id].child; c >= 0; c = t->v[c].next)
		if ((double)t->v[c].ns * scale >= MIN_PX &&
		    (d = drawn_depth(t, c, depth + 1, scale)) > best)
			best = d;
	return best;
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct node *v = arg;
	const struct node *x = &v[*(const int32_t *)a], *y = &v[*(const int32_t *)b];
	int r = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return r ? r : (int)x->len - (int)y->len;
}

/*
 * a blue from the name: the off-CPU palette (flamegraph.pl's "blue"); a
 * waker's frames (above offwaketime's "--") in an aqua of their own; in
 * a wall-clock graph, a frame mostly on a CPU in flamegraph.pl's warm
 * colours and one mostly waiting for a CPU in purple
 */
static void colour(char *buf, size_t len, const struct node *nd, unsigned depth, bool waker,
		   enum flame_palette pal)
{
	const char *name = nd->name;
	uint32_t n = nd->len;
	uint64_t w = fnv1a64(FNV1A64_INIT, name, n);
	uint32_t h = (uint32_t)(w ^ (w >> 32));
	bool wall = pal == FLAME_WALL || pal == FLAME_PROFILE;

	if (wall && depth > 1 && nd->on_ns * 2 > nd->ns)
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, 60 + (h >> 8) % 170,
			 (h >> 16) % 55);
	else if (pal == FLAME_PROFILE && depth > 1 && nd->child_ns * 2 > nd->ns)
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + h % 50, 160 + (h >> 8) % 50,
			 70 + (h >> 16) % 40);
	else if (wall && depth > 1 && nd->runq_ns * 2 > nd->ns)
		snprintf(buf, len, "rgb(%u,%u,%u)", 150 + h % 40, 90 + (h >> 8) % 30,
			 200 + (h >> 16) % 40);
	else if (waker && !(n == 2 && !memcmp(name, "--", 2)))
		snprintf(buf, len, "rgb(%u,%u,%u)", 40 + h % 50, 170 + h % 50, 160 + (h >> 8) % 40);
	else if (depth == 1)	/* the process or thread name */
		snprintf(buf, len, "rgb(%u,%u,%u)", 120 + h % 30, 140 + h % 30, 170 + (h >> 8) % 30);
	else if ((n == 1 && name[0] == '-') || (n > 0 && name[0] == '['))
		snprintf(buf, len, "rgb(200,200,210)");
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 80 + h % 60, 80 + h % 60, 190 + (h >> 8) % 55);
}

struct emit {
	FILE *f;
	struct tree *t;
	double scale;		/* px per ns */
	unsigned base_y;	/* y of the root's row */
	uint32_t frames;	/* drawn */
	enum flame_palette pal;
};

static void frame(struct emit *e, const char *name, uint32_t len, uint64_t ns, double x,
		  unsigned depth, const char *fill)
{
	FILE *f = e->f;
	double w = (double)ns * e->scale;
	unsigned y = e->base_y - depth * FRAME_H;
	char t[32];
	uint32_t chars = w > 8 ? (uint32_t)((w - 6) / 7) : 0;

	report_human_ns(t, sizeof(t), (double)ns);
	fputs("<g class=\"f\" data-n=\"", f);
	svg_escape(f, name, len);
	fprintf(f, "\" data-v=\"%" PRIu64 "\" data-x=\"%.2f\" data-w=\"%.2f\" data-y=\"%u\" "
		"onmouseover=\"s(this)\" onmouseout=\"c()\" onclick=\"z(this)\"><title>", ns,
		x, w, y);
	svg_escape(f, name, len);
	fprintf(f, " (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%u\">", t,
		e->t->total ? 100.0 * (double)ns / (double)e->t->total : 0, x, y, w, FRAME_H - 1,
		fill, x + 3, y + FRAME_H - 4);
	if (e->pal == FLAME_PROFILE) {
		/* the whole name, else three characters at least and "..." */
		if (len <= chars) {
			svg_escape(f, name, len);
		} else if (chars >= 6) {
			svg_escape(f, name, chars - 3);
			fputs("...", f);
		}
	} else if (chars >= 3) {
		if (len <= chars) {
			svg_escape(f, name, len);
		} else {
			svg_escape(f, name, chars - 2);
			fputs("..", f);
		}
	}
	fputs("</text></g>\n", f);
	e->frames++;
}

static void emit(struct emit *e, int32_t id, double x, unsigned depth, bool waker)
{
	const struct node *nd = &e->t->v[id];
	int32_t *kids, c;
	uint32_t n = 0, k, small_n = 0;
	uint64_t small_ns = 0;
	char fill[32];

	if (depth) {
		colour(fill, sizeof(fill), nd, depth, waker, e->pal);
		frame(e, nd->name, nd->len, nd->ns, x, depth, fill);
	} else {
		frame(e, "all", 3, nd->ns, x, 0, "rgb(160,170,190)");
	}
	for (c = nd->child; c >= 0; c = e->t->v[c].next)
		n++;
	kids = malloc((n ? n : 1) * sizeof(*kids));
	if (!kids)
		return;	/* the picture lacks this subtree; widths still add up */
	for (n = 0, c = nd->child; c >= 0; c = e->t->v[c].next)
		kids[n++] = c;
	/* alphabetical, as flamegraph.pl: the same stacks line up */
	qsort_r(kids, n, sizeof(kids[0]), cmp_name, e->t->v);
	for (k = 0; k < n; k++) {
		const struct node *ch = &e->t->v[kids[k]];

		if ((double)ch->ns * e->scale < MIN_PX) {
			small_n++;
			small_ns += ch->ns;
			continue;
		}
		emit(e, kids[k], x, depth + 1,
		     waker || (nd->len == 2 && !memcmp(nd->name, "--", 2) && depth));
		x += (double)ch->ns * e->scale;
	}
	if (small_n && (double)small_ns * e->scale >= MIN_PX) {
		char name[64];
		int len = snprintf(name, sizeof(name), "[%u narrow frames merged]", small_n);

		frame(e, name, (uint32_t)len, small_ns, x, depth + 1, "rgb(200,200,210)");
	}
	free(kids);
}

static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"var W = %u, TOTAL = %" PRIu64 ", fr = document.getElementsByClassName('f');\n"
"var det = document.getElementById('details'), mat = document.getElementById('matched');\n"
"function h(ns) { return ns < 1e6 ? (ns / 1e3).toFixed(0) + ' us' : ns < 1e9 ?\n"
"  (ns / 1e6).toFixed(1) + ' ms' : (ns / 1e9).toFixed(2) + ' s'; }\n"
"function a(g, k) { return +g.getAttribute('data-' + k); }\n"
"function s(g) { det.textContent = g.getAttribute('data-n') + ' (' + h(a(g, 'v')) + ', ' +\n"
"  (100 * a(g, 'v') / TOTAL).toFixed(2) + '%% of the %s time)'; }\n"
"function c() { det.textContent = ' '; }\n"
"function place(g, x, w) {\n"
"  var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0];\n"
"  var n = g.getAttribute('data-n'), k = Math.floor((w - 6) / 7);\n"
"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n"
"  t.textContent = %s;\n"
"  g.style.display = w < 0.1 ? 'none' : ''; }\n"
"function z(g) {\n"
"  var x = a(g, 'x'), w = a(g, 'w'), y = a(g, 'y'), sc = (W - 2 * %u) / w, e = 1e-3;\n"
"  for (var i = 0; i < fr.length; i++) {\n"
"    var f = fr[i], fx = a(f, 'x'), fw = a(f, 'w'), fy = a(f, 'y');\n"
"    if (fy > y && fx <= x + e && fx + fw >= x + w - e) { place(f, %u, W - 2 * %u);\n"
"      f.style.opacity = 0.6; }\n"
"    else if (fy <= y && fx >= x - e && fx + fw <= x + w + e) {\n"
"      place(f, %u + (fx - x) * sc, fw * sc); f.style.opacity = ''; }\n"
"    else f.style.display = 'none';\n"
"  }\n"
"  document.getElementById('reset').style.display = ''; }\n"
"function reset() { for (var i = 0; i < fr.length; i++) {\n"
"    place(fr[i], a(fr[i], 'x'), a(fr[i], 'w')); fr[i].style.opacity = ''; }\n"
"  document.getElementById('reset').style.display = 'none'; }\n"
"function search(term) {\n"
"  var re = new RegExp(term), rs = [], sum = 0, end = -1, first = null;\n"
"  for (var i = 0; i < fr.length; i++) {\n"
"    var f = fr[i], r = f.getElementsByTagName('rect')[0];\n"
"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"    if (term && re.test(f.getAttribute('data-n'))) { r.setAttribute('fill', 'rgb(230,0,230)');\n"
"      rs.push([a(f, 'x'), a(f, 'w')]); if (!first) first = f; }\n"
"    else r.setAttribute('fill', r.getAttribute('data-fill'));\n"
"  }\n"
"  rs.sort(function (p, q) { return p[0] - q[0] || q[1] - p[1]; });\n"
"  for (var j = 0; j < rs.length; j++) if (rs[j][0] >= end - 1e-3) { sum += rs[j][1];\n"
"    end = rs[j][0] + rs[j][1]; }\n"
"  var pct = 100 * sum / (W - 2 * %u);\n"
"  mat.textContent = term ? 'Matched: ' + pct.toFixed(1) + '%%' : ' ';\n"
"  return [pct, first]; }\n"
"function ask() { var t = prompt('Search frames (a regular expression)', '');\n"
"  if (t !== null) search(t); }\n"
"if (location.hash.indexOf('#selftest=') == 0) {\n"
"  var m = search(decodeURIComponent(location.hash.substring(10)));\n"
"  if (m[1]) z(m[1]);\n"
"  var shown = 0; for (var i = 0; i < fr.length; i++) if (fr[i].style.display != 'none') shown++;\n"
"  document.getElementById('selftest').textContent = 'selftest frames=' + fr.length +\n"
"    ' matched=' + m[0].toFixed(1) + '%% zoomed=' + (m[1] ? m[1].getAttribute('data-n') : '') +\n"
"    ' shown=' + shown; }\n"
"]]></script>\n";

/* FLAME_PROFILE: what the colours are, centred on the line at @y */
static void legend(FILE *f, unsigned y)
{
	static const struct { const char *fill, *what; } k[] = {
		{ "rgb(230,120,20)", "on a CPU" },
		{ "rgb(170,105,220)", "waiting for a CPU" },
		{ "rgb(110,110,220)", "blocked (off-CPU)" },
		{ "rgb(85,185,90)", "waiting for children" },
	};
	unsigned i, width = 0, x;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		width += 16 + 7 * (unsigned)strlen(k[i].what) + 24;
	x = (WIDTH - width) / 2;
	fputs("<g id=\"legend\">\n", f);
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" fill=\"%s\" rx=\"2\"/>"
			"<text x=\"%u\" y=\"%u\">%s</text>\n", x, y - 10, k[i].fill, x + 16, y,
			k[i].what);
		x += 16 + 7 * (unsigned)strlen(k[i].what) + 24;
	}
	fputs("</g>\n", f);
}

void svg_flame_lines(FILE *f, const struct report *r, const struct fold_line *lines, uint32_t n,
		     uint32_t top, const char *title, enum flame_palette pal)
{
	const unsigned legend_h = pal == FLAME_PROFILE ? 20 : 0;
	const char *what = pal == FLAME_OFFCPU ? "off-CPU" : "wall-clock";
	struct tree t = { 0 };
	struct emit e;
	uint32_t k;
	unsigned height, y0, depth;
	char status[512], tot[32];

	if (node_new(&t, "all", 3) < 0)
		goto oom;
	top = top && top < n ? top : n;
	for (k = 0; k < top; k++)
		if (tree_add(&t, lines[k].line, lines[k].ns))
			goto oom;
	svg_status(status, sizeof(status), r);
	report_human_ns(tot, sizeof(tot), (double)t.total);
	snprintf(status + strlen(status), sizeof(status) - strlen(status), "; %u stacks, %s "
		 "%s in all%s", top, tot, what, top < n ? " (--top)" : "");
	/* one more row for a parent's merged narrow frames */
	depth = t.total ? drawn_depth(&t, 0, 0, (double)(WIDTH - 2 * PAD) / (double)t.total) + 1 : 0;
	height = 60 + legend_h + (depth + 1) * FRAME_H + 50;
	svg_begin(f, WIDTH, height);
	y0 = svg_heading(f, WIDTH, title, status);
	fprintf(f, "<text id=\"reset\" class=\"button\" x=\"%u\" y=\"%u\" onclick=\"reset()\" "
		"style=\"display:none\">Reset zoom</text>\n", PAD, y0);
	fprintf(f, "<text class=\"button\" x=\"%u\" y=\"%u\" text-anchor=\"end\" "
		"onclick=\"ask()\">Search</text>\n", WIDTH - PAD, y0);
	if (legend_h)
		legend(f, y0 + 16);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		WIDTH - PAD, height - 10);
	fprintf(f, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", PAD, height - 24);
	fprintf(f, "<text id=\"selftest\" x=\"%u\" y=\"%u\" class=\"status\"> </text>\n", PAD,
		height - 8);
	e = (struct emit){ f, &t, t.total ? (double)(WIDTH - 2 * PAD) / (double)t.total : 0,
			   height - 50 - FRAME_H, 0, pal };
	if (t.total)
		emit(&e, 0, PAD, 0, false);
	else
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">no %s time by "
			"stack in this window</text>\n", WIDTH / 2, height / 2, what);
	fprintf(f, script, WIDTH, t.total, what, pal == FLAME_PROFILE ?
		"n.length <= k ? n : k < 6 ? '' : n.substring(0, k - 3) + '...'" :
		"k < 3 ? '' : n.length <= k ? n : n.substring(0, k - 2) + '..'", PAD, PAD, PAD, PAD, PAD);
	svg_end(f);
	free(t.v);
	return;
oom:
	free(t.v);
	fputs("offcpu-ftrace: out of memory drawing the flame graph\n", stderr);
}

static int fold_by_line(const void *a, const void *b)
{
	return strcmp(((const struct fold_line *)a)->line, ((const struct fold_line *)b)->line);
}

/* the largest first, then by line: the same input, the same order */
static int fold_by_ns(const void *a, const void *b)
{
	const struct fold_line *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->line, y->line);
}

int flame_fold(size_t n, flame_entry_fn *entry, void *arg, bool merge, struct fold_line **out,
	       uint32_t *nout)
{
	char (*a)[STACK_NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*a));
	char (*b)[STACK_NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*b));
	struct fold_line *l = calloc(n ? n : 1, sizeof(*l));
	size_t i, k = 0, len;
	uint32_t m = 0;
	FILE *s;
	bool keep;

	*out = NULL;
	*nout = 0;
	for (i = 0; a && b && l && i < n; i++) {
		s = open_memstream(&l[k].line, &len);
		if (!s)
			break;
		keep = entry(s, arg, i, a, b, &l[k].ns);
		if (fclose(s) || !l[k].line) {
			free(l[k].line);
			l[k].line = NULL;
			break;
		}
		if (keep) {
			k++;
		} else {
			free(l[k].line);
			l[k].line = NULL;
		}
	}
	free(a);
	free(b);
	if (!l || i < n) {
		stacks_fold_free(l, (uint32_t)k);
		return -ENOMEM;
	}
	if (!merge) {
		*out = l;
		*nout = (uint32_t)k;
		return 0;
	}
	qsort(l, k, sizeof(*l), fold_by_line);
	for (i = 0; i < k; i++) {
		if (m && !strcmp(l[m - 1].line, l[i].line)) {
			l[m - 1].ns += l[i].ns;
			free(l[i].line);
			continue;
		}
		l[m++] = l[i];
	}
	qsort(l, m, sizeof(*l), fold_by_ns);
	*out = l;
	*nout = m;
	return 0;
}

void svg_flame(FILE *f, const struct report *r)
{
	const struct stack_report *sr = r->stacks;
	struct fold_line *lines = NULL;
	uint32_t n = 0;
	char title[128];

	if (stacks_fold(sr, &lines, &n)) {
		fputs("offcpu-ftrace: out of memory drawing the flame graph\n", stderr);
		return;
	}
	snprintf(title, sizeof(title), "Off-CPU time by %s stack", sr->kstack && sr->ustack ?
		 "kernel and user" : sr->kstack ? "kernel" : "user");
	svg_flame_lines(f, r, lines, n, sr->top, title, FLAME_OFFCPU);
	stacks_fold_free(lines, n);
}
