#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Never break a file it was not asked to, never hang on an input: report
# and compare on hostile inputs and at odd -o targets, with the binary as
# users run it (no tracefs, no root needed; tests/live/output_dev.sh holds
# -o onto device nodes, as root). Each case once failed (issue #36).
set -u
srcdir=${srcdir:-.}
BIN=${builddir:-.}/offcpu-ftrace
FX=$srcdir/tests/fixtures
V7=$FX/trace-cmd/sched-v7.dat
BCC=$FX/bcc-runqlat.txt
fail() { echo "FAIL: $*"; exit 1; }
note() { printf '# %s\n' "$*" | tr '\000-\010\013-\037\177' '?'; }
[ -x "$BIN" ] || fail "$BIN not built"
command -v timeout > /dev/null || { echo "SKIP: no timeout(1)"; exit 77; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-safety.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# run WANT REGEX ARGS...: exit status WANT within 20 s, stderr matching REGEX
run() {
	local want=$1 re=$2 rc
	shift 2
	timeout 20 "$BIN" "$@" > "$TMP/o" 2> "$TMP/e" < /dev/null; rc=$?
	[ "$rc" != 124 ] || fail "'$*' hung (killed after 20 s)"
	[ "$rc" = "$want" ] || { cat "$TMP/e"; fail "'$*' exited $rc, want $want"; }
	[ -z "$re" ] || grep -Eq -- "$re" "$TMP/e" || { cat "$TMP/e"; fail "'$*': stderr lacks /$re/"; }
	[ "$(wc -l < "$TMP/e")" -le 2 ] || { cat "$TMP/e"; fail "'$*': more than one line of error"; }
	# ours only: no library noise ("mmap: Unknown error -22") before it
	! grep -Ev "^(offcpu-ftrace|Try 'offcpu-ftrace)" "$TMP/e" ||
		fail "'$*': a line on stderr that is not ours (above)"
	note "$* -> $rc: $(head -n 1 "$TMP/e")"
}

# --- -o naming an input: refused (usage, 2), the input intact
cp "$V7" "$TMP/copy.dat"
ln "$TMP/copy.dat" "$TMP/hard.dat"
ln -s copy.dat "$TMP/link.dat"
run 2 "is also an input of this command" report "$TMP/copy.dat" runq -o "$TMP/copy.dat"
run 2 "is the same file as .*copy.dat" report "$TMP/copy.dat" runq -o "$TMP/hard.dat"
run 2 "is the same file as .*copy.dat" report "$TMP/copy.dat" runq -o "$TMP/link.dat"
cp "$BCC" "$TMP/a.txt"
run 2 "is also an input" compare "$TMP/a.txt" "$BCC" -o "$TMP/a.txt"
# standard input as the input (run() feeds /dev/null), by hand
"$BIN" compare - "$BCC" -o "$TMP/a.txt" < "$TMP/a.txt" > /dev/null 2> "$TMP/e"; rc=$?
[ "$rc" = 2 ] && grep -q "same file as standard input" "$TMP/e" ||
	{ cat "$TMP/e"; fail "compare - B -o A < A: exit $rc"; }
cmp -s "$V7" "$TMP/copy.dat" || fail "the recording named by -o changed"
cmp -s "$BCC" "$TMP/a.txt" || fail "the compare input named by -o changed"
[ -L "$TMP/link.dat" ] || fail "the symlink named by -o was replaced"

# --- an existing target keeps its mode (and owner, as root)
echo old > "$TMP/keep.txt"
chmod 600 "$TMP/keep.txt"
owner=
if [ "$(id -u)" = 0 ] && getent passwd nobody > /dev/null; then
	chown nobody "$TMP/keep.txt" && owner=nobody
fi
run 0 "" report "$V7" runq -q -o "$TMP/keep.txt"
[ "$(stat -c %a "$TMP/keep.txt")" = 600 ] ||
	fail "-o over a 0600 file left it $(stat -c %a "$TMP/keep.txt")"
[ -z "$owner" ] || [ "$(stat -c %U "$TMP/keep.txt")" = "$owner" ] ||
	fail "-o over a file of $owner gave it to $(stat -c %U "$TMP/keep.txt")"
grep -q "count=" "$TMP/keep.txt" || fail "-o over an existing file did not write the results"
run 0 "" compare "$BCC" "$BCC" -o "$TMP/keep.txt"
[ "$(stat -c %a "$TMP/keep.txt")" = 600 ] || fail "compare -o did not keep the mode"
# a new file: the umask's mode
(umask 027; "$BIN" report "$V7" runq -q -o "$TMP/new.txt") ||
	fail "report -o a new file failed"
[ "$(stat -c %a "$TMP/new.txt")" = 640 ] ||
	fail "-o of a new file under umask 027: mode $(stat -c %a "$TMP/new.txt")"

# --- -o onto a FIFO: written through to its reader, never replaced
mkfifo "$TMP/fifo"
run 5 "no process has the FIFO open for reading" report "$V7" runq -q -o "$TMP/fifo"
[ -p "$TMP/fifo" ] || fail "-o onto a FIFO without a reader replaced it"
cat "$TMP/fifo" > "$TMP/fifo.out" &
reader=$!
# the reader opens the FIFO when it is scheduled
for _ in $(seq 1 100); do
	[ -n "$(find /proc/$reader/fd -lname "$TMP/fifo" 2>/dev/null)" ] && break
	sleep 0.05
done
run 0 "" report "$V7" runq -q -o "$TMP/fifo"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "-o onto a FIFO replaced it"
grep -q "count=" "$TMP/fifo.out" || fail "the FIFO's reader did not get the results"
# a symlink to a FIFO (or a device) is replaced, never followed: nothing blocks
ln -s fifo "$TMP/fifo-link"
run 0 "" report "$V7" runq -q -o "$TMP/fifo-link"
[ -f "$TMP/fifo-link" ] && [ ! -L "$TMP/fifo-link" ] && [ -p "$TMP/fifo" ] ||
	fail "-o onto a symlink to a FIFO: $(ls -l "$TMP/fifo-link" "$TMP/fifo")"

# --- -o into a directory: one exit status for "cannot write the output"
run 5 "cannot write $TMP: it is a directory" report "$V7" runq -o "$TMP"
run 5 "cannot write $TMP: it is a directory" compare "$BCC" "$BCC" -o "$TMP"
run 5 "no such directory" compare "$BCC" "$BCC" -o "$TMP/nonexistent/x"
run 2 "-o needs a file name" compare "$BCC" "$BCC" -o ''

# --- inputs that would hang or blow up: refused at once
run 1 "it is a FIFO, not a recording" report "$TMP/fifo"
run 2 "it is a FIFO, not a regular file" compare "$TMP/fifo" "$BCC"
run 2 "it is a FIFO, not a regular file" compare "$BCC" "$TMP/fifo"
run 1 "it is a character device, not a recording" report /dev/zero
run 2 "it is a character device" compare /dev/zero "$BCC"
run 1 "it is a directory" report "$TMP"
[ -p "$TMP/fifo" ] || fail "an input FIFO was replaced"

# --- messages: the word at fault, the option to give, the line at fault
run 2 "unknown option '-5' \\(in '-5s'\\)" runq --dry-run -5s
run 2 "unknown option '-5'$" runq --dry-run -5
run 2 "--dry-run takes no value" runq --dry-run=yes
run 2 "-p needs a value" runq -qp
run 2 "the first argument is the recording, and it is empty" report ''
KH=$FX/kernels/6.1.0-57-cloud-amd64/hist/a_log2.synthetic.wakeup_lat.hist
run 2 "unknown \\(not stated\\): give it with --unit-a ns, us or ms" compare "$KH" "$BCC"
run 2 "unknown \\(not stated\\): give it with --unit-b ns, us or ms" compare "$BCC" "$KH"
run 2 "3 bpftrace maps \\(@bytid, @l, @usecs\\): choose one with --map NAME" \
	compare "$FX/bpftrace-0.17-runq.txt" "$BCC"
# a broken header: blamed, not the row under it
printf '@a:\n[0]   1 |@|\n\n@b\n[1]   2 |@|\n' > "$TMP/bt.txt"
run 2 "bt.txt: line 4: expected a '@name:' map header \\(rows follow on line 5\\)" \
	compare "$TMP/bt.txt" "$BCC"
printf '%s\n' '     usecs     : count     distribution' '         0 -> 1     : 2      |**|' '' \
	'     usecs       count     distribution' '         2 -> 3     : 1      |*|' > "$TMP/bcc.txt"
run 2 "bcc.txt: line 4: expected a 'usecs : count distribution' header \\(rows follow on line 5\\)" \
	compare "$TMP/bcc.txt" "$BCC"
# escape sequences in an input, and in its name, never reach the terminal
printf '     \033[31mus\033]0;x\007   : count     distribution\n  0 -> 1   : 2  |*|\n' > "$TMP/esc.txt"
run 2 "unknown \\('\\?\\[31mus\\?\\]0;x\\?'\\)" compare "$TMP/esc.txt" "$BCC"
esc=$(printf '\033[2J')
cp "$BCC" "$TMP/a${esc}b.txt"
run 0 "" compare "$BCC" "$TMP/a${esc}b.txt"
grep -q "B: $TMP/a?\\[2Jb.txt (bcc" "$TMP/o" || { cat "$TMP/o"; fail "compare printed a name raw"; }
! grep -q "$(printf '\033')" "$TMP/o" "$TMP/e" || fail "an escape sequence reached the terminal"
# zlib: only the static build (our own reader) reads it
if ldd "$BIN" 2> /dev/null | grep -q libtracecmd; then
	run 1 "compressed with zlib, which this build's libtracecmd cannot read: only the static build" \
		report "$FX/trace-cmd/sched-v7-zlib.dat"
else
	run 0 "" report "$FX/trace-cmd/sched-v7-zlib.dat" -q
fi

# --- crafted recordings (tests/fuzz/craft.py, from the shipped fixtures)
PY=${PYTHON3:-python3}
if ! "$PY" -c 'import ctypes, ctypes.util; ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")' \
	2> /dev/null; then
	note "SKIP crafted recordings: no python3 with libzstd"
else
	"$PY" "$srcdir/tests/fuzz/craft.py" "$srcdir" "$TMP/craft" > /dev/null ||
		fail "craft.py could not make the crafted recordings"
	C=$TMP/craft
	# memory: a claim of 1 GiB must not be allocated (ASan reserves its
	# own address space: the bound holds in plain builds)
	limit=
	grep -q __asan_init "$BIN" 2> /dev/null || limit="ulimit -v 400000;"
	bash -c "$limit exec timeout 10 \"\$0\" report \"\$1\" runq" "$BIN" \
		"$C/v7-chunk-claims-1g.dat" > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] && grep -q "offset 8196: a chunk of CPU data claims 1073741824 bytes" "$TMP/e" ||
		{ cat "$TMP/e"; fail "a 14 KB recording claiming a 1 GiB chunk: exit $rc"; }
	note "v7-chunk-claims-1g -> 1: $(cat "$TMP/e")"
	run 1 "offset 8196: a chunk of CPU data does not decompress to the 20480 bytes" \
		report "$C/v7-chunk-short.dat" runq
	run 1 "offset 8196: a chunk of CPU data does not decompress to the 16384 bytes" \
		report "$C/v7-chunk-garbage.dat" runq
	run 1 "offset 2759 \\(byte 4308 of that section decompressed\\): printk format line" \
		report "$C/v7-printk-byte-zeroed.dat" runq
	# a clock no kernel names: never printed
	for fmt in bcc json; do
		run 0 "" report "$C/v7-clock-escape.dat" triage -q --format=$fmt
		! grep -q "$(printf '\033')" "$TMP/o" || fail "the file's clock reached the terminal"
	done
	"$PY" -c 'import json, sys; j = json.load(open(sys.argv[1])); assert j["clock"] == "local", j["clock"]' \
		"$TMP/o" || fail "triage --format=json of v7-clock-escape: bad JSON or clock"
	# records that cannot be true: skipped, counted, partial; --strict exits 3
	for c in v7-page-ts-flipped:39 v6-page-ts-flipped:24 v6-page-ts-back:2 \
		 v6-pid-out-of-range:1; do
		name=${c%:*} want=${c#*:}
		run 3 "$want records? of .*$name.dat cannot be true" \
			report "$C/$name.dat" runq --strict -q --format=json
		"$PY" - "$TMP/o" "$want" <<-'PYEOF' || fail "$name: see above"
			import json, sys
			j = json.load(open(sys.argv[1]))
			assert j["partial"] is True, "not partial"
			assert j["events"]["rejected"] == int(sys.argv[2]), j["events"]
			# the window is the true records': not 52 days
			assert j["window"]["duration_s"] < 1, j["window"]
		PYEOF
		"$BIN" report "$C/$name.dat" runq -q 2> /dev/null | grep -q "^# partial: $want records\\? of the recording cannot be true" ||
			fail "$name: the text output does not say so"
	done
fi

echo "PASS: safety"
