// SPDX-License-Identifier: GPL-2.0-or-later
/* The flight recorder's triggers and saves (flight.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "flight.h"
#include "run.h"
#include "sig.h"

/* a trigger's window is complete once the reads are this far past its end */
#define FLIGHT_SLACK_NS (5 * 1000 * 1000ULL)

/* What fired: its description is written only when it opens a window. */
struct trig {
	const char *kind;		/* "runq", "offcpu", "signal" */
	uint64_t ts, lat_ns;
	int32_t tid, cpu;
	const char *comm;
	int64_t state;			/* offcpu: how the interval began */
};

static void describe(const struct run *r, const struct trig *t, char *buf, size_t len)
{
	const char *comm = t->comm && *t->comm ? t->comm : "?";
	char st[32];

	if (!strcmp(t->kind, "runq"))
		snprintf(buf, len, "a run-queue wait of %.3f ms by tid %d (%s) on CPU %d",
			 (double)t->lat_ns / 1e6, t->tid, comm, t->cpu);
	else if (!strcmp(t->kind, "offcpu"))
		snprintf(buf, len, "an off-CPU interval of %.3f ms by tid %d (%s), state %s",
			 (double)t->lat_ns / 1e6, t->tid, comm,
			 t->state == SCHED_STATE_UNKNOWN ? "unknown" :
			 sched_state_str(r->ops->states(r->b), t->state, st, sizeof(st)));
	else
		snprintf(buf, len, "a SIGUSR1");
}

static void fire(struct run *r, const struct trig *t)
{
	struct flight *f = &r->flight;

	f->fired++;
	if (f->done || (f->saved >= r->o->flight.max_files && !f->pending)) {
		if (!f->unsaved++) {
			char what[192];

			describe(r, t, what, sizeof(what));
			note_msg("--max-files %u written: later triggers (this one: %s) are "
				 "counted, not saved", r->o->flight.max_files, what);
		}
		return;
	}
	if (f->pending) {
		f->joined++;	/* inside the window being kept: saved with it */
		return;
	}
	f->pending = true;
	f->trig_ns = t->ts;
	f->joined = 0;
	f->kind = t->kind;
	f->tid = t->tid;
	f->lat_ns = t->lat_ns;
	describe(r, t, f->what, sizeof(f->what));
}

static void on_wait(void *arg, const struct an_wait *w)
{
	struct run *r = arg;
	struct trig t = { .kind = "runq", .ts = w->end_ns, .lat_ns = w->end_ns - w->start_ns,
			  .tid = w->tid, .cpu = w->cpu, .comm = w->comm };

	if (r->o->flight.runq_over_ns && w->end_ns >= w->start_ns &&
	    t.lat_ns > r->o->flight.runq_over_ns)
		fire(r, &t);
}

/* the analyzer emits only the intervals --state wants (cfg.off_state_*) */
static void on_off(void *arg, const struct an_off *o)
{
	struct run *r = arg;
	struct trig t = { .kind = "offcpu", .ts = o->end_ns, .lat_ns = o->end_ns - o->start_ns,
			  .tid = o->tid, .cpu = o->cpu, .comm = o->comm, .state = o->state };

	if (r->o->flight.offcpu_over_ns && o->end_ns >= o->start_ns &&
	    t.lat_ns > r->o->flight.offcpu_over_ns)
		fire(r, &t);
}

/* SIGUSR1s the handler counted since the last look: save now */
static void signalled(struct run *r, uint64_t now_ns)
{
	struct trig t = { .kind = "signal", .ts = now_ns };

	if (sig_usr1 != r->flight.usr1_seen) {
		r->flight.usr1_seen = sig_usr1;
		fire(r, &t);
	}
}

int flight_setup(struct run *r)
{
	const struct trace_opts *o = r->o;
	struct flight *f = &r->flight;
	struct an_sink sink = { .arg = r, .wait = on_wait, .off = on_off };

	memset(f, 0, sizeof(*f));
	if (!o->flight.keep_ns)
		return 0;
	if (!r->mono)
		return -ENOTSUP;	/* the triggers' times are the mono clock's */
	f->on = true;
	sig_flight_setup();
	return analyzer_subscribe(&r->an, &sink);
}

/* "FILE", then "FILE.2", "FILE.3" ... */
static void save_path(const struct run *r, unsigned n, char *buf, size_t len)
{
	if (n <= 1)
		snprintf(buf, len, "%s", r->o->record_path);
	else
		snprintf(buf, len, "%s.%u", r->o->record_path, n);
}

