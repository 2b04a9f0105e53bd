#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Peak RSS of "offcpu-ftrace runq" and "offcpu -K" for a short and a long
# window under the same load, on every backend this host has: the tool's
# memory must not grow with the window or the backlog.
#
#   bench/memory.sh [--quick]        (root; run.sh runs it)
#
# Load: two loops of "perf bench sched pipe" (the highest sched event rate
# on a 2-CPU host), running through every window. Windows: 10 s and 60 s
# (--quick: 2 s and 6 s), each command with each backend (BACKENDS, default
# ring, perf, proc, and hist where the kernel has hist triggers). Peak RSS
# is GNU time's maximum resident set size of the tool; VmHWM is also
# sampled every second from /proc/PID/status to show its course.
#
# Writes $BENCH_RESULTS/memory.tsv and prints it.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
if [ "$QUICK" = 1 ]; then
	WINDOWS=${WINDOWS:-2 6}
else
	WINDOWS=${WINDOWS:-10 60}
fi
CMDS=${CMDS:-runq offcpu-K}
PIPE_LOOPS=20000

bench_setup
if [ -z "${BACKENDS:-}" ]; then
	BACKENDS="ring perf proc"
	"$TOOL" info 2> /dev/null | grep -q '^hist triggers: *yes' && BACKENDS="hist $BACKENDS"
fi
OUT=${BENCH_RESULTS:-$WORK}/memory.tsv
: > "$OUT"

note "load: 2 loops of perf bench sched pipe -l $PIPE_LOOPS; windows: $WINDOWS s; backends: $BACKENDS; commands: $CMDS"
load_start
sleep 1
for c in $CMDS; do
for b in $BACKENDS; do
	for w in $WINDOWS; do
		name=mem.$c.$b.$w
		case $c in
		offcpu-K) cmd=(offcpu -K) ;;
		*) cmd=("$c") ;;
		esac
		lock_tracefs
		start_tracer "$name" stderr "Hit Ctrl-C" \
			"$TOOL" "${cmd[@]}" --backend="$b" --format=json "$w" ||
			die "offcpu-ftrace ${cmd[*]} --backend=$b did not start"
		TOOL_PIDS+=("$TR_PID")
		series=()
		while _alive "$TR_PID"; do
			hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$TR_PID/status" 2> /dev/null)
			[ -n "$hwm" ] && series+=("$hwm")
			sleep 1
		done
		wait_tracer 60
		unlock_tracefs
		[ "$TR_RC" = 0 ] || die "offcpu-ftrace ${cmd[*]} --backend=$b $w exited $TR_RC: $(tail -n 2 "$WORK/$name.log")"
		[ -z "$(tool_leftovers)" ] || die "offcpu-ftrace left its instance behind"
		ev=$(json_events "$WORK/$name.out")
		lost=$(jq '.events.lost // 0' "$WORK/$name.out")
		win=$(jq .window.duration_s "$WORK/$name.out")
		# VmHWM one second in, and last seen before exit
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$b" "$w" "$TR_RSS_KB" "$ev" "$lost" "$win" \
			"${series[1]:-${series[0]:--}}" "${series[-1]:--}" >> "$OUT"
		note "${cmd[*]} --backend=$b $w s: peak RSS $TR_RSS_KB KiB, $ev events, $lost lost; VmHWM every s: ${series[*]}"
	done
done
done
load_stop
echo "# command backend window_s peak_rss_kb events lost window_s vmhwm_at_1s_kb vmhwm_last_kb"
cat "$OUT"
