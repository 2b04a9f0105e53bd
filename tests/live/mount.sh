#!/bin/bash
# A fresh boot mounts no tracefs: as root the tool mounts it itself at
# /sys/kernel/tracing, says so in one line, and unmounts it at exit, unless
# something else uses it by then (then it says it left it). info and
# cleanup do the same; --tracefs DIR is never second-guessed. Run in a
# private mount namespace (unshare -m) whose tracefs and debugfs mounts are removed
# first, so the host's mounts are never touched.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
command -v unshare > /dev/null || skip "no unshare (util-linux)"
unshare -m --propagation private true 2> /dev/null || skip "cannot make a mount namespace here"
snapshot_save

cat > "$TMP/inner.sh" <<'SH'
#!/bin/bash
# inside the namespace: BIN, TMP from the environment
set -u
fail() { echo "FAIL: $*"; exit 1; }
mounts() { awk '$3 == "tracefs" { n++ } END { print n + 0 }' /proc/self/mounts; }
# every tracefs mount of this namespace goes (innermost first)
for m in $(awk '$3 == "tracefs" { print $2 }' /proc/self/mounts | sort -r); do
	umount "$m" || fail "cannot unmount $m in the namespace"
done
# and debugfs, as on a fresh boot: its tracing/ would mount tracefs on access
for m in $(awk '$3 == "debugfs" { print $2 }' /proc/self/mounts | sort -r); do
	umount "$m" || fail "cannot unmount $m in the namespace"
done
[ "$(mounts)" = 0 ] || fail "tracefs still mounted in the namespace"
[ -d /sys/kernel/tracing ] || { echo "SKIP: no /sys/kernel/tracing"; exit 77; }

# a run mounts it, traces, and unmounts it
"$BIN" runq --format=json 0.3 > "$TMP/o.json" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq exited $?"; }
grep -q "^offcpu-ftrace: note: tracefs was not mounted: mounted it at /sys/kernel/tracing for this run" "$TMP/e" ||
	fail "no one-line notice of the mount: $(cat "$TMP/e")"
grep -q '"backend":"\(ring\|perf\|hist\)"' "$TMP/o.json" || fail "no tracing backend: $(head -c 300 "$TMP/o.json")"
[ "$(mounts)" = 0 ] || fail "tracefs left mounted after the run"
echo "# runq: mounted, traced with $(sed -n 's/.*"backend":"\([a-z]*\)".*/\1/p' "$TMP/o.json"), unmounted"

# info probes a mounted tracefs and says it mounts it for runs
"$BIN" info > "$TMP/info" 2> "$TMP/e" || fail "info exited $?"
grep -q "^tracefs: .*it was not mounted: runs mount it here" "$TMP/info" || fail "info: $(grep tracefs: "$TMP/info")"
grep -q "^hist triggers:" "$TMP/info" || fail "info did not probe tracefs"
[ "$(mounts)" = 0 ] || fail "tracefs left mounted after info"

# cleanup looks at the tracefs it mounts, then unmounts it
"$BIN" cleanup > /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "cleanup exited $?"; }
[ "$(mounts)" = 0 ] || fail "tracefs left mounted after cleanup"

# the perf backend needs the format files: they are there
"$BIN" runq --backend=perf 0.2 > /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "perf backend without a mounted tracefs"; }
[ "$(mounts)" = 0 ] || fail "tracefs left mounted after the perf run"

# --tracefs DIR wins: nothing is mounted for it
"$BIN" runq --tracefs /sys/kernel/tracing 0.2 > /dev/null 2> "$TMP/e" && fail "--tracefs on an empty directory worked"
grep -q "mounted it" "$TMP/e" && fail "mounted tracefs although --tracefs was given"

# something else uses it when the run ends: it stays, and the run says so
: > "$TMP/e"	# the banner polled for is this run's
"$BIN" runq 2 > /dev/null 2> "$TMP/e" &
tool=$!
for _ in $(seq 1 100); do grep -q "Hit Ctrl-C" "$TMP/e" && break; sleep 0.05; done
exec 7< /sys/kernel/tracing/trace_clock || fail "cannot open the mounted tracefs"
wait "$tool" || fail "runq exited $?"
grep -q "note: left tracefs mounted at /sys/kernel/tracing: another process uses it now" "$TMP/e" ||
	fail "no notice that the busy mount was left: $(cat "$TMP/e")"
exec 7<&-
umount /sys/kernel/tracing || fail "cannot unmount what the busy run left"
echo "# busy at exit: left mounted, said so"
exit 0
SH
chmod +x "$TMP/inner.sh"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") TMP=$TMP \
	unshare -m --propagation private "$TMP/inner.sh"
rc=$?
[ $rc = 77 ] && skip "no /sys/kernel/tracing to mount on"
[ $rc = 0 ] || fail "in a namespace without tracefs (status $rc)"
check_restored "runs that mounted tracefs themselves"
exit 0
