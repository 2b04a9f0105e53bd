#!/bin/bash
# A thread sleeping 20 ms N times shows N off-CPU intervals in the
# [16 ms, 32 ms) bucket of `offcpu -L -m`, in each text format too.
# The sleeper shares its CPU with a SCHED_IDLE spinner so the CPU never
# idles: the 6.18 development host often fails to deliver switches from an
# idle CPU's idle task to ftrace and perf (see docs/design.md), which is
# not what this test is about.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save
N=15
cpu=$(( $(nproc) - 1 ))

run_bg "$TMP/off.json" "$TMP/off.err" offcpu -L -m --format=json ${BACKEND:+--backend=$BACKEND} 2
wait_banner "$TMP/off.err"
"$WORKLOAD" sleep $N 20 $cpu > "$TMP/wl.json" &
wl=$!
BG_PIDS="$BG_PIDS $wl"
wait "$TOOL_PID" || { cat "$TMP/off.err"; fail "offcpu exited with $?"; }
kill "$wl"; wait "$wl" 2>/dev/null
check_restored "offcpu -L -m --format=json 2"

"$PY" - "$TMP/off.json" "$TMP/wl.json" $N <<'PY' || fail "sleep intervals not found"
import json, sys
out = json.load(open(sys.argv[1])); wl = json.load(open(sys.argv[2])); n = int(sys.argv[3])
assert out["command"] == "offcpu" and out["unit"] == "msecs"
tid = wl["threads"][0]["tid"]
g = [g for g in out["groups"] if g["tid"] == tid]
assert g, "sleeper tid %d not in output" % tid
b = {(x["low"], x["high"]): x["count"] for x in g[0]["buckets"]}
print("sleeper", tid, "buckets", b, "incomplete", out["incomplete"])
assert b.get((16, 31)) == n, "expected %d intervals in [16, 32) ms" % n
# nothing longer; shorter ones are the thread's migration to its CPU
assert max(high for low, high in b) == 31, "intervals beyond 32 ms"
# off-CPU = the thread's wall time minus its CPU time from just before its
# creation to parking (the workload's clocks): the sleeps, their timer
# slack, the waits for a CPU after each wakeup and a late timer's delay (a
# hypervisor taking the CPU away), the migration to its CPU; within 1% plus
# 100 us an interval. That span also holds the thread's wait for its first
# CPU, which is no off-CPU interval (a wait, in run_delay): ours may be
# short by its run_delay, and by the inferred intervals' margin
t = wl["threads"][0]
truth = t["life_ns"] - t["life_run_ns"]
slack = 0.01 * truth + 100000 * g[0]["count"]
print("off-CPU %d ns in %d intervals; wall - CPU time %d ns (%+.2f%%)" %
      (g[0]["sum_ns"], g[0]["count"], truth, 100 * (g[0]["sum_ns"] - truth) / truth))
assert g[0]["sum_ns"] >= 0.99 * n * 20e6, "shorter than %d sleeps of 20 ms" % n
assert (truth - t["run_delay_ns"] - slack - out["incomplete"]["inferred_slack_ns"] <= g[0]["sum_ns"]
        <= truth + slack), \
    "sum %d ns, wall - CPU time %d ns" % (g[0]["sum_ns"], truth)
PY

# The same in the two text layouts: a section for the thread with the row.
for fmt in bcc bpftrace; do
	run_bg "$TMP/off.txt" "$TMP/off.err" offcpu -L -m --format=$fmt ${BACKEND:+--backend=$BACKEND} 2
	wait_banner "$TMP/off.err"
	"$WORKLOAD" sleep $N 20 $cpu > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || fail "offcpu --format=$fmt exited with $?"
	kill "$wl"; wait "$wl" 2>/dev/null
	tid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"][0]["tid"])' "$TMP/wl.json")
	if [ $fmt = bcc ]; then
		awk -v t="tid = $tid workload" '$0 == t { f = 1; next } f && /^ *16 -> 31 / { print; exit }' "$TMP/off.txt" > "$TMP/row"
		grep -Eq "^ +16 -> 31 +: $N +\|" "$TMP/row" || { cat "$TMP/off.txt"; fail "bcc row 16 -> 31 : $N not found for tid $tid"; }
	else
		awk -v t="@msecs[$tid]: " '$0 == t { f = 1; next } f && /^\[16, 32\)/ { print; exit }' "$TMP/off.txt" > "$TMP/row"
		grep -Eq "^\[16, 32\) +$N \|" "$TMP/row" || { cat "$TMP/off.txt"; fail "bpftrace row [16, 32) $N not found for tid $tid"; }
	fi
	note "$fmt layout: $(cat "$TMP/row")"
done
check_restored "offcpu text formats"
