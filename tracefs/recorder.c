// SPDX-License-Identifier: GPL-2.0-or-later
/* Recordings and the flight store behind one page sink (tracefs_rec.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "flightbuf.h"
#include "recfile.h"
#include "tracefs_rec.h"

struct recorder {
	struct recfile *rec;		/* a recording of every page, or */
	struct flightbuf *flight;	/* the last SECS of them */
	struct backend_rec_src src;
	char *tracefs, *instance;	/* src's strings, owned */
	size_t cap;			/* the store's bound per CPU */
};

static struct recorder *rec_new(const struct backend_rec_src *src)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->src = *src;
	r->tracefs = strdup(src->tracefs);
	r->instance = src->instance ? strdup(src->instance) : NULL;
	if (!r->tracefs || (src->instance && !r->instance)) {
		free(r->tracefs);
		free(r->instance);
		free(r);
		return NULL;
	}
	r->src.tracefs = r->tracefs;
	r->src.instance = r->instance;
	return r;
}

/* a recording of @r's source at @path */
static int rec_file(struct recorder *r, struct recfile **out, const char *path, char *err,
		    size_t errlen)
{
	return recfile_open(out, path, r->src.tracefs, r->src.instance, r->src.ncpu, err, errlen);
}

int recorder_open(struct recorder **out, const char *path, const struct backend_rec_src *src,
		  uint64_t flight_ns, uint32_t flight_kb, char *err, size_t errlen)
{
	struct recorder *r;
	int ret;

	*out = NULL;
	if (!src->tracefs || !src->ncpu || !src->page_size)
		return errf(err, errlen, -EINVAL, "cannot record %s: the backend has no pages",
			    path);
	r = rec_new(src);
	if (!r)
		return errf(err, errlen, -ENOMEM, "cannot record %s", path);
	if (flight_ns) {
		r->cap = (size_t)flight_kb * 1024;
		ret = flightbuf_new(&r->flight, src->ncpu, src->page_size, r->cap, flight_ns);
		if (ret)
			ret = errf(err, errlen, ret, "%s", "the flight recorder's store");
	} else {
		ret = rec_file(r, &r->rec, path, err, errlen);
	}
	if (ret) {
		recorder_abort(r);
		return ret;
	}
	*out = r;
	return 0;
}

int recorder_page(void *rec, unsigned cpu, const void *page)
{
	struct recorder *r = rec;

	if (!r)
		return 0;
	/* errors are sticky in the recording: recorder_close() reports them */
	if (r->rec)
		return recfile_add_page(r->rec, cpu, page, r->src.page_size);
	return flightbuf_add(r->flight, cpu, page, flightbuf_page_ts(page));
}

int recorder_close(struct recorder *r, const struct backend_window *m, char *err, size_t errlen)
{
	struct recfile *f;

	if (!r)
		return 0;
	f = r->rec;
	r->rec = NULL;
	recorder_abort(r);
	return f ? recfile_close(f, m, err, errlen) : 0;
}

void recorder_abort(struct recorder *r)
{
	if (!r)
		return;
	recfile_abort(r->rec);
	flightbuf_free(r->flight);
	free(r->tracefs);
	free(r->instance);
	free(r);
}

void recorder_trim(struct recorder *r, uint64_t now_ns)
{
	if (r && r->flight)
		flightbuf_trim(r->flight, now_ns);
}

struct save_out {
	struct recfile *f;
	size_t page_size;
};

static int save_page(void *arg, unsigned cpu, const void *page)
{
	struct save_out *o = arg;

	return recfile_add_page(o->f, cpu, page, o->page_size);
}

int recorder_save(struct recorder *r, const char *path, struct backend_window *w, char *err,
		  size_t errlen)
{
	struct save_out o = { .page_size = r->src.page_size };
	uint64_t from;
	int ret;

	if (!r->flight)
		return errf(err, errlen, -EINVAL, "%s", "no flight recorder (--flight) in this run");
	from = flightbuf_complete_from(r->flight);
	if (w->start_ns < from)
		w->start_ns = from;
	ret = rec_file(r, &o.f, path, err, errlen);
	if (ret)
		return ret;
	ret = flightbuf_each(r->flight, w->start_ns, w->end_ns, save_page, &o);
	if (ret) {
		recfile_abort(o.f);
		return errf(err, errlen, ret, "cannot write %s", path);
	}
	return recfile_close(o.f, w, err, errlen);
}

void recorder_stat(const struct recorder *r, struct backend_flight *st)
{
	memset(st, 0, sizeof(*st));
	if (!r || !r->flight)
		return;
	st->bytes = flightbuf_bytes(r->flight);
	st->peak_bytes = flightbuf_peak_bytes(r->flight);
	st->cap_bytes = r->cap;
	st->short_drops = flightbuf_short_drops(r->flight);
	st->complete_from = flightbuf_complete_from(r->flight);
}
