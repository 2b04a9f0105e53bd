#!/bin/bash
# offcpu -K --late-stacks: no stack is taken at the switch-outs (the trace
# has no kernel_stack record); a thread sleeping 40 x 20 ms gets its
# nanosleep stack read from /proc/<tid>/stack while asleep, for nearly
# every interval, with the blocked time right (the sleeps, and no more than
# the thread's wall minus CPU time); on the automatic backend
# (perf here, whose switch records this kernel does not lose) and on ring.
# The CPUs stay idle, as users meet this kernel. The refusals (not root,
# the proc backend, a recording) are one-line errors with their status.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
awk '$3 == "do_nanosleep" { exit $1 ~ /^0+$/ ? 0 : 1 }' /proc/kallsyms &&
	skip "kallsyms addresses are hidden (kptr_restrict)"
snapshot_save
cpu=$(( $(nproc) - 1 ))

for backend in auto ring; do
	WORKLOAD_EXIT=1 "$BIN" offcpu -K --late-stacks --min 5000 --backend=$backend --format=json \
		-o "$TMP/l.json" -- "$WORKLOAD" sleep 40 20 $cpu > "$TMP/w.json" 2> "$TMP/l.err" ||
		{ cat "$TMP/l.err"; fail "offcpu -K --late-stacks --backend=$backend failed"; }
	check_restored "offcpu -K --late-stacks --backend=$backend"
	"$PY" - "$TMP/l.json" "$TMP/w.json" "$backend" <<'PY' || fail "late stacks wrong ($backend)"
import json, sys
out = json.load(open(sys.argv[1]))
wt = json.load(open(sys.argv[2]))["threads"][0]
tid = wt["tid"]
# its time not running from its creation to parking: wall minus CPU time (us)
truth = (wt["life_ns"] - wt["life_run_ns"]) / 1000
backend = sys.argv[3]
ev, inc = out["events"], out["incomplete"]
assert ev["kernel_stack"] == 0, "kernel_stack records in the trace: %r" % ev
mine = [s for s in out["stacks"] if s["tid"] == tid]
n = sum(s["count"] for s in mine)
slept = [s for s in mine if any(f.split(" ")[0] in ("do_nanosleep", "hrtimer_nanosleep")
                                for f in s["frames"][:s["kernel_frames"]])]
k = sum(s["count"] for s in slept)
t = sum(s["total"] for s in slept)
print("# %s (%s): %d of %d intervals >= 5 ms with a nanosleep stack, %d us; late_kstacks %d, "
      "no_stack %d, missed_switch %d" % (backend, out["backend"], k, n, t, inc["late_kstacks"],
                                         inc["no_stack"], inc["missed_switch"]))
if slept:
    print("#  ", slept[0]["frames"][:6])
if backend == "auto" or not inc["missed_switch"]:
    # every switch in the trace: each interval is there, nearly all with their stack
    assert n >= 38, "only %d intervals of the sleeper" % n
    assert k >= 0.9 * n, "only %d of %d intervals have the nanosleep stack" % (k, n)
    # at least the sleeps; at most its off-CPU time (with a loaded or stolen-from
    # CPU, the waits for it after each wakeup are in both)
    assert 0.99 * k * 20000 <= t <= 1.01 * truth + 100 * n, \
        "total %d us for %d x 20 ms, wall - CPU time %d us" % (t, k, truth)
else:
    # ring where this kernel loses switch-ins: what it measured has its stack
    assert k >= 0.9 * n > 0, "only %d of %d intervals have the nanosleep stack" % (k, n)
assert inc["late_kstacks"] >= k, "late_kstacks %d < %d" % (inc["late_kstacks"], k)
PY
done
grep -q "^# --late-stacks: [0-9]* kernel stacks read from /proc while blocked" <(
	WORKLOAD_EXIT=1 "$BIN" offcpu -K --late-stacks --min 5000 -- "$WORKLOAD" sleep 5 20 $cpu 2>&1) ||
	fail "the text output does not say the stacks were read late"

# refusals: one line each, documented statuses
refuse() {	# STATUS PATTERN ARGS...
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" > "$TMP/r.out" 2> "$TMP/r.err" || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/r.err"; fail "$* exited $rc, want $want"; }
	# usage errors (2) add the "Try ... --help" line
	[ "$(wc -l < "$TMP/r.err")" = $((want == 2 ? 2 : 1)) ] && head -1 "$TMP/r.err" | grep -q -- "$pat" ||
		{ cat "$TMP/r.err"; fail "$*: not the one-line error '$pat'"; }
}
refuse 1 "samples its stacks itself" "$BIN" offcpu -K --late-stacks --min 1000 --backend=proc 1
refuse 2 "needs --min of at least 1000" "$BIN" offcpu -K --late-stacks 1
refuse 2 "add -K" "$BIN" offcpu --late-stacks --min 1000 1
"$BIN" record -o "$TMP/r.dat" -- sleep 0.1 > /dev/null 2>&1 || fail "record failed"
refuse 2 "options of live runs" "$BIN" report "$TMP/r.dat" offcpu -K --late-stacks --min 1000
if su nobody -s /bin/sh -c "test -x '$BIN'" 2> /dev/null; then
	refuse 1 "only root can" su nobody -s /bin/sh -c "'$BIN' offcpu -K --late-stacks --min 1000 1"
fi
check_restored "late-stacks refusals"
echo "PASS"
