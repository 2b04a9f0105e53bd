/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The structure of a trace-cmd trace.dat (file versions 6 and 7), walked
 * without trusting it. libtracecmd mmaps the CPU data and believes every
 * size and offset in the headers: a truncated file would SIGBUS and a bad
 * count would send it reading elsewhere. So every section, option and CPU
 * data range is checked against the file size here first, and the options
 * libtracecmd keeps to itself (trace clock, CPU stats, uname, and the
 * metadata offcpu-ftrace writes) are collected on the way.
 *
 * The format: trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5).
 */
#ifndef OFFCPU_TDAT_H
#define OFFCPU_TDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"		/* struct rec_scope */

/* trace.dat option ids used here (trace-cmd's enum, trace-cmd.dat.v7(5)) */
enum {
	TDAT_OPT_DONE = 0,
	TDAT_OPT_DATE = 1,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_BUFFER = 3,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_HOOK = 6,
	TDAT_OPT_OFFSET = 7,
	TDAT_OPT_CPUCOUNT = 8,
	TDAT_OPT_VERSION = 9,
	TDAT_OPT_PROCMAPS = 10,
	TDAT_OPT_TIME_SHIFT = 12,
	TDAT_OPT_GUEST = 13,
	TDAT_OPT_TSC2NSEC = 14,
	TDAT_OPT_HEADER_INFO = 16,
	TDAT_OPT_FTRACE_EVENTS = 17,
	TDAT_OPT_EVENT_FORMATS = 18,
	TDAT_OPT_KALLSYMS = 19,
	TDAT_OPT_PRINTK = 20,
	TDAT_OPT_CMDLINES = 21,
	TDAT_OPT_BUFFER_TEXT = 22,
	/*
	 * offcpu-ftrace's own: a "key=value" text (see recfile.h). Far above
	 * trace-cmd's ids, which count up from 0; readers skip unknown ids.
	 */
	TDAT_OPT_OFFCPU = 0x4f46,
};

/*
 * All a recording's compressed blocks (metadata sections, CPU data
 * chunks) may expand to: 64 times the file's size, plus 1 MiB. Real ones
 * expand about 10 times; a corrupt claim of a GiB is refused before
 * anything is allocated for it, so one recording never costs more memory
 * than a small multiple of its size.
 */
#define TDAT_RAW_RATIO	64u
#define TDAT_RAW_SLACK	(1u << 20)

struct tdat_cpu {
	uint64_t offset, size;	/* bytes of ring-buffer pages (compressed: chunks) */
};

/* Where the metadata a reader needs lies in the file (validated by tdat_scan). */
enum tdat_part_id {
	TDAT_PART_HEADERS,	/* header_page and header_event */
	TDAT_PART_FTRACE,	/* ftrace's formats (kernel_stack, user_stack) */
	TDAT_PART_EVENTS,	/* the event systems' formats */
	TDAT_PART_KALLSYMS,
	TDAT_PART_CMDLINES,
	TDAT_NPARTS,
};

struct tdat_part {
	uint64_t offset, size;	/* its bytes in the file; size 0: absent */
	bool compressed;	/* v7: "u32 size, u32 raw size, data" */
};

struct tdat {
	unsigned version;	/* 6 or 7 */
	char compression[16];	/* v7: "zstd", "zlib" or "" (none) */
	struct tdat_part part[TDAT_NPARTS];
	uint32_t page_size;	/* ring-buffer sub-buffer size */
	uint8_t long_size;	/* the recording's user-space long */
	bool compressed;	/* v7: CPU data in compressed chunks */
	bool ts_adjusted;	/* DATE/OFFSET/TSC2NSEC/TIME_SHIFT present */
	unsigned instances;	/* buffers of other instances (not read) */
	unsigned ncpu;		/* entries in cpu[] (top buffer) */
	struct tdat_cpu *cpu;	/* by CPU id; size 0 = no data */
	uint32_t cpucount;	/* CPUCOUNT option, 0 when absent */
	char clock[32];		/* "" when the file does not say */
	char *cpustats;		/* CPUSTAT texts, one after another, or NULL */
	char *uname;		/* UNAME option, or NULL */
	char *offcpu;		/* TDAT_OPT_OFFCPU text, or NULL */
	uint64_t file_size;
	/* compressed blocks: what they claim uncompressed in all (each checked
	 * to decompress to exactly its claim), its bound, the largest chunk */
	uint64_t raw_total, raw_max;
	uint32_t max_chunk;
	/* tdat_tgid(): the offcpu text's saved_tgids, sorted by thread */
	struct tdat_tgid { int32_t tid, tgid; } *tgids;
	uint32_t ntgids;
	bool tgids_parsed;
};

