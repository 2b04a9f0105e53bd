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
