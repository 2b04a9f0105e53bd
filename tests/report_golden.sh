#!/bin/bash
# Outputs byte for byte: every analysis, in every format and grouping, of
# the recordings in tests/fixtures (trace-cmd's and our own, with kernel
# stacks), against the outputs kept in tests/golden/. A refactor that
# changes a byte of any of them fails here; a change meant to change
# output regenerates them (GOLDEN_UPDATE=1 tests/report_golden.sh) and the
# diff is read in review.
#
# Wall-clock fields (JSON end_time, the triage report's time, OpenMetrics
# timestamps) are the only things normalised.
set -u
srcdir=${srcdir:-.}
BIN=${builddir:-.}/offcpu-ftrace
CASES=$srcdir/tests/golden/cases.txt
EXP=$srcdir/tests/golden/expected
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$BIN" ] || fail "$BIN not built"
[ -r "$CASES" ] || fail "$CASES missing"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-golden.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

normalise() {
	sed -E 's/"end_time":[0-9]+/"end_time":0/g;
		s/"(wall|time)":"[^"]*"/"\1":"-"/g;
		s/^(offcpu_ftrace_[a-z_]*(timestamp|end)_seconds(\{[^}]*\})?) [0-9.e+]+$/\1 0/;
		s/^(# (at|ended|time):? ).*/\1-/;
		s/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}/DATE/g'
}

export TZ=UTC LC_ALL=C
n=0 bad=0
mkdir -p "$TMP/out"
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	n=$((n + 1))
	# "NAME FILE ARGS...": FILE relative to the source tree
	read -r name file args <<<"$line"
	# shellcheck disable=SC2086
	(cd "$srcdir" && "$BIN" report "$file" $args) >"$TMP/raw" 2>"$TMP/err"
	rc=$?
	{ cat "$TMP/raw"; echo "--- stderr"; cat "$TMP/err"; echo "--- exit $rc"; } |
		normalise >"$TMP/out/$name"
	if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
		mkdir -p "$EXP"
		cp "$TMP/out/$name" "$EXP/$name"
	elif ! cmp -s "$TMP/out/$name" "$EXP/$name"; then
		echo "# $name: report $file $args differs:"
		diff -u "$EXP/$name" "$TMP/out/$name" | head -20
		bad=$((bad + 1))
	fi
done <"$CASES"
[ "$n" -gt 0 ] || fail "no cases in $CASES"
if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
	echo "wrote $n expected outputs to $EXP"
	exit 0
fi
[ "$bad" = 0 ] || fail "$bad of $n outputs differ from tests/golden/expected"
echo "PASS: $n outputs byte-identical to tests/golden/expected"
