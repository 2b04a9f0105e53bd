#!/bin/bash
# timehist (perf sched timehist's lines) against the kernel's own
# accounting. Three spinners, a sleeper and a reader pinned to one CPU
# (busy: the victims wait behind the spinners): per thread, the switch
# events' sch delay adds up to schedstat's run_delay, their run time to
# sum_exec_runtime (2%: check_timehist.py says the slack) and their count
# to pcount, on auto (perf here) and ring; the summary's rows are the
# events'. The live run's recording (--record), reported, gives the same
# events. --format=perfetto, live, from the recording and profile's: well-formed
# trace-event JSON whose Running slices add up to sum_exec_runtime and
# Runnable ones to run_delay. The text is perf's header and columns, with
# -w's, -M's, -V's and --state's parts; unprivileged (proc) the lines are
# refused with the reason and -s gives schedstat's totals. Where Chromium
# and speedscope (npm) are installed, speedscope opens the trace in
# headless Chromium and shows the thread's name and its running time.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save
cpu=$(( $(nproc) - 1 ))
CHECK="${srcdir:-.}/tests/live/check_timehist.py"

# run_wl OUT ERR ARGS...: the tool in the background, the workload once it traces
run_wl() {
	local out=$1 err=$2
	shift 2
	run_bg "$out" "$err" "$@"
	wait_banner "$err"
	st0=$(steal_ns "$cpu")
	"$WORKLOAD" runq "$cpu" 3 300 > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$err"; fail "timehist $* exited with $?"; }
	kill "$wl"; wait "$wl" 2>/dev/null
	steal=$(( $(steal_ns "$cpu") - st0 ))
	check_restored "timehist $*"
}

for backend in auto ring; do
	rec=
	[ $backend = auto ] && rec="--record $TMP/th.dat"
	# shellcheck disable=SC2086
	run_wl "$TMP/th.json" "$TMP/th.err" timehist --format=json -S -w --backend=$backend $rec 4
	"$PY" "$CHECK" events "$TMP/th.json" "$TMP/wl.json" "$backend" "$steal" ||
		fail "$backend: timehist's events do not match schedstat"
	[ $backend = auto ] || continue
	cp "$TMP/wl.json" "$TMP/wl_rec.json"
	"$BIN" report "$TMP/th.dat" timehist --format=json -S -w > "$TMP/rep.json" 2> "$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report FILE timehist failed"; }
	"$PY" "$CHECK" events_equal "$TMP/th.json" "$TMP/rep.json" ||
		fail "the recording's report lists other switch events than the live run"
	"$PY" "$CHECK" events "$TMP/rep.json" "$TMP/wl.json" "recording" "$steal" ||
		fail "the recording's events do not match schedstat"
	"$BIN" report "$TMP/th.dat" timehist --format=perfetto -o "$TMP/rep.trace" 2> "$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report FILE timehist --format=perfetto failed"; }
	"$PY" "$CHECK" trace "$TMP/rep.trace" "$TMP/wl.json" "recording's trace" "$steal" ||
		fail "the recording's Perfetto trace does not match schedstat"
done

# the trace, live, to standard output (streamed) and to -o FILE (spooled)
run_wl "$TMP/live.trace" "$TMP/live.err" timehist --format=perfetto 4
"$PY" "$CHECK" trace "$TMP/live.trace" "$TMP/wl.json" "live trace" "$steal" ||
	fail "the live Perfetto trace does not match schedstat"
# profile's trace: the same timeline, and its on-CPU samples as instants with their stacks
run_wl "$TMP/prof.trace" "$TMP/prof.err" profile --format=perfetto 4
"$PY" "$CHECK" trace "$TMP/prof.trace" "$TMP/wl.json" "profile's trace" "$steal" ||
	fail "profile's Perfetto trace does not match schedstat"
