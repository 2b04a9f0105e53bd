#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A hostile-input pass over the binary, as users run it: report on
truncated, bit-flipped, zeroed and crafted recordings, compare on
truncated, bit-flipped and escape-laden texts. Deterministic (seeded).

    hostile.py BIN SRCDIR [SCALE]

Each run must end on its own within 10 s, exit with a documented status
(report 0-3, compare 0-2), print nothing on stderr but the tool's own
lines (at most one error), and no control character but newlines and
tabs anywhere. Prints a Markdown table (the one in docs/reliability.md:
class, runs, what they got, the largest memory one took) and exits 1
when any run broke a rule (each is listed). SCALE (default 1) multiplies
the number of mutants; about 2,900 runs and a few minutes at 1.
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import craft  # noqa: E402

TIMEOUT = 10
CTRL = set(range(0, 32)) - {9, 10}


class Tally:
    def __init__(self, name):
        self.name, self.runs, self.outcomes, self.maxrss_kb = name, 0, {}, 0
        self.broken = []

    def add(self, outcome):
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def run(binp, args):
    """(exit status, -signal, or None on timeout; stdout; stderr; its max RSS in KiB,
    its forked probe included)"""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([binp] + args, stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL)
        end = time.monotonic() + TIMEOUT
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > end:
                os.kill(p.pid, signal.SIGKILL)
                os.wait4(p.pid, 0)
                p.returncode = -signal.SIGKILL
                return None, b"", b"", 0
            time.sleep(0.002)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), ru.ru_maxrss


def check(t, what, rc, out, err, ok_rcs):
    """the rules; the outcome's name for the table"""
    bad = []
    if rc is None:
        bad.append("hung")
    elif rc < 0 or rc not in ok_rcs:
        bad.append("exit %d" % rc)
    lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln]
    if any(not (ln.startswith("offcpu-ftrace") or ln.startswith("Try 'offcpu-ftrace"))
           for ln in lines):
        bad.append("stray stderr")
    if len([ln for ln in lines if not ln.startswith("offcpu-ftrace: note:")]) > 2:
        bad.append("several errors")
    if any(b in CTRL for b in out + err):
        bad.append("control character")
    if bad:
        t.broken.append("%s: %s" % (what, ", ".join(bad)))
        return "broken"
    if rc == 0:
        return "read, complete" if b'"partial":false' in out or b'"partial"' not in out \
            else "read, partial"
    if rc == 3:
        return "read, partial (--strict: 3)"
    if rc == 1:
        return "refused (offset named)" if b"offset" in err else "refused"
    return "usage error (2)" if t.name.startswith("report") else "refused, line named (2)" \
        if b"line " in err else "refused (2)"


