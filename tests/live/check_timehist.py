"""timehist's output against the kernel's own accounting (tests/live/timehist.sh).

events OUT.json WL.json WHAT: per workload thread, the switch events' sch
delay sums to schedstat's run_delay, their run time to sum_exec_runtime
(2%, plus 60 us a switch for where the tracepoint sits in the switch, plus
the CPU's steal: oncpu(8), ACCURACY), their count to pcount (within 2);
the summary's rows add up to the events.

trace OUT.json WL.json WHAT: the Perfetto trace: well-formed trace-event
JSON, each thread's slices in time order without overlap, named threads,
flows paired; per workload thread the Running slices add up to
sum_exec_runtime and the Runnable ones to run_delay, as above (each
slice's ends are floored to the microsecond: 1 us a switch more).

events_equal A.json B.json: the switch events of the workload's threads
are the same in both (a live run and the report of its recording)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kacct import steal_slack  # noqa: E402

CPU_PID = 2000000000


def near(what, got, want, n, extra=0):
    slack = 0.02 * want + 60000 * n + extra
    ok = abs(got - want) <= slack
    print("  %s: %.3f ms, schedstat %.3f ms (%+.2f%%)%s" %
          (what, got / 1e6, want / 1e6, 100.0 * (got - want) / max(want, 1),
           "" if ok else "  <- off by more than %.3f ms" % (slack / 1e6)))
    return ok


def events(out, wl, what, steal):
    th = out["timehist"]
    assert out["command"] == "timehist", out["command"]
    assert th["complete"], "the lines were not all spooled"
    ev = [e for e in th["events"] if e["type"] == "switch"]
    ok = True
    rows = {r["tid"]: r for r in out.get("summary", {}).get("rows", [])}
    for t in wl["threads"]:
        mine = [e for e in ev if e["tid"] == t["tid"]]
        unknown = [e for e in mine if e["sch_delay_ns"] is None or e["run_ns"] is None]
        delay = sum(e["sch_delay_ns"] or 0 for e in mine)
        run = sum(e["run_ns"] or 0 for e in mine)
        print("%s: tid %d: %d switches (pcount %d), %d with a value unknown" %
              (what, t["tid"], len(mine), t["pcount"], len(unknown)))
        for e in mine:
            assert e["pid"] == wl["pid"] and e["comm"] == "workload", e
            assert e["run_ns"] is None or e["switch_in_ns"] + e["run_ns"] == e["time_ns"], e
            assert e["wait_ns"] is None or e["sch_delay_ns"] is None or \
                e["sch_delay_ns"] <= e["wait_ns"], e
        if unknown and out["partial"] and all(e["marks"] for e in unknown):
            print("  (partial, and the lines say what is missing: %s)" %
                  sorted({m for e in unknown for m in e["marks"]}))
            continue
        ok &= not unknown
        ok &= abs(len(mine) - t["pcount"]) <= 2
        ok &= near("sch delay", delay, t["run_delay_ns"], t["pcount"])
        ok &= near("run time", run, t["run_ns"], t["pcount"], steal_slack(steal))
        r = rows.get(t["tid"])
        if rows:
            assert r, "tid %d not in the summary" % t["tid"]
            assert r["run"]["count"] == sum(1 for e in mine if e["run_ns"] is not None), r
            assert r["run"]["total_ns"] == run and r["delay"]["total_ns"] == delay, r
            worst = max(mine, key=lambda e: e["sch_delay_ns"] or 0)
            assert r["delay"]["max_ns"] == worst["sch_delay_ns"], (r, worst)
            assert r["delay"]["max_at_ns"] == worst["switch_in_ns"], (r, worst)
    assert sum(t["run_delay_ns"] for t in wl["threads"]) > 50e6, "the workload did not contend"
    return ok


def slices_of(d):
    assert isinstance(d["traceEvents"], list) and d["displayTimeUnit"] == "ns"
    tracks, names, flows = {}, {}, {}
    for e in d["traceEvents"]:
        assert e["ph"] in ("X", "M", "s", "f", "i"), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        if e["ph"] == "M":
            if e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        assert isinstance(e["ts"], int) and e["ts"] > 0, e
        if e["ph"] == "X":
            assert isinstance(e["dur"], int) and e["dur"] >= 0 and e["cat"] and e["name"], e
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
        elif e["ph"] in ("s", "f"):
            assert e["cat"] == "flow" and e["name"] == "wakeup", e
            if e["ph"] == "f":
                assert e["bp"] == "e", e
            flows.setdefault(e["id"], []).append(e["ph"])
    assert all(sorted(v) == ["f", "s"] for v in flows.values()), "a flow without its other end"
    for key, v in tracks.items():
        assert key in names, "a track without a name: %s" % (key,)
        v.sort(key=lambda e: e["ts"])
        for a, b in zip(v, v[1:]):
            assert a["ts"] + a["dur"] <= b["ts"], ("slices overlap", a, b)
    return tracks, names, flows


def trace(d, wl, what, steal):
    tracks, names, flows = slices_of(d)
    cpus = [k for k in tracks if k[0] == CPU_PID]
    assert cpus and all(names[k].startswith("CPU ") for k in cpus), "no CPU tracks"
    print("%s: %d tracks (%d CPUs), %d flows" % (what, len(tracks), len(cpus), len(flows)))
    ok = True
    for t in wl["threads"]:
        v = tracks.get((wl["pid"], t["tid"]), [])
        assert names.get((wl["pid"], t["tid"])) == "workload", names.get((wl["pid"], t["tid"]))
        run = [e for e in v if e["name"] == "Running"]
        runnable = sum(e["dur"] for e in v if e["name"].startswith("Runnable"))
        print("%s: tid %d: %d running slices (pcount %d)" % (what, t["tid"], len(run), t["pcount"]))
        ok &= abs(len(run) - t["pcount"]) <= 2
        ok &= near("running", 1000 * sum(e["dur"] for e in run), t["run_ns"], 2 * t["pcount"],
                   steal_slack(steal))
        ok &= near("runnable", 1000 * runnable, t["run_delay_ns"], 2 * t["pcount"])
        assert {e["name"] for e in v} <= {"Running", "Runnable", "Runnable (Preempted)",
                                          "Sleeping (S)", "Uninterruptible Sleep (D)",
                                          "Blocked (state unknown)",
                                          "Blocked (wakeup not in the trace)"}, v
    return ok


def events_equal(a, b):
    def key(out):
        return sorted((e["time_ns"], e["cpu"], e["tid"], e["wait_ns"], e["sch_delay_ns"],
                       e["run_ns"]) for e in out["timehist"]["events"] if e["type"] == "switch")
    ka, kb = key(a), key(b)
    print("live %d switch events, report %d" % (len(ka), len(kb)))
    return ka == kb


def main():
    mode = sys.argv[1]
    if mode == "events_equal":
        sys.exit(0 if events_equal(json.load(open(sys.argv[2])), json.load(open(sys.argv[3])))
                 else 1)
    out, wl, what = json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
    steal = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    ok = (events if mode == "events" else trace)(out, wl, what, steal)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
