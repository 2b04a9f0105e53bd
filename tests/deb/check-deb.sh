#!/bin/bash
# check-deb.sh: the Debian package (debian/), built and installed as an
# administrator meets it.
#
#   1. debian/changelog's version is configure.ac's (AC_INIT);
#   2. dpkg-buildpackage -us -uc -b on a clean export of the tree (git
#      archive of the working tree's tracked files, uncommitted changes
#      included: "git stash create"; untracked files are not in it);
#   3. lintian finds no error and no warning that is not overridden
#      (debian/offcpu-ftrace.lintian-overrides says why for each);
#   4. the .deb holds the binary in /usr/sbin, every page of Makefile.am's
#      dist_man_MANS (MANS=, from make), the completion, the service and
#      timer, the Prometheus rules and the docs; its Depends name the
#      package of every shared library the binary needs (shlibs);
#   5. in a fresh Debian 12 chroot (a copy of debootstrap --variant=minbase
#      bookworm, cached under $OFFCPU_CHROOT_CACHE, default
#      ~/.cache/offcpu-ftrace-chroot), apt installs it with its
#      dependencies from the mirror; info and runq 1 run (runq as root
#      traces: its JSON names a tracing backend), and info as nobody
#      prints the package's setup lines; dpkg -L lists the pages and the
#      units; the timer is not enabled; no capability is set; an
#      administrator's setcap survives a reinstall where dpkg-statoverride
#      keeps the group and mode, and is dropped (with a message) where the
#      upgrade made the binary world-executable again; purge leaves
#      nothing;
#   6. Debian 11: the package needs a newer glibc than bullseye's, as
#      README and README.Debian say (the static tarball serves it).
#
# The chroot's mounts (/proc, /sys, /dev) live in a private mount
# namespace (unshare -m) per step and go with it; the chroot and the
# build tree are removed on every exit path. Tracing in the chroot takes
# the live tests' lock (OFFCPU_LIVE_LOCK, as tests/live/lib.sh).
# Exit 0 pass, 1 fail, 77 skipped (not root, a tool missing, no network
# for debootstrap or apt): the reason is printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
builddir=${builddir:-$top}
cache=${OFFCPU_CHROOT_CACHE:-$HOME/.cache/offcpu-ftrace-chroot}
mirror=${OFFCPU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
fails=0
work=
skip() {	# a skip never hides a failure already found
	[ "$fails" = 0 ] || { echo "FAIL: $fails check(s) failed before this step could not run: $*"; exit 1; }
	echo "SKIP: $*"
	exit 77
}
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
mark() { f0=$fails; }			# okif MSG: ok when nothing failed since mark
okif() { [ "$fails" = "$f0" ] && ok "$*"; }
cleanup() {
	# nothing is mounted outside the per-step namespaces; the tree goes
	[ -n "$work" ] && rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

[ "$(id -u)" = 0 ] || skip "not root: the chroot and apt need root"
for t in dpkg-buildpackage dpkg-parsechangelog lintian git unshare chroot readelf; do
	command -v "$t" > /dev/null || skip "no $t (apt-get install dpkg-dev debhelper lintian git util-linux binutils)"
done
[ -n "${MANS:-}" ] || die "MANS (Makefile.am's dist_man_MANS) not given: run make check-deb"

# --- 1. the version
version=$(sed -n 's/^AC_INIT(\[offcpu-ftrace\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$version" ] || die "no version in configure.ac's AC_INIT"
cv=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$cv" = "$version" ] || die "debian/changelog says $cv, configure.ac $version: add a changelog entry (dch -v $version)"
ok "debian/changelog's version is configure.ac's: $version"

# --- 2. the build, from a clean export
work=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-deb.XXXXXX") || die "mktemp"
git -C "$top" rev-parse --git-dir > /dev/null 2>&1 || skip "$top is not a git checkout: build the package in one (dpkg-buildpackage -us -uc -b)"
rev=$(git -C "$top" stash create) || die "git stash create"
src=$work/offcpu-ftrace-$version
mkdir -p "$src"
git -C "$top" archive "${rev:-HEAD}" | tar -x -C "$src" || die "git archive"
[ -f "$src/debian/rules" ] || die "debian/ is not in git (git add debian)"
start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b) \
	> "$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log"; die "dpkg-buildpackage failed (log above)"; }
arch=$(dpkg --print-architecture)
deb=$work/offcpu-ftrace_${version}_$arch.deb
[ -f "$deb" ] || die "no $deb after the build"
ok "dpkg-buildpackage -us -uc -b: $(basename "$deb") in $(( $(date +%s) - start )) s, $(grep -c '^PASS:' "$work/build.log") tests passed in the build"

# --- 3. lintian
lintian --fail-on error,warning --pedantic "$work/offcpu-ftrace_${version}_$arch.changes" > "$work/lintian" 2>&1
rc=$?
grep -v '^running with root privileges' "$work/lintian" | sed 's/^/  lintian: /'
[ $rc = 0 ] && ok "lintian: no error, no warning" || fail "lintian (status $rc)"

# --- 4. what the .deb holds
dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }' > "$work/contents"
want="/usr/sbin/offcpu-ftrace /usr/share/bash-completion/completions/offcpu-ftrace
/usr/share/offcpu-ftrace/offcpu-ftrace.rules.yml /usr/share/doc/offcpu-ftrace/README.Debian
/usr/share/doc/offcpu-ftrace/copyright /usr/share/doc/offcpu-ftrace/changelog.gz"
for m in $MANS; do want="$want /usr/share/man/man8/${m##*/}.gz"; done
units=$(grep -E '/systemd/system/offcpu-ftrace-sample\.(service|timer)$' "$work/contents")
[ "$(echo "$units" | grep -c .)" = 2 ] || fail "the service and timer are not both in the package: $units"
want="$want $units"
n=0 missing=0
for f in $want; do
	n=$((n + 1))
	grep -qxF "$f" "$work/contents" || { fail "$f is not in the package"; missing=$((missing + 1)); }
