// SPDX-License-Identifier: GPL-2.0-or-later
/* The analyses, in the order the help lists them: the one table of them. */
#include <stdio.h>
#include <string.h>

#include "analysis.h"

extern const struct analysis analysis_runq, analysis_offcpu, analysis_triage,
	analysis_record, analysis_slower, analysis_oncpu, analysis_runqlen, analysis_wakers,
	analysis_profile, analysis_timehist, analysis_timehist_summary,
	analysis_timehist_profile, analysis_critpath;

static const struct analysis *const analyses[] = {
	&analysis_runq,
	&analysis_offcpu,
	&analysis_triage,
	&analysis_oncpu,
	&analysis_runqlen,
	&analysis_profile,
	&analysis_timehist,
	&analysis_record,
	/* modes: what a command's options turn it into */
	&analysis_slower,
	&analysis_wakers,
	&analysis_timehist_summary,
	&analysis_timehist_profile,
	&analysis_critpath,
};
#define NANALYSES (sizeof(analyses) / sizeof(analyses[0]))

const struct analysis *analysis_find(const char *name)
{
	unsigned i;

	for (i = 0; name && i < NANALYSES; i++)
		if (!(analyses[i]->flags & AN_F_MODE) && !strcmp(analyses[i]->name, name))
			return analyses[i];
	return NULL;
}

const struct analysis *analysis_at(unsigned i)
{
	return i < NANALYSES ? analyses[i] : NULL;
}

void analysis_names(char *buf, size_t len, unsigned flags)
{
	unsigned i, n = 0, k = 0;
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < NANALYSES; i++)
		n += (analyses[i]->flags & (flags | AN_F_MODE)) == flags;
	for (i = 0; i < NANALYSES && at < len; i++) {
		if ((analyses[i]->flags & (flags | AN_F_MODE)) != flags)
			continue;
		k++;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k == 1 ? "" :
				       k == n ? " or " : ", ", analyses[i]->name);
	}
}
