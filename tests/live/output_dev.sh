#!/bin/bash
# -o onto device nodes, as root: written through, never replaced (a rename
# over /dev/null as root used to leave a regular file there). Never on the
# real /dev: a private mount namespace (unshare -m) with a tmpfs over a
# scratch directory, where mknod makes null, full, a FIFO and a /dev/stdout
# style symlink. Skips (77) when not root or without unshare.
. "${srcdir:-.}/tests/live/lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: mknod and unshare -m need root"
command -v unshare > /dev/null || skip "no unshare(1) (util-linux)"
unshare -m --propagation private true 2> "$TMP/e" ||
	skip "unshare -m refused: $(head -n 1 "$TMP/e")"

FX=${srcdir:-.}/tests/fixtures
V7=$FX/trace-cmd/sched-v7.dat
BCC=$FX/bcc-runqlat.txt
D=$TMP/dev
mkdir "$D"

# The checks, inside the namespace: the tmpfs and its nodes vanish with it.
# shellcheck disable=SC2016
unshare -m --propagation private bash -c '
	set -u
	BIN=$1 D=$2 V7=$3 BCC=$4
	fail() { echo "FAIL: $*"; exit 1; }
	is_chr() { [ -c "$D/$1" ] || fail "$2: $D/$1 is no longer a character device: $(ls -l "$D/$1")"; }
	mount -t tmpfs -o mode=755 offcpu-test "$D" || fail "cannot mount a tmpfs on $D"
	mknod -m 666 "$D/null" c 1 3 && mknod -m 666 "$D/full" c 1 7 || fail "mknod failed"
	ln -s /proc/self/fd/1 "$D/stdout"

	"$BIN" report "$V7" runq -q -o "$D/null" 2> "$D/err"; rc=$?
	[ $rc = 0 ] || { cat "$D/err"; fail "report -o null: exit $rc"; }
	is_chr null "report -o null"
	"$BIN" compare "$BCC" "$BCC" -o "$D/null" > /dev/null 2> "$D/err" ||
		{ cat "$D/err"; fail "compare -o null failed"; }
	is_chr null "compare -o null"
	echo "# report and compare -o null: written through, still a device"

	"$BIN" report "$V7" runq -q -o "$D/full" 2> "$D/err"; rc=$?
	[ $rc = 5 ] && grep -q "No space left on device" "$D/err" ||
		{ cat "$D/err"; fail "report -o full: exit $rc, want 5 (cannot write the output)"; }
	is_chr full "report -o full"
	"$BIN" compare "$BCC" "$BCC" -o "$D/full" 2> "$D/err"; rc=$?
	[ $rc = 5 ] || { cat "$D/err"; fail "compare -o full: exit $rc, want 5"; }
	is_chr full "compare -o full"
	echo "# -o full: exit 5, $(head -n 1 "$D/err")"

	# a recording cannot be streamed: refused before any tracing, the node kept
	"$BIN" record -o "$D/null" 1 2> "$D/err"; rc=$?
	[ $rc = 5 ] && grep -q "cannot write a recording to $D/null: it is a character device" \
		"$D/err" || { cat "$D/err"; fail "record -o null: exit $rc, want 5"; }
	is_chr null "record -o null"
	echo "# record -o null: exit 5, $(head -n 1 "$D/err")"
	"$BIN" runq --record "$D/full" 1 2> "$D/err"; rc=$?
	[ $rc = 5 ] || { cat "$D/err"; fail "runq --record full: exit $rc, want 5"; }
	is_chr full "runq --record full"
	"$BIN" record -o "$D/stdout" 1 > "$D/out" 2> "$D/err"; rc=$?
	[ $rc = 2 ] && grep -q "is our standard output" "$D/err" ||
		{ cat "$D/err"; fail "record -o STDOUT-LINK: exit $rc, want 2"; }
	[ -L "$D/stdout" ] || fail "record -o a /dev/stdout style link replaced the link"

	# our standard output named by a symlink: written to, the link kept
	"$BIN" report "$V7" runq -q -o "$D/stdout" > "$D/out" 2> "$D/err" ||
		{ cat "$D/err"; fail "report -o STDOUT-LINK failed"; }
	[ -L "$D/stdout" ] || fail "-o through a /dev/stdout style link replaced the link"
	grep -q "count=" "$D/out" || fail "-o /dev/stdout: nothing on standard output"
	echo "# -o a link to /proc/self/fd/1: standard output, the link kept"
	exit 0
' output_dev "$BIN" "$D" "$V7" "$BCC" || fail "see above"
# outside the namespace the scratch directory is as it was: empty
[ -z "$(ls -A "$D")" ] || fail "the namespace's files leaked into $D: $(ls -A "$D")"
echo "PASS: -o onto device nodes"
