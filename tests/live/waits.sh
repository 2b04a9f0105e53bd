#!/bin/bash
# waits: who waits on whom, from /proc alone, on scenarios made here
# (tests/live/waits_scen.py), checked through the JSON
# (tests/live/check_waits.py: the holders' pids, roles and the kinds):
#   - sleep | cat: cat reads a pipe only sleep writes;
#   - two processes each reading a pipe only the other writes: a cycle,
#     exit status 4, and their parent in wait4 on one of them;
#   - a parent in wait4 on a child in D state (a write to a frozen ext4 on
#     a loop device: root sets it up; skipped without loop devices,
#     mkfs.ext4 or fsfreeze);
#   - flock held by another process;
#   - a TCP connect to 127.0.0.1 whose listener never accepts (backlog full);
# each as root and as nobody for nobody's own processes; in a pid
# namespace (unshare); then --watch
# (still waiting, the lower bound grows), -- COMMAND (its status), the
# text layout, and the one-line refusals. No tracing: no tracefs needed.
. "${srcdir:-.}/tests/live/lib.sh"
command -v "$PY" > /dev/null 2>&1 || skip "python3 not found (it sets up the scenarios and reads the JSON)"
[ -x "$BIN" ] || fail "$BIN not built"
[ -r /proc/self/stat ] || skip "/proc is not mounted"
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
# the interpreter itself, not a version manager's shim (a second per start)
PY=$("$PY" -c 'import sys; print(sys.executable)') || skip "$PY does not run"
BIN=$(abs "$BIN")
SCEN=$(abs "${srcdir:-.}/tests/live/waits_scen.py")
CHECK=$(abs "${srcdir:-.}/tests/live/check_waits.py")
chmod 0777 "$TMP"

