// SPDX-License-Identifier: GPL-2.0-or-later
/* What the pictures share: escaping, the document, the heading. */
#include <inttypes.h>
#include <string.h>

#include "report_local.h"
#include "svg.h"

void svg_escape(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			/* XML 1.0 allows no control characters but tab and newlines */
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

void svg_begin(FILE *f, unsigned width, unsigned height)
{
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; fill: #000; }\n"
		".title { font-size: 17px; } .status { fill: #555; }\n"
		".f text { pointer-events: none; } .f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		".button { cursor: pointer; fill: #036; text-decoration: underline; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fdfdfd\"/>\n",
		width, height, width, height, width, height);
}

unsigned svg_heading(FILE *f, unsigned width, const char *title, const char *status)
{
	fprintf(f, "<text class=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">", width / 2);
	svg_escape(f, title, 400);
	fputs("</text>\n", f);
	if (!status)
		return 36;
	/* as many lines as the width needs, broken after "; " */
	{
		size_t max = width / 7 - 4, len = strlen(status), at = 0;
		unsigned y = 44;

		while (at < len) {
			size_t n = len - at;

			if (n > max) {
				size_t k;

				for (k = max; k > 0 && strncmp(status + at + k - 2, "; ", 2); k--)
					;
				n = k > 2 ? k : max;
			}
			fprintf(f, "<text class=\"status\" x=\"%u\" y=\"%u\" "
				"text-anchor=\"middle\">", width / 2, y);
			svg_escape(f, status + at, n);
			fputs("</text>\n", f);
			at += n;
			y += 14;
		}
		return y;
	}
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void svg_status(char *buf, size_t len, const struct report *r)
{
	const struct an_counts *c = r->counts;
	int n = snprintf(buf, len, "%.3f s traced, backend %s, clock %s", r->duration_s,
			 r->backend, r->clock);

	if (n < 0 || (size_t)n >= len)
		return;
	if (r->lost)
		n += snprintf(buf + n, len - (size_t)n, "; partial: %" PRIu64 " event%s lost",
			      r->lost, r->lost == 1 ? "" : "s");
	else if (report_partial(r)) {
		uint64_t um = c->unmeasured + c->off_unmeasured;

		n += snprintf(buf + n, len - (size_t)n, "; partial: %" PRIu64 " switch%s missing, %"
			      PRIu64 " interval%s not measured", c->missed_switch,
			      c->missed_switch == 1 ? "" : "es", um, um == 1 ? "" : "s");
	}
	if (r->sampling && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; sampled from /proc (totals, no distribution)");
}
