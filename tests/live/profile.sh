#!/bin/bash
# profile: the wall-clock profile against the kernel's own accounting.
# Three spinners, a sleeper and a reader pinned to one CPU (busy: nothing
# lost): per thread, on-CPU time is schedstat's sum_exec_runtime (within
# 2% plus 60 us a slice, plus the CPU's steal in the window, which
# sum_exec_runtime leaves out: offcpu-ftrace-oncpu(8), ACCURACY), waiting for a
# CPU its run_delay, and on + runq + off its life in the window, on auto
# (perf: sampled, the samples' total within their sampling error) and
# ring (on-CPU from the switches, [on-cpu, no samples]); the proc backend
# has schedstat's totals exactly. A thread sleeping 20 ms at a time on
# idle CPUs, as users meet this kernel: exact on perf (40 sleeps, off-CPU
# S), and on ring exact or visibly partial (time it could not place,
# counted). Where the kernel's clock-update skip (runq(8)) moves a slow
# reschedule's delivery from run_delay to sum_exec_runtime, ours waits
# more and runs less by the same time: on + runq still their sum. The folded lines parse as flamegraph.pl and speedscope read
# them (speedscope, where installed, loads them in headless Chromium over
# a loopback HTTP server); the SVG is well-formed, draws on-CPU frames
# warm, renders in Chromium and its search finds the kinds.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save
cpu=$(( $(nproc) - 1 ))

check() {	# check OUT.json WORKLOAD.json WHAT MODE (busy|idle) STEAL_NS
	"$PY" - "$@" <<'PYEOF'
import json, math, os, sys
sys.path.insert(0, os.path.join(os.environ.get("srcdir", "."), "tests", "live"))
from kacct import skip_split, steal_slack
out, wl, what, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
# sum_exec_runtime leaves out steal, which a slice between switches holds
# (offcpu-ftrace-oncpu(8), ACCURACY): the pinned CPU's (unpinned: all
# CPUs') steal in the window
steal_allow = steal_slack(int(sys.argv[5]) if len(sys.argv) > 5 else 0)
assert out["command"] == "profile", out["command"]
# the envelope's groups: each thread's on-CPU slices, each named by its tid
assert out["key"] == "tid" and all("tid" in g for g in out["groups"]), out["key"]
p = out["profile"]
# a live run has the hypervisor's steal over its window, in USER_HZ ticks
tick = 1e9 / os.sysconf("SC_CLK_TCK")
steal = out["window"]["steal_ns"]
assert isinstance(steal, int) and steal % tick == 0, steal
rows = {t["tid"]: t for t in p["threads"]}
ok = True
s_ns = e_ns = n = 0
for t in wl["threads"]:
    g = rows.get(t["tid"])
    if g is None:
        print("%s: tid %d not in the profile" % (what, t["tid"]))
        ok = False
        continue
    total = g["on_cpu_ns"] + g["runq_ns"] + g["off_cpu_ns"]
    assert g["off_cpu_ns"] == g["off_cpu_s_ns"] + g["off_cpu_d_ns"] + g["off_cpu_other_ns"]
    print("%s: tid %d: wall %.1f ms = on %.1f (schedstat %.1f) + runq %.1f (run_delay %.1f) "
          "+ off %.1f (S %.1f), unplaced %.3f; %d samples, %.1f ms" %
          (what, t["tid"], g["wall_ns"] / 1e6, g["on_cpu_ns"] / 1e6, t["run_ns"] / 1e6,
           g["runq_ns"] / 1e6, t["run_delay_ns"] / 1e6, g["off_cpu_ns"] / 1e6,
           g["off_cpu_s_ns"] / 1e6, g["unplaced_ns"] / 1e6, g["samples"],
           g["on_cpu_sampled_ns"] / 1e6))
    assert total + g["unplaced_ns"] == g["wall_ns"] or total == g["wall_ns"], "kinds do not add up"
    # over schedstat by up to the steal, under it by the rest alone
    slack_on = 0.02 * t["run_ns"] + 60000 * t["pcount"] + steal_allow
    slack_rq = 0.02 * t["run_delay_ns"] + 60000 * t["pcount"]
    d_on = g["on_cpu_ns"] - t["run_ns"]
    exact = (d_on <= slack_on and -d_on <= slack_on - steal_allow and
             abs(g["runq_ns"] - t["run_delay_ns"]) <= slack_rq and g["unplaced_ns"] == 0)
    if mode == "proc":
        exact = (abs(g["on_cpu_ns"] - t["run_ns"]) <= 0.001 * t["run_ns"] + 1000 and
                 abs(g["runq_ns"] - t["run_delay_ns"]) <= 0.001 * t["run_delay_ns"] + 1000)
    if mode == "idle" and p["source"] != "proc":
        # 40 sleeps of 20 ms: blocked in S for at least that long
        exact = exact and g["off_cpu_s_ns"] >= 40 * 20e6 * 0.98
    skipped = (mode != "proc" and g["unplaced_ns"] == 0 and
               (mode != "idle" or g["off_cpu_s_ns"] >= 40 * 20e6 * 0.98) and
               skip_split(g["on_cpu_ns"], g["runq_ns"], t["run_ns"], t["run_delay_ns"],
                          slack_on + slack_rq))
    if not exact:
        if out["partial"] and g["unplaced_ns"] > 0 and g["on_cpu_ns"] <= t["run_ns"] + slack_on:
            print("  (partial, and says so: %.3f ms not placed)" % (g["unplaced_ns"] / 1e6))
        elif skipped:
            print("  (%s)" % skipped)
        else:
            ok = False
    s_ns += g["on_cpu_sampled_ns"]
    e_ns += g["on_cpu_ns"]
    n += g["samples"]
if p["source"] == "samples" and mode == "busy":
    # the samples' total: within four standard errors (1/sqrt(n) each)
    err = abs(s_ns - e_ns) / max(e_ns, 1)
    print("%s: samples %.1f ms against %.1f ms exact (%+.1f%%, %d samples)" %
          (what, s_ns / 1e6, e_ns / 1e6, 100 * (s_ns - e_ns) / max(e_ns, 1), n))
    if n < 20 or err > max(4 / math.sqrt(n), 0.05):
        ok = False
sys.exit(0 if ok else 1)
PYEOF
}

