#!/bin/bash
# The fleet path with the real engine, on 127.0.0.1 only: two "runners",
# each a node_exporter (textfile collector) with its own directory, one
# window idle and one CPU-contended written by the shipped service's
# command line, plus an overloaded window that loses events; Prometheus
# scrapes both with the shipped rules. The fleet p99 of docs/fleet.md is
# the quantile of the merged histogram (computed here from the files);
# the alerts fire exactly where the files say a window is partial; every
# file passes promtool check metrics. Every process is stopped by PID.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
for c in prometheus promtool prometheus-node-exporter curl; do
	command -v $c > /dev/null || skip "$c not installed (apt-get install prometheus prometheus-node-exporter curl)"
done
snapshot_save
RULES=${srcdir:-.}/contrib/prometheus/offcpu-ftrace.rules.yml
cpu=$(( $(nproc) - 1 ))
mkdir -p "$TMP/a" "$TMP/b" "$TMP/tsdb"

# three free loopback ports
read -r PA PB PP < <("$PY" -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
for s in ss: s.close()')

# the windows, as offcpu-ftrace-sample.service writes them (triage -o)
"$BIN" triage --format=openmetrics -q -o "$TMP/a/offcpu-ftrace.prom" 1 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "idle triage window failed"; }
WORKLOAD_EXIT=1 "$BIN" triage --format=openmetrics -q -o "$TMP/b/offcpu-ftrace.prom" -- \
	"$WORKLOAD" runq "$cpu" 3 500 > /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "contended triage window failed"; }
# a per-container window (docs/fleet.md): contended threads in a cgroup of their own
make_cgroup fleet
FLEET_CG=/${CG##*/}
# shellcheck disable=SC2016
WORKLOAD_EXIT=1 "$BIN" runq --by cgroup --top 3 --format=openmetrics -q \
	-o "$TMP/a/offcpu-ftrace-cgroups.prom" -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" runq "$2" 3 300' \
	"$CG" "$WORKLOAD" "$cpu" > /dev/null 2> "$TMP/e" || { cat "$TMP/e"; fail "per-container window failed"; }
grep -q "cgroup=\"$FLEET_CG\"" "$TMP/a/offcpu-ftrace-cgroups.prom" ||
	{ grep _count "$TMP/a/offcpu-ftrace-cgroups.prom"; fail "the per-container window has no series for $FLEET_CG"; }
# an overloaded window: 64 KiB buffers, the reader stopped through a burst
run_bg "$TMP/b/overload.prom.out" "$TMP/over.err" runq --backend=ring --buffer-size 64 \
	--format=openmetrics -o "$TMP/b/overload.prom" 60
wait_banner "$TMP/over.err"
kill -STOP "$TOOL_PID"
burst
kill -CONT "$TOOL_PID"
sleep 0.2
kill -INT "$TOOL_PID"
wait "$TOOL_PID" || { cat "$TMP/over.err"; fail "overloaded window exited $?"; }
for f in "$TMP"/a/*.prom "$TMP"/b/*.prom; do
	promtool check metrics < "$f" > "$TMP/pc" 2>&1 || { cat "$TMP/pc"; fail "promtool check metrics: ${f##*/}"; }
	"$PY" "${srcdir:-.}/tests/live/check_openmetrics.py" "$f" > /dev/null || fail "bad OpenMetrics: $f"
done
grep -q '^offcpu_ftrace_lost_events{command="runq"} [1-9]' "$TMP/b/overload.prom" ||
	{ grep lost "$TMP/b/overload.prom"; fail "the overloaded window lost nothing"; }