def mutants(data, rnd, scale, header_len):
    """(kind, bytes): truncations, bit flips (anywhere, in the headers), zeroed bytes"""
    n = len(data)
    for i in range(40 * scale):
        yield "truncated", data[:rnd.randrange(n)] if i >= 8 else data[:n * i // 8]
    for _ in range(150 * scale):
        d = bytearray(data)
        o = rnd.randrange(n)
        d[o] ^= 1 << rnd.randrange(8)
        yield "bit flipped", bytes(d)
    for _ in range(50 * scale):
        d = bytearray(data)
        o = rnd.randrange(min(n, header_len))
        d[o] ^= 1 << rnd.randrange(8)
        yield "bit flipped (headers)", bytes(d)
    for _ in range(50 * scale):
        d = bytearray(data)
        d[rnd.randrange(n)] = 0
        yield "byte zeroed", bytes(d)


def recordings(binp, src, tmp, scale, tallies):
    rnd = random.Random(36)
    files = [os.path.join(src, "tests/fixtures/trace-cmd", f) for f in
             sorted(os.listdir(os.path.join(src, "tests/fixtures/trace-cmd")))
             if f.endswith(".dat")]
    files += [os.path.join(src, "tests/fixtures/recordings", f) for f in
              sorted(os.listdir(os.path.join(src, "tests/fixtures/recordings")))
              if f.endswith(".dat")]
    path = os.path.join(tmp, "r.dat")
    for f in files:
        data = open(f, "rb").read()
        for kind, d in mutants(data, rnd, scale, 16384):
            t = tallies.setdefault("report: " + kind, Tally("report: " + kind))
            open(path, "wb").write(d)
            rc, out, err, rss = run(binp, ["report", path, "runq", "--format=json",
                                          "--strict", "-q"])
            t.runs += 1
            t.maxrss_kb = max(t.maxrss_kb, rss)
            t.add(check(t, "%s of %s" % (kind, os.path.basename(f)), rc, out, err,
                        {0, 1, 2, 3}))
    t = tallies.setdefault("report: crafted", Tally("report: crafted"))
    for name, d in craft.crafted(src).items():
        open(path, "wb").write(d)
        rc, out, err, rss = run(binp, ["report", path, "runq", "--format=json",
                                      "--strict", "-q"])
        t.runs += 1
        t.maxrss_kb = max(t.maxrss_kb, rss)
        t.add(check(t, name, rc, out, err, {0, 1, 2, 3}))


def texts(binp, src, tmp, scale, tallies):
    rnd = random.Random(3636)
    fx = os.path.join(src, "tests/fixtures")
    files = [os.path.join(fx, f) for f in ("bpftrace-0.17-runq.txt", "bcc-runqlat.txt",
                                           "bcc-runqlat-single.txt", "offcpu-runq.json")]
    hist = os.path.join(fx, "kernels/6.1.0-57-cloud-amd64/hist")
    files += [os.path.join(hist, f) for f in sorted(os.listdir(hist))
              if f.endswith(".hist")][:6]
    good = os.path.join(fx, "bcc-runqlat.txt")
    path = os.path.join(tmp, "t.txt")
    for f in files:
        data = open(f, "rb").read()
        for kind, d in mutants(data, rnd, scale, len(data)):
            if kind == "bit flipped (headers)":
                continue
            t = tallies.setdefault("compare: " + kind, Tally("compare: " + kind))
            open(path, "wb").write(d)
            rc, out, err, rss = run(binp, ["compare", "--map", "usecs", "--unit-a", "us",
                                          path, good])
            t.runs += 1
            t.maxrss_kb = max(t.maxrss_kb, rss)
            t.add(check(t, "%s of %s" % (kind, os.path.basename(f)), rc, out, err,
                        {0, 1, 2}))
        for _ in range(10 * scale):
            t = tallies.setdefault("compare: escape sequences inserted",
                                   Tally("compare: escape sequences inserted"))
            d = bytearray(data)
            for _ in range(3):
                o = rnd.randrange(len(d))
                d[o:o] = rnd.choice([b"\x1b[2J", b"\x1b]0;x\x07", b"\r", b"\x9b31m", b"\x00"])
            open(path, "wb").write(d)
            rc, out, err, rss = run(binp, ["compare", "--map", "usecs", "--unit-a", "us",
                                          path, good])
            t.runs += 1
            t.maxrss_kb = max(t.maxrss_kb, rss)
            t.add(check(t, "escapes in %s" % os.path.basename(f), rc, out, err, {0, 1, 2}))


def main(binp, src, scale):
    tallies = {}
    with tempfile.TemporaryDirectory(prefix="offcpu-hostile.") as tmp:
        recordings(binp, src, tmp, scale, tallies)
        texts(binp, src, tmp, scale, tallies)
    print("| class | runs | what they got | largest RSS |")
    print("|---|---|---|---|")
    total = broken = 0
    for t in tallies.values():
        got = ", ".join("%s %d" % (k, v) for k, v in sorted(t.outcomes.items()))
        print("| %s | %d | %s | %.1f MiB |" % (t.name, t.runs, got, t.maxrss_kb / 1024))
        total += t.runs
        broken += len(t.broken)
    print("\n%d runs, %d broke a rule" % (total, broken))
    for t in tallies.values():
        for b in t.broken[:20]:
            print("BROKEN: %s" % b)
    return 1 if broken else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: hostile.py BIN SRCDIR [SCALE]")
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1))
