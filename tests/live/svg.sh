#!/bin/bash
# Pictures, looked at in a real browser: --format=svg writes well-formed,
# self-contained SVG (no external reference; names with < & " escaped); a
# headless Chromium (Debian's chromium) renders the flame graph, the bucket
# chart and the heat map to real pictures (not blank, blue frames), and
# the flame graph's search and zoom work in the page (its self-test,
# read back with --dump-dom). Chromium is started and stopped by PID.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
command -v chromium > /dev/null || skip "chromium not installed (apt-get install chromium)"
snapshot_save
cpu=$(( $(nproc) - 1 ))
mkdir -p "$TMP/chrome"

wellformed() {	# FILE: XML, one <svg>, nothing fetched from elsewhere
	"$PY" - "$1" <<'PYEOF' || fail "$1 is not well-formed, self-contained SVG"
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
text = open(sys.argv[1]).read()
assert not re.search(r'(href|src)\s*=|@import|url\(', text), "an external reference"
PYEOF
}

chrome() {	# OUT.png|--dump-dom URL: one headless Chromium, by PID
	local what=$1 url=$2
	if [ "$what" = --dump-dom ]; then
		HOME="$TMP/chrome" timeout 90 chromium --headless --no-sandbox --disable-gpu \
			--user-data-dir="$TMP/chrome" --dump-dom "$url" > "$TMP/dom" 2> "$TMP/chrome.log" &
	else
		HOME="$TMP/chrome" timeout 90 chromium --headless --no-sandbox --disable-gpu \
			--user-data-dir="$TMP/chrome" --window-size=1200,1000 --screenshot="$what" "$url" \
			> "$TMP/chrome.log" 2>&1 &
	fi
	CHROME=$!
	BG_PIDS="$BG_PIDS $CHROME"
	wait $CHROME || { tail -5 "$TMP/chrome.log"; fail "chromium failed on $url"; }
}

# a flame graph of a pipe reader: its wait is under the pipe read frame;
# a thread named with markup characters is escaped
"$PY" -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"a<b&\"c", 0, 0, 0)
while True: time.sleep(0.01)' &
odd=$!
BG_PIDS="$BG_PIDS $odd"
for i in $(seq 100); do grep -q '^a<b&"c$' /proc/$odd/comm 2>/dev/null && break; sleep 0.05; done
WORKLOAD_EXIT=1 "$BIN" offcpu -K --format=svg -o "$TMP/flame.svg" -- "$WORKLOAD" pipe 300 > /dev/null 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "offcpu -K --format=svg failed"; }
wellformed "$TMP/flame.svg"
grep -q 'data-n="[a-z_]*pipe_read"' "$TMP/flame.svg" || fail "no pipe read frame in the flame graph"
"$BIN" offcpu -K --format=svg -o "$TMP/odd.svg" 1 > /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "host-wide flame graph failed"; }
kill $odd
wellformed "$TMP/odd.svg"
grep -q 'data-n="a&lt;b&amp;&quot;c"' "$TMP/odd.svg" || fail "the odd thread name is not in the picture, escaped"
chrome "$TMP/flame.png" "file://$TMP/odd.svg"
"$PY" "${srcdir:-.}/tests/live/check_png.py" "$TMP/flame.png" 0.05 20 0.02 || fail "the flame graph renders blank"
chrome --dump-dom "file://$TMP/odd.svg#selftest=schedule"
st=$(grep -o 'selftest frames=[0-9]* matched=[0-9.]*% zoomed=[^ ]* shown=[0-9]*' "$TMP/dom")
[ -n "$st" ] || { head -c 500 "$TMP/dom"; fail "the flame graph's self-test did not run"; }
note "flame graph: $st"
"$PY" - "$st" <<'PYEOF' || fail "search or zoom do not work in the page: $st"
import re, sys
d = dict(kv.split("=", 1) for kv in sys.argv[1].split()[1:])
frames, shown = int(d["frames"]), int(d["shown"])
assert float(d["matched"].rstrip("%")) > 10, d		# every off-CPU stack goes through __schedule
assert "schedule" in d["zoomed"], d
assert 0 < shown < frames, d				# the zoom hid what is outside its frame
PYEOF

# one window's histograms: a bucket chart per process, p50/p90/p99 marked
WORKLOAD_EXIT=1 "$BIN" runq -P --top 4 --format=svg -o "$TMP/chart.svg" -- "$WORKLOAD" runq "$cpu" 3 500 \
	> /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "runq --format=svg failed"; }
wellformed "$TMP/chart.svg"
grep -q '>p99</text>' "$TMP/chart.svg" || fail "no p99 mark in the chart"
chrome "$TMP/chart.png" "file://$TMP/chart.svg"
"$PY" "${srcdir:-.}/tests/live/check_png.py" "$TMP/chart.png" 0.02 8 0.001 || fail "the chart renders blank"

# -i intervals: a heat map, all threads and per process
"$BIN" runq -P --top 3 -i 0.3 5 --format=svg > "$TMP/heat.svg" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq -i --format=svg failed"; }
wellformed "$TMP/heat.svg"
[ "$(grep -c '<svg ' "$TMP/heat.svg")" = 1 ] || fail "-i to stdout wrote more than one picture"
grep -q 'over 5 intervals' "$TMP/heat.svg" || fail "the heat map does not have the 5 intervals"
chrome "$TMP/heat.png" "file://$TMP/heat.svg"
"$PY" "${srcdir:-.}/tests/live/check_png.py" "$TMP/heat.png" 0.01 5 0 || fail "the heat map renders blank"
# with -o, each interval replaces the picture with the heat map so far
"$BIN" offcpu -i 0.2 3 --format=svg -o "$TMP/h2.svg" 2> "$TMP/e" || { cat "$TMP/e"; fail "offcpu -i -o svg failed"; }
grep -q 'over 3 intervals' "$TMP/h2.svg" || fail "-o heat map lacks intervals"

# what svg does not draw: one line, exit 2
for bad in "triage --format=svg 1" "offcpu -K -f --format=svg 1" "offcpu -K -i 1 --format=svg"; do
	# shellcheck disable=SC2086
	"$BIN" $bad > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] || fail "'$bad' exited $rc, want 2"
done
for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
BG_PIDS=""
check_restored "svg"