done
[ $missing = 0 ] && ok "$n files in place, $(echo $MANS | wc -w) man pages among them"
mark
depends=$(dpkg-deb -f "$deb" Depends)
rm -rf "$work/x" && dpkg-deb -x "$deb" "$work/x"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null)
for lib in $(readelf -d "$work/x/usr/sbin/offcpu-ftrace" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	# the package holding this host's copy, in the multiarch directory
	pkg=$(dpkg -S "*/$lib" 2> /dev/null | grep "/$multiarch/$lib\$" | cut -d: -f1 | head -1)
	[ -n "$pkg" ] || { fail "no package on this host has $lib"; continue; }
	case " $(echo "$depends" | tr ',' ' ') " in
	*" $pkg "*) ;;
	*) fail "Depends ($depends) lacks $pkg, which has $lib" ;;
	esac
done
okif "Depends from shlibs: $depends"

# --- 6. Debian 11 (here, before the chroot step can skip)
libc=$(echo "$depends" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
bullseye=2.31	# bullseye's glibc; the cached chroot of check-static says when present
[ -d "$cache/bullseye/var/lib/dpkg" ] &&
	bullseye=$(dpkg-query --admindir="$cache/bullseye/var/lib/dpkg" -W -f '${Version}' libc6 2> /dev/null | sed 's/-.*//')
if [ -n "$libc" ] && dpkg --compare-versions "$libc" gt "$bullseye"; then
	ok "Debian 11 cannot install it (libc6 >= $libc, bullseye has $bullseye): the static tarball serves it (README)"
else
	fail "the package would install on Debian 11 (libc6 >= ${libc:-?}, bullseye $bullseye): README's 'which package for which release' is wrong"
fi

# --- 5. a fresh Debian 12 chroot
command -v debootstrap > /dev/null || skip "no debootstrap (apt-get install debootstrap); the package built and checked"
pristine=$cache/bookworm
if [ ! -x "$pristine/bin/sh" ]; then
	mkdir -p "$cache"
	echo "check-deb.sh: debootstrap --variant=minbase bookworm (once, cached in $cache)"
	rm -rf "$pristine.new.$$"
	debootstrap --variant=minbase bookworm "$pristine.new.$$" "$mirror" > "$cache/debootstrap-bookworm.log" 2>&1 ||
		{ tail -5 "$cache/debootstrap-bookworm.log"; rm -rf "$pristine.new.$$"; skip "debootstrap failed (network?); the package built and checked"; }
	mv -T "$pristine.new.$$" "$pristine" 2> /dev/null || rm -rf "$pristine.new.$$"
fi
root=$work/root
cp -a "$pristine" "$root" || die "cannot copy the chroot"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null
# no daemon starts in the chroot
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
cp "$deb" "$root/tmp/"
ok "fresh Debian $(cat "$root/etc/debian_version") chroot"

inroot() {	# CMD...: in the chroot, /proc /sys /dev bound in a private mount namespace
	unshare -m --propagation private sh -c '
		root=$1; shift
		mount --rbind /proc "$root/proc" && mount --rbind /sys "$root/sys" &&
		mount --rbind /dev "$root/dev" || exit 99
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' _ "$root" "$@"
}

inroot apt-get -q update > "$work/apt.log" 2>&1 ||
	{ tail -5 "$work/apt.log"; skip "apt-get update in the chroot failed (network?); the package built and checked"; }
inroot apt-get -q -y install "/tmp/${deb##*/}" > "$work/apt.log" 2>&1 ||
	{ tail -15 "$work/apt.log"; die "apt-get install of the package failed in the Debian 12 chroot"; }
ok "apt-get install ./${deb##*/}: $(grep -c '^Setting up' "$work/apt.log") packages set up"

mark
inroot /usr/sbin/offcpu-ftrace info > "$work/info" 2>&1 || fail "info exited $?: $(tail -2 "$work/info")"
grep -q '^backend runq: ' "$work/info" || fail "info printed no backend: $(head -3 "$work/info")"
okif "info as root: $(grep '^backend runq:' "$work/info" | cut -c1-100)"
# tracing: the live tests' lock, as they take it
exec 9> "${OFFCPU_LIVE_LOCK:-/tmp/offcpu-ftrace-live-tests.lock}"
flock 9 || die "cannot take the live lock"
inroot /usr/sbin/offcpu-ftrace runq --format=json 1 > "$work/runq.json" 2> "$work/runq.err"
rc=$?
flock -u 9
[ $rc = 0 ] || fail "runq 1 exited $rc: $(tail -2 "$work/runq.err")"
backend=$(sed -n 's/^{"command":"runq","backend":"\([a-z]*\)".*/\1/p' "$work/runq.json")
case $backend in
hist|ring|perf) ok "runq 1 as root in the chroot: backend $backend, $(grep -o '"count":[0-9]*' "$work/runq.json" | head -1)" ;;
*) fail "runq 1 as root: backend '${backend}', not a tracing one: $(head -c 300 "$work/runq.json") $(tail -2 "$work/runq.err")" ;;
esac
mark
inroot su nobody -s /bin/sh -c '/usr/sbin/offcpu-ftrace info' > "$work/info.nobody" 2>&1 ||
	fail "info as nobody exited $?: $(tail -2 "$work/info.nobody")"
