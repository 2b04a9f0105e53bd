#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpora for the fuzz targets, made from tests/fixtures:
#
#   tests/fuzz/seeds.sh OUTDIR
#
# writes OUTDIR/decode, OUTDIR/fmt, OUTDIR/khist and OUTDIR/peerhist
# (generated, not committed). The first byte of decode and fmt inputs
# selects what the target does; see the comments at the top of
# fuzz_decode.c and fuzz_fmt.c.
set -eu

top=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
out=${1:?usage: seeds.sh OUTDIR}
fx=$top/tests/fixtures
fz=$top/tests/fuzz
# the order of fuzz_kernels[] in fuzz_decode.c (and tests/unit/fixture.c)
kernels="5.10.0-32-cloud-amd64 6.1.0-57-cloud-amd64 6.12.117+deb13-cloud-amd64 6.18.44-host"

[ -d "$fx/kernels" ] || { echo "seeds.sh: no fixtures under $fx" >&2; exit 1; }
for t in decode fmt khist peerhist tdat; do
	mkdir -p "$out/$t"
done

# one byte of value $1 (0-255)
byte() {
	# shellcheck disable=SC2059
	printf "\\$(printf %03o "$1")"
}

# $1 as a little-endian u16
u16() {
	byte $(($1 & 255))
	byte $(($1 >> 8 & 255))
}

# n bytes of zero
zeros() {
	head -c "$1" /dev/zero
}

# the event ID in format file $1
fmt_id() {
	sed -n 's/^ID: *\([0-9]*\).*/\1/p' "$1"
}

