// SPDX-License-Identifier: GPL-2.0-or-later
/* One-line errors with the errno's text appended. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errf.h"

int errf(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(err + n, len - (size_t)n, ": %s", strerror(-ret));
	return ret;
}