static int save(struct run *r, uint64_t end_ns, bool cut)
{
	const struct trace_opts *o = r->o;
	struct flight *f = &r->flight;
	uint64_t lost[RUN_MAX_CPUS], want_start, from;
	struct backend_window m;
	char path[4096], extra[768], err[4700] = "";
	int ret;

	f->pending = false;
	save_path(r, f->saved + 1, path, sizeof(path));
	run_window_meta(r, &m, lost);
	want_start = f->trig_ns > o->flight.keep_ns ? f->trig_ns - o->flight.keep_ns : 0;
	m.start_ns = from = want_start > r->start_ns ? want_start : r->start_ns;
	m.end_ns = end_ns;
	m.recovered = 0;	/* the run's, not the window's: not said */
	snprintf(extra, sizeof(extra), "flight=1\nflight_secs=%.9g\nflight_after_secs=%.9g\n"
		 "flight_trigger=%s\nflight_trigger_kind=%s\nflight_trigger_tid=%d\n"
		 "flight_trigger_lat_ns=%" PRIu64 "\nflight_trigger_ns=%" PRIu64
		 "\nflight_triggers=%u\n",
		 (double)o->flight.keep_ns / 1e9, (double)o->flight.after_ns / 1e9, f->what,
		 f->kind, f->tid, f->lat_ns, f->trig_ns, f->joined + 1);
	m.extra = extra;
	ret = r->ops->flush_pages ? r->ops->flush_pages(r->b) : 0;
	if (ret)
		snprintf(err, sizeof(err), "cannot write %s: %s", path, strerror(-ret));
	else
		ret = recorder_save(r->rec, path, &m, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		f->failed = true;
		return EXIT_FAIL;
	}
	f->saved++;
	fprintf(stderr, "offcpu-ftrace: saved %s: %.3f s of events around %s%s%s%s\n", path,
		(double)(m.end_ns - m.start_ns) / 1e9, f->what,
		f->joined ? " (and later triggers inside it)" : "",
		m.start_ns > from ? ": the store held less than --flight: raise --buffer-size" :
		from > want_start ? ": the run began later than --flight before it" : "",
		cut ? "; cut short where the run ended" : "");
	if (f->saved >= o->flight.max_files && !o->flight.keep_going) {
		f->done = true;
		if (r->have_child && !r->child.done)
			note_msg("--max-files %u written: tracing stops; waiting for %s to exit",
				 o->flight.max_files, o->command[0]);
	}
	return 0;
}

/* Say once when the store cannot hold --flight at the event rate. */
static void check_fill(struct run *r, uint64_t now_ns)
{
	struct flight *f = &r->flight;
	struct backend_flight st;

	recorder_stat(r->rec, &st);
	if (st.short_drops && !f->short_drops && now_ns > st.complete_from)
		err_msg("warning: the flight store (%zu KiB per CPU) holds only %.1f s of events at "
			"this rate, not --flight %.6g s: raise --buffer-size (the store is 8 of "
			"them per CPU)", st.cap_bytes / 1024,
			(double)(now_ns - st.complete_from) / 1e9,
			(double)r->o->flight.keep_ns / 1e9);
	f->short_drops = st.short_drops;
}

int flight_tick(struct run *r, uint64_t now_ns, uint64_t limit, sched_ev_cb cb)
{
	struct flight *f = &r->flight;
	uint64_t end;
	int ret;

	if (!f->on || f->done)
		return 0;
	signalled(r, now_ns);
	recorder_trim(r->rec, now_ns);
	check_fill(r, now_ns);
	if (!f->pending)
		return 0;
	end = f->trig_ns + r->o->flight.after_ns;
	if (now_ns < end + FLIGHT_SLACK_NS)
		return 0;
	/* every CPU's pages up to the window's end, into the store */
	ret = r->ops->read(r->b, limit, false, cb, r);
	if (ret) {
		err_msg("reading the trace buffers failed: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return save(r, end, false);
}

int flight_finish(struct run *r, uint64_t end_ns)
{
	struct flight *f = &r->flight;

	if (!f->on)
		return 0;
	if (!f->done)
		signalled(r, end_ns);
	if (f->pending) {
		uint64_t end = f->trig_ns + r->o->flight.after_ns;

		return save(r, end < end_ns ? end : end_ns, end > end_ns);
	}
	if (!f->saved)
		fprintf(stderr, "offcpu-ftrace: no trigger fired in %.3f s: nothing saved\n",
			(double)(end_ns - r->start_ns) / 1e9);
	else if (f->unsaved)
		note_msg("%" PRIu64 " trigger%s after the last file %s not saved (--max-files %u)",
			 f->unsaved, f->unsaved == 1 ? "" : "s", f->unsaved == 1 ? "was" : "were",
			 r->o->flight.max_files);
	return 0;
}
