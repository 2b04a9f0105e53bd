#!/bin/bash
# The perf_event_open backend against the same ground truth as the ring
# backend (schedstat run-queue sums, 20 ms sleeps), its stacks against the
# ring backend's for the pipe workload, and backend selection: a read-only
# tracefs makes auto pick perf and say why, and --backend=ring fail.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
# the blocked threads share a CPU with a SCHED_IDLE spinner: see offcpu_sleep.sh
cpu=$(( $(nproc) - 1 ))
"$BIN" info --format=json | "$PY" -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["perf_event_paranoid"] is not None else 1)' ||
	skip "perf_event_paranoid unreadable"
exec 9>&-	# the sub-tests take the lock themselves

BACKEND=perf bash "${srcdir:-.}/tests/live/runq_schedstat.sh" || fail "runq ground truth with --backend=perf"
BACKEND=perf bash "${srcdir:-.}/tests/live/offcpu_sleep.sh" || fail "20 ms sleeps with --backend=perf"
need_live
snapshot_save

# the same pipe-blocked thread's kernel stack from both backends
PIPE_READ=$(awk '$3 == "pipe_read" || $3 == "anon_pipe_read" { print $3; exit }' /proc/kallsyms)
for be in ring perf; do
	run_bg "$TMP/$be.json" "$TMP/$be.err" offcpu -K --backend=$be --format=json 2
	wait_banner "$TMP/$be.err"
	"$WORKLOAD" pipe 700 $cpu > "$TMP/$be.wl" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$TMP/$be.err"; fail "offcpu -K --backend=$be exited $?"; }
	kill $wl; wait $wl 2>/dev/null
done
check_restored "offcpu -K, both backends"
"$PY" - "$TMP" "$PIPE_READ" <<'PY' || fail "perf and ring stacks differ"
import json, sys
d, fn = sys.argv[1], sys.argv[2]
got = {}
for be in ("ring", "perf"):
    out = json.load(open("%s/%s.json" % (d, be)))
    tid = json.load(open("%s/%s.wl" % (d, be)))["threads"][0]["tid"]
    st = [s for s in out["stacks"] if s["tid"] == tid and fn in s["frames"]]
    assert st, "%s: no %s stack for tid %d" % (be, fn, tid)
    top = max(st, key=lambda s: s["total"])
    got[be] = top["frames"][:top["kernel_frames"]]
    print(be, top["total"], got[be])
    assert abs(top["total"] - 700000) < 0.05 * 700000, "%s: total %d" % (be, top["total"])
assert got["ring"] == got["perf"], "kernel stacks differ"
PY

# read-only tracefs (per-mount flag in a private mount namespace)
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	unshare -m --propagation private sh -c \
		"mount -o bind,remount,ro '$T' && exec '$BIN' runq --format=json 0.5" > "$TMP/o" 2> "$TMP/e" ||
		{ cat "$TMP/e"; fail "auto with a read-only tracefs failed"; }
	grep -q '"backend":"perf"' "$TMP/o" || fail "auto did not pick perf on a read-only tracefs"
	grep -q "using the perf backend: tracefs at $T is read-only" "$TMP/e" || { cat "$TMP/e"; fail "no notice why perf"; }
	note "read-only auto: $(head -n 1 "$TMP/e")"
	unshare -m --propagation private sh -c \
		"mount -o bind,remount,ro '$T' && exec '$BIN' runq --backend=ring 0.5" > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] || fail "--backend=ring on a read-only tracefs exited $rc, want 1"
	grep -q "the ring backend cannot run: tracefs at $T is read-only" "$TMP/e" || { cat "$TMP/e"; fail "ring error unclear"; }
	note "read-only ring: $(cat "$TMP/e")"
	check_restored "read-only namespace"
fi

# no privileges: each backend named with its reason
if command -v setpriv >/dev/null; then
	cp "$BIN" "$TMP/bin" && chmod 755 "$TMP" "$TMP/bin"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/bin" runq 0.5 > "$TMP/o" 2> "$TMP/e"; rc=$?
	# no tracing without privileges: the proc backend, which says why
	[ $rc = 0 ] || { cat "$TMP/e"; fail "unprivileged run exited $rc"; }
	grep -q "^# backend proc: .*ring: .*perf: " "$TMP/o" ||
		{ cat "$TMP/o"; fail "the footer does not say why neither tracing backend runs"; }
	note "unprivileged: $(grep '^# backend proc' "$TMP/o" | cut -c1-150)"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/bin" runq --backend=perf 0.5 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] || fail "unprivileged --backend=perf exited $rc"
	note "unprivileged perf: $(cat "$TMP/e")"
	# with CAP_PERFMON (and read access to the formats) perf works
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+perfmon,+dac_read_search --ambient-caps=+perfmon,+dac_read_search \
		"$TMP/bin" runq --backend=perf --format=json 0.5 > "$TMP/o" 2> "$TMP/e"; then
		grep -q '"backend":"perf"' "$TMP/o" || fail "CAP_PERFMON run did not use perf"
		note "CAP_PERFMON + CAP_DAC_READ_SEARCH as nobody: perf backend works"
	else
		cat "$TMP/e"; fail "CAP_PERFMON run failed"
	fi
	check_restored "unprivileged"
fi

# a busy host: with a spinner on every CPU none idles during the drop
# probe, so it cannot tell whether this kernel loses an idle CPU's switch
# hits: 'busy', and auto takes perf (exact either way), not the ring
spin=""
for c in $("$PY" -c 'import os; print(*sorted(os.sched_getaffinity(0)))'); do	# a cpuset's
	taskset -c "$c" sh -c 'while :; do :; done' &
	spin="$spin $!"
	BG_PIDS="$BG_PIDS $!"
done
sleep 0.3	# each on its CPU
"$BIN" info --format=json > "$TMP/busy.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "info beside spinners failed"; }
"$BIN" runq --format=json 0.5 > "$TMP/o" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq beside spinners failed"; }
kill $spin; wait $spin 2> /dev/null
"$PY" - "$TMP/busy.json" "$TMP/o" <<'PY' || fail "the drop probe on a busy host"
import json, sys
info, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d = info["switch_drops"]
assert d is not None, "no drop probe beside spinners"
if not d["idle_counted"]:
    print("# busy host: this kernel refuses the probe's filter on a perf tracepoint event: "
          "it cannot tell a busy host (%s)" % d["result"])
    sys.exit(0)
assert d["result"] == "busy", d
hist = info["backends"]["runq"]["backend"] == "hist"
if not hist:
    assert run["backend"] == "perf", run["backend"]
    assert "a CPU did not idle during the probe" in run["backend_why"], run["backend_why"]
print("# busy host: probe %s (%d of %d switches recorded), auto runq: %s" %
      (d["result"], d["recorded"], d["switches"], run["backend"]))
PY
check_restored "the drop probe beside spinners"
