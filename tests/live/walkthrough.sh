#!/bin/bash
# What a new SRE trips over (issue 17), checked as they would meet it:
# results apart from a COMMAND's own output, triage's next step, groups
# ordered and rolled up, folded lines merged, a recording's scope.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

# -o FILE: the command's stdout stays on stdout, the results go to FILE
"$BIN" runq -P --format=json -o "$TMP/r.json" -- sh -c 'echo hello-from-command; sleep 0.2' \
	> "$TMP/o" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq -o -- COMMAND failed"; }
grep -qx hello-from-command "$TMP/o" || fail "the command's output is not on stdout: $(cat "$TMP/o")"
[ "$(wc -l < "$TMP/o")" = 1 ] || fail "results leaked to stdout: $(cat "$TMP/o")"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"] == "runq"' "$TMP/r.json" ||
	fail "-o FILE is not the JSON result: $(head -c 300 "$TMP/r.json")"
ls -a "$TMP" | grep -q '^\.r\.json\.' && fail "temporary file left beside -o FILE"
# without -o, a format a program reads stays whole: the command's stdout goes to stderr
"$BIN" runq -q --format=json -- sh -c 'echo "<&>hello-from-command"; sleep 0.1' \
	> "$TMP/o" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq --format=json -- COMMAND failed"; }
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/o" ||
	fail "the command's output got into the JSON: $(head -c 200 "$TMP/o")"
grep -qx '<&>hello-from-command' "$TMP/e" || fail "the command's output is not on stderr: $(cat "$TMP/e")"
"$BIN" offcpu -q --format=svg -- sh -c 'echo "<&>hello"; sleep 0.1' > "$TMP/o.svg" 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu --format=svg -- COMMAND failed"; }
"$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/o.svg" ||
	fail "the command's output got into the SVG: $(head -c 200 "$TMP/o.svg")"
# with -i every interval replaces the last: the file is always one document
"$BIN" offcpu --format=openmetrics -i 0.2 3 -o "$TMP/o.prom" 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu -i -o failed"; }
[ "$(grep -c '^# EOF' "$TMP/o.prom")" = 1 ] || fail "-i -o FILE holds more than one interval"
"$BIN" info -o "$TMP/info.txt" > "$TMP/o" 2>&1 || fail "info -o failed"
[ -s "$TMP/o" ] && fail "info -o printed to stdout: $(cat "$TMP/o")"
grep -q '^tracefs' "$TMP/info.txt" || fail "info -o FILE lacks the report: $(head -3 "$TMP/info.txt")"
check_restored "-o FILE"
note "-o FILE: results apart from the command's output, atomically"

# triage's next step: the -- COMMAND form, never a pid that is gone; the
# shell waiting for its children is not "the blocked process"
"$BIN" triage --format=json -- sh -c "sleep 0.2; dd if=/dev/zero of='$TMP/dd.out' bs=64k count=300 oflag=dsync status=none" \
	> "$TMP/t.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "triage -- sh -c 'sleep; dd' failed"; }
"$PY" - "$TMP/t.json" <<'PYEOF' || fail "triage next step: $(cat "$TMP/t.json")"
import json, sys
r = json.load(open(sys.argv[1]))
nxt = r["verdict"]["next"]
print("#", r["verdict"]["kind"], "|", nxt)
assert "-- sh -c 'sleep 0.2; dd " in nxt, "next step is not the command form"
assert " -p " not in nxt, "next step names a pid"
assert "(sh," not in nxt, "names the shell that only waits for its children"
b = r["blocked_ns"]
assert b["parents_waiting"] > 150e6, "the shell's wait for its children was not set apart: %r" % b
assert b["uninterruptible"] > 0 and b["asleep"] > 150e6, b
PYEOF
# an idle host: offcpu-ftrace itself is never the finding
"$BIN" triage --format=json 1 > "$TMP/t.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "triage 1 failed"; }
"$PY" -c 'import json,sys; n=json.load(open(sys.argv[1]))["verdict"]["next"]; print("#", n); assert "(offcpu-ftrace," not in n' "$TMP/t.json" ||
	fail "triage names itself"
check_restored "triage next step"

