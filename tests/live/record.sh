#!/bin/bash
# record and report: a live run that also records its window (--record)
# and the report of that recording give the same output (runq per thread,
# offcpu -K with stacks named from the recording's symbols), on the ring
# and the perf backend (whose events are written as pages of the kernel's
# layout, which trace-cmd reads too); `record`
# writes a mode-0600 file that replaces a symlink instead of following it,
# which trace-cmd reads too; a recording keeps the plan it ran (report
# --dry-run says it as the run's --dry-run did); a truncated or corrupted
# recording fails with one line naming the offset; tracefs is restored.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

same() {	# LIVE REPORT [names]: equal JSON but for the backend's name
	# names: a thread the file could not name ("", perf: no name in its
	# events and gone from /proc before it was seen) is counted, not failed
	"$PY" - "$1" "$2" "${3:-}" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
unnamed = 0
if sys.argv[3] == "names":
    for k in ("groups", "stacks"):
        for x, y in zip(a.get(k, []), b.get(k, [])):
            if x.get("comm") != y.get("comm") and y.get("comm") in ("", "[unknown]"):
                y["comm"] = x["comm"]
                unnamed += 1
assert a["backend"] in ("ring", "perf") and b["backend"] == "file", (a["backend"], b["backend"])
for k in a:
    if k in ("backend", "backend_why"):	# the live run's choice; the file's is "file"
        continue
    # sized live from every thread's schedstat: a report has no such source
    if k in ("totals", "schedstat"):
        assert k not in b, k
        continue
    if k == "groups":
        for g in a[k]:
            for f in ("unmeasured_ns", "unmeasured_unsized", "totals_exact"):
                g.pop(f, None)
    if k == "window":
        a[k].pop("end_time"); b[k].pop("end_time")
        # read live from /proc/stat (a number, or null where absent); a report's is null
        assert b[k].pop("steal_ns") is None, b[k]
        steal = a[k].pop("steal_ns")
        assert steal is None or (isinstance(steal, int) and steal >= 0), steal
    if k == "incomplete":
        # sized live from the threads' schedstat: a report has no such source
        a[k].pop("unmeasured_ns", None); a[k].pop("unmeasured_unsized", None)
    x, y = a[k], b.get(k)
    if isinstance(x, list) and isinstance(y, list) and x != y:
        i = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
        assert False, "%s differs at entry %d of %d/%d:\n live %s\n file %s" % (
            k, i, len(x), len(y), x[i] if i < len(x) else None, y[i] if i < len(y) else None)
    assert x == y, "%s differs:\n live %s\n file %s" % (k, str(x)[:400], str(y)[:400])
n = len(a.get("groups", [])) + len(a.get("stacks", []))
print("identical:", n, "groups/stacks,", unnamed, "unnamed in the file,", sum(a["events"][e] for e in a["events"] if e.startswith("sched")), "events")
assert n > 0
PY
}

for bk in ring perf; do
	names=""
	[ "$bk" = perf ] && names=names
	# runq per thread, with a workload in the window
	run_bg "$TMP/live.json" "$TMP/live.err" runq -L --format=json --backend "$bk" --record "$TMP/rq.dat" 2
	wait_banner "$TMP/live.err"
	"$WORKLOAD" runq $(( $(nproc) - 1 )) 2 300 > /dev/null &
	BG_PIDS="$BG_PIDS $!"
	wait "$TOOL_PID" || { cat "$TMP/live.err"; fail "runq --backend $bk --record exited"; }
	check_restored "runq --backend $bk --record"
	"$BIN" report "$TMP/rq.dat" runq -L --format=json > "$TMP/rep.json" 2> "$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "report runq exited ($bk)"; }
	same "$TMP/live.json" "$TMP/rep.json" $names || fail "report differs from the live run (runq -L, $bk)"

	# offcpu by kernel stack: frames named from the symbols in the file
	run_bg "$TMP/klive.json" "$TMP/klive.err" offcpu -K --format=json --backend "$bk" --record "$TMP/k.dat" 1
	wait "$TOOL_PID" || { cat "$TMP/klive.err"; fail "offcpu -K --backend $bk --record exited"; }
	check_restored "offcpu -K --backend $bk --record"
	"$BIN" report "$TMP/k.dat" offcpu -K --format=json > "$TMP/krep.json" 2> "$TMP/krep.err" ||
		{ cat "$TMP/krep.err"; fail "report offcpu -K exited ($bk)"; }
	same "$TMP/klive.json" "$TMP/krep.json" $names || fail "report differs from the live run (offcpu -K, $bk)"
	grep -q '"__schedule"' "$TMP/krep.json" || fail "no kernel frame named in the report ($bk)"
	# the recording keeps the plan it ran, which report --dry-run says: the events as the
	# same command's --dry-run says them
	"$BIN" offcpu -K --format=json --backend "$bk" --record "$TMP/k2.dat" --dry-run 1 \
		> "$TMP/kplan.txt" 2>&1 || { cat "$TMP/kplan.txt"; fail "offcpu -K --dry-run exited ($bk)"; }
	"$BIN" report "$TMP/k.dat" offcpu -K --dry-run > "$TMP/krplan.txt" 2>&1 ||
		{ cat "$TMP/krplan.txt"; fail "report --dry-run exited ($bk)"; }
	want=$(sed -n 's/^events:   //p' "$TMP/kplan.txt")
	got=$(sed -n "s/^recorded: the $bk backend: //p" "$TMP/krplan.txt")
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		fail "the recording's plan ($bk): '$got', the dry run's events: '$want'"
	[ ! -e "$TMP/k2.dat" ] || fail "--dry-run made a recording ($bk)"
