// SPDX-License-Identifier: GPL-2.0-or-later
/* Escaping text for each output format: JSON strings, OpenMetrics label values. */
#include <stdio.h>

#include "escape.h"

void json_str(FILE *f, const char *s, size_t max)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);	/* comm is bytes, not UTF-8 */
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void om_label_value(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}
