#!/bin/bash
# The per-boot kernel facts (offcpu-ftrace-info(8), FILES): a loss seen by
# the probe or by a run is kept, keyed by boot id and kernel release, and
# every later run chooses from it at once; a file of another boot, or one
# others could have written, is not trusted; info says where its answer
# came from. The real file under /run is written once (info as root, no
# OFFCPU_FTRACE_STATE) and put back as it was on every exit path.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
command -v perf > /dev/null || note "perf(1) not installed (not needed)"
snapshot_save
boot=$(cat /proc/sys/kernel/random/boot_id)
rel=$(uname -r)
kf=$OFFCPU_FTRACE_STATE

# the real file, saved now and put back (or removed) on every exit
saved=""
if [ -f "$KFACTS_RUN" ]; then saved="$TMP/kernel-facts.saved"; cp -p "$KFACTS_RUN" "$saved"; fi
rundir_new=""; [ -d "${KFACTS_RUN%/*}" ] || rundir_new=1
restore_run() {
	if [ -n "$saved" ]; then cp -p "$saved" "$KFACTS_RUN"
	else rm -f "$KFACTS_RUN"; [ -n "$rundir_new" ] && rmdir "${KFACTS_RUN%/*}" 2> /dev/null
	fi
	cleanup_tmp
}
trap restore_run EXIT

jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k] if d is not None else None
print(d)' "$@"; }

# info runs the probe (perf events and a writable tracefs needed)
"$BIN" info --json > "$TMP/info.json" 2> "$TMP/info.err" || fail "info failed: $(cat "$TMP/info.err")"
src=$(jget "$TMP/info.json" switch_drops.source)
[ "$src" != None ] || skip "no drop probe here (perf events or tracefs's sched_switch missing)"

# 1. a file of this boot that says "seen": auto takes the exact path, no probe
rm -f "$kf"
printf 'boot_id=%s\nrelease=%s\nidle_loss=seen\nseen_by=run\ndetail=test %s\nseen_at=%s\nclean_probe_ms=0\n' \
	"$boot" "$rel" $$ "$(date +%s)" > "$kf"
chmod 0644 "$kf"
"$BIN" info --json > "$TMP/info.json" || fail "info failed"
[ "$(jget "$TMP/info.json" switch_drops.source)" = state ] || fail "info did not read the state file"
[ "$(jget "$TMP/info.json" switch_drops.result)" = seen ] || fail "state 'seen' not taken"
[ "$(jget "$TMP/info.json" switch_drops.probe_ms)" = 0 ] || fail "probed although the boot knew"
grep -q "test $$" "$TMP/info.json" || fail "info does not say what saw the loss"
"$BIN" info > "$TMP/info.txt" || fail "info failed"
grep -q "^switches recorded: *NOT ALL: .*seen this boot by a run at .*test $$; kept in $kf" \
	"$TMP/info.txt" || { grep switches "$TMP/info.txt"; fail "info's text does not name the source"; }
"$BIN" offcpu --format=json 1 > "$TMP/off.json" 2> "$TMP/off.err" || fail "offcpu failed: $(cat "$TMP/off.err")"
[ "$(jget "$TMP/off.json" backend)" = perf ] || fail "auto did not take perf from the state file"
jget "$TMP/off.json" backend_why | grep -q "seen this boot by a run" || fail "backend_why does not say why"
# runq's waits: no backend times them all here; the ring, every gap sized
"$BIN" runq --format=json 1 > "$TMP/runq.json" 2> "$TMP/runq.err" || fail "runq failed: $(cat "$TMP/runq.err")"
[ "$(jget "$TMP/runq.json" backend)" = ring ] || fail "auto runq did not take the ring, sized"
jget "$TMP/runq.json" backend_why | grep -q "sized from the threads' schedstat" || fail "runq's backend_why does not say why"
[ "$(jget "$TMP/runq.json" totals.exact)" != None ] || fail "runq on the ring did not size its gaps"
note "a kept loss: info and auto take it at once (offcpu: perf; runq: the ring, sized)"

