#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder over a long run at the pipe2 rate: its memory must
# stay flat once the store holds --flight SECS (or its bound), and its CPU
# cost is set against plain runq on the same backend under the same load.
#
#   bench/flight.sh [--quick]        (root; bench/run.sh --only flight)
#
# Load: two loops of "perf bench sched pipe -l 20000" (pipe2), all along;
# each loop counts its runs, so the load's throughput under each tracer is
# known. Runs, one after the other:
#   runq --record FILE --flight SECS --runq-over 3600000000  FLIGHT_DURATION s
#       (a trigger that never fires: the store fills and rolls)
#   runq                                                     PLAIN_DURATION s
# both --backend=ring. Every 10 s: VmRSS and the tracer's CPU time.
# Defaults: FLIGHT_SECS 30, FLIGHT_DURATION 3600, PLAIN_DURATION 300
# (--quick: 10, 60, 30).
#
# Writes $BENCH_RESULTS/flight.tsv (one line per sample) and a summary.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
if [ "$QUICK" = 1 ]; then
	FLIGHT_SECS=${FLIGHT_SECS:-10} FLIGHT_DURATION=${FLIGHT_DURATION:-60}
	PLAIN_DURATION=${PLAIN_DURATION:-30}
else
	FLIGHT_SECS=${FLIGHT_SECS:-30} FLIGHT_DURATION=${FLIGHT_DURATION:-3600}
	PLAIN_DURATION=${PLAIN_DURATION:-300}
fi
PIPE_LOOPS=20000

bench_setup
OUT=${BENCH_RESULTS:-$WORK}/flight.tsv
: > "$OUT"

# run NAME DURATION ARGS...: the tracer under the load, sampled every 10 s
run() {
	local name=$1 dur=$2 t0 r0 r1 c0 ns f rss el
	shift 2
	lock_tracefs
	start_tracer "$name" stderr "Hit Ctrl-C" "$TOOL" "$@" --backend=ring --format=json "$dur" ||
		die "offcpu-ftrace $* did not start"
	TOOL_PIDS+=("$TR_PID")
	t0=$EPOCHREALTIME
	r0=$(load_runs)
	c0=0
	while _alive "$TR_PID"; do
		sleep 10
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$TR_PID/status" 2> /dev/null)
		[ -n "$rss" ] || break
		ns=0
		for f in /proc/"$TR_PID"/task/*/schedstat; do
			read -r c _ < "$f" 2> /dev/null && ns=$((ns + c))
		done
		el=$(elapsed "$t0" "$EPOCHREALTIME")
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$el" "$rss" "$ns" "$(( $(load_runs) - r0 ))" >> "$OUT"
	done
	r1=$(load_runs)
	wait_tracer 120
	unlock_tracefs
	[ "$TR_RC" = 0 ] || die "offcpu-ftrace $* exited $TR_RC: $(tail -n 2 "$WORK/$name.log")"
	[ -z "$(tool_leftovers)" ] || die "offcpu-ftrace left its instance behind"
	note "$name: ${dur} s, peak RSS $TR_RSS_KB KiB, $((r1 - r0)) load runs, $(json_events "$WORK/$name.out") events, $(jq '.events.lost // 0' "$WORK/$name.out") lost"
}

note "load: 2 loops of perf bench sched pipe -l $PIPE_LOOPS; flight $FLIGHT_SECS s over $FLIGHT_DURATION s; plain runq over $PLAIN_DURATION s"
load_start count
sleep 1
run flight "$FLIGHT_DURATION" runq --record "$WORK/flight.dat" --flight "$FLIGHT_SECS" --runq-over 3600000000
run plain "$PLAIN_DURATION" runq
load_stop
[ ! -e "$WORK/flight.dat" ] || note "a trigger fired: $WORK/flight.dat was saved"
echo "# name elapsed_s vmrss_kb tracer_cpu_ns load_runs"
cat "$OUT"
# per run: RSS at the first sample past FLIGHT_SECS + 2 and at the end;
# the tracer's CPU and the load's runs per second of window
awk -F '\t' -v secs="$FLIGHT_SECS" '
	{ n[$1]++; last_t[$1] = $2; last_rss[$1] = $3; cpu[$1] = $4; runs[$1] = $5
	  if (!($1 in warm) && $2 > secs + 2) warm[$1] = $3
	  if ($3 > peak[$1]) peak[$1] = $3 }
	END {
		for (k in n)
			printf "# %s: RSS after the window filled %s KiB, at the end %s KiB (peak %s); tracer CPU %.3f s per s; load %.2f runs per s\n",
				k, (k in warm ? warm[k] : "-"), last_rss[k], peak[k], cpu[k] / 1e9 / last_t[k], runs[k] / last_t[k]
	}' "$OUT"