"$PY" - "$TMP/prof.trace" "$TMP/wl.json" <<'PYEOF' || fail "profile's trace has no samples of the workload"
import json, sys
d, wl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tids = {t["tid"] for t in wl["threads"]}
s = [e for e in d["traceEvents"] if e["ph"] == "i" and e["tid"] in tids]
assert d["otherData"]["tool"] == "offcpu-ftrace profile" and d["otherData"]["samples"] >= len(s)
assert all(e["name"] == "on-CPU sample" and e["s"] == "t" and e["args"]["period_ns"] > 0 for e in s)
print("profile's trace: %d samples of the workload, %d with a stack" %
      (len(s), sum(1 for e in s if e["args"]["stack"])))
assert len(s) >= 5 and sum(1 for e in s if e["args"]["stack"]) >= len(s) // 2
PYEOF
tid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"][0]["tid"])' "$TMP/wl_rec.json")
"$BIN" report "$TMP/th.dat" timehist --format=perfetto -t "$tid" -o "$TMP/one.trace" ||
	fail "report FILE timehist --format=perfetto -t failed"

# perf's text: header, units, dashes; a line per switch in its columns
run_wl "$TMP/th.txt" "$TMP/th.err" timehist -w -M -V --state -S 3
head -3 "$TMP/th.txt" | cut -c1-23 > "$TMP/head"
printf '%s\n' "           time    cpu " "                       " "--------------- ------ " |
	cmp -s - "$TMP/head" || { head -3 "$TMP/th.txt"; fail "not perf's header"; }
head -1 "$TMP/th.txt" | grep -q ' task name                       wait time  sch delay   run time  state$' ||
	{ head -1 "$TMP/th.txt"; fail "not perf's columns"; }
re=' +[0-9]+\.[0-9]{6} \[[0-9]{4}\]  [ si]+  workload\[[0-9]+/[0-9]+\] +( +[0-9]+\.[0-9]{3} ){3} +[RSD+|]+ $'
n=$(grep -cE "$re" "$TMP/th.txt")
[ "$n" -ge 40 ] || { head -40 "$TMP/th.txt"; fail "only $n of the workload's lines in perf's layout"; }
grep -qE 'awakened: workload\[[0-9]+/[0-9]+\]$' "$TMP/th.txt" || fail "-w: no 'awakened:' line"
if grep -q 'migrated:' "$TMP/th.txt"; then
	grep -qE ' migrated: .*\] cpu [0-9]+ => [0-9]+$' "$TMP/th.txt" || fail "-M: not perf's migration line"
fi
# -S with --state: perf's wait-time summary (the JSON's summary above has the rest)
grep -q '^Wait-time summary' "$TMP/th.txt" && grep -qE '^ +comm +sched-in +run-time +sleep +iowait +preempt +delay$' "$TMP/th.txt" ||
	fail "-S --state: not perf's wait-time summary"
note "text: $n workload lines in perf's layout"

# unprivileged: the lines refused, saying what /proc gives; -s from schedstat
"$BIN" timehist --backend=proc 1 > /dev/null 2> "$TMP/proc.err" && fail "timehist ran on the proc backend"
grep -q 'needs traced sched events, not available unprivileged.*timehist -s gives each thread' "$TMP/proc.err" ||
	{ cat "$TMP/proc.err"; fail "the proc backend's refusal does not say what -s gives"; }
