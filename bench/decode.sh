#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Decode + analysis throughput, next to perf sched timehist.
#
#   bench/decode.sh [--quick]        (root; run.sh runs it)
#
# 1. Builds bench/decode_bench.c against the tree's libraries (build.sh).
# 2. Captures real pages of this host: a private tracefs instance
#    "bench-decode.<pid>" records sched_switch/wakeup/wakeup_new (mono
#    clock, as the tool sets it) while the workload runs, and its
#    per_cpu/cpuN/trace_pipe_raw are read as they fill (non-blocking reads
#    every 50 ms, like the tool's timer) into cpuN.raw.
# 3. decode_bench times page_cursor_load/next + decode_record (+ merge +
#    analyzer_feed) over those pages on one core: events per CPU second.
# 4. perf sched record of the same workload, then perf sched timehist on
#    it: samples per CPU second of timehist.
# Prints "key value" lines (also in $BENCH_RESULTS/decode.txt when set).
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
if [ "$QUICK" = 1 ]; then
	PIPE_LOOPS=${PIPE_LOOPS:-20000} HB_GROUPS=${HB_GROUPS:-4} HB_LOOPS=${HB_LOOPS:-100}
	MIN_S=${DECODE_MIN_S:-0.3}
else
	PIPE_LOOPS=${PIPE_LOOPS:-150000} HB_GROUPS=${HB_GROUPS:-4} HB_LOOPS=${HB_LOOPS:-600}
	MIN_S=${DECODE_MIN_S:-2}
fi
CAPTURE_KB=${CAPTURE_KB:-65536}

bench_setup
OUTF=${BENCH_RESULTS:+$BENCH_RESULTS/decode.txt}
out() {
	echo "$1 $2"
	[ -n "$OUTF" ] && echo "$1 $2" >> "$OUTF"
	return 0
}

capture_workload() {
	run_workload pipe2
	run_workload hackbench
}

note "building decode_bench"
BIN=$("$BENCH_DIR/build.sh" "$WORK/build") || die "build.sh failed"

# ---- capture
CAP=$WORK/pages
mkdir -p "$CAP"
NAME=bench-decode.$$
lock_tracefs
instance_new "$NAME"
I=$T/instances/$NAME
echo 0 > "$I/tracing_on"
echo mono > "$I/trace_clock" 2> /dev/null || echo global > "$I/trace_clock"
echo "$CAPTURE_KB" > "$I/buffer_size_kb"
echo 0 > "$I/options/overwrite"
cp "$T/events/header_page" "$CAP/header_page"
for e in sched_switch sched_wakeup sched_wakeup_new; do
	[ -e "$I/events/sched/$e/enable" ] || continue
	cp "$T/events/sched/$e/format" "$CAP/$e.format"
	echo 1 > "$I/events/sched/$e/enable"
done
readers=()
for d in "$I"/per_cpu/cpu*; do
	n=${d##*/cpu}
	: > "$CAP/cpu$n.raw"
	(
		# each dd reads what is there, page by page, and stops at EAGAIN
		while [ ! -e "$CAP/stop" ]; do
			dd if="$d/trace_pipe_raw" iflag=nonblock bs=4096 status=none 2> /dev/null
			sleep 0.05
		done
		dd if="$d/trace_pipe_raw" iflag=nonblock bs=4096 status=none 2> /dev/null
	) >> "$CAP/cpu$n.raw" &
	readers+=("$!")
	BG_PIDS+=("$!")
done
note "capturing pages: $(workload_desc pipe2), then $(workload_desc hackbench)"
echo 1 > "$I/tracing_on"
capture_workload
echo 0 > "$I/tracing_on"
touch "$CAP/stop"
for p in "${readers[@]}"; do
	wait "$p"
	_forget BG_PIDS "$p"
done
dropped=0
for s in "$I"/per_cpu/cpu*/stats; do
	dropped=$((dropped + $(awk '/^dropped events:/ { print $3 } /^overrun:/ { print $2 }' "$s" | paste -sd+ | bc)))
done
instance_remove "$NAME" || die "cannot remove $I"
unlock_tracefs

out capture_workload "\"$(workload_desc pipe2); $(workload_desc hackbench)\""
out capture_bytes "$(cat "$CAP"/cpu*.raw | wc -c)"
out capture_dropped "$dropped"

# ---- decode + analysis
"$BIN" "$CAP" "$MIN_S" > "$WORK/decode.out" || die "decode_bench failed"
while read -r k v; do out "$k" "$v"; done < "$WORK/decode.out"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$CAP"

# ---- perf sched timehist on a perf sched record of the same workload
lock_tracefs
start_perf_sched perf-sched-rec "$WORK/sched.data" || die "perf sched record did not start"
capture_workload
stop_perf_sched
unlock_tracefs
samples=$(perf_stat "$WORK/sched.data" SAMPLE)
lost=$(perf_stat "$WORK/sched.data" LOST)
/usr/bin/time -f '%U %S %e %M' -o "$WORK/timehist.time" \
	perf sched timehist -i "$WORK/sched.data" > /dev/null 2> "$WORK/timehist.err" ||
	die "perf sched timehist failed: $(tail -n 2 "$WORK/timehist.err")"
read -r u s e m < <(tail -n 1 "$WORK/timehist.time")
cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
out timehist_samples "${samples:-0}"
out timehist_lost "${lost:-0}"
out timehist_cpu_s "$cpu"
out timehist_wall_s "$e"
out timehist_rss_kb "$m"
out timehist_events_per_s "$(awk -v n="${samples:-0}" -v c="$cpu" 'BEGIN { printf "%.0f", (c > 0 ? n / c : 0) }')"
rm -f "$WORK/sched.data"