# -P: largest total first, --top N with the rest summed, --by comm rolls
# processes up by name
"$BIN" offcpu -P --format=json -o "$TMP/p.json" -- sh -c 'sleep 0.3 & sleep 0.1 & sleep 0.2 & wait' 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu -P -- sh failed"; }
"$BIN" offcpu -P --top 2 --format=json -o "$TMP/top.json" -- sh -c 'sleep 0.3 & sleep 0.1 & sleep 0.2 & wait' 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu -P --top 2 failed"; }
"$BIN" offcpu --by comm --format=json -o "$TMP/comm.json" -- sh -c 'sleep 0.1 & sleep 0.1 & sleep 0.1 & wait' 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu --by comm failed"; }
"$PY" - "$TMP/p.json" "$TMP/top.json" "$TMP/comm.json" <<'PYEOF' || fail "group order, --top or --by comm"
import json, sys
p, top, comm = (json.load(open(f)) for f in sys.argv[1:4])
sums = [g["sum_ns"] for g in p["groups"]]
assert sums == sorted(sums, reverse=True), "-P groups not largest first: %r" % sums
assert len(top["groups"]) == 2 and top["not_shown"]["groups"] >= 2, top.get("not_shown")
sleeps = [g for g in comm["groups"] if g["comm"] == "sleep"]
assert comm["key"] == "comm" and len(sleeps) == 1, comm["groups"]
assert sleeps[0]["count"] >= 3 and sleeps[0]["sum_ns"] >= 0.29e9, sleeps[0]
print("# -P order", [(g["comm"], g["sum_ns"] // 1000000) for g in p["groups"]], "| --by comm sleep:", sleeps[0]["count"], sleeps[0]["sum_ns"] // 1000000, "ms")
PYEOF
"$BIN" runq -P --top 1 1 > "$TMP/top.txt" 2>&1 || fail "runq -P --top 1 failed"
grep -q '^# and [0-9]* more processes (--top 1)' "$TMP/top.txt" || { cat "$TMP/top.txt"; fail "no '# and N more' line"; }
expect_usage() { "$BIN" "$@" > /dev/null 2> "$TMP/e"; [ $? = 2 ] || fail "'$*' is not a usage error: $(cat "$TMP/e")"; }
expect_usage runq --top 3 1
expect_usage runq --by bogus 1
expect_usage runq -P --by comm 1
expect_usage offcpu -K --by comm 1

# a process is named for itself, not for the thread whose interval came
# first: the main thread blocks all window, a worker named "worker" sleeps
"$PY" -c '
import ctypes, sys, threading, time
def w():
    ctypes.CDLL(None).prctl(15, b"worker", 0, 0, 0)
    open(sys.argv[1], "w").close()
    while True: time.sleep(0.01)
threading.Thread(target=w, daemon=True).start()
time.sleep(30)' "$TMP/named.ready" &
named=$!
BG_PIDS="$BG_PIDS $named"
for i in $(seq 200); do [ -e "$TMP/named.ready" ] && break; sleep 0.05; done
[ -e "$TMP/named.ready" ] || fail "the named-thread python process did not start"
"$BIN" offcpu -P -p $named --format=json 1 > "$TMP/n.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "offcpu -P -p failed"; }
kill $named
"$PY" -c 'import json,sys; g=json.load(open(sys.argv[1]))["groups"]; print("# -P names", g[0]["comm"]); assert g and g[0]["comm"] != "worker", g' "$TMP/n.json" ||
	fail "-P named the process for its thread 'worker'"

# -f: one line per distinct stack; four threads sleeping alike are one line
"$BIN" offcpu -K -f -o "$TMP/f.txt" -- "$PY" -c '
import threading, time
def w():
    for i in range(20): time.sleep(0.01)
ts = [threading.Thread(target=w) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]' 2> "$TMP/e" || { cat "$TMP/e"; fail "offcpu -K -f failed"; }
dups=$(sed 's/ [0-9]*$//' "$TMP/f.txt" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "$dups folded lines printed more than once"
sleep_us=$(grep 'do_nanosleep' "$TMP/f.txt" | awk '{ if ($NF > m) m = $NF } END { print m + 0 }')
[ "$sleep_us" -ge 600000 ] || { cat "$TMP/f.txt"; fail "the four sleepers' stack is not one line (largest $sleep_us us)"; }
note "-f: four sleeping threads on one line, $sleep_us us"
check_restored "groups and folded lines"

# Python threads under -- COMMAND: new threads' first switch-ins are not
# "started before the window" (only the held command is), none negative
cat > "$TMP/lock.py" <<'PYEOF'
import threading, time
lock = threading.Lock()
def worker():
    for i in range(100):
        with lock:
            time.sleep(0.001)
ts = [threading.Thread(target=worker) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
PYEOF
for be in perf ring; do
	"$BIN" offcpu -K --backend=$be --format=json -o "$TMP/py.json" -- "$PY" "$TMP/lock.py" 2> "$TMP/e" ||
		{ grep -q 'cannot run' "$TMP/e" && continue; cat "$TMP/e"; fail "offcpu -K --backend=$be -- python3 failed"; }
	"$PY" -c 'import json,sys; i=json.load(open(sys.argv[1]))["incomplete"]; print("# python threads ('"$be"'):", i["open_at_start"], "started before,", i["negative"], "negative"); assert i["negative"] == 0 and i["open_at_start"] <= 1, i' "$TMP/py.json" ||
		fail "--backend=$be: new threads counted as started before the window, or negative"
done
check_restored "new threads"

# a recording keeps its scope: report shows the command's family, as the
# live run did; --all widens it; processes come from the recording
"$BIN" record -o "$TMP/c.dat" -- sh -c "sleep 0.2; dd if=/dev/zero of='$TMP/dd.out' bs=64k count=50 status=none" \
	2> "$TMP/e" || { cat "$TMP/e"; fail "record -- sh failed"; }
"$BIN" report "$TMP/c.dat" offcpu -P --format=json > "$TMP/r.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "report offcpu -P failed"; }
grep -q "note: as recorded, only sh -c 'sleep 0.2; dd " "$TMP/e" || fail "report does not say the recorded scope applies: $(cat "$TMP/e")"
"$BIN" report "$TMP/c.dat" offcpu -P --all --format=json > "$TMP/all.json" 2> /dev/null || fail "report --all failed"
"$BIN" report "$TMP/c.dat" triage > "$TMP/t.txt" 2> /dev/null || fail "report triage failed"
grep -q "^triage: .* of sh -c 'sleep 0.2; dd .* and its descendants (as recorded)" "$TMP/t.txt" ||
	{ cat "$TMP/t.txt"; fail "report triage forgets the recorded scope"; }
grep -q 'recording lacks: offcpu-ftrace record -K -o FILE -- sh -c' "$TMP/t.txt" ||
	{ cat "$TMP/t.txt"; fail "report triage of a stackless recording does not say how to record stacks"; }
"$PY" - "$TMP/r.json" "$TMP/all.json" <<'PYEOF' || fail "report scope"
import json, sys
r, a = (json.load(open(f)) for f in sys.argv[1:3])
names = sorted(g["comm"] for g in r["groups"])
print("# recorded scope:", names, "| --all:", len(a["groups"]), "processes")
assert names == ["dd", "sh", "sleep"], names
assert len(a["groups"]) > len(r["groups"])
assert not any(g["comm"] == "offcpu-ftrace" for g in r["groups"])
PYEOF
expect_usage runq --all 1
check_restored "recording scope"

# --dry-run checks what it can and prints the plan; nothing is traced
"$BIN" runq --dry-run -P --top 5 -- make -j8 > "$TMP/plan" 2> "$TMP/e" || { cat "$TMP/e"; fail "--dry-run failed"; }
for k in '^dry run: runq' '^backend: ' '^events: .*sched_switch' '^scope: .*make -j8' '^window: ' '^output: .*top 5'; do
	grep -q "$k" "$TMP/plan" || { cat "$TMP/plan"; fail "the plan lacks /$k/"; }
done
dead=999999; while [ -e /proc/$dead ]; do dead=$((dead - 1)); done
"$BIN" runq --dry-run -p $dead 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q 'no such process' "$TMP/e" || fail "--dry-run -p (gone): exit $rc, $(cat "$TMP/e")"
"$BIN" runq --dry-run -- /nonexistent/cmd > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 127 ] || fail "--dry-run -- /nonexistent: exit $rc, want 127"
if ! grep -q 'hist triggers:        yes' <("$BIN" info 2>/dev/null); then
	"$BIN" runq --dry-run --backend=hist 1 > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] && grep -q 'hist backend cannot run' "$TMP/e" || fail "--dry-run --backend=hist here: exit $rc, $(cat "$TMP/e")"
fi
"$BIN" runq --dry-run -o /nonexistent/x.json 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 5 ] || fail "--dry-run -o into a missing directory: exit $rc, want 5"
"$BIN" report "$TMP/c.dat" offcpu -K --dry-run > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q 'has no kernel stacks' "$TMP/e" || fail "report --dry-run -K of a stackless recording: exit $rc"
check_restored "--dry-run"

# a sign of life on a terminal, none with -q or without a terminal
if command -v script > /dev/null; then
	script -qc "'$BIN' runq 2.5 > /dev/null" /dev/null > "$TMP/tty" 2>&1 < /dev/null
	grep -q 's of 3 s traced, .* left' "$TMP/tty" || { cat -v "$TMP/tty"; fail "no progress line on a terminal"; }
	script -qc "'$BIN' runq -q 1.5 > /dev/null" /dev/null > "$TMP/tty" 2>&1 < /dev/null
	[ -s "$TMP/tty" ] && { cat -v "$TMP/tty"; fail "-q still printed on the terminal"; }
	"$BIN" runq 1.5 > /dev/null 2> "$TMP/e"
	grep -q 'traced, ' "$TMP/e" && fail "progress printed although stderr is not a terminal"
	note "progress: on a terminal only, silenced by -q"
fi

# as nobody with perf asked for: every missing piece in one message
if command -v setpriv > /dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]; then
	cp "$BIN" "$TMP/bin" && chmod 755 "$TMP" "$TMP/bin"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$TMP/bin" runq --backend=perf 1 \
		> /dev/null 2> "$TMP/e"
	grep -q 'perf_event_paranoid=' "$TMP/e" && grep -q 'CAP_DAC_READ_SEARCH' "$TMP/e" ||
		fail "nobody --backend=perf does not name both the sysctl and tracefs: $(cat "$TMP/e")"
fi
check_restored "walkthrough"
