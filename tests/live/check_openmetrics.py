#!/usr/bin/env python3
"""A strict check of the OpenMetrics text offcpu-ftrace writes.

Besides the syntax: every histogram has the fixed bucket bounds of its
family (1 us .. 2^24 us for run-queue latency, .. 2^32 us for off-CPU and
blocked time, then +Inf), so files from any window can be summed; every
file carries the status families with a command label.
"""
import math
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(\{(%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))
MAX_EXP = {"offcpu_ftrace_runq_latency_seconds": 24}
STATUS = ("offcpu_ftrace_window_seconds", "offcpu_ftrace_window_end_timestamp_seconds",
          "offcpu_ftrace_lost_events", "offcpu_ftrace_missed_switches",
          "offcpu_ftrace_unmeasured_intervals", "offcpu_ftrace_recovered_switches",
          "offcpu_ftrace_partial", "offcpu_ftrace_sampled")


def fixed_bounds(fam):
    return [2.0 ** k / 1e6 for k in range(MAX_EXP.get(fam, 32) + 1)] + [math.inf]


def check(path):
    lines = open(path).read().split("\n")
    assert lines[-1] == "" and lines[-2] == "# EOF", "must end with '# EOF'"
    types = {}
    hist = {}
    seen = set()
    for n, line in enumerate(lines[:-2], 1):
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert re.fullmatch(NAME, name), "line %d: bad name" % n
            assert kind in ("histogram", "summary", "gauge", "counter"), "line %d: type" % n
            assert name not in types, "line %d: %s declared twice" % (n, name)
            types[name] = kind
            continue
        if line.startswith("# HELP ") or line.startswith("# UNIT "):
            assert line.split(" ")[2] in types, "line %d: HELP/UNIT before TYPE" % n
            continue
        assert not line.startswith("#"), "line %d: unknown comment %r" % (n, line)
        m = SAMPLE.match(line)
        assert m, "line %d: not a sample: %r" % (n, line)
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        v = float(value)
        assert not math.isnan(v) and v >= 0, "line %d: value %s" % (n, value)
        fam = re.sub(r"_(bucket|count|sum)$", "", name)
        assert fam in types or name in types, "line %d: %s has no TYPE" % (n, name)
        seen.add(name)
        if types.get(name) == "gauge":
            assert 'command="' in labels, "line %d: %s without a command label" % (n, name)
        if types.get(fam) == "summary":
            assert not name.endswith("_bucket"), "line %d: a summary with buckets" % n
        if name.endswith("_bucket"):
            le = re.search(r'le="([^"]+)"', labels).group(1)
            key = (fam, re.sub(r',?le="[^"]+"', "", labels))
            prev = hist.setdefault(key, [])
            bound = math.inf if le == "+Inf" else float(le)
            if prev:
                assert bound > prev[-1][0], "line %d: le not increasing" % n
                assert v >= prev[-1][1], "line %d: bucket counts must not decrease" % n
            prev.append((bound, v))
        elif name.endswith("_count") and types.get(fam) == "histogram":
            key = (fam, labels)
            assert hist[key][-1][0] == math.inf, "line %d: no +Inf bucket" % n
            assert hist[key][-1][1] == v, "line %d: _count != +Inf bucket" % n
    for (fam, labels), buckets in hist.items():
        got = [b for b, _ in buckets]
        want = fixed_bounds(fam)
        assert len(got) == len(want) and all(math.isclose(a, b) or a == b for a, b in zip(got, want)), \
            "%s{%s}: buckets %r, not the fixed bounds" % (fam, labels, got[:3] + ["..."] + got[-2:])
    summaries = [f for f, k in types.items() if k == "summary"]
    assert hist or summaries, "no histogram or summary"
    for name in STATUS:
        assert name in seen, "no %s" % name
    print("%s: %d families, %d histograms, %d summaries: ok" % (path, len(types), len(hist),
                                                                 len(summaries)))


for p in sys.argv[1:]:
    check(p)