done
# the perf backend's recording is one trace-cmd reads too
if command -v trace-cmd > /dev/null; then
	trace-cmd report "$TMP/k.dat" > "$TMP/k.txt" 2> /dev/null || fail "trace-cmd cannot read the perf backend's recording"
	grep -q "sched_switch: .* ==> " "$TMP/k.txt" || fail "trace-cmd shows no switches of the perf backend's recording"
	grep -q "=> __schedule" "$TMP/k.txt" || fail "trace-cmd shows no kernel stacks of the perf backend's recording"
fi

# record: 0600, a symlink at the path is replaced, not followed
echo keep > "$TMP/target"
ln -s "$TMP/target" "$TMP/rec.dat"
"$BIN" record -o "$TMP/rec.dat" 1 2> "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record exited"; }
check_restored "record"
grep -q "recorded .* events (0 lost) to $TMP/rec.dat" "$TMP/rec.err" || fail "no summary: $(cat "$TMP/rec.err")"
[ ! -L "$TMP/rec.dat" ] && [ "$(cat "$TMP/target")" = keep ] || fail "record followed a symlink"
[ "$(stat -c %a "$TMP/rec.dat")" = 600 ] || fail "mode $(stat -c %a "$TMP/rec.dat"), want 600"
"$BIN" report "$TMP/rec.dat" triage > "$TMP/tri.txt" 2>&1 || { cat "$TMP/tri.txt"; fail "report triage exited"; }
grep -q '^verdict: ' "$TMP/tri.txt" || fail "report triage gave no verdict"
"$BIN" report "$TMP/rec.dat" offcpu -K > /dev/null 2> "$TMP/nok.err" && fail "report -K without stacks worked"
grep -q "has no kernel stacks: record with 'offcpu-ftrace record -K'" "$TMP/nok.err" ||
	fail "unclear error for missing stacks: $(cat "$TMP/nok.err")"
if command -v trace-cmd > /dev/null; then
	trace-cmd report "$TMP/rec.dat" 2>&1 | grep -q 'sched_switch:' ||
		fail "trace-cmd cannot read our recording"
	note "trace-cmd report reads the recording"
fi

# a truncated and a corrupted recording: exit 1, one line with the offset
size=$(stat -c %s "$TMP/rec.dat")
head -c $((size / 2)) "$TMP/rec.dat" > "$TMP/trunc.dat"
"$BIN" report "$TMP/trunc.dat" > /dev/null 2> "$TMP/trunc.err"
rc=$?
[ $rc = 1 ] || fail "truncated recording: exit $rc, want 1"
[ "$(wc -l < "$TMP/trunc.err")" = 1 ] && grep -q "offset" "$TMP/trunc.err" ||
	fail "truncated recording: $(cat "$TMP/trunc.err")"
note "truncated: $(cat "$TMP/trunc.err")"
cp "$TMP/rec.dat" "$TMP/bad.dat"
printf '\377\377\377\377' | dd of="$TMP/bad.dat" bs=1 seek=$((size - 4096 - 40)) conv=notrunc status=none
printf 'XXXX' | dd of="$TMP/bad.dat" bs=1 seek=12 conv=notrunc status=none
"$BIN" report "$TMP/bad.dat" > /dev/null 2> "$TMP/bad.err"
rc=$?
[ $rc = 1 ] || fail "corrupted recording: exit $rc, want 1"
[ "$(wc -l < "$TMP/bad.err")" = 1 ] || fail "corrupted recording: $(cat "$TMP/bad.err")"
note "corrupted: $(cat "$TMP/bad.err")"
"$BIN" report "$TMP/none.dat" > /dev/null 2> "$TMP/none.err" && fail "report of a missing file worked"
grep -q "none.dat" "$TMP/none.err" || fail "missing file: $(cat "$TMP/none.err")"
echo "record/report: ok"
