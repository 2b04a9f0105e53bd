// SPDX-License-Identifier: GPL-2.0-or-later
/* Escaping text for each output format: JSON strings, OpenMetrics label values,
 * shell words. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* a byte a terminal would act on, not show */
static bool is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void text_field(FILE *f, const char *s, size_t max, int width)
{
	size_t i, n = strnlen(s, max), out = 0;

	for (i = 0; i < n; i++, out++) {
		unsigned char c = (unsigned char)s[i], d = i + 1 < n ? (unsigned char)s[i + 1] : 0;

		/* a C1 control in UTF-8 (U+0080..U+009F: C2 80..C2 9F; C2 9B is CSI) */
		if (c == 0xc2 && d >= 0x80 && d <= 0x9f) {
			fputc('?', f);
			i++;
			continue;
		}
		fputc(is_ctrl(c) ? '?' : c, f);
	}
	for (; (int)out < width; out++)
		fputc(' ', f);
}

void text_clean(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s, d = (unsigned char)s[1];

		/* a C1 control in UTF-8 (CSI is C2 9B) is as much a terminal's command */
		if (c == 0xc2 && d >= 0x80 && d <= 0x9f) {
			*s = '?';
			memmove(s + 1, s + 2, strlen(s + 2) + 1);
		} else if (is_ctrl(c)) {
			*s = '?';
		}
	}
}

void folded_cgroup(FILE *f, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' || *name == ' ' ? '_' : (unsigned char)*name < 0x20 ? '?' : *name,
		      f);
	fputc(';', f);
}

void json_str_or_null(FILE *f, const char *s, size_t max)
{
	if (s)
		json_str(f, s, max);
	else
		fputs("null", f);
}

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
			fputc(is_ctrl(c) ? '?' : c, f);
	}
}

/* one word for a POSIX shell: as it is when it is plain, else single-quoted */
static size_t shell_word(char *buf, size_t len, const char *s)
{
	size_t n, i;
	bool plain = *s != '\0';

	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-./:=+,@%^", s[i]))
			plain = false;
	if (plain)
		return (size_t)snprintf(buf, len, "%s", s);
	/* '...', each ' inside as '\'' ; the length it needs is returned */
	n = (size_t)snprintf(buf, len, "'");
	for (i = 0; s[i]; i++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s",
				      s[i] == '\'' ? "'\\''" : (char[2]){ s[i], '\0' });
	n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "'");
	return n;
}

void shell_quote_argv(char *buf, size_t len, char *const *argv, size_t max)
{
	char word[1024];
	size_t n = 0, w;

	if (len)
		buf[0] = '\0';
	for (; *argv; argv++) {
		w = shell_word(word, sizeof(word), *argv);
		if (w >= sizeof(word) || n + (n ? 1 : 0) + w > max || n + w + 2 >= len) {
			snprintf(buf + n, len - n, "%s...", n ? " " : "");
			return;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
	}
}
