#!/bin/bash
# check-container.sh BINARY: the static binary (./configure
# --enable-static-binary) where most CI jobs run it: as root inside a
# container, with a real engine (podman and runc) and a Debian 11 image
# made from a debootstrap rootfs (no registry). Each cell gives a result
# that agrees with the workload's own schedstat, or says what is missing
# and the flag that gives it:
#
#   default              no CAP_SYS_ADMIN or CAP_PERFMON, own pid
#                        namespace: the proc backend (exact totals)
#   --cap-add=PERFMON    the default seccomp profile still refuses
#                        perf_event_open: proc, and info says seccomp
#   ... + seccomp=unconfined
#                        perf's context-switch records alone (no tracefs):
#                        runq partial and sized, oncpu and offcpu exact
#   --privileged         tracefs mountable, but the tracepoints carry the
#                        host's pids: -L and -- COMMAND by the container's
#                        pids (perf's records), --backend=ring refused
#                        naming --pid=host, a whole-host runq on the ring
#   rootless             an ordinary user's podman (a user made for the
#                        test, with /etc/subuid ranges, removed at the end):
#                        the proc backend, and info says why a rootless
#                        container cannot trace; skipped where newuidmap or
#                        useradd is missing or the user namespace is refused
#
# Podman runs with its own storage, run root and configuration under a
# temporary directory (runc: crun refuses this host's hybrid cgroups;
# default_ulimits = []), no network; the containers, the image and the
# directory go on every way out. Exit 0 pass, 1 fail, 77 skipped (the
# reason printed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${1:?usage: check-container.sh BINARY}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cache=${OFFCPU_CHROOT_CACHE:-$HOME/.cache/offcpu-ftrace-chroot}
PY=${PYTHON3:-python3}
fails=0
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
file "$bin" 2>/dev/null | grep -q 'statically linked' ||
	{ echo "FAIL: $bin is not statically linked (./configure --enable-static-binary)"; exit 1; }
[ "$(id -u)" = 0 ] || skip "not root: podman with runc as root"
command -v podman > /dev/null || skip "no podman (apt-get install podman)"
command -v runc > /dev/null || skip "no runc (apt-get install runc)"
. "$top/tests/static/bullseye.sh"
root=$(bullseye_root "$cache") || skip "no Debian 11 rootfs: $root"

T=$(mktemp -d /tmp/offcpu-ftrace-container.XXXXXX) || exit 1
mkdir -p "$T/t" "$T/out"
chmod 0777 "$T/out"
IMG=localhost/offcpu-ftrace-test:bullseye
P=(podman --root "$T/root" --runroot "$T/runroot" --storage-driver vfs
   --cgroup-manager cgroupfs --events-backend none --log-level error)
export CONTAINERS_CONF=$T/containers.conf
printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' > "$CONTAINERS_CONF"
# what podman makes outside its --root: its cgroup parents (cgroupfs), its
# blob cache and run state; whatever did not exist before goes at the end
pre_cg=$(find /sys/fs/cgroup -maxdepth 2 -name libpod_parent 2> /dev/null)
pre_state=
for d in /var/lib/containers /run/containers /run/libpod; do
	[ -e "$d" ] && pre_state="$pre_state $d"
done
cleanup() {
	local d
	"${P[@]}" rm -a -f -t 0 > /dev/null 2>&1
	"${P[@]}" rmi -a -f > /dev/null 2>&1
	# vfs layers and the run root hold nothing mounted; a busy one says so
	rm -rf "$T" || echo "check-container.sh: cannot remove $T"
	for d in $(find /sys/fs/cgroup -maxdepth 2 -name libpod_parent 2> /dev/null); do
		printf '%s\n' "$pre_cg" | grep -qxF "$d" ||
			find "$d" -depth -type d -exec rmdir {} \; 2> /dev/null ||
			echo "check-container.sh: cannot remove the cgroup $d"
	done
	for d in /var/lib/containers /run/containers /run/libpod; do
		case " $pre_state " in *" $d "*) ;; *) rm -rf "$d" ;; esac
	done
	# the rootless user: its processes (podman's pause), itself, its ids
	if [ -n "${ROOTLESS_USER:-}" ]; then
		pkill -KILL -u "$ROOTLESS_USER" 2> /dev/null
		sleep 0.2
		userdel -r "$ROOTLESS_USER" > /dev/null 2>&1 ||
			echo "check-container.sh: cannot remove the user $ROOTLESS_USER"
		sed -i "/^$ROOTLESS_USER:/d" /etc/subuid /etc/subgid
	fi
	[ -n "${ROOTLESS_RT:-}" ] && rm -rf "$ROOTLESS_RT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# a workload with no shared library: the image is Debian 11's glibc
${CC:-cc} -static -O2 -pthread -o "$T/t/workload" "$top/tests/workload.c" 2> "$T/cc.log" ||
	skip "cannot link a static workload: $(head -2 "$T/cc.log" | tr '\n' ' ')"
