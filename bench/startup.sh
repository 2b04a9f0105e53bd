#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Startup and teardown of the tracers, idle and under load.
#
#   bench/startup.sh [--quick]        (root; run.sh runs it)
#
# startup:  launch -> tracing on. offcpu-ftrace prints "... Hit Ctrl-C to
#           end." on stderr right after it turned tracing on; the time that
#           line is read is taken (bash $EPOCHREALTIME, no fork). The same
#           for bpftrace's BEGIN line (printed once its probes are attached)
#           and perf sched record's "Events enabled".
# teardown: offcpu-ftrace is run with a 1 s window and exits by itself:
#           exit - (tracing on + 1 s), i.e. the final drain of the buffers,
#           the report and the removal of its instance. bpftrace and perf
#           have no window: SIGINT -> exit.
# Each run goes through GNU time (for the script's bookkeeping), which adds
# a fork+exec (~1 ms) to startup.
#
# Writes $BENCH_RESULTS/startup.tsv and prints it.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
REPS=${REPS:-3}
[ "$QUICK" = 1 ] && REPS=${REPS_QUICK:-2}
PIPE_LOOPS=20000

bench_setup
OUT=${BENCH_RESULTS:-$WORK}/startup.tsv
: > "$OUT"
ulimit -l unlimited 2> /dev/null || true

TRACERS=(ring-runq perf-runq ring-offcpu ring-offcpu-K perf-offcpu-K)
command -v bpftrace > /dev/null && TRACERS+=("bpftrace-runqlat")
TRACERS+=("perf-sched-record")

# one TRACER COND REP
one() {
	local tr=$1 name="st.$2.$3" start down
	local -a args
	lock_tracefs
	case $tr in
	ring-* | perf-runq | perf-offcpu*)
		case $tr in
		*-runq) args=(runq) ;;
		*-offcpu) args=(offcpu) ;;
		*-offcpu-K) args=(offcpu -K) ;;
		esac
		start_tracer "$name" stderr "Hit Ctrl-C" \
			"$TOOL" "${args[@]}" --backend="${tr%%-*}" --format=json 1 ||
			die "offcpu-ftrace $tr did not start"
		TOOL_PIDS+=("$TR_PID")
		wait_tracer 60
		[ "$TR_RC" = 0 ] || die "offcpu-ftrace $tr exited $TR_RC"
		down=$(awk -v r="$TR_READY" -v x="$TR_EXIT" 'BEGIN { printf "%.6f", x - r - 1 }') ;;
	bpftrace-runqlat)
		start_tracer "$name" stdout "Hit Ctrl-C" bpftrace "$BENCH_DIR/runqlat.bt" ||
			die "bpftrace did not start"
		sleep 1
		stop_tracer
		down=$(elapsed "$TR_STOP" "$TR_EXIT") ;;
	perf-sched-record)
		start_perf_sched "$name" "$WORK/$name.data" || die "perf sched record did not start"
		sleep 1
		stop_perf_sched
		rm -f "$WORK/$name.data"
		down=$(elapsed "$TR_STOP" "$TR_EXIT") ;;
	esac
	unlock_tracefs
	start=$(elapsed "$TR_LAUNCH" "$TR_READY")
	printf '%s\t%s\t%s\t%s\t%s\n' "$tr" "$2" "$3" "$start" "$down" >> "$OUT"
	rm -f "$WORK/$name".*
}

for cond in idle load; do
	[ "$cond" = load ] && load_start && sleep 1
	note "startup/teardown, $cond: $REPS runs of each of ${#TRACERS[@]} tracers"
	for ((r = 1; r <= REPS; r++)); do
		for tr in "${TRACERS[@]}"; do
			one "$tr" "$cond" "$r"
		done
	done
	[ "$cond" = load ] && load_stop
done
echo "# tracer condition rep startup_s teardown_s"
cat "$OUT"
