#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile recordings made from the shipped fixtures: one per defect that
a hostile-input pass found (issue #36), each a small change to a good file.

    craft.py SRCDIR OUTDIR

writes OUTDIR/<name>.dat (and prints the names). tests/safety.sh runs
`report` on each and holds what it must say; seeds.sh puts them in the
fuzz_tdat corpus; tests/fuzz/valgrind.sh runs `report` on them under
memcheck. Compressed chunks are rewritten in place: the changed raw bytes
are compressed again (libzstd through ctypes) and padded with a zstd
skippable frame to the chunk's old size, so no offset in the file moves.

Cases (name: the change; what report must do):
  v7-chunk-claims-1g: CPU 0's chunk says it expands to 1 GiB; refused at
      once, nothing allocated for the claim (was 2 GiB and 18 s).
  v7-printk-byte-zeroed: byte 3418 of sched-v7.dat zeroed, inside the
      compressed printk formats; refused with the section's offset (was a
      heap over-read in libtraceevent, under valgrind).
  v7-page-ts-flipped: bit 52 of the timestamp of CPU 1's last page, in its
      compressed chunk (a page 52 days late); its records skipped, partial,
      --strict exits 3 (was "4503600 s traced", partial: false).
  v6-page-ts-flipped: the same in an uncompressed version 6 file.
  v6-page-ts-back: CPU 0's third page 2 ms earlier, before its second
      page's last record; partial (was "2 events arrived out of time
      order", partial: false).
  v6-pid-out-of-range: a sched_switch's next_pid of 0x7fffffff; skipped,
      partial.
  v7-chunk-short: a chunk that claims one page more than it holds; refused
      (libtracecmd read the shorter chunk and said nothing).
  v7-clock-escape: the trace clock option names "l<ESC>"al": no clock of
      the kernel's; the BUFFER option's "local" is used (the escape reached
      the terminal in the text header, and broke triage's JSON).
  v7-chunk-garbage: 200 bytes of CPU 0's compressed chunk inverted; refused
      in one line of ours (libtracecmd printed "mmap: Unknown error -22"
      and "Can not mmap file, will read instead" before it).

And OUTDIR/v7-stored.ofz, a seed for fuzz_tdat's stored mode (see
fuzz_tdat.c): sched-v7.dat with every compressed block's raw bytes stored
("u32 size, u32 raw size, 'OFZ\\0', raw, padding"), which the harness
compresses again, so that mutations reach the sections' contents.
"""
import ctypes
import ctypes.util
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fixtures", "trace-cmd"))
import rezlib  # noqa: E402  (the v7 block rewriter)

ZSTD_SKIPPABLE = 0x184D2A50


def zstd():
    lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
    lib.ZSTD_decompress.restype = ctypes.c_size_t
    lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                    ctypes.c_size_t]
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                  ctypes.c_size_t, ctypes.c_int]
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    return lib


def unzstd(z, data, size):
    out = ctypes.create_string_buffer(size)
    n = z.ZSTD_decompress(out, size, data, len(data))
    assert not z.ZSTD_isError(n) and n == size, (n, size)
    return out.raw[:size]


def zstd_fit(z, raw, room):
    """raw compressed (level 19) and padded with a skippable frame to room bytes"""
    out = ctypes.create_string_buffer(len(raw) + 1024)
    n = z.ZSTD_compress(out, len(out), raw, len(raw), 19)
    assert not z.ZSTD_isError(n)
    frame = out.raw[:n]
    pad = room - len(frame)
    assert pad >= 8, "the changed chunk does not compress into its old room"
    return frame + struct.pack("<II", ZSTD_SKIPPABLE, pad - 8) + b"\0" * (pad - 8)


def stored_block(raw):
    """a block whose raw bytes fuzz_tdat's stored mode compresses in place"""
    nblocks = max(1, (len(raw) + (128 << 10) - 1) // (128 << 10))
    body = b"OFZ\0" + raw + b"\0" * (32 + 3 * nblocks)
    return struct.pack("<II", len(body), len(raw)) + body


def cstr(d, p):
    e = d.index(b"\0", p)
    return d[p:e], e + 1


def v7_cpu_runs(d):
    """{cpu: offset of its "u32 count, chunks"} from the BUFFER option of a v7 file"""
    p = 10
    _, p = cstr(d, p)           # version
    p += 2 + 4                  # endianness, long size, page size
    _, p = cstr(d, p)           # compression
    _, p = cstr(d, p)           # its version
    opt, = struct.unpack_from("<Q", d, p)
    runs = {}
    while opt:
        sid, _, _, size = struct.unpack_from("<HHIQ", d, opt)
        assert sid == 0
        o, end, nxt = opt + 16, opt + 16 + size, 0
        while o < end:
            oid, osz = struct.unpack_from("<HI", d, o)
            if oid == 3:
                b = o + 6 + 8
                name, b = cstr(d, b)
                _, b = cstr(d, b)
                b += 4
                ncpu, = struct.unpack_from("<I", d, b)
                b += 4
                for _ in range(ncpu):
                    cid, coff, csz = struct.unpack_from("<IQQ", d, b)
                    b += 20
                    if not name and csz:
                        runs[cid] = coff
            if oid == 0:
                nxt, = struct.unpack_from("<Q", d, o + 6)
                break
            o += 6 + osz
        opt = nxt
    return runs


def v6_cpu_data(d):
    """[(offset, size)] per CPU of a v6 file (the flyrecord table)"""
    i = d.index(b"flyrecord\0") + 10
    out = []
    while True:
        off, size = struct.unpack_from("<QQ", d, i)
        if off == 0 or off % 4096 or off > len(d):
            return out
        out.append((off, size))
        i += 16


def flip_page_ts(page, bit=None, delta=None):
    """a page with its header timestamp changed (bit flipped, or moved by delta ns)"""
    ts, = struct.unpack_from("<Q", page, 0)
    ts = ts ^ (1 << bit) if bit is not None else ts + delta
    return struct.pack("<Q", ts) + page[8:]


def crafted(src):
    z = zstd()
    v7 = open(os.path.join(src, "tests/fixtures/trace-cmd/sched-v7.dat"), "rb").read()
    v6 = open(os.path.join(src, "tests/fixtures/trace-cmd/sched-v6-mono.dat"), "rb").read()
    ps = 4096
    out = {}

    run = v7_cpu_runs(v7)[0] + 4            # CPU 0's first chunk
    csize, usize = struct.unpack_from("<II", v7, run)

    d = bytearray(v7)
    struct.pack_into("<I", d, run + 4, 1 << 30)
    out["v7-chunk-claims-1g"] = d

    d = bytearray(v7)
    d[3418] = 0
    out["v7-printk-byte-zeroed"] = d

    d = bytearray(v7)
    struct.pack_into("<I", d, run + 4, usize + ps)
    out["v7-chunk-short"] = d

    d = bytearray(v7)
    for i in range(run + 8, run + 8 + 200):
        d[i] ^= 0xff
    out["v7-chunk-garbage"] = d

    d = bytearray(v7)
    i = d.index(b"[local] global")
    d[i:i + 7] = b'[l\x1b"al]'
    out["v7-clock-escape"] = d

    run1 = v7_cpu_runs(v7)[1] + 4           # CPU 1's chunk: its last page
    csize1, usize1 = struct.unpack_from("<II", v7, run1)
    raw = unzstd(z, v7[run1 + 8:run1 + 8 + csize1], usize1)
    pages = [raw[i:i + ps] for i in range(0, len(raw), ps)]
    pages[-1] = flip_page_ts(pages[-1], bit=52)
    d = bytearray(v7)
    d[run1 + 8:run1 + 8 + csize1] = zstd_fit(z, b"".join(pages), csize1)
    out["v7-page-ts-flipped"] = d

    off, _ = v6_cpu_data(v6)[0]
    off1, size1 = v6_cpu_data(v6)[1]
    last = off1 + size1 - ps
    d = bytearray(v6)
    d[last:last + ps] = flip_page_ts(v6[last:last + ps], bit=52)
    out["v6-page-ts-flipped"] = d

    d = bytearray(v6)
    d[off + 2 * ps:off + 3 * ps] = flip_page_ts(v6[off + 2 * ps:off + 3 * ps],
                                                delta=-2000000)
    out["v6-page-ts-back"] = d

    d = bytearray(v6)
    p = first_record(v6, off, switch_id(v6))
    struct.pack_into("<i", d, p + switch_next_pid(v6), 0x7fffffff)
    out["v6-pid-out-of-range"] = d
    return out


def fmt_field(d, event, field):
    """(ID, offset of field) from the format text of @event in the file"""
    i = d.index(b"name: " + event + b"\n")
    text = d[i:d.index(b"print fmt:", i)].decode()
    eid = int(text.split("ID: ")[1].split("\n")[0])
    for line in text.split("\n"):
        if (" " + field + ";") in line:
            return eid, int(line.split("offset:")[1].split(";")[0])
    raise KeyError(field)


def switch_id(d):
    return fmt_field(d, b"sched_switch", "next_pid")[0]


def switch_next_pid(d):
    return fmt_field(d, b"sched_switch", "next_pid")[1]


def first_record(d, page, eid):
    """the offset of the first record of event @eid in the page at @page"""
    commit, = struct.unpack_from("<Q", d, page + 8)
    p, end = page + 16, page + 16 + (commit & 0xfffff)
    while p < end:
        hdr, = struct.unpack_from("<I", d, p)
        tl = hdr & 31
        if tl == 0:
            size, = struct.unpack_from("<I", d, p + 4)
            data, nxt = p + 8, p + 4 + size
        elif tl <= 28:
            data, nxt = p + 4, p + 4 + 4 * tl
        elif tl == 29:
            size, = struct.unpack_from("<I", d, p + 4)
            data, nxt = None, p + 4 + size
        else:
            data, nxt = None, p + 8
        if data is not None and struct.unpack_from("<H", d, data)[0] == eid:
            return data
        p = nxt
    raise KeyError(eid)


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    for name, data in crafted(src).items():
        with open(os.path.join(dst, name + ".dat"), "wb") as f:
            f.write(data)
        print(name)
    v7 = open(os.path.join(src, "tests/fixtures/trace-cmd/sched-v7.dat"), "rb").read()
    with open(os.path.join(dst, "v7-stored.ofz"), "wb") as f:
        f.write(b"OFZS" + rezlib.rewrite(v7, stored_block, b"zstd", b"1.5.4"))
    print("v7-stored (fuzz_tdat seed)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: craft.py SRCDIR OUTDIR")
    main(sys.argv[1], sys.argv[2])