# --- decode: every page of every cpuN.trace_pipe_raw, as captured
i=0
for k in $kernels; do
	raw=$fx/kernels/$k/raw
	# page size = data offset + data size, from header_page
	psz=$(sed -n 's/.*char data;.*offset:\([0-9]*\);.*size:\([0-9]*\);.*/\1 \2/p' "$raw/header_page" |
	      { read -r off size; echo $((off + size)); })
	for f in "$raw"/cpu*.trace_pipe_raw; do
		cpu=${f##*/cpu}
		cpu=${cpu%%.*}
		n=$(($(wc -c < "$f") / psz))
		p=0
		while [ "$p" -lt "$n" ]; do
			{ byte $((i | cpu << 4)); dd if="$f" bs="$psz" skip="$p" count=1 2>/dev/null; } \
				> "$out/decode/k$i-cpu$cpu-page$p"
			p=$((p + 1))
		done
		# two pages in one input, and the stack formats loaded
		{ byte $((i | 4 | cpu << 4)); dd if="$f" bs="$psz" count=2 2>/dev/null; } \
			> "$out/decode/k$i-cpu$cpu-stacks-2pages"
	done
	# records mode: a sched_switch and a sched_wakeup as perf would give them
	sw=$(fmt_id "$raw/sched_switch.format")
	wk=$(fmt_id "$raw/sched_wakeup.format")
	{
		byte $((i | 8))
		u16 64; u16 "$sw"; zeros 2; byte 42; zeros 3; printf 'bash\0\0\0\0\0\0\0\0\0\0\0\0'
		byte 42; zeros 7; byte 1; zeros 7; printf 'swapper/0\0\0\0\0\0\0\0'; zeros 8
		u16 40; u16 "$wk"; zeros 2; byte 7; zeros 3; printf 'kworker/0:1\0\0\0\0\0'; byte 9; zeros 15
	} > "$out/decode/k$i-records"
	# records mode with stacks: kernel_stack (3 frames), user_stack (2 frames + end)
	ks=$(fmt_id "$fz/formats/kernel_stack.format")
	us=$(fmt_id "$fz/formats/user_stack.format")
	{
		byte $((i | 12))
		u16 40; u16 "$ks"; zeros 2; byte 42; zeros 3; byte 3; zeros 7
		for f in 1 2 3; do byte $((f * 16)); zeros 4; printf '\201\377\377'; done
		u16 40; u16 "$us"; zeros 2; byte 42; zeros 3; byte 42; zeros 7
		byte 16; zeros 4; byte 85; zeros 2; byte 32; zeros 4; byte 85; zeros 2; zeros 8
	} > "$out/decode/k$i-stack-records"
	i=$((i + 1))
done

# --- fmt
# mode 0: constant expressions, as in prev_state's print fmt
n=0
for e in '1024UL - 1' '(1 << 2' '1 << 99' '((0x1 | 0x2) + 1) << 1' '0x100 & 0xff0 >> 4'; do
	{ byte 0; printf '%s' "$e"; } > "$out/fmt/const$n"
	n=$((n + 1))
done
for k in $kernels; do
	for d in raw formats; do
		sw=$fx/kernels/$k/$d/sched_switch.format
		[ -f "$sw" ] || continue
		# mode 0: the preempt-flag operand of this kernel's print fmt
		{ byte 0; sed -n 's/.*REC->prev_state & \(.*\) ? "+".*/\1/p' "$sw" | tr -d '\n'; } \
			> "$out/fmt/const-$k-$d"
		# mode 1: the whole sched_switch format
		{ byte 1; cat "$sw"; } > "$out/fmt/states-$k-$d"
		# mode 3 (raw text, with -DFUZZ_RAW_FORMATS): header_page and the
		# sched and stack formats, NUL-separated
		{
			byte 3
			cat "$fx/kernels/$k/$d/header_page"
			for e in "$sw" "$fx/kernels/$k/$d/sched_wakeup.format" \
				 "$fz/formats/kernel_stack.format" "$fz/formats/user_stack.format"; do
				byte 0
				cat "$e"
			done
		} > "$out/fmt/raw-layout-$k-$d"
	done
done
# mode 2: the bytes fuzz_fmt.c's run_gen() turns into a 6.x x86-64 layout
# (see gen_header_page(), gen_format(), put_print_fmt() there)
bytes() {
	for b in "$@"; do
		byte "$b"
	done
}
# header_page: commit at 8, size 8 (index 3), data at 16, size 4080
hp="8 3 16 0"
# sched_switch: 11 fields (type|signed<<6|array<<7, name, [len], offset, size index)
switch="0 1 0  11  0 0 0 1  1 1 2 0  1 2 3 0  66 3 4 2  132 4 16 8 4  70 5 24 2
	66 6 28 2  67 7 32 3  132 8 16 40 4  70 9 56 2  66 10 60 2"
# its print fmt: preempt mask 256, mask 255, letters S D T t X Z P I
states="1  0 128 0 1 0 0  0 128 255 0 0 0  8  0 0 0  0 1 1  0 2 2  0 3 3  0 4 4
	0 5 5  0 6 6  0 7 7  0 128 0 1 0 0"
wakeup="1 2 0  8  0 0 0 1  1 1 2 0  1 2 3 0  66 3 4 2  132 11 16 8 4  70 12 24 2
	66 13 28 2  66 15 32 2  0"
kstack="4 4 0  6  0 0 0 1  1 1 2 0  1 2 3 0  66 3 4 2  66 16 8 2  133 18 8 16 5  3"
ustack="5 12 0  6  0 0 0 1  1 1 2 0  1 2 3 0  66 3 4 2  7 17 8 2  133 18 8 16 5  3"
# shellcheck disable=SC2086
{ byte 2; bytes 0 $hp $switch $states; } > "$out/fmt/gen-switch"
# shellcheck disable=SC2086
{ byte 2; bytes 1 $hp $switch $states $wakeup; } > "$out/fmt/gen-switch-wakeup"
# shellcheck disable=SC2086
{ byte 2; bytes 2 $hp $switch $states $kstack $ustack; } > "$out/fmt/gen-switch-stacks"

# --- khist and peerhist: the texts as they are
for f in "$fx"/kernels/*/hist/*.hist; do
	k=${f%/hist/*}
	k=${k##*/}
	cp "$f" "$out/khist/$k-${f##*/}"
	cp "$f" "$out/peerhist/$k-${f##*/}"
done
for f in "$fx"/bpftrace-*.txt "$fx"/bcc-*.txt "$fx"/*.json; do
	[ -f "$f" ] && cp "$f" "$out/peerhist/"
done

# --- tdat: the recordings as they are (trace-cmd's version 6 and 7, zstd
# and zlib; ours), and the hostile ones craft.py makes from them (a chunk
# claiming a GiB, compressed formats with a byte zeroed, timestamps that
# step back): the compressed and version 7 paths from the first run
for f in "$fx"/trace-cmd/*.dat "$fx"/recordings/*.dat; do
	[ -f "$f" ] && cp "$f" "$out/tdat/"
done
if command -v "${PYTHON3:-python3}" > /dev/null 2>&1; then
	"${PYTHON3:-python3}" "$fz/craft.py" "$top" "$out/tdat" > /dev/null ||
		echo "seeds.sh: craft.py failed: no crafted recordings" >&2
fi

for t in decode fmt khist peerhist tdat; do
	printf '%s: %s seeds\n' "$t" "$(find "$out/$t" -type f | wc -l)"
done