run_profile() {	# run_profile BACKEND WHAT MODE WORKLOAD-ARGS...
	local backend=$1 what=$2 mode=$3
	shift 3
	run_bg "$TMP/p.json" "$TMP/p.err" profile --format=json --backend="$backend" 4
	wait_banner "$TMP/p.err"
	# the steal of the CPU the threads are pinned to; unpinned, of all
	local st0 on=$cpu
	[ "$mode" = idle ] && on=
	st0=$(steal_ns $on)
	"$WORKLOAD" "$@" > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$TMP/p.err"; fail "profile --backend=$backend exited with $?"; }
	kill "$wl"; wait "$wl" 2>/dev/null
	check_restored "profile --format=json --backend=$backend 4"
	local st
	st=$(( $(steal_ns $on) - st0 ))
	local on_what="all CPUs'"
	[ -n "$on" ] && on_what="CPU $on's"
	[ "$st" -gt 0 ] && note "$what: $on_what steal grew $((st / 1000000)) ms in the window"
	check "$TMP/p.json" "$TMP/wl.json" "$what" "$mode" "$st" ||
		fail "$what: the profile neither matches schedstat nor says it is partial"
}

for backend in auto ring; do
	run_profile $backend "$backend, busy CPU" busy runq "$cpu" 3 300
	src=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["source"])' "$TMP/p.json")
	case $backend:$src in
	auto:samples|ring:switches) ;;
	*) fail "$backend: on-CPU time from '$src'" ;;
	esac
	run_profile $backend "$backend, idle CPUs" idle sleep 40 20
done
run_profile proc "proc, busy CPU" proc runq "$cpu" 3 300

# no samples on ring: the footer says where on-CPU time came from
run_bg "$TMP/ring.txt" "$TMP/ring.err" profile --backend=ring 1
wait_banner "$TMP/ring.err"
wait "$TOOL_PID" || fail "profile --backend=ring exited with $?"
check_restored "profile --backend=ring 1"
grep -q 'none here: on-CPU time comes from the switches, as \[on-cpu, no samples\]' "$TMP/ring.txt" ||
	{ cat "$TMP/ring.txt"; fail "ring: the footer does not say there are no samples"; }

# folded lines: thread first, a marker leaf, whole microseconds; the
# spinners' on-CPU lines hold their samples, by stack
WORKLOAD_EXIT=1 "$BIN" profile -f -- "$WORKLOAD" runq "$cpu" 2 300 > "$TMP/p.folded" 2> "$TMP/p.err" ||
	{ cat "$TMP/p.err"; fail "profile -f -- workload failed"; }
check_restored "profile -f -- workload"
"$PY" - "$TMP/p.folded" <<'PYEOF' || fail "the folded lines are not name;frames;[kind] N"
import re, sys
kinds = {"[on-cpu]", "[on-cpu, no samples]", "[runq]", "[off-cpu S]", "[off-cpu D]", "[off-cpu]",
         "[waiting for children]"}
n = on = 0
for line in open(sys.argv[1]):
    # a tower per name by default: no -TID
    m = re.fullmatch(r"([^;]+)((?:;[^;]+)*);([^;]+) (\d+)\n", line)
    assert not re.fullmatch(r"workload-\d+", m.group(1)), line
    assert m, line
    assert m.group(3) in kinds, line
    n += 1
    if m.group(3) == "[on-cpu]" and m.group(2):
        on += int(m.group(4))
assert n > 3, n
assert on > 0, "no sampled on-CPU stack"
print("folded: %d lines, %.1f ms on-CPU by stack" % (n, on / 1e3))
PYEOF

# -L: a tower per thread, comm-tid
WORKLOAD_EXIT=1 "$BIN" profile -f -L -- "$WORKLOAD" runq "$cpu" 1 300 > "$TMP/pL.folded" 2> "$TMP/p.err" ||
	{ cat "$TMP/p.err"; fail "profile -f -L -- workload failed"; }