cp "$bin" "$T/t/offcpu-ftrace"
cp "$here/inside.sh" "$T/t/inside.sh"
chmod 0755 "$T/t/"*
tar -C "$root" -c . | "${P[@]}" import - "$IMG" > "$T/import.log" 2>&1 ||
	skip "podman import failed: $(tail -2 "$T/import.log" | tr '\n' ' ')"
"${P[@]}" run --rm --network none "$IMG" true > "$T/run.log" 2>&1 ||
	skip "podman cannot run a container here: $(tail -2 "$T/run.log" | tr '\n' ' ')"
ok "image from a Debian 11 rootfs (podman $(podman --version | awk '{print $3}'), runc)"

# run FLAGS -- CMD...: one container
run() {
	local flags=()
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	"${P[@]}" run --rm --network none -v "$T/t:/opt/t:ro" -v "$T/out:/out" "${flags[@]}" \
		"$IMG" "$@"
}

# cell NAME MEASURE FLAGS -- TOOL ARGS: a 4 s window with the workload inside it
cell() {
	local name=$1 measure=$2
	shift 2
	local flags=()
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	run "${flags[@]}" -- /opt/t/inside.sh /out "$name" "$@" \
		> "$T/$name.log" 2>&1
	if [ "$(cat "$T/out/$name.rc" 2>/dev/null)" != 0 ]; then
		fail "$name: exit $(cat "$T/out/$name.rc" 2>/dev/null): $(tail -3 "$T/out/$name.err" \
			"$T/$name.log" 2>/dev/null | tr '\n' ' ')"
		return
	fi
	if "$PY" "$here/check_cell.py" "$T/out/$name.json" "$T/out/$name.wl" "$measure" \
		> "$T/$name.check" 2>&1; then
		ok "$name: $(head -1 "$T/$name.check")"
	else
		fail "$name: $(cat "$T/$name.check" | tr '\n' ' ')"
		grep note "$T/out/$name.err" | head -3
	fi
}

# expect NAME RC PATTERN FLAGS -- ARGS: the tool's exit status and a line of its output
expect() {
	local name=$1 want=$2 pat=$3
	shift 3
	local flags=()
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	run "${flags[@]}" -- /opt/t/offcpu-ftrace "$@" > "$T/$name.out" 2>&1
	local rc=$?
	if [ $rc = "$want" ] && grep -qE -- "$pat" "$T/$name.out"; then
		ok "$name: exit $rc, $(grep -m1 -oE -- "$pat" "$T/$name.out" | cut -c1-100)"
	else
		fail "$name: exit $rc (want $want), '$pat' $(grep -qE -- "$pat" "$T/$name.out" &&
			echo found || echo 'not found'): $(tail -4 "$T/$name.out" | tr '\n' ' ')"
	fi
}

# --- a default container: root without the rights of root
D=()
expect default-info 0 '^backend runq: +proc' "${D[@]}" -- info
expect default-better 0 '^a better backend: .*--privileged' "${D[@]}" -- info
expect default-proc 0 'backend proc' "${D[@]}" -- runq --backend=proc 1
expect default-offcpu 0 'backend proc' "${D[@]}" -- offcpu 1
expect default-triage 0 '^verdict:' "${D[@]}" -- triage 1
cell default-runq runq "${D[@]}" -- runq -L --format=json 4

# --- CAP_PERFMON under the default seccomp profile: still refused, said so
C=(--cap-add=PERFMON)
expect perfmon-info 0 'perf events: +not allowed .*seccomp' "${C[@]}" -- info
expect perfmon-runq 0 'backend proc' "${C[@]}" -- runq 1

# --- CAP_PERFMON and a profile that allows perf_event_open: perf's records alone
U=(--cap-add=PERFMON --security-opt seccomp=unconfined)
expect unconfined-info 0 '^backend runq: +perf .*context-switch records' "${U[@]}" -- info
cell unconfined-runq runq "${U[@]}" -- runq -L --format=json 4
cell unconfined-oncpu oncpu "${U[@]}" -- oncpu -L --format=json 4
cell unconfined-offcpu offcpu "${U[@]}" -- offcpu -L --format=json 4
expect unconfined-stacks 0 'backend proc' "${U[@]}" -- offcpu -K 1

# --- --privileged: tracefs, perf, and a pid namespace of its own
V=(--privileged)
expect privileged-info 0 "^pid namespace: +a container's own" "${V[@]}" -- info
cell privileged-runq runq "${V[@]}" -- runq -L --format=json 4
expect privileged-ring 1 'pid=host' "${V[@]}" -- runq --backend=ring -L 1
expect privileged-host 0 "pid namespace of its own.*counted too" "${V[@]}" -- runq 1
# the issue's trap: -- COMMAND's threads by the container's pids, none missing
run "${V[@]}" -e WORKLOAD_EXIT=1 -- /opt/t/offcpu-ftrace runq -L --format=json \
	-o /out/cmd.json -- /opt/t/workload runq 0 2 500 > "$T/out/cmd.wl" 2> "$T/cmd.err"
