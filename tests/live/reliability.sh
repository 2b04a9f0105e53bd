#!/bin/bash
# Never break the host, never lie: two different runs at once both stay
# correct; a run beside another tracer's trace_pipe reader leaves that
# reader's events intact; an overloaded run (tiny buffers, the
# reader stopped) reports its losses per CPU, marks the result partial in
# text and JSON, and exits 3 with --strict.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save
cpu=$(( $(nproc) - 1 ))

# 1. runq and offcpu at once, on the schedstat ground-truth workload
run_bg "$TMP/runq.json" "$TMP/e1" runq -L --format=json 4
p1=$TOOL_PID
run_bg "$TMP/off.json" "$TMP/e2" offcpu -L -m --format=json 4
p2=$TOOL_PID
wait_banner "$TMP/e1"
wait_banner "$TMP/e2"
"$WORKLOAD" runq "$cpu" 3 1000 > "$TMP/wl.json" &
wl=$!
BG_PIDS="$BG_PIDS $wl"
wait $p1 || fail "runq exited $?"
wait $p2 || fail "offcpu exited $?"
kill $wl; wait $wl 2>/dev/null
"$PY" "${srcdir:-.}/tests/live/check_runq.py" "$TMP/runq.json" "$TMP/wl.json" ||
	fail "runq beside offcpu does not match schedstat"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["command"] == "offcpu" and r["groups"]' "$TMP/off.json" ||
	fail "offcpu beside runq printed nothing"
check_restored "runq and offcpu at once"

# 2. another tracer with its own reader: its events must all arrive. (Its
# own instance, not the top-level buffer: enabling an event there would
# allocate the top-level ring buffer for good, which this test must not.)
FOREIGN="$T/instances/foreign-reader.$$"
mkdir "$FOREIGN" || fail "cannot create $FOREIGN"
trap 'rmdir "$FOREIGN" 2>/dev/null; cleanup_tmp' EXIT
echo 1 > "$FOREIGN/events/sched/sched_process_exec/enable"
cat "$FOREIGN/trace_pipe" > "$TMP/pipe.txt" &
reader=$!
run_bg "$TMP/o" "$TMP/e3" runq 2
wait_banner "$TMP/e3"
for i in 1 2 3 4 5; do /bin/true; done
wait "$TOOL_PID" || fail "runq beside a trace_pipe reader exited $?"
for i in 1 2 3 4 5; do /bin/true; done
sleep 0.3
kill $reader; wait $reader 2>/dev/null
n=$(grep -c 'sched_process_exec:.*filename=/bin/true' "$TMP/pipe.txt")
[ "$n" = 10 ] || { cat "$TMP/pipe.txt"; fail "the other tracer's reader got $n of 10 exec events"; }
echo 0 > "$FOREIGN/events/sched/sched_process_exec/enable"
rmdir "$FOREIGN" || fail "cannot remove $FOREIGN"
note "another tracer's trace_pipe reader: 10 of 10 events"
check_restored "beside a trace_pipe reader"

# 3. overload, made deterministic: 64 KiB buffers, and while the reader is
# stopped a burst the test controls (a ping-pong of 20000 round trips,
# at least 80000 sched events) that no 64 KiB buffer can hold. Each
# backend that can trace here, as a sysadmin would pick it.
for be in ring perf; do
	for fmt in bcc json; do
		run_bg "$TMP/over.$fmt" "$TMP/over.err" runq --backend=$be --buffer-size 64 --strict --format=$fmt 60
		wait_banner "$TMP/over.err"
		kill -STOP "$TOOL_PID"
		burst
		kill -CONT "$TOOL_PID"
		sleep 0.2
		kill -INT "$TOOL_PID"
		wait "$TOOL_PID"; rc=$?
		[ $rc = 3 ] || { cat "$TMP/over.err" "$TMP/over.$fmt"; fail "$be: overloaded --strict run exited $rc, want 3"; }
		grep -Eq "results are partial \(--strict\): [0-9]+ events? (was|were) lost" "$TMP/over.err" ||
			fail "$be: no partial notice on stderr: $(cat "$TMP/over.err")"
	done
	grep -Eq "^# lost events: [0-9]+ \(cpu[0-9]+ [0-9]+.*\): histogram is partial" "$TMP/over.bcc" ||
		{ cat "$TMP/over.bcc"; fail "$be: text output does not report losses per CPU"; }
	"$PY" - "$TMP/over.json" <<'PY' || fail "$be: JSON does not mark the result partial"
import json, sys
r = json.load(open(sys.argv[1]))
e = r["events"]
assert r["partial"] is True and e["lost"] > 0 and sum(e["lost_per_cpu"]) == e["lost"], e
print("overload: lost %d of %d events, per CPU %r" % (e["lost"], e["lost"] + e["sched_switch"] + e["sched_wakeup"], e["lost_per_cpu"]))
PY
	note "$be: $(grep '^# lost' "$TMP/over.bcc")"
	check_restored "overload ($be)"
done