grep -q '^backend runq: *proc' "$work/info.nobody" || fail "nobody does not get proc: $(grep '^backend runq' "$work/info.nobody")"
grep -q 'dpkg-statoverride --update --add root tracing 0750 /usr/sbin/offcpu-ftrace && setcap cap_perfmon' "$work/info.nobody" ||
	fail "info as nobody does not give the package's setup line: $(grep -A3 '^least privilege' "$work/info.nobody")"
okif "info as nobody: proc, and the package's setcap line"

mark
inroot dpkg -L offcpu-ftrace > "$work/list" || fail "dpkg -L failed"
for m in $MANS; do
	grep -qxF "/usr/share/man/man8/${m##*/}.gz" "$work/list" || fail "dpkg -L does not list ${m##*/}.gz"
done
for u in offcpu-ftrace-sample.service offcpu-ftrace-sample.timer; do
	grep -qE "/systemd/system/$u\$" "$work/list" || fail "dpkg -L does not list $u"
done
okif "dpkg -L lists the $(echo $MANS | wc -w) pages and the two units"
mark
[ -e "$root/etc/systemd/system/timers.target.wants/offcpu-ftrace-sample.timer" ] &&
	fail "the timer was enabled by the installation"
caps=$(getcap "$root/usr/sbin/offcpu-ftrace" 2> /dev/null)
[ -z "$caps" ] || fail "the package set capabilities: $caps"
perm=$(stat -c '%U:%G %a' "$root/usr/sbin/offcpu-ftrace")
[ "$perm" = "root:root 755" ] || fail "/usr/sbin/offcpu-ftrace is $perm"
okif "timer not enabled, no capabilities, root:root 755"