# every command's exposition, every grouping, traced and sampled, passes
# promtool and has the fixed bounds and the status families
"$BIN" record -q -o "$TMP/w.dat" 0.5 2> "$TMP/e" || { cat "$TMP/e"; fail "record failed"; }
i=0
for args in "runq 0.3" "runq -P 0.3" "runq -L 0.3" "runq -C 0.3" "runq --by comm --top 3 0.3" \
	    "offcpu 0.3" "offcpu -P 0.3" "triage 0.3" "runq --backend=proc 0.3" \
	    "offcpu --backend=proc -P 0.3" "triage --backend=proc 0.3" "report $TMP/w.dat" \
	    "report $TMP/w.dat offcpu -L" "report $TMP/w.dat triage"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$BIN" $args --format=openmetrics -q > "$TMP/om.$i" 2> "$TMP/e" || { cat "$TMP/e"; fail "$args --format=openmetrics failed"; }
	promtool check metrics < "$TMP/om.$i" > "$TMP/pc" 2>&1 || { cat "$TMP/pc"; fail "promtool check metrics: $args"; }
	"$PY" "${srcdir:-.}/tests/live/check_openmetrics.py" "$TMP/om.$i" > /dev/null || fail "bad OpenMetrics: $args"
done
grep -q '^# TYPE offcpu_ftrace_sampled_runq_latency_seconds summary' "$TMP/om.9" || fail "sampled runq is not a summary"
note "promtool check metrics: $i command lines"
check_restored "expositions"

# the engine: two node_exporters, one Prometheus with the shipped rules
for r in a b; do
	port=$PA; [ $r = b ] && port=$PB
	prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$TMP/$r" > "$TMP/ne.$r.log" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
done
cat > "$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$(cd "$(dirname "$RULES")" && pwd)/$(basename "$RULES")"]
scrape_configs:
  - job_name: runners
    static_configs:
      - targets: ["127.0.0.1:$PA", "127.0.0.1:$PB"]
EOF
promtool check config "$TMP/prometheus.yml" > "$TMP/pc" 2>&1 || { cat "$TMP/pc"; fail "promtool check config"; }
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address=127.0.0.1:$PP > "$TMP/prom.log" 2>&1 &
PROM=$!
BG_PIDS="$BG_PIDS $PROM"

