/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf backend's private state, shared by its files (perf.c: the ops
 * table and the backend's lifecycle; perfopen.c: the events opened per
 * CPU; perfslot.c: per-CPU slots and CPU hotplug; perfread.c: the rings
 * read, their records made events and merged in time order, with the
 * names the merge applies): the per-CPU slot, the backend, and the
 * functions one file calls in another. Not for use outside perf/.
 */
#ifndef OFFCPU_PERF_LOCAL_H
#define OFFCPU_PERF_LOCAL_H

#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "encode.h"
#include "fmt.h"
#include "perfrec.h"
#include "pnames.h"
#include "tsheap.h"


#define ORDER_SLACK_NS (1000 * 1000ULL)
/*
 * The backend's own events, not fed to the analyzer: applied to the names
 * table when the merge reaches them, in time order (a rename at an exec,
 * a new thread taking its parent's name)
 */
#define EV_RENAME SEV_NTYPES
#define EV_FORKNAME (SEV_NTYPES + 1)
/* threads named at once at most (a busy host's; least recently used go) */
#define NAMES_SLOTS 65536

/* sched_switch, sched_wakeup, _new, _waking, process_fork, the cgroup moves */
#define NTP 7
#define FD_SWITCH NTP		/* the dummy event writing context-switch records */
#define FD_SAMPLE (NTP + 1)	/* profile: the CPU clock sampling what runs */
#define NTYPES (NTP + 2)

struct pcpu {
	int cpu;
	bool retired;		/* CPU went offline and came back: its events
				 * are dead; a new slot reads the CPU now */
	int fd[NTYPES];		/* fd[0] owns the ring; the others redirect to it */
	void *map;
	size_t map_len;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;		/* data area bytes, a power of two */
	uint64_t head;		/* data_head as last read */
	uint64_t pos;		/* next record to parse */
	uint64_t rec_start;	/* start of the record c->rec came from */
	struct perfrec_layout lay;	/* what its records hold: chain_id is
					 * the perf id of its sched_switch event */
	uint64_t enabled_ns;	/* its time enabled at the last check */
	uint64_t lost;		/* PERF_RECORD_LOST */
	uint64_t recovered;	/* switches only the switch records had */
	/*
	 * The switch last fed to the analyzer (from the tracepoint or a
	 * switch-out record) whose switch-in record is still to come, and
	 * the last switch-out record's preempt flag.
	 */
	int32_t sw_prev, sw_next, out_prev, out_next;
	bool sw_fed, out_preempt;
	int32_t cur;		/* the task the CPU's last fed switch put there */
	/* the current record: a switch may bring its stacks */
	struct perfrec rec;
	unsigned nev, iev;	/* its events to feed, the next one */
	uint8_t scratch[65536];	/* a record that wraps around the ring end */
};

/*
 * CPU hotplug. A CPU that is offline when we open has no events: they are
 * opened when it comes online. A per-CPU event whose CPU goes offline is
 * taken off it for good (it does not count after the CPU returns), so
 * when a CPU we saw offline is online again its slot is retired (disabled,
 * read to the end, then closed) and a new slot opened for it. Seen by
 * reading /sys/devices/system/cpu/online at every read, and, for an
 * offline-online cycle quicker than one read, by the sched_switch event's
 * enabled time, which stops when the event is taken off its CPU (checked
 * every 200 ms: one read, and an IPI to that CPU, per CPU). What a
 * returning CPU records before we reopen is not seen; the analyzer's
 * missed-switch checks catch what that breaks.
 */
struct backend {
	char root[PATH_MAX];
	struct sched_layout layout;
	bool layout_ok;
	struct pcpu **cpus;	/* slots: CPU i's first is slot i */
	unsigned nslot;
	size_t slotcap;		/* of every per-slot array */
	unsigned ncpu;
	int *active;		/* per CPU: its slot now */
	uint8_t *online;	/* per CPU: as at the last check */
	size_t ring;		/* bytes per CPU ring */
	int32_t filter_tid;	/* -t in the kernel, or -1 */
	bool started;
	uint64_t next_check_ns;	/* of the events' enabled times */
	struct pollfd *pfd;	/* per slot */
	struct tsheap heap;
	uint64_t *next_ts;
	bool mono;
	bool kstack, ustack;
	bool waking_kstack;	/* --wakers -K: callchains of sched_waking too */
	unsigned sample_hz;	/* profile: CPU clock samples per second, 0 none */
	bool switch_records;	/* context-switch records open on every CPU */
	bool no_switch_records;	/* the kernel refused them (before 4.3), or the
				 * benchmark's OFFCPU_FTRACE_NO_SWITCH_RECORDS */
	bool records_only;	/* req->switch_minimal: the records, no sched_switch */
	/*
	 * req->switches_only: no tracepoint at all (no tracefs here, or a pid
	 * namespace whose pids the tracepoints' payloads lack): the records,
	 * by this process's pids, are every event
	 */
	bool switches_only;
	bool forks;		/* req->fork: new threads and processes, to follow */
	/*
	 * threads' names and priorities as the stream has them (pnames.h):
	 * a switch from the records is named from here, at its time
	 */
	struct pnames names;
	bool names_from_proc;	/* /proc's pids are the events' (no foreign pid
				 * namespace under tracepoints): read at the start */
	bool names_taken;	/* ... done */
	/* a recording: the events fed, written as pages for req->page_sink */
	struct page_enc *enc;	/* per CPU */
	page_emit_fn sink;
	void *sink_arg;
	/* ... and the names its events carried, for its saved_cmdlines */
	struct rec_comm {
		int32_t tid, tgid;	/* tgid -1: unknown */
		char comm[COMM_LEN];
	} *comms;		/* REC_COMMS, by tid's hash, REC_PROBES tried */
	char *cmdlines, *tgids;	/* the texts last built */
};

#define REC_COMMS 8192
#define REC_PROBES 16

/* perfopen.c: the events opened */

/* The sched tracepoints' formats (and a recording's page layout) into b->layout. */
int pf_setup_layout(struct backend *b, const struct trace_req *req, char *err, size_t errlen);
/*
 * Open @c's events (tracepoints, context-switch records, the profile's
 * sampler), map fd[0]'s ring and point the others at it. 0 with c->fd[0]
 * < 0 or no map when the CPU is offline or has nothing to open; a
 * negative errno with @err otherwise.
 */
int pf_open_cpu(struct backend *b, struct pcpu *c, char *err, size_t errlen);

/* perfslot.c: per-CPU slots, CPU hotplug (see struct backend) */

/* A new, unopened slot for @cpu, or NULL. */
struct pcpu *pf_new_slot(struct backend *b, int cpu);
/* Which CPUs are online now, from /sys/devices/system/cpu/online, into @on[ncpu]. */
void pf_online_cpus(struct backend *b, uint8_t *on);
/* Unmap, close and free one CPU's slot. */
void pf_pcpu_free(struct pcpu *c);
/* Follow CPUs going offline and online: reopen their events (at every read). */
void pf_track_hotplug(struct backend *b);
/* A retired slot read to its end: close it. */
void pf_slot_close(struct backend *b, unsigned i);

/* perfread.c: the rings read and merged, the names applied */

/* Every thread's name and priority from /proc, once the events are on. */
void pf_names_snapshot(struct backend *b);
/* backend_ops.read: the CPUs' events up to @limit (all with @drain), in time order. */
int perf_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg);

#endif
