#!/bin/bash
# The proc backend, as an unprivileged CI job meets it (run as nobody, who
# can read neither tracefs nor perf tracepoints here), against the kernel's
# own numbers:
#   - runq -L of spinners sharing one CPU: per-thread run-queue totals and
#     counts equal to their own schedstat (the workload reads it) within 2%,
#     and no histogram made up;
#   - offcpu -L of a thread sleeping 20 ms 40 times (-- COMMAND, --rate 200
#     so the period lost when it exits is short): 40 intervals, ~800 ms;
#   - offcpu -K of a pipe reader: its blocked time under the pipe read frame
#     (wchan: the user's own process);
#   - triage of spinners sharing one CPU: cpu_contention;
#   - info says proc, every output says it is sampled, what proc cannot do
#     fails with one line; as root the same commands use a tracing backend.
. "${srcdir:-.}/tests/live/lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: the test runs the tool as nobody through su"
command -v su > /dev/null || skip "no su"
command -v "$PY" > /dev/null || skip "python3 not found"
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
live_lock	# its last run traces as root: not beside another test's snapshots
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
BIN=$(abs "$BIN")
WORKLOAD=$(abs "$WORKLOAD")
su nobody -s /bin/sh -c "test -x '$BIN' && test -x '$WORKLOAD'" ||
	skip "nobody cannot run $BIN (a directory on the way is not world-readable)"
chmod 0777 "$TMP"
cpu=$(( $(nproc) - 1 ))

asnobody() {	# OUT ERR ARGS...: the tool as nobody
	local out=$1 err=$2
	shift 2
	su nobody -s /bin/sh -c "cd '$TMP' && WORKLOAD_EXIT=\${WORKLOAD_EXIT:-} WORKLOAD_LINGER_MS=\${WORKLOAD_LINGER_MS:-} exec '$BIN' $*" \
		> "$out" 2> "$err"
}

# info: an unprivileged user gets proc here, and is told why
asnobody "$TMP/info" "$TMP/info.err" info || fail "info as nobody exited $?"
grep -q '^backend runq: *proc (' "$TMP/info" || skip "nobody can trace on this host: $(grep '^backend runq' "$TMP/info")"
note "nobody: $(grep '^backend runq' "$TMP/info" | cut -c1-160)"

# runq totals against schedstat
su nobody -s /bin/sh -c "exec '$BIN' runq -L -c workload --format=json 4" > "$TMP/runq.json" 2> "$TMP/runq.err" &
tool=$!
BG_PIDS="$BG_PIDS $tool"
sleep 0.5
"$WORKLOAD" runq "$cpu" 3 1000 > "$TMP/wl.json" &
wl=$!
BG_PIDS="$BG_PIDS $wl"
wait "$tool" || { cat "$TMP/runq.err"; fail "runq as nobody exited $?"; }
kill "$wl"; wait "$wl" 2>/dev/null
grep -q 'sampling /proc at 20 Hz' "$TMP/runq.err" || fail "no notice of the sampled mode: $(cat "$TMP/runq.err")"
"$PY" "${srcdir:-.}/tests/live/check_runq.py" "$TMP/runq.json" "$TMP/wl.json" ||
	fail "proc run-queue totals do not match schedstat"
"$PY" - "$TMP/runq.json" <<'PY' || fail "runq JSON is not marked sampled"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "proc" and d["clock"] == "sampled", (d["backend"], d["clock"])
assert d["sampled"]["hz"] == 20 and d["sampled"]["threads"] >= 5, d["sampled"]
assert all(g["buckets"] == [] and g["p50"] is None for g in d["groups"])
PY

# a sleeper: 40 blocked intervals of 20 ms (lingering parked before it
# exits: a sampler cannot see counts made after its last sample)
WORKLOAD_EXIT=1 WORKLOAD_LINGER_MS=200 asnobody "$TMP/sl.json" "$TMP/sl.err" offcpu -L --rate 200 --format=json -- \
	"$WORKLOAD" sleep 40 20 || { cat "$TMP/sl.err"; fail "offcpu -- sleeper as nobody exited $?"; }
"$PY" - "$TMP/sl.json" <<'PY' || fail "the sleeper's off-CPU totals are off"
import json, sys
lines = open(sys.argv[1]).read().strip().splitlines()
wl, d = json.loads(lines[0]), json.loads(lines[-1])
g = {x["tid"]: x for x in d["groups"]}[wl["tid"]] if "tid" in wl else None
if g is None:
    g = max(d["groups"], key=lambda x: x["count"])
# 40 sleeps of 20 ms, then parked 200 ms (one more interval) until it exits
print("sleeper: %d intervals, %.1f ms (want 41, about 1000 ms)" % (g["count"], g["sum_ns"] / 1e6))
assert 40 <= g["count"] <= 43, g
assert 950e6 <= g["sum_ns"] <= 1100e6, g
PY
grep -q '^# CPU time seen:' <(WORKLOAD_EXIT=1 asnobody /dev/stdout /dev/null offcpu -L -- "$WORKLOAD" sleep 10 20) ||
	fail "no CPU coverage line for -- COMMAND"

# a pipe reader's blocked time is under the pipe read frame
WORKLOAD_EXIT=1 asnobody "$TMP/pipe.json" "$TMP/pipe.err" offcpu -K --format=json -- "$WORKLOAD" pipe 600 ||
	{ cat "$TMP/pipe.err"; fail "offcpu -K -- pipe reader exited $?"; }
"$PY" - "$TMP/pipe.json" <<'PY' || fail "the pipe reader's time is not under a pipe read frame"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
pipe = sum(s["total_ns"] for s in d["stacks"] if any("pipe_read" in f for f in s["frames"]))
print("under pipe_read: %.0f ms (the reader blocked 600 ms)" % (pipe / 1e6))
assert 450e6 <= pipe <= 700e6, pipe
assert d["sampled"]["stacks"] == "wchan", d["sampled"]
PY

# triage: spinners sharing one CPU contend
WORKLOAD_EXIT=1 asnobody "$TMP/tri.txt" "$TMP/tri.err" triage -- "$WORKLOAD" runq "$cpu" 3 1000 ||
	{ cat "$TMP/tri.err"; fail "triage as nobody exited $?"; }
grep -q '^verdict: cpu_contention' "$TMP/tri.txt" || { cat "$TMP/tri.txt"; fail "triage did not find the contention"; }
grep -q '^# sampled from /proc at 20 Hz' "$TMP/tri.txt" || fail "triage does not say it is sampled"

# what proc cannot measure: one line, exit 1
for bad in "offcpu --min 100 1" "runq -C 1" "offcpu --state R 1" "runq --record $TMP/x.dat 1"; do
	asnobody /dev/null "$TMP/bad.err" $bad
	rc=$?
	[ $rc = 1 ] || [ $rc = 2 ] || fail "'$bad' as nobody exited $rc"
	[ "$(wc -l < "$TMP/bad.err")" = 1 ] || fail "'$bad': $(cat "$TMP/bad.err")"
done

# as root the same command traces, where tracefs is mounted
if awk '$3 == "tracefs" { f = 1 } END { exit !f }' /proc/mounts; then
	"$BIN" runq --format=json 0.3 > "$TMP/root.json" 2> /dev/null || fail "runq as root exited $?"
	grep -q '"backend":"proc"' "$TMP/root.json" && fail "root got the proc backend"
	note "as root: backend $(sed -n 's/.*"backend":"\([a-z]*\)".*/\1/p' "$TMP/root.json")"
fi
note "proc: totals match schedstat, sleeper, pipe frame, contention"
exit 0