[ "$(wc -l < "$TMP/proc.err")" = 1 ] || { cat "$TMP/proc.err"; fail "the refusal is not one line"; }
run_wl "$TMP/proc.json" "$TMP/proc.err" timehist -s --format=json --backend=proc 4
"$PY" - "$TMP/proc.json" "$TMP/wl.json" <<'PYEOF' || fail "proc: timehist -s does not give schedstat's totals"
import json, sys
out, wl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert out["backend"] == "proc" and out["timehist"]["events"] == [], out["backend"]
rows = {r["tid"]: r for r in out["summary"]["rows"]}
for t in wl["threads"]:
    r = rows[t["tid"]]
    assert r["source"] == "proc" and r["run"]["min_ns"] is None, r
    print("proc: tid %d: runs %d (pcount %d), run %.3f ms (%.3f), delay %.3f ms (%.3f)" % (
        t["tid"], r["run"]["count"], t["pcount"], r["run"]["total_ns"] / 1e6, t["run_ns"] / 1e6,
        r["delay"]["total_ns"] / 1e6, t["run_delay_ns"] / 1e6))
    # the sampler's deltas: from the thread's start (it began in the window)
    assert abs(r["run"]["count"] - t["pcount"]) <= 2, r
    assert abs(r["run"]["total_ns"] - t["run_ns"]) <= 0.001 * t["run_ns"] + 1000, r
    assert abs(r["delay"]["total_ns"] - t["run_delay_ns"]) <= 0.001 * t["run_delay_ns"] + 1000, r
PYEOF

# speedscope (npm) in headless Chromium: the thread's trace opens, named
# as the trace names it, with the running time the trace holds
ss=$(npm root -g 2>/dev/null)/speedscope/dist/release
if ! command -v chromium > /dev/null; then
	note "chromium not installed (apt-get install chromium): the trace was not opened in speedscope"
elif [ ! -f "$ss/index.html" ]; then
	note "speedscope not installed (npm install -g speedscope): the trace was not opened in it"
else
	cp -r "$ss" "$TMP/www"
	cp "$TMP/one.trace" "$TMP/www/one.json"
	port=$(( 20000 + $$ % 20000 ))
	(cd "$TMP/www" && exec "$PY" -m http.server "$port" --bind 127.0.0.1) > "$TMP/http.log" 2>&1 &
	HTTP=$!
	BG_PIDS="$BG_PIDS $HTTP"
	for _ in $(seq 1 100); do
		grep -q "Serving HTTP" "$TMP/http.log" && break
		sleep 0.05
	done
	mkdir -p "$TMP/chrome"
	HOME="$TMP/chrome" timeout 90 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TMP/chrome" --virtual-time-budget=5000 --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/one.json&view=sandwich" \
		> "$TMP/dom" 2> "$TMP/chrome.log" &
	CHROME=$!
	BG_PIDS="$BG_PIDS $CHROME"
	wait $CHROME || { tail -5 "$TMP/chrome.log"; fail "chromium failed"; }
	kill "$HTTP"; wait "$HTTP" 2>/dev/null
	grep -q 'GET /one.json HTTP/1.1" 200' "$TMP/http.log" || fail "speedscope did not fetch the trace"
	"$PY" - "$TMP/dom" "$TMP/one.trace" "$TMP/wl_rec.json" "$tid" <<'PYEOF' || fail "speedscope does not show the trace's thread and times"
import html, json, re, sys
dom, d, wl, tid = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), int(sys.argv[4])
text = [html.unescape(t.strip()) for t in re.sub(r"<[^>]+>", "\n", dom).split("\n") if t.strip()]
name = "workload (pid %d, tid %d)" % (wl["pid"], tid)
assert name in text, ("the thread's name is not shown", text[:40])
# sandwich view: Total, Self, then the frame's name; Running's per CPU
unit = {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}
shown = 0.0
for i, t in enumerate(text):
    if t.startswith("Running {"):
        m = re.fullmatch(r"([0-9.]+)(ns|µs|ms|s) \(.*\)", text[i - 1])
        assert m, text[i - 2:i + 1]
        shown += float(m.group(1)) * unit[m.group(2)]
want = sum(e["dur"] for e in d["traceEvents"] if e["ph"] == "X" and e["tid"] == tid and e["name"] == "Running")
print("speedscope: %s, running %.3f ms shown, %.3f ms in the trace" % (name, shown / 1e3, want / 1e3))
# speedscope shows three or four significant digits
assert want > 0 and abs(shown - want) <= 0.01 * want, (shown, want)
PYEOF
fi
echo "PASS"