# an administrator's capabilities across an upgrade (a reinstall runs the same scripts)
inroot apt-get -q -y install libcap2-bin > "$work/apt.log" 2>&1 || die "apt-get install libcap2-bin failed"
inroot sh -c 'dpkg-statoverride --update --add root nogroup 0750 /usr/sbin/offcpu-ftrace &&
	setcap cap_perfmon,cap_syslog+ep /usr/sbin/offcpu-ftrace' || fail "the README.Debian setup failed"
inroot dpkg -i "/tmp/${deb##*/}" > "$work/dpkg.log" 2>&1 || fail "reinstall failed: $(tail -3 "$work/dpkg.log")"
caps=$(inroot getcap /usr/sbin/offcpu-ftrace)
perm=$(stat -c '%U:%G %a' "$root/usr/sbin/offcpu-ftrace")
case "$caps|$perm" in
*cap_perfmon*=ep*"|root:nogroup 750"|*cap_syslog*=ep*"|root:nogroup 750")
	case $caps in
	*cap_perfmon*cap_syslog*=ep*|*cap_syslog*cap_perfmon*=ep*)
		ok "a reinstall keeps the administrator's capabilities: ${caps#* } ($perm)" ;;
	*) fail "after a reinstall: '$caps', not cap_perfmon and cap_syslog" ;;
	esac ;;
*) fail "after a reinstall: '$caps' ($perm); $(grep offcpu-ftrace: "$work/dpkg.log")" ;;
esac
inroot sh -c 'dpkg-statoverride --remove /usr/sbin/offcpu-ftrace && chgrp nogroup /usr/sbin/offcpu-ftrace &&
	chmod 0750 /usr/sbin/offcpu-ftrace && setcap cap_perfmon+ep /usr/sbin/offcpu-ftrace' || fail "the chgrp setup failed"
inroot dpkg -i "/tmp/${deb##*/}" > "$work/dpkg.log" 2>&1 || fail "reinstall failed: $(tail -3 "$work/dpkg.log")"
caps=$(inroot getcap /usr/sbin/offcpu-ftrace)
perm=$(stat -c '%U:%G %a' "$root/usr/sbin/offcpu-ftrace")
if [ -z "$caps" ] && [ "$perm" = "root:root 755" ] && grep -q 'not set again' "$work/dpkg.log"; then
	ok "capabilities not set again on a binary the upgrade made world-executable (and said so)"
else
	fail "after a reinstall over chgrp/chmod: '$caps' ($perm): $(grep offcpu-ftrace: "$work/dpkg.log")"
fi

mark
inroot apt-get -q -y purge offcpu-ftrace > "$work/apt.log" 2>&1 || fail "purge failed: $(tail -3 "$work/apt.log")"
left=$(cd "$root" && ls -d usr/sbin/offcpu-ftrace usr/share/doc/offcpu-ftrace var/lib/offcpu-ftrace \
	lib/systemd/system/offcpu-ftrace-sample.timer usr/lib/systemd/system/offcpu-ftrace-sample.timer 2> /dev/null)
[ -z "$left" ] || fail "purge left: $left"
okif "purge removes it"

echo "check-deb.sh: $fails failed"
[ $fails = 0 ]