rc=$?
if [ $rc = 0 ] && "$PY" - "$T/out/cmd.json" "$T/out/cmd.wl" > "$T/cmd.check" 2>&1 <<'PY'
import json, sys
res, wl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tids = {g["tid"] for g in res["groups"]}
want = {t["tid"] for t in wl["threads"]}
print("groups %s, workload threads %s, partial %s" % (sorted(tids), sorted(want), res["partial"]))
sys.exit(0 if want <= tids else 1)
PY
then
	ok "privileged -- COMMAND: $(cat "$T/cmd.check")"
else
	fail "privileged -- COMMAND (exit $rc): $(cat "$T/cmd.check" 2>/dev/null) $(tail -3 "$T/cmd.err" | tr '\n' ' ')"
fi

# --- rootless podman: an ordinary user of its own, with subordinate ids
rootless() {
	local u=ofr-ctest-$$ uid rt
	command -v useradd > /dev/null && command -v newuidmap > /dev/null ||
		{ echo "SKIP: rootless podman: no useradd or newuidmap (apt-get install uidmap)"; return; }
	useradd -m -s /bin/sh "$u" > "$T/useradd.log" 2>&1 ||
		{ echo "SKIP: rootless podman: cannot add a user: $(tail -1 "$T/useradd.log")"; return; }
	ROOTLESS_USER=$u
	grep -q "^$u:" /etc/subuid || echo "$u:200000:65536" >> /etc/subuid
	grep -q "^$u:" /etc/subgid || echo "$u:200000:65536" >> /etc/subgid
	uid=$(id -u "$u")
	# podman refuses a run root longer than 50 characters
	rt=$(mktemp -d /tmp/ofr-rl.XXXXXX) || return
	ROOTLESS_RT=$rt
	mkdir -p "$rt" "$T/rl" && chown "$u" "$rt" "$T/rl" && chmod 0700 "$rt"
	tar -C "$root" -c . > "$T/rl/rootfs.tar" && chmod 0644 "$T/rl/rootfs.tar"
	cp "$CONTAINERS_CONF" "$T/rl/c.conf" && chmod 0644 "$T/rl/c.conf"
	chmod 0755 "$T" "$T/t"
	# its own storage and run root, under the test's directory
	RL=(env XDG_RUNTIME_DIR="$rt" CONTAINERS_CONF="$T/rl/c.conf" HOME="$(getent passwd "$u" | cut -d: -f6)"
	    setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups podman --storage-driver vfs
	    --root "$T/rl/storage" --runroot "$rt/containers" --cgroup-manager cgroupfs
	    --events-backend none --log-level error)
	if ! "${RL[@]}" import "$T/rl/rootfs.tar" localhost/offcpu-ftrace-test:rootless > "$T/rl.log" 2>&1; then
		echo "SKIP: rootless podman: import refused (user namespaces?): $(tail -1 "$T/rl.log")"
		return
	fi
	"${RL[@]}" run --rm --network none -v "$T/t:/opt/t:ro" localhost/offcpu-ftrace-test:rootless \
		/opt/t/offcpu-ftrace info > "$T/rl-info.out" 2>&1
	local rc=$?
	if [ $rc = 0 ] && grep -qE '^backend runq: +proc' "$T/rl-info.out" &&
	   grep -q 'rootless' "$T/rl-info.out"; then
		ok "rootless-info: exit 0, proc, and why: $(grep -m1 -o 'a user namespace of its own[^:]*' "$T/rl-info.out")"
	else
		fail "rootless-info: exit $rc: $(tail -4 "$T/rl-info.out" | tr '\n' ' ')"
	fi
	mkdir -p "$T/rl/out" && chown "$u" "$T/rl/out"
	"${RL[@]}" run --rm --network none -v "$T/t:/opt/t:ro" -v "$T/rl/out:/out" \
		localhost/offcpu-ftrace-test:rootless /opt/t/inside.sh /out rl runq -L --format=json 4 \
		> "$T/rl-runq.log" 2>&1
	if [ "$(cat "$T/rl/out/rl.rc" 2>/dev/null)" = 0 ] &&
	   "$PY" "$here/check_cell.py" "$T/rl/out/rl.json" "$T/rl/out/rl.wl" runq > "$T/rl.check" 2>&1; then
		ok "rootless-runq: $(head -1 "$T/rl.check")"
	else
		fail "rootless-runq: $(cat "$T/rl.check" "$T/rl/out/rl.err" 2>/dev/null | tail -5 | tr '\n' ' ')"
	fi
	"${RL[@]}" rmi -a -f > /dev/null 2>&1
}
ROOTLESS_USER=
ROOTLESS_RT=
rootless

echo "check-container.sh: $fails failed"
[ $fails = 0 ]
