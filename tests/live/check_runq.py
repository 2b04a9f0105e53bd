#!/usr/bin/env python3
"""Compare `runq -L --format=json` with the workload's schedstat readings."""
import json
import sys

out = json.load(open(sys.argv[1]))
wl = json.load(open(sys.argv[2]))

for key in ("command", "backend", "clock", "unit", "window", "events",
            "incomplete", "groups"):
    assert key in out, "JSON lacks %r" % key
assert out["command"] == "runq" and out["unit"] == "usecs"
sampled = "sampled" in out		# the proc backend: totals, no buckets
assert out["clock"] in (("sampled",) if sampled else ("mono", "global")), out["clock"]
for key in ("open_at_start", "open_at_end", "negative", "state_overflow"):
    assert key in out["incomplete"], key
assert out["events"]["lost"] == 0, "events were lost: %r" % out["events"]

groups = {g["tid"]: g for g in out["groups"]}
ok = True
spin_delay = 0
for t in wl["threads"]:
    g = groups.get(t["tid"])
    if g is None:
        print("tid %d: not in the output" % t["tid"])
        ok = False
        continue
    want_sum, want_n = t["run_delay_ns"], t["pcount"]
    err = abs(g["sum_ns"] - want_sum) / max(want_sum, 1)
    print("tid %d: schedstat %d ns / %d, runq %d ns / %d (%.2f%%)" %
          (t["tid"], want_sum, want_n, g["sum_ns"], g["count"], 100 * err))
    if err > 0.02 or abs(g["count"] - want_n) > 2:
        # a switch the kernel did not record (see docs/design.md) ends a
        # wait unmeasured: fewer intervals, never more time than schedstat
        if (out["incomplete"]["missed_switch"] and g["count"] >= want_n - 2 and
                g["sum_ns"] <= want_sum * 1.02 and err <= 0.06):
            print("  (within what %d missed switches explain)" % out["incomplete"]["missed_switch"])
        else:
            ok = False
    spin_delay += want_sum
    if sampled:
        # no interval has a time of its own: none is made up
        assert g["buckets"] == [] and g["p99"] is None, g
        continue
    # buckets must add up to the count, in floor-log2 order
    assert sum(b["count"] for b in g["buckets"]) == g["count"]
    for b in g["buckets"]:
        assert b["low"] == 0 and b["high"] == 0 or b["high"] == 2 * b["low"] - 1
# the workload must really have contended, or the test proves nothing
if spin_delay < 100 * 1000 * 1000:
    print("workload produced only %d ns of run-queue delay" % spin_delay)
    ok = False
print("incomplete:", out["incomplete"])
sys.exit(0 if ok else 1)
