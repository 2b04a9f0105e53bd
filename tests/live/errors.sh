#!/bin/bash
# Bad input and missing privileges: one clear line on stderr, documented
# exit status (2 usage, 1 environment, 5 the output cannot be written),
# tracefs untouched.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

expect() {	# expect STATUS REGEX ARGS...
	local want=$1 re=$2 rc
	shift 2
	"$BIN" "$@" > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/e"; fail "'$*' exited $rc, want $want"; }
	grep -Eq "$re" "$TMP/e" || { cat "$TMP/e"; fail "'$*': stderr lacks /$re/"; }
	note "$* -> $rc: $(head -n 1 "$TMP/e")"
}

expect 2 "unknown command" nosuch
expect 2 "DURATION: 'abc'" runq abc
expect 127 "cannot run '-5': command not found" runq -- -5
expect 2 "DURATION: '0'" runq 0
expect 2 "DURATION: '1e9'" runq 1e9
expect 2 "COUNT: '0'" runq 1 0
expect 2 "COUNT: 'x'" runq 1 x
expect 2 "unexpected argument" runq 1 2 3
expect 2 "not a process id" runq -p 12abc
expect 2 "not a process id" runq -p 0
expect 2 "needs a value" runq -p
expect 2 "unknown option" runq --nope
expect 2 "exclude each other" runq -P -L
expect 2 "COMM must be" runq -c 0123456789abcdefg
expect 2 "state is an option of offcpu" runq --state S
expect 2 "not a list of state" offcpu --state 'S;D'
expect 2 "larger than --max" offcpu --min 10 --max 5
expect 2 "not one of bcc" runq --format=xml
expect 2 "needs a value" info --tracefs
expect 2 "the only argument is COUNT" runq -i 1 2 3
expect 2 "the only argument is COUNT" runq -i 2 1 1
expect 2 "unknown analysis 'bogus'" report /dev/null bogus
expect 2 "triage has no -P/-L/-C, --by other than cgroup" triage --by comm 1
: > "$TMP/empty"
expect 2 "empty: it is empty" compare "$TMP/empty" "$TMP/empty"

# a pid that exited: find one that is surely gone
true & dead=$!; wait $dead
while [ -e /proc/$dead ]; do dead=$((dead + 1)); done
expect 1 "no such process" runq -p $dead 1
expect 1 "no such thread" runq -t $dead 1
# a thread id given as a process id
"$WORKLOAD" sleep 1 1 > "$TMP/wl.json" &
wl=$!
BG_PIDS="$BG_PIDS $wl"
while [ ! -s "$TMP/wl.json" ]; do sleep 0.05; done
tid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"][0]["tid"])' "$TMP/wl.json")
expect 1 "is a thread of process $wl" runq -p "$tid" 1
kill $wl
expect 1 "not a tracefs directory" runq --tracefs /tmp 1
expect 1 "not a tracefs directory" cleanup --tracefs /nonexistent
check_restored "bad input"

# unwritable output: one line, exit 5 (every command's "cannot write the
# output"), the instance removed
for fmt in bcc json openmetrics; do
	"$BIN" runq --format=$fmt 0.2 > /dev/full 2> "$TMP/e"; rc=$?
	[ $rc = 5 ] && grep -q "cannot write the output" "$TMP/e" ||
		{ cat "$TMP/e"; fail "runq --format=$fmt > /dev/full: exit $rc"; }
done
expect 5 "cannot write /nonexistent/x.dat: no such directory" record -o /nonexistent/x.dat 0.2
expect 5 "cannot write /proc/version: files cannot be created in /proc" record -o /proc/version 0.2
expect 5 "cannot write /nonexistent/r.json: no such directory" runq -o /nonexistent/r.json 0.2
expect 5 "cannot write /tmp: it is a directory" offcpu -o /tmp 0.2
expect 5 "cannot write /tmp: it is a directory" info -o /tmp
"$BIN" info > /dev/full 2> "$TMP/e"; rc=$?
[ $rc = 5 ] && grep -q "cannot write the output" "$TMP/e" ||
	{ cat "$TMP/e"; fail "info > /dev/full: exit $rc"; }
check_restored "unwritable output"

# COMM with quotes, spaces and operators never reaches a filter: it works
"$BIN" runq -c 'a" || 1 &&' 0.2 > "$TMP/o" 2> "$TMP/e" || { cat "$TMP/e"; fail "odd COMM rejected"; }
check_restored "odd COMM"

# not root: a tracing backend asked for says why it cannot run, exit 1
# (setpriv from util-linux drops to nobody); auto samples /proc instead
if command -v setpriv >/dev/null; then
	cp "$BIN" "$TMP/bin" && chmod 755 "$TMP" "$TMP/bin"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/bin" runq --backend=ring 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] || { cat "$TMP/e"; fail "non-root --backend=ring exited $rc, want 1"; }
	grep -Eq "run as root" "$TMP/e" || { cat "$TMP/e"; fail "non-root error does not say 'run as root'"; }
	[ "$(wc -l < "$TMP/e")" = 1 ] || { cat "$TMP/e"; fail "non-root error is not one line"; }
	note "non-root: $(cat "$TMP/e")"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/bin" runq 0.3 > "$TMP/o" 2> "$TMP/e" || { cat "$TMP/e"; fail "non-root auto run failed"; }
	grep -q "backend proc" "$TMP/o" || { cat "$TMP/o"; fail "non-root auto run is not the proc backend"; }
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/bin" info > "$TMP/o" 2> "$TMP/e" || fail "info as non-root failed"
	check_restored "non-root"
else
	note "setpriv missing: non-root case not run"
fi

# read-only tracefs in a private mount namespace (per-mount flag, so the
# host's tracefs stays writable); auto would pick perf (perf_backend.sh)
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	unshare -m --propagation private sh -c \
		"mount -o bind,remount,ro '$T' && exec '$BIN' runq --backend=ring 1" > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 1 ] || { cat "$TMP/e"; fail "read-only tracefs: exit $rc, want 1"; }
	grep -q "read-only" "$TMP/e" || { cat "$TMP/e"; fail "read-only tracefs not named"; }
	note "read-only: $(cat "$TMP/e")"
	[ -w "$T/instances" ] || fail "host tracefs became read-only"
	check_restored "read-only tracefs"
else
	note "unshare -m not possible: read-only case not run"
fi