check_restored "profile -f -L -- workload"
grep -Eq '^workload-[0-9]+;' "$TMP/pL.folded" ||
	{ head -5 "$TMP/pL.folded"; fail "profile -f -L: no comm-tid tower"; }

# the flame graph: well-formed, on-CPU frames warm, run-queue purple
WORKLOAD_EXIT=1 "$BIN" profile --format=svg -o "$TMP/p.svg" -- "$WORKLOAD" runq "$cpu" 2 300 > /dev/null 2> "$TMP/p.err" ||
	{ cat "$TMP/p.err"; fail "profile --format=svg failed"; }
check_restored "profile --format=svg"
"$PY" - "$TMP/p.svg" <<'PYEOF' || fail "the profile's flame graph is not what it should be"
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg"
text = open(sys.argv[1]).read()
assert not re.search(r'(href|src)\s*=|@import|url\(', text), "an external reference"
frames = re.findall(r'<g class="f" data-n="([^"]*)"[^>]*>.*?fill="rgb\((\d+),(\d+),(\d+)\)"', text)
fill = {}
for name, r, g, b in frames:
    fill.setdefault(name, (int(r), int(g), int(b)))
on = fill.get("[on-cpu]")
assert on and on[0] >= 205 and on[2] < 60, ("on-CPU not warm", on)
rq = fill.get("[runq]")
assert rq and rq[2] >= 200 and rq[0] >= 150, ("run queue not purple", rq)
assert "of the wall-clock time" in text and "wall-clock in all" in text
print("svg: %d frames; [on-cpu] %s, [runq] %s" % (len(frames), on, rq))
PYEOF

if command -v chromium > /dev/null; then
	mkdir -p "$TMP/chrome"
	chrome() {	# OUT.png|--dump-dom URL [FLAGS]: one headless Chromium, by PID
		local what=$1 url=$2
		shift 2
		if [ "$what" = --dump-dom ]; then
			HOME="$TMP/chrome" timeout 90 chromium --headless --no-sandbox --disable-gpu \
				--user-data-dir="$TMP/chrome" "$@" --dump-dom "$url" > "$TMP/dom" \
				2> "$TMP/chrome.log" &
		else
			HOME="$TMP/chrome" timeout 90 chromium --headless --no-sandbox --disable-gpu \
				--user-data-dir="$TMP/chrome" --window-size=1200,1000 \
				--screenshot="$what" "$url" > "$TMP/chrome.log" 2>&1 &
		fi
		CHROME=$!
		BG_PIDS="$BG_PIDS $CHROME"
		wait $CHROME || { tail -5 "$TMP/chrome.log"; fail "chromium failed on $url"; }
	}
	chrome "$TMP/p.png" "file://$TMP/p.svg"
	"$PY" "${srcdir:-.}/tests/live/check_png.py" "$TMP/p.png" 0.02 20 0 ||
		fail "the profile's flame graph renders blank"
	chrome --dump-dom "file://$TMP/p.svg#selftest=on-cpu"
	st=$(grep -o 'selftest frames=[0-9]* matched=[0-9.]*% zoomed=[^ ]* shown=[0-9]*' "$TMP/dom")
	echo "chromium: $st"
	case $st in
	*"zoomed=[on-cpu]"*) ;;
	*) fail "the flame graph's search did not find [on-cpu] frames in Chromium" ;;
	esac
	# speedscope (npm), where installed: it loads the folded lines
	ss=$(npm root -g 2>/dev/null)/speedscope/dist/release
	if [ -f "$ss/index.html" ]; then
		cp -r "$ss" "$TMP/www"
		cp "$TMP/p.folded" "$TMP/www/p.folded"
		port=$(( 20000 + $$ % 20000 ))
		(cd "$TMP/www" && exec "$PY" -m http.server "$port" --bind 127.0.0.1) \
			> "$TMP/http.log" 2>&1 &
		HTTP=$!
		BG_PIDS="$BG_PIDS $HTTP"
		for _ in $(seq 1 100); do
			grep -q "Serving HTTP" "$TMP/http.log" && break
			sleep 0.05
		done
		url="http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/p.folded&title=offcpu-ftrace-profile"
		chrome --dump-dom "$url" --virtual-time-budget=5000
		kill "$HTTP"; wait "$HTTP" 2>/dev/null
		grep -q 'GET /p.folded HTTP/1.1" 200' "$TMP/http.log" || fail "speedscope did not fetch the lines"
		grep -q '<title>offcpu-ftrace-profile - speedscope</title>' "$TMP/dom" &&
			grep -q 'Left Heavy' "$TMP/dom" ||
			{ head -c 2000 "$TMP/dom"; fail "speedscope did not load the folded lines"; }
		echo "speedscope: loaded the folded lines"
	else
		note "speedscope not installed (npm install -g speedscope): its load not checked"
	fi
else
	note "chromium not installed: the pictures were not rendered"
fi
echo "PASS"
