// SPDX-License-Identifier: GPL-2.0-or-later
/* Strict number, pid and duration parsing for the command line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts " -1" as a huge number: refuse signs and spaces */
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_pid(const char *s, int32_t *out)
{
	uint64_t v;
	int ret = parse_u64(s, 1, 4194304, &v);

	if (!ret)
		*out = (int32_t)v;
	return ret;
}

int parse_duration(const char *s, uint64_t *ns)
{
	double v, mult = 1;
	char *end;
	size_t n;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	n = strlen(s);
	/* plain decimal only: strtod would also take hex, exponents, "inf" */
	if (strspn(s, "0123456789.") < n - (n > 1 && strchr("smh", s[n - 1]) ? 1 : 0))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	if (*end) {
		if (end != s + n - 1)
			return -EINVAL;
		switch (*end) {
		case 's':
			break;
		case 'm':
			mult = 60;
			break;
		case 'h':
			mult = 3600;
			break;
		default:
			return -EINVAL;
		}
	}
	v *= mult;
	if (!(v > 0) || v > 366.0 * 24 * 3600)
		return -ERANGE;
	*ns = (uint64_t)llround(v * 1e9);
	if (*ns == 0)
		return -ERANGE;
	return 0;
}