nobody() {	# CMD...: as nobody, no capability (exec'd: a background call's $! is CMD)
	(cd "$TMP" && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@")
}
USERS=root
PYN=$PY		# a python3 nobody can run (root's may be under /root)
if [ "$(id -u)" != 0 ]; then
	USERS=$(id -un)
	note "not root: the scenarios run as $(id -un) only (root runs them as nobody too)"
elif ! nobody test -x "$BIN" -a -r "$SCEN" -a -r "$CHECK" 2> /dev/null; then
	note "nobody cannot run $BIN (a directory on the way is not world-readable): as root only"
else
	for PYN in "$PY" /usr/bin/python3 ""; do
		[ -n "$PYN" ] && nobody "$PYN" -c pass 2> /dev/null && break
	done
	if [ -n "$PYN" ]; then
		USERS="root nobody"
	else
		note "nobody can run no python3 ($PY is not for it): as root only"
	fi
fi

MNT= LOOP= IMG= KILL_PIDS=
waits_cleanup() {
	local p i
	# a pid namespace's init takes no SIGTERM from outside
	for p in $KILL_PIDS; do kill -KILL "$p" 2> /dev/null; done
	# a writer in D goes on only once the filesystem thaws
	[ -n "$MNT" ] && fsfreeze -u "$MNT" 2> /dev/null
	for p in $BG_PIDS; do kill "$p" 2> /dev/null; done
	for p in $BG_PIDS; do
		for i in $(seq 1 100); do [ -e "/proc/$p" ] || break; sleep 0.05; done
	done
	if [ -n "$MNT" ]; then
		umount "$MNT" || echo "# cannot unmount $MNT" >&2
		rmdir "$MNT"
	fi
	[ -n "$LOOP" ] && { losetup -d "$LOOP" || echo "# cannot detach $LOOP" >&2; }
	cleanup_tmp
}
trap waits_cleanup EXIT
trap 'exit 1' INT TERM HUP

as() {	# USER CMD...: as root (or the user running the test), or as nobody
	local u=$1
	shift
	if [ "$u" = nobody ]; then
		nobody "$@"
	else
		"$@"
	fi
}


# start NAME USER ARGS...: scenario NAME as USER; once in place its pids in P
# ("name=pid ...", and scen=its own), every one stopped on every exit path
start() {
	local name=$1 user=$2 out=$TMP/$1.$2.pids i kv scen
	shift 2
	if [ "$user" = nobody ]; then
		# not through nobody(): a function in the background is a subshell, $! not python
		(cd "$TMP" && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			-- "$PYN" "$SCEN" "$name" "$@") > "$out" 2> "$TMP/$name.$user.err" &
	else
		"$PY" "$SCEN" "$name" "$@" > "$out" 2> "$TMP/$name.$user.err" &
	fi
	scen=$!
	BG_PIDS="$BG_PIDS $scen"
	for i in $(seq 1 500); do
		[ -s "$out" ] && break
		kill -0 $scen 2> /dev/null || fail "scenario $name ($user) ended: $(cat "$TMP/$name.$user.err")"
		sleep 0.02
	done
	P="$(cat "$out") scen=$scen"
	for kv in $P; do BG_PIDS="$BG_PIDS ${kv#*=}"; done
}

# stop: the last scenario's processes, by pid, and wait for its own
stop() {
	local kv scen
	for kv in $P; do
		kill "${kv#*=}" 2> /dev/null
		[ "${kv%%=*}" = scen ] && scen=${kv#*=}
	done
	wait "$scen" 2> /dev/null
}

# expect WHAT USER RC ARGS...: waits --format=json ARGS as USER, until the
# scenario has settled into its waits (check_waits.py WHAT passes; at most
# 200 tries: no time is assumed, only bounded); its exit status must be RC
expect() {
	local what=$1 user=$2 want=$3 i rc
	shift 3
	for i in $(seq 1 200); do
		as "$user" "$BIN" waits --format=json "$@" > "$TMP/w.json" 2> "$TMP/w.err"
		rc=$?
		if [ $rc = "$want" ] &&
			"$PY" "$CHECK" "$what" "$TMP/w.json" $P $([ "$user" = root ] && echo root) \
				> "$TMP/check.out" 2>&1; then
			note "$what as $user: $(head -c 300 "$TMP/check.out")ok (try $i)"
			return 0
		fi
		sleep 0.05
	done
	cat "$TMP/w.err"
	head -c 4000 "$TMP/w.json"
	fail "$what as $user: exit $rc (want $want): $(cat "$TMP/check.out")"
}

pid_of() {	# NAME: NAME's pid in P
	local kv
	for kv in $P; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done
}

# a frozen ext4 on a loop device, with a directory nobody may write
frozen_fs() {
	[ "$(id -u)" = 0 ] || { note "SKIP D state: not root (loop device, mount, fsfreeze)"; return 1; }
	local t
	for t in losetup mkfs.ext4 fsfreeze mount; do
		command -v $t > /dev/null || { note "SKIP D state: no $t"; return 1; }
	done
	grep -qw ext4 /proc/filesystems || { note "SKIP D state: no ext4 in this kernel"; return 1; }
	IMG=$TMP/fs.img
	truncate -s 32M "$IMG" && mkfs.ext4 -q "$IMG" || { note "SKIP D state: mkfs.ext4 failed"; return 1; }
	LOOP=$(losetup -f --show "$IMG" 2> "$TMP/losetup.err") ||
		{ LOOP=; note "SKIP D state: no loop device: $(cat "$TMP/losetup.err")"; return 1; }
	MNT=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-waits-mnt.XXXXXX")
	mount "$LOOP" "$MNT" || { rmdir "$MNT"; MNT=; note "SKIP D state: cannot mount $LOOP"; return 1; }
	mkdir "$MNT/d" && chown 65534 "$MNT/d" && chmod 0777 "$MNT" || fail "cannot set up $MNT/d"
	fsfreeze -f "$MNT" || { note "SKIP D state: fsfreeze -f refused"; return 1; }
	return 0
}

have_fs=false
frozen_fs && have_fs=true

for u in $USERS; do
	start pipe "$u"
	expect pipe "$u" 0 "$(pid_of cat)"
	stop

	start cycle "$u"
	expect cycle "$u" 4 --tree "$(pid_of parent)"
	stop

	start flock "$u" "$TMP/lock.$u"
	expect flock "$u" 0 "$(pid_of waiter)"
	stop

	start pidfd "$u"
	expect pidfd "$u" 0 "$(pid_of parent)"
	stop

	# a FIFO's other end is found by its path: a long one too (over 160 bytes)
	long=$TMP/$u.$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))/$(printf 'f%.0s' $(seq 1 60))
	start fifo "$u" "$long/fifo"
	expect fifo "$u" 0 "$(pid_of cat)"
	stop

	start tcp "$u"
	expect tcp "$u" 0 "$(pid_of client)"
	stop

	# healthy: each waits on something besides its holders, so no deadlock
	start selfpipe "$u"
	expect selfpipe "$u" 0 "$(pid_of server)"
	stop

	start pairidle "$u"
	expect pairidle "$u" 0 "$(pid_of a)" "$(pid_of b)"
	stop

	start polltimeout "$u"
	expect polltimeout "$u" 0 "$(pid_of a)" "$(pid_of b)"
	stop

	# ... and a socketpair both ends read with nothing else: a deadlock
	start sockcycle "$u"
	expect sockcycle "$u" 4 "$(pid_of a)" "$(pid_of b)"
	stop

	if $have_fs; then
		start dstate "$u" "$MNT/d/f.$u"
		expect dstate "$u" 0 --tree "$(pid_of parent)"
		# it stays in D until the end: the thaw in the cleanup lets it go
	fi
