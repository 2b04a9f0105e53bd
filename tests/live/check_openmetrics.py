#!/usr/bin/env python3
"""A strict check of the OpenMetrics text offcpu-ftrace writes."""
import math
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(\{(%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))


def check(path):
    lines = open(path).read().split("\n")
    assert lines[-1] == "" and lines[-2] == "# EOF", "must end with '# EOF'"
    types = {}
    hist = {}
    for n, line in enumerate(lines[:-2], 1):
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert re.fullmatch(NAME, name), "line %d: bad name" % n
            assert kind in ("histogram", "gauge", "counter"), "line %d: type" % n
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
    assert hist, "no histogram"
    print("%s: %d families, %d histograms: ok" % (path, len(types), len(hist)))


for p in sys.argv[1:]:
    check(p)
