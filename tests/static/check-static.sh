#!/bin/bash
# check-static.sh BINARY: the static binary (./configure
# --enable-static-binary) where its users run it.
#
#   1. it has no shared-library dependency;
#   2. in a Debian 11 chroot (glibc 2.31, the userland of Ubuntu 20.04-era
#      runner images; debootstrap --variant=minbase bullseye, cached under
#      $OFFCPU_CHROOT_CACHE, default ~/.cache/offcpu-ftrace-chroot), where
#      the ordinary binary (BUILT=, when given) cannot start, it runs info,
#      runq 1, offcpu -K 1, triage 1, record and report, and reads
#      trace-cmd's zstd recording;
#   3. inside the QEMU guests of make check-vm (tests/vm) with no shared
#      library copied in, from an unmounted tracefs (tests/vm/static_check.sh).
#
# The chroot's mounts (/proc, /sys, /dev) live in a private mount namespace
# (unshare -m) and go with it. Exit 0 pass, 1 fail, 77 skipped (not root,
# no debootstrap or unshare, no network for debootstrap): the reason is
# printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${1:?usage: check-static.sh BINARY}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
dyn=${BUILT:-}
cache=${OFFCPU_CHROOT_CACHE:-$HOME/.cache/offcpu-ftrace-chroot}
fails=0
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
file "$bin" 2>/dev/null | grep -q 'statically linked' || ldd "$bin" 2>&1 | grep -q 'not a dynamic' ||
	{ echo "FAIL: $bin is not statically linked: $(ldd "$bin" 2>&1 | head -3 | tr '\n' ' ')"; exit 1; }
ok "no shared-library dependency ($(du -h "$bin" | cut -f1))"

# --- 2. the Debian 11 chroot
[ "$(id -u)" = 0 ] || skip "not root: the chroot needs root"
command -v unshare > /dev/null || skip "no unshare (util-linux)"
. "$here/bullseye.sh"
root=$(bullseye_root "$cache") || skip "$root"
glibc=$(chroot "$root" /usr/bin/ldd --version 2>/dev/null | head -1 | grep -o '[0-9.]*$')
ok "Debian 11 chroot, glibc $glibc"
mkdir -p "$root/opt/t"
cp "$bin" "$root/opt/t/offcpu-ftrace"
cp "$top/tests/fixtures/trace-cmd/sched-v7.dat" "$root/opt/t/"
[ -n "$dyn" ] && cp "$dyn" "$root/opt/t/offcpu-ftrace.dynamic"
cat > "$root/opt/t/run.sh" <<'SH'
#!/bin/sh
# inside the chroot: the checks, one line each
f=0
B=/opt/t/offcpu-ftrace
check() {	# NAME GREP CMD...: CMD exits 0 and its output has GREP
	n=$1 g=$2
	shift 2
	if "$@" > /tmp/o 2> /tmp/e && grep -q "$g" /tmp/o /tmp/e; then
		echo "ok: $n"
	else
		echo "FAIL: $n: $(tail -3 /tmp/e | tr '\n' ' ')"
		f=$((f + 1))
	fi
}
if [ -x /opt/t/offcpu-ftrace.dynamic ]; then
	/opt/t/offcpu-ftrace.dynamic info > /tmp/o 2> /tmp/e && { echo "FAIL: the ordinary binary started"; f=$((f + 1)); } ||
		echo "ok: the ordinary binary cannot start: $(head -1 /tmp/e | cut -c1-120)"
fi
check "info" '^backend runq:' $B info
check "runq 1" '^count=' $B runq 1
check "offcpu -K 1" 'schedule' $B offcpu -K 1
check "triage 1" '^verdict:' $B triage 1
check "record" 'recorded' $B record -o /tmp/r.dat 1
check "report" '^count=' $B report /tmp/r.dat
check "report offcpu -K of a -K recording" 'schedule' sh -c "$B record -K -o /tmp/k.dat 1 && $B report /tmp/k.dat offcpu -K"
check "trace-cmd's zstd recording" '^count=' $B report /opt/t/sched-v7.dat
exit $f
SH
chmod +x "$root/opt/t/run.sh"
unshare -m --propagation private sh -c '
	root=$1
	mount --rbind /proc "$root/proc" && mount --rbind /sys "$root/sys" &&
	mount --rbind /dev "$root/dev" || exit 99
	chroot "$root" /opt/t/run.sh' _ "$root"
rc=$?
[ $rc = 99 ] && fail "cannot bind /proc, /sys, /dev into the chroot"
[ $rc = 0 ] || [ $rc = 99 ] || fail "$rc checks failed in the Debian 11 chroot"
rm -rf "$root/opt/t"

# --- 3. the QEMU guests, with nothing but the static binary
if [ -n "${OFFCPU_STATIC_NO_VM:-}" ]; then
	echo "check-static.sh: OFFCPU_STATIC_NO_VM set: the kernel matrix not run"
else
	for suite in bullseye bookworm trixie; do
		"$top/tests/vm/run-vm.sh" --timeout 300 --quiet --log "$cache/vm-$suite.log" "$suite" \
			"$top/tests/vm/static_check.sh" "$bin"
		rc=$?
		case $rc in
		0) ok "$suite guest: $(grep -c '^ok:' "$cache/vm-$suite.log") checks" ;;
		77) echo "SKIP: $suite guest: $(grep -m1 SKIP "$cache/vm-$suite.log")" ;;
		*) fail "$suite guest (status $rc)"; grep -E '^(FAIL|ok)' "$cache/vm-$suite.log" ;;
		esac
	done
fi
echo "check-static.sh: $fails failed"
[ $fails = 0 ]