query() {	# query EXPR: the JSON answer of Prometheus' instant query
	curl -sf --max-time 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"
}
# ready when both runners' three windows are scraped and the rules ran
for i in $(seq 1 120); do
	n=$(query 'count(offcpu_ftrace_window_seconds) + count(instance:offcpu_ftrace_runq_latency_seconds:p99)' 2>/dev/null |
		"$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)
	[ "${n:-0}" = 6 ] && break
	sleep 0.5
done
[ "${n:-0}" = 6 ] || { tail -5 "$TMP/prom.log" "$TMP"/ne.*.log; fail "Prometheus did not scrape the four windows and run the rules (got ${n:-nothing})"; }
# the per-container rule: the test cgroup's p99, from runner a's file
query "cgroup:offcpu_ftrace_runq_latency_seconds:p99{cgroup=\"$FLEET_CG\"}" > "$TMP/c99"
"$PY" - "$TMP/c99" "$TMP/a/offcpu-ftrace-cgroups.prom" "$FLEET_CG" <<'PYEOF' || fail "the per-container p99"
import json, math, re, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
assert len(r) == 1, r
got = float(r[0]["value"][1])
b = {}
for line in open(sys.argv[2]):
    m = re.match(r'^offcpu_ftrace_runq_latency_seconds_bucket\{command="runq",cgroup="%s",le="([^"]+)"\} (\S+)$'
                 % re.escape(sys.argv[3]), line)
    if m:
        b[math.inf if m.group(1) == "+Inf" else float(m.group(1))] = float(m.group(2))
# histogram_quantile(0.99) of the file's cumulative buckets, as Prometheus computes it
les = sorted(b)
rank = 0.99 * b[math.inf]
i = next(k for k, le in enumerate(les) if b[le] >= rank)
lo, lo_count = (0.0, 0.0) if i == 0 else (les[i - 1], b[les[i - 1]])
want = les[-2] if les[i] == math.inf else lo + (les[i] - lo) * (rank - lo_count) / (b[les[i]] - lo_count)
print("per-container p99 %s: Prometheus %.6f s, from the file %.6f s" % (sys.argv[3], got, want))
assert abs(got - want) <= 1e-9 + 1e-6 * want, (got, want)
PYEOF

query 'histogram_quantile(0.99, sum by (le) (offcpu_ftrace_runq_latency_seconds_bucket{command="triage"}))' > "$TMP/q99"
query 'fleet:offcpu_ftrace_runq_latency_seconds:p99' > "$TMP/r99"
query 'ALERTS{alertname="OffcpuFtraceLostEvents"}' > "$TMP/alerts"
query 'offcpu_ftrace_partial == 1' > "$TMP/partial"
query 'time() - offcpu_ftrace_window_end_timestamp_seconds > 900' > "$TMP/stale"
"$PY" - "$TMP" "$PA" "$PB" <<'PYEOF' || fail "the fleet's numbers"
import json, math, re, sys
tmp, pa, pb = sys.argv[1:4]

def series(path, name):
    """{labels: value} of one family's samples in an exposition file."""
    out = {}
    for line in open(path):
        m = re.match(r'^%s\{([^}]*)\} (\S+)$' % re.escape(name), line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out

def buckets(path):
    b = {}
    for labels, v in series(path, "offcpu_ftrace_runq_latency_seconds_bucket").items():
        if 'command="triage"' in labels:
            le = re.search(r'le="([^"]+)"', labels).group(1)
            b[math.inf if le == "+Inf" else float(le)] = v
    return b

def quantile(q, b):
    """Prometheus' histogram_quantile over cumulative buckets {le: count}."""
    les = sorted(b)
    total = b[math.inf]
    if total == 0:
        return math.nan
    rank = q * total
    i = next(k for k, le in enumerate(les) if b[le] >= rank)
    if les[i] == math.inf:
        return les[-2]
    lo, lo_count = (0.0, 0.0) if i == 0 else (les[i - 1], b[les[i - 1]])
    return lo + (les[i] - lo) * (rank - lo_count) / (b[les[i]] - lo_count)

a, b = buckets(tmp + "/a/offcpu-ftrace.prom"), buckets(tmp + "/b/offcpu-ftrace.prom")
assert sorted(a) == sorted(b), "the runners' bucket bounds differ"
merged = {le: a[le] + b[le] for le in a}
want = quantile(0.99, merged)
ans = lambda f: json.load(open(tmp + "/" + f))["data"]["result"]
got = float(ans("q99")[0]["value"][1])
rec = float(ans("r99")[0]["value"][1])
print("# fleet p99: Prometheus %.6g s, the merged files %.6g s, recording rule %.6g s "
      "(idle runner p99 %.6g s, contended %.6g s)" % (got, want, rec, quantile(0.99, a),
                                                       quantile(0.99, b)))
assert math.isclose(got, want, rel_tol=1e-9), (got, want)
assert math.isclose(rec, want, rel_tol=1e-9), (rec, want)

# alerts: exactly where the files say events were lost, and partial
def flagged(fam, test):
    out = set()
    for r, port in (("a", pa), ("b", pb)):
        for f in ("offcpu-ftrace.prom", "overload.prom", "offcpu-ftrace-cgroups.prom"):
            try:
                s = series("%s/%s/%s" % (tmp, r, f), fam)
            except FileNotFoundError:
                continue
            for labels, v in s.items():
                if test(v):
                    out.add(("127.0.0.1:" + port, re.search(r'command="([^"]+)"', labels).group(1)))
    return out
lost = {(x["metric"]["instance"], x["metric"]["command"]) for x in ans("alerts")
        if x["metric"].get("alertstate") == "firing"}
assert lost == flagged("offcpu_ftrace_lost_events", lambda v: v > 0) == {("127.0.0.1:" + pb, "runq")}, lost
partial = {(x["metric"]["instance"], x["metric"]["command"]) for x in ans("partial")}
assert partial == flagged("offcpu_ftrace_partial", lambda v: v == 1), partial
assert ans("stale") == [], ans("stale")
print("# alerts: lost events on %s; partial windows %s; none stale" % (sorted(lost), sorted(partial)))
PYEOF

# stopped by PID, and gone
for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
for p in $BG_PIDS; do [ -e /proc/$p ] && fail "process $p still runs"; done
BG_PIDS=""
check_restored "fleet"