/*
 * Walk the trace.dat open on @fd and fill @t (release with tdat_free()).
 * Every size and count is checked against the file's size before it is
 * used; every compressed block is decompressed (within TDAT_RAW_RATIO)
 * and must hold what it claims, and compressed metadata is checked as the
 * plain is. Returns 0, or a negative errno with "offset N: what is wrong"
 * in @err: -EINVAL for a corrupt or truncated file, -ENOTSUP for a valid
 * one we cannot use (latency format, big-endian, compressed options, a
 * compression this build cannot decompress).
 */
int tdat_scan(struct tdat *t, int fd, char *err, size_t errlen);
void tdat_free(struct tdat *t);

/*
 * The latest time an event of @cpu can have, in the trace clock's ns:
 * its recorded CPU stats were read after the last event ("now ts"),
 * plus a second for the skew of an unsynchronized clock (local). Only for
 * clocks counting nanoseconds (stats in seconds); UINT64_MAX when unknown.
 */
uint64_t tdat_cpu_end_ns(const struct tdat *t, unsigned cpu);

/*
 * Events lost on @cpu as the recorded CPU stats say (overrun + commit
 * overrun + dropped events); 0 when the file has no stats for it.
 */
uint64_t tdat_cpustat_lost(const struct tdat *t, unsigned cpu);

/*
 * The value of "@key=" on a line of the offcpu-ftrace option into @buf;
 * returns 0, or -ENOENT when absent (or there is no such option).
 */
int tdat_meta_get(const struct tdat *t, const char *key, char *buf, size_t len);
/* The "cgroups:" section's "TID PATH" lines (to the end of the text), or NULL. */
const char *tdat_cgroups(const struct tdat *t);

/*
 * Events lost per CPU into @lost[0..@ncpu): the capture's own "lost="
 * counts when it wrote them (they include what the page headers said),
 * else the recorded CPU stats where they say more than @lost holds.
 */
void tdat_lost(const struct tdat *t, uint64_t *lost, unsigned ncpu);

/*
 * The recording's clock into @clock (ours, else TRACECLOCK or v7's
 * BUFFER option, else "unknown"), and the capture's window into
 * *@start, *@end when it gave one (else they keep first to last event).
 */
void tdat_clock_window(const struct tdat *t, char *clock, size_t len, uint64_t *start,
		       uint64_t *end);

/* The recorded run's scope (scope=, scope_id=, ...); kind "" when absent. */
void tdat_scope(const struct tdat *t, struct rec_scope *s);

/*
 * Which switches the recording holds (cpu_switches=): enum bk_switches.
 * Where it does not say (older recordings, trace-cmd's): one of every
 * thread may lack switches out of idle (BK_SW_LOSSY), one of a command,
 * process or thread holds only theirs (BK_SW_SELECTED).
 */
int tdat_switches(const struct tdat *t);

/*
 * Each CPU's idle time in the recorded window (proc_idle_ns=, "-" for a
 * CPU /proc/stat did not list) into @ns and @listed, @max at most;
 * returns how many, 0 when the recording has none.
 */
unsigned tdat_proc_idle(const struct tdat *t, uint64_t *ns, bool *listed, unsigned max);

/*
 * Thread @tid's process as the recording's saved_tgids list it: the tgid,
 * -1 when the list lacks it, -2 when the recording has no list.
 */
int32_t tdat_tgid(struct tdat *t, int32_t tid);

#endif