done

# in a container's pid namespace (unshare --pid --mount-proc: its own /proc):
# the namespace's pids, resolved there; the namespace ends with its first process
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null &&
	unshare --pid --fork --mount-proc true 2> /dev/null; then
	# shellcheck disable=SC2016
	timeout 120 unshare --pid --fork --mount-proc sh -c '
		sleep 600 | cat &
		c=$!
		s=
		while [ -z "$s" ]; do	# the only sleep in the namespace
			for p in /proc/[0-9]*; do
				[ "$(cat "$p/comm" 2> /dev/null)" = sleep ] && s=${p#/proc/}
			done
		done
		ok=
		for i in $(seq 1 200); do
			"$1" waits --format=json "$c" > "$2/ns.json" &&
				"$3" "$4" pipe "$2/ns.json" cat="$c" sleep="$s" && { ok=1; break; }
			sleep 0.05
		done
		kill "$c" "$s"
		[ -n "$ok" ] && [ "$c" -lt 100 ]' sh "$BIN" "$TMP" "$PY" "$CHECK" > "$TMP/ns.out" 2>&1 ||
		{ cat "$TMP/ns.json"; fail "in a pid namespace: $(cat "$TMP/ns.out")"; }
	note "in a pid namespace: cat's writer named by the namespace's pids"
else
	note "SKIP pid namespace: not root, or no unshare --pid --mount-proc here"
fi

# any user can put a line in /proc/net/unix that is not one (a socket path
# with a newline): the table is kept, the line skipped and said, and a
# unix socket's peer still named
u=${USERS##* }
start forge "$u" "$TMP"
forge_p=$P
start sockcycle root
expect sockcycle root 4 "$(pid_of a)" "$(pid_of b)"
grep -q "lines\? of /proc/net/unix (network namespace of process [0-9]*) not understood, skipped" "$TMP/w.json" ||
	{ head -c 3000 "$TMP/w.json"; fail "the forged /proc/net/unix line is not said"; }
stop
P=$forge_p
stop
note "a socket path forging a line of /proc/net/unix ($u's): skipped and said, the peers named"

# a target in a pid namespace of its own, seen from outside: the thread ids
# in a futex word and in a glibc mutex's __owner are the namespace's, and
# name the owner only through NSpid (1 there is the main thread, not init)
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null &&
	unshare --pid --fork --kill-child true 2> /dev/null; then
	unshare --pid --fork --kill-child "$PY" "$SCEN" pimutex > "$TMP/pim.out" 2> "$TMP/pim.err" &
	us=$!
	BG_PIDS="$BG_PIDS $us"
	py=
	for i in $(seq 1 500); do
		[ -s "$TMP/pim.out" ] && py=$(cat "/proc/$us/task/$us/children" 2> /dev/null) && break
		kill -0 $us 2> /dev/null || fail "pimutex ended: $(cat "$TMP/pim.err")"
		sleep 0.02
	done
	py=${py% }
	[ -n "$py" ] || fail "pimutex: no process in the namespace"
	# its init ignores SIGTERM from here: killed, by pid, on every exit path
	KILL_PIDS="$py"
	ns=$(sed 's/\([a-z0-9]*\)=/ns_\1=/g' "$TMP/pim.out")
	for i in $(seq 1 200); do
		"$BIN" waits --format=json "$py" > "$TMP/pim.json" 2> "$TMP/w.err"
		# shellcheck disable=SC2086
		"$PY" "$CHECK" pimutex "$TMP/pim.json" py="$py" $ns > "$TMP/check.out" 2>&1 && break
		sleep 0.05
	done
	[ "$i" -lt 200 ] || { head -c 3000 "$TMP/pim.json"; fail "futex owners in a pid namespace: $(cat "$TMP/check.out")"; }
	kill -KILL "$py"
	wait "$us" 2> /dev/null
	KILL_PIDS=
	note "a pid namespace seen from outside: PI and glibc mutex owners are its main thread (try $i)"
else
	note "SKIP futex owners in a pid namespace: not root, or no unshare --pid --fork --kill-child"
fi

# --watch: round 2 sees cat still waiting, for longer than round 1 said
u=${USERS##* }
start pipe "$u"
expect pipe "$u" 0 "$(pid_of cat)"
as "$u" "$BIN" waits --format=json --watch 0.2 --count 2 "$(pid_of cat)" > "$TMP/watch.json" ||
	fail "waits --watch exited $?"
"$PY" "$CHECK" watch "$TMP/watch.json" $P || { cat "$TMP/watch.json"; fail "--watch"; }
note "--watch: a second round marks cat still waiting, its lower bound grown"

# the text: the tree, the chain, no cycle
as "$u" "$BIN" waits "$(pid_of cat)" > "$TMP/w.txt" || fail "waits (text) exited $?"
grep -q "^cat $(pid_of cat): S (asleep)" "$TMP/w.txt" &&
	grep -q "writer sleep $(pid_of sleep) (fd 1)" "$TMP/w.txt" &&
	grep -q "^  cat $(pid_of cat) -> sleep $(pid_of sleep) (S" "$TMP/w.txt" &&
	grep -q "^no cycle$" "$TMP/w.txt" || { cat "$TMP/w.txt"; fail "the text layout"; }
stop

start cycle "$u"
expect cycle "$u" 4 --tree "$(pid_of parent)"
as "$u" "$BIN" waits --tree "$(pid_of parent)" > "$TMP/w.txt"
rc=$?
[ $rc = 4 ] && grep -q "^cycle (a deadlock unless a timeout or a signal breaks it): " "$TMP/w.txt" ||
	{ cat "$TMP/w.txt"; fail "the cycle's text (exit $rc)"; }
stop

# -- COMMAND: watched while it runs, and its exit status is ours
"$BIN" waits --format=json --watch 0.2 --count 2 -- sh -c 'sleep 2 | cat' > "$TMP/cmd.json" \
	2> "$TMP/cmd.err" || fail "waits -- COMMAND exited $?: $(cat "$TMP/cmd.err")"
[ "$(wc -l < "$TMP/cmd.json")" = 2 ] || { cat "$TMP/cmd.json"; fail "-- COMMAND: not 2 rounds"; }
"$PY" -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["scope"].startswith("sh -c") and "descendants" in d["scope"], d["scope"]
assert any(t["comm"] == "cat" for t in d["threads"]), [t["comm"] for t in d["threads"]]' \
	"$TMP/cmd.json" || fail "-- COMMAND's scope"
"$BIN" waits -- sh -c 'exit 3' > /dev/null 2>&1
rc=$?
[ $rc = 3 ] || fail "waits -- sh -c 'exit 3' exited $rc, not 3"
note "-- COMMAND: watched, and its status passed on"

# a command that ends before the first round (10 s): said, not silence
"$BIN" waits -- sh -c 'sleep 0.3 | cat' > "$TMP/early.out" 2> "$TMP/early.err" ||
	fail "waits -- (early end) exited $?: $(cat "$TMP/early.err")"
grep -q "before the first round" "$TMP/early.err" ||
	fail "a command over before the first round: stderr '$(cat "$TMP/early.err")'"

# after --count rounds it waits for the command, says so, and still passes
# a signal on to it (it stopped doing so after the last round)
"$BIN" waits --watch 0.2 --count 1 -- sleep 30 > /dev/null 2> "$TMP/count.err" &
wp=$!
BG_PIDS="$BG_PIDS $wp"
for i in $(seq 1 250); do grep -q "(--count)" "$TMP/count.err" && break; sleep 0.02; done
grep -q "round done (--count): waiting for sleep 30 to end" "$TMP/count.err" ||
	fail "--count's end not said: $(cat "$TMP/count.err")"
t0=$(date +%s)
kill -TERM $wp
wait $wp
rc=$?
[ "$rc" = 143 ] && [ $(( $(date +%s) - t0 )) -lt 10 ] ||
	fail "SIGTERM after the --count rounds: exit $rc after $(( $(date +%s) - t0 )) s (want 143 at once)"
note "-- COMMAND: an early end said; after --count, a signal still reaches it"

# its reader gone (| head): no more rounds, no error, exit 0
"$BIN" waits --watch 0.2 --count 20 --tree $$ 2> "$TMP/pipe.err" | head -1 > /dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ ! -s "$TMP/pipe.err" ] || fail "waits | head: exit $rc: $(cat "$TMP/pipe.err")"
note "waits | head: quiet, exit 0"

# the man page's CI use, waits --watch 60 -- make -j8 check: a healthy
# recursive build (a sub-make in pselect6 on the jobserver pipe both makes
# write, SIGCHLD let through) is no deadlock, and the status is make's
if command -v make > /dev/null; then
	mkdir -p "$TMP/mk/sub"
	printf 'all:\n\t$(MAKE) -C sub\n' > "$TMP/mk/Makefile"
	printf 'all: x y z\nx y z:\n\tsleep 1.5\n' > "$TMP/mk/sub/Makefile"
	# not the jobserver of a make check this runs under
	(cd "$TMP/mk" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$BIN" waits --format=json \
		--watch 0.3 -- make -j2 > "$TMP/make.json" 2> "$TMP/make.err")
	rc=$?
	[ $rc = 0 ] || { head -c 3000 "$TMP/make.json"; fail "waits -- make -j2 (recursive): exit $rc: $(cat "$TMP/make.err")"; }
	"$PY" "$CHECK" make "$TMP/make.json" > "$TMP/check.out" 2>&1 || fail "$(cat "$TMP/check.out")"
	note "-- make -j2, recursive: $(wc -l < "$TMP/make.json") rounds, no cycle, exit 0; $(cat "$TMP/check.out")"
else
	note "SKIP -- make: no make"
fi

# root without CAP_SYS_ADMIN in the initial user namespace (a user namespace
# of its own): kernel stacks are refused, and that is said, not "need root"
if command -v unshare > /dev/null && unshare -U -r true 2> /dev/null; then
	# shellcheck disable=SC2016
	unshare -U -r sh -c 'sleep 30 & "$1" waits --format=json $! > "$2"; s=$?; kill $!; exit $s' \
		sh "$BIN" "$TMP/userns.json" || fail "waits in a user namespace: exit $?"
	grep -q '"kstack_why":"refused even to root: ' "$TMP/userns.json" &&
		grep -q "kernel stacks of 1 thread refused even to root" "$TMP/userns.json" &&
		! grep -q "need root" "$TMP/userns.json" ||
		{ head -c 2000 "$TMP/userns.json"; fail "root in a user namespace: stacks said to need root"; }
	note "root of a user namespace: kernel stacks refused, and said so"
else
	note "SKIP kernel stacks in a user namespace: no unshare -U -r here"
fi

# help and --dry-run say it reads processes' memory, with ptrace's permission
"$BIN" waits --help | grep -q "with process_vm_readv, which needs the same" ||
	fail "--help does not say it reads memory with process_vm_readv"
"$BIN" waits --dry-run | grep -q "^memory: .*process_vm_readv, which needs ptrace's permission" ||
	fail "--dry-run does not say it reads memory: $("$BIN" waits --dry-run)"

# refusals: one line each, the documented status
one_line() {	# RC ARGS...: waits ARGS exits RC with one line on stderr (and, for bad
		# usage, the pointer to --help every command adds)
	local want=$1 rc
	shift
	"$BIN" waits "$@" > /dev/null 2> "$TMP/e"
	rc=$?
	[ $rc = "$want" ] || fail "waits $*: exit $rc, not $want: $(cat "$TMP/e")"
	[ "$(grep -cv "^Try 'offcpu-ftrace waits --help'.$" "$TMP/e")" = 1 ] ||
		fail "waits $*: not one line: $(cat "$TMP/e")"
}
one_line 2 0
one_line 2 abc
one_line 2 --watch 0 1
one_line 2 --count 2 1
one_line 2 1 --tree 1
one_line 2 --format yaml
one_line 2 --
gone=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e "/proc/$gone" ]; do gone=$((gone - 1)); done
one_line 1 "$gone"
# a thread id: refused, naming its process
"$PY" -c 'import threading, time, sys
t = threading.Thread(target=time.sleep, args=(600,), daemon=True); t.start()
print(t.native_id, flush=True); time.sleep(600)' > "$TMP/thr" &
BG_PIDS="$BG_PIDS $!"
for i in $(seq 1 250); do [ -s "$TMP/thr" ] && break; sleep 0.02; done
one_line 1 "$(cat "$TMP/thr")"
grep -q "is a thread of process $!" "$TMP/e" || fail "a thread id: $(cat "$TMP/e")"
note "refusals: one line each, exit 2 for usage, 1 for a process that is not there"
echo "PASS: waits"
