// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers the report layer's files share: key names, comm for text. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_local.h"

const char *report_key_name(enum an_key k)
{
	switch (k) {
	case KEY_PID:
		return "pid";
	case KEY_TID:
		return "tid";
	case KEY_CPU:
		return "cpu";
	default:
		return NULL;
	}
}

static size_t comm_len(const char *c)
{
	return strnlen(c, COMM_LEN);
}

/* comm for text output: control characters would corrupt the layout */
void report_text_comm(FILE *f, const char *s)
{
	size_t i, n = comm_len(s);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

