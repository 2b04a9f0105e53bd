// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu-ftrace's own --format=json output (report's print_json()) read
 * back into a struct peerhist: "unit", "key", "partial" and "groups",
 * each with its id, comm and buckets. A run with intervals prints one
 * object after another; opts->json_index picks one.
 */
#include <stdio.h>
#include <string.h>

#include "jsonread.h"
#include "peerhist_local.h"

/* Non-negative integer member @key of @obj. */
static int jget_u64(struct ph_parser *ps, const struct json_val *obj,
		    const char *key, uint64_t *out)
{
	const struct json_val *v = json_val_get(obj, key);

	if (!v || v->t != JSON_NUM || !v->is_uint)
		return ph_fail(ps, obj->line, "expected \"%s\": a non-negative integer", key);
	*out = v->u;
	return 0;
}

/* One of print_json()'s groups. */
static int json_group(struct ph_parser *ps, const struct json_val *g,
		      const char *key)
{
	const struct json_val *bs, *id, *comm, *other;
	char label[PEERHIST_MAX_LABEL];
	uint64_t low = 0, high = 0, count = 0, sum = 0;
	size_t i;
	int ret;

	if (g->t != JSON_OBJ)
		return ph_fail(ps, g->line, "expected a group object in \"groups\"");
	label[0] = '\0';
	if (key) {
		other = json_val_get(g, "other");
		id = json_val_get(g, key);
		comm = json_val_get(g, "comm");
		if (other && other->t == JSON_TRUE) {
			snprintf(label, sizeof(label), "%s = (other)", key);
		} else if (id && id->t == JSON_NUM && id->is_int) {
			snprintf(label, sizeof(label), "%s = %lld%s%s", key,
				 (long long)id->i,
				 comm && comm->t == JSON_STR && comm->s[0] ? " " : "",
				 comm && comm->t == JSON_STR ? comm->s : "");
		} else {
			return ph_fail(ps, g->line, "expected \"%s\": an integer id", key);
		}
	}
	ret = ph_group_add(ps, "", label);
	if (ret)
		return ret;
	bs = json_val_get(g, "buckets");
	if (!bs || bs->t != JSON_ARR)
		return ph_fail(ps, g->line, "expected \"buckets\": an array");
	for (i = 0; i < bs->n; i++) {
		const struct json_val *b = &bs->v[i];

		if (b->t != JSON_OBJ)
			return ph_fail(ps, b->line, "expected a bucket object");
		ret = jget_u64(ps, b, "low", &low);
		if (!ret)
			ret = jget_u64(ps, b, "high", &high);
		if (!ret)
			ret = jget_u64(ps, b, "count", &count);
		if (ret)
			return ret;
		ps->r.line = b->line;
		ret = ph_bucket_add(ps, low, high, count);
		if (ret)
			return ret;
		sum = ph_sat_add(sum, count);
	}
	if (json_val_get(g, "count")) {
		ret = jget_u64(ps, g, "count", &count);
		if (ret)
			return ret;
		if (count != sum)
			return ph_fail(ps, g->line, "group \"count\" %llu is not the sum of its buckets %llu",
				       (unsigned long long)count, (unsigned long long)sum);
	}
	return 0;
}

/* One of print_json()'s reports: its groups into ps->h. */
static int json_report(struct ph_parser *ps, const struct json_val *root,
		       const struct peerhist_opts *o)
{
	const struct json_val *unit, *key, *groups, *partial;
	size_t i;
	int ret;

	if (root->t != JSON_OBJ)
		return ph_fail(ps, root->line, "expected a JSON object");
	unit = json_val_get(root, "unit");
	if (!unit || unit->t != JSON_STR)
		return ph_fail(ps, root->line, "expected \"unit\": a string");
	key = json_val_get(root, "key");
	if (key && key->t != JSON_STR && key->t != JSON_NULL)
		return ph_fail(ps, root->line, "expected \"key\": a string or null");
	if (key && key->t == JSON_STR && (!key->s[0] || strlen(key->s) > 32))
		return ph_fail(ps, root->line, "expected \"key\": a short name");
	groups = json_val_get(root, "groups");
	if (!groups || groups->t != JSON_ARR)
		return ph_fail(ps, root->line, "expected \"groups\": an array");
	partial = json_val_get(root, "partial");
	ps->h->partial = partial && partial->t == JSON_TRUE;
	for (i = 0; i < groups->n; i++) {
		ret = json_group(ps, &groups->v[i],
				 key && key->t == JSON_STR ? key->s : NULL);
		if (ret)
			return ret;
	}
	ps->h->nmaps = 1;
	return ph_unit_set(ps->h, o->unit ? o->unit : unit->s);
}

int ph_parse_json(struct ph_parser *ps, const char *text, size_t len,
		  const struct peerhist_opts *o)
{
	struct json_reader jr;
	struct json_val v;
	unsigned i;
	int c, ret;

	json_reader_init(&jr, text, len, PEERHIST_JSON_DEPTH, ps->err, ps->errlen);
	memset(&v, 0, sizeof(v));
	for (i = 0; i <= o->json_index; i++) {
		json_val_fini(&v);
		if (json_reader_peek(&jr) < 0) {
			ret = json_reader_fail(&jr, "end of input: expected JSON value #%u, found %u",
					       o->json_index + 1, i);
			goto out;
		}
		ret = json_reader_value(&jr, &v);
		if (ret)
			goto out;
	}
	c = json_reader_peek(&jr);
	if (c >= 0 && c != '{') {
		ret = json_reader_fail(&jr, "expected the end of input or the next JSON object");
		goto out;
	}
	ret = json_report(ps, &v, o);
out:
	json_val_fini(&v);
	return ret;
}
