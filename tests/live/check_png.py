#!/usr/bin/env python3
"""Is a screenshot a real picture? PNG decoded with zlib alone (8-bit RGB or
RGBA, filters 0-4): prints the share of pixels that differ from the
background (the most common colour), the number of distinct colours and
the share of blue pixels; exits 1 when below the given minimums.
usage: check_png.py FILE MIN_INK MIN_COLOURS MIN_BLUE"""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unsupported PNG %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return out


px = pixels(sys.argv[1])
counts = Counter(px)
bg = counts.most_common(1)[0][0]
ink = 1 - counts[bg] / len(px)
blue = sum(n for (r, g, b), n in counts.items() if b > r + 40 and b > g + 40) / len(px)
print("%s: %d pixels, %.1f%% ink, %d colours, %.1f%% blue" % (sys.argv[1], len(px), 100 * ink,
                                                               len(counts), 100 * blue))
mins = [float(x) for x in sys.argv[2:5]]
sys.exit(0 if ink >= mins[0] and len(counts) >= mins[1] and blue >= mins[2] else 1)