# 2. another boot's file, or one others may write: not trusted, probed again
sed -i "s/^boot_id=.*/boot_id=00000000-0000-0000-0000-000000000000/" "$kf"
"$BIN" info --json > "$TMP/info.json" || fail "info failed"
[ "$(jget "$TMP/info.json" switch_drops.source)" = probe ] || fail "another boot's file was taken"
rm -f "$kf"
printf 'boot_id=%s\nrelease=%s\nidle_loss=seen\nseen_by=run\ndetail=forged\nseen_at=1\nclean_probe_ms=0\n' \
	"$boot" "$rel" > "$kf"
chmod 0666 "$kf"
"$BIN" info --json > "$TMP/info.json" || fail "info failed"
[ "$(jget "$TMP/info.json" switch_drops.source)" = probe ] || fail "a file others may write was trusted"
note "another boot's file and a world-writable one are not trusted"

# 3. the probe's own answer is kept: a loss for the boot, or the time it saw none
rm -f "$kf"
"$BIN" info --json > "$TMP/info.json" || fail "info failed"
res=$(jget "$TMP/info.json" switch_drops.result)
ms=$(jget "$TMP/info.json" switch_drops.probe_ms)
[ "$ms" -ge 20 ] && [ "$ms" -le 5100 ] || fail "probe time $ms ms out of bounds"
case $res in
seen)	grep -q "^idle_loss=seen" "$kf" && grep -q "^seen_by=probe" "$kf" ||
		fail "the probe's loss was not kept: $(cat "$kf")"
	[ "$(stat -c '%u %a' "$kf")" = "0 644" ] || fail "state file not root's 0644"
	note "the probe saw a loss in $ms ms; kept";;
none)	grep -q "^clean_probe_ms=$ms$" "$kf" || fail "the clean probe's time was not kept: $(cat "$kf")"
	note "the probe saw no loss in $ms ms; its time kept";;
*)	note "the probe said $res (a busy host): nothing to keep";;
esac

# 4. a run that sees a switch missing from a complete trace keeps it
rm -f "$kf"
"$BIN" offcpu --backend=ring --format=json 3 > "$TMP/off.json" 2> "$TMP/off.err" || fail "offcpu failed"
missed=$(jget "$TMP/off.json" incomplete.missed_switch)
lost=$(jget "$TMP/off.json" events.lost)
if [ "$missed" -gt 0 ] && [ "$lost" = 0 ]; then
	grep -q "^seen_by=run" "$kf" && grep -q "^detail=offcpu on the ring backend, pid [0-9]*: $missed context switch" "$kf" ||
		fail "the run's $missed missing switches were not kept: $(cat "$kf" 2> /dev/null)"
	note "offcpu on the ring saw $missed switches missing: kept for the boot"
else
	[ -f "$kf" ] && grep -q "^idle_loss=seen" "$kf" && fail "a run that missed nothing kept a loss"
	note "offcpu on the ring missed no switch in 3 s (lost $lost): nothing kept"
fi

# 5. the real file: made by info as root, root's and 0644, in a 0755 directory
( unset OFFCPU_FTRACE_STATE; "$BIN" info --json > "$TMP/real.json" ) || fail "info failed"
res=$(jget "$TMP/real.json" switch_drops.result)
if [ "$res" = seen ] || [ "$res" = none ]; then
	[ -f "$KFACTS_RUN" ] || fail "info did not write $KFACTS_RUN"
	[ "$(stat -c '%u %a' "$KFACTS_RUN")" = "0 644" ] || fail "$KFACTS_RUN not root's 0644"
	[ "$(stat -c '%u %a' "${KFACTS_RUN%/*}")" = "0 755" ] || fail "${KFACTS_RUN%/*} not root's 0755"
	grep -q "^boot_id=$boot$" "$KFACTS_RUN" || fail "$KFACTS_RUN not keyed by this boot"
fi
check_restored "info and runs with the kernel facts"
