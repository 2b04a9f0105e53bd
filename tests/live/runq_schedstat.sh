#!/bin/bash
# Ground truth: per-thread run-queue sums and counts from `runq -L` must
# match the kernel's own schedstat (run_delay, pcount) for threads that
# live entirely inside the window: three spinners and a nice-19 sleeper
# pinned to one CPU.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ "$(nproc)" -ge 1 ] || skip "no CPUs?"
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save

cpu=$(( $(nproc) - 1 ))
run_bg "$TMP/runq.json" "$TMP/runq.err" runq -L --format=json ${BACKEND:+--backend=$BACKEND} 4
wait_banner "$TMP/runq.err"
# long enough that one wait lost to a missing switch stays under 2%
"$WORKLOAD" runq "$cpu" 3 1000 > "$TMP/wl.json" &
wl=$!
BG_PIDS="$BG_PIDS $wl"
wait "$TOOL_PID" || { cat "$TMP/runq.err"; fail "runq exited with $?"; }
kill "$wl"; wait "$wl" 2>/dev/null
check_restored "runq -L --format=json 4"

"$PY" "${srcdir:-.}/tests/live/check_runq.py" "$TMP/runq.json" "$TMP/wl.json" ||
	fail "run-queue sums do not match schedstat"
