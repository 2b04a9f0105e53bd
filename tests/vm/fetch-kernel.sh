#!/bin/bash
# fetch-kernel.sh SUITE
#
# Resolve the newest Debian cloud-amd64 kernel image of SUITE (bullseye,
# bookworm or trixie), download it into the cache once, extract its vmlinuz
# and print the vmlinuz path on stdout.
#
# The host's apt configuration and state are left alone: apt runs with a
# private sources list, state and cache directory under the cache dir.
#
# Environment:
#   OFFCPU_VM_CACHE            cache directory (default ~/.cache/offcpu-ftrace-vm)
#   OFFCPU_VM_REFRESH=1        ask the mirror again even if a kernel is cached
#   OFFCPU_VM_PACKAGE          exact package name to fetch instead of the newest
#                              (e.g. linux-image-6.1.0-57-cloud-amd64)
#   OFFCPU_VM_MIRROR           Debian mirror (default http://deb.debian.org/debian)
#   OFFCPU_VM_SECURITY_MIRROR  security mirror (default http://deb.debian.org/debian-security)
#   OFFCPU_VM_KEYRING          keyring (default /usr/share/keyrings/debian-archive-keyring.gpg)
#
# Exit status: 0 and the vmlinuz path on stdout; 77 (one line on stderr) when
# the packages cannot be reached or the tools are missing; 2 on usage error;
# 1 on any other failure.

set -euo pipefail

prog=${0##*/}

die() { echo "$prog: $*" >&2; exit 1; }
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
usage() { echo "usage: $prog bullseye|bookworm|trixie" >&2; exit 2; }

[ $# -eq 1 ] || usage
suite=$1
case $suite in
bullseye | bookworm | trixie) ;;
-h | --help) echo "usage: $prog bullseye|bookworm|trixie"; exit 0 ;;
*) usage ;;
esac

cache=${OFFCPU_VM_CACHE:-${HOME:-/root}/.cache/offcpu-ftrace-vm}
mirror=${OFFCPU_VM_MIRROR:-http://deb.debian.org/debian}
secmirror=${OFFCPU_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
keyring=${OFFCPU_VM_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
want=${OFFCPU_VM_PACKAGE:-}

suitedir=$cache/$suite
current=$suitedir/current

# vmlinuz_of PKGDIR: print the vmlinuz inside an extracted package dir.
vmlinuz_of() {
	local f
	for f in "$1"/vmlinuz-*; do
		[ -f "$f" ] && { printf '%s\n' "$f"; return 0; }
	done
	return 1
}

# Fast path: a kernel for this suite (or the pinned package) is cached.
if [ "${OFFCPU_VM_REFRESH:-0}" != 1 ]; then
	if [ -n "$want" ]; then
		pkg=$want
	elif [ -s "$current" ]; then
		pkg=$(cat "$current")
	else
		pkg=
	fi
	if [ -n "$pkg" ] && vmlinuz_of "$suitedir/$pkg"; then
		exit 0
	fi
fi

for tool in apt-get apt-cache dpkg-deb flock tar; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done
[ -r "$keyring" ] || skip "Debian archive keyring $keyring missing (apt-get install debian-archive-keyring)"

mkdir -p "$suitedir" || die "cannot create cache dir $suitedir"

# One fetcher per cache at a time; the second waits and then finds the cache.
exec 9>"$cache/.lock"
flock 9

# Private apt root: sources list, state and cache live here, and are removed
# afterwards (they are only needed to resolve and download one package).
aptdir=$(mktemp -d "$cache/.apt-$suite.XXXXXX")
trap 'rm -rf "$aptdir"' EXIT
mkdir -p "$aptdir/state/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/dl"

{
	echo "deb [signed-by=$keyring] $mirror $suite main"
	echo "deb [signed-by=$keyring] $mirror $suite-updates main"
	echo "deb [signed-by=$keyring] $secmirror $suite-security main"
} >"$aptdir/sources.list"

apt_opts=(
	-o "Dir::Etc::SourceList=$aptdir/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o Dir::Etc::Preferences=/dev/null
	-o Dir::Etc::PreferencesParts=/dev/null
	-o "Dir::State=$aptdir/state"
	-o "Dir::Cache=$aptdir/cache"
	-o APT::Architecture=amd64
	-o APT::Architectures::=amd64
	-o Debug::NoLocking=1
	-o APT::Sandbox::User=root
	-o Acquire::Retries=2
	-o Acquire::http::Timeout=30
	-o Acquire::Languages=none
)

echo "$prog: updating package lists for $suite" >&2
if ! apt-get "${apt_opts[@]}" -q update >"$aptdir/update.log" 2>&1; then
	skip "apt-get update for $suite failed: $(grep -m1 -E '^(E|W):' "$aptdir/update.log" || tail -n1 "$aptdir/update.log")"
fi
# apt-get update only warns when a mirror cannot be reached.
if grep -q -E '^(E|W): (Failed to fetch|Some index files failed)' "$aptdir/update.log"; then
	skip "cannot reach the Debian mirror for $suite: $(grep -m1 -E '^(E|W):' "$aptdir/update.log")"
fi

if [ -n "$want" ]; then
	pkg=$want
else
	# The metapackage depends on the newest ABI's image package.
	pkg=$(apt-cache "${apt_opts[@]}" depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -n1) || true
	if [ -z "$pkg" ]; then
		# Fallback: highest version-sorted name among the image packages.
		pkg=$(apt-cache "${apt_opts[@]}" search --names-only '^linux-image-[0-9].*-cloud-amd64$' 2>/dev/null |
			awk '{print $1}' | sort -V | tail -n1) || true
	fi
fi
case $pkg in
linux-image-[0-9]*-cloud-amd64) ;;
"") skip "no linux-image-*-cloud-amd64 package found in $suite (mirror unreachable?): $(grep -m1 -E '^(E|W):' "$aptdir/update.log" || echo 'empty package lists')" ;;
*) die "refusing to fetch unexpected package name '$pkg'" ;;
esac

if vmlinuz_of "$suitedir/$pkg" >/dev/null; then
	echo "$pkg" >"$current"
	vmlinuz_of "$suitedir/$pkg"
	exit 0
fi

echo "$prog: downloading $pkg" >&2
if ! (cd "$aptdir/dl" && apt-get "${apt_opts[@]}" -q download "$pkg") >"$aptdir/download.log" 2>&1; then
	if grep -q '^E: Unable to locate package' "$aptdir/download.log"; then
		die "package $pkg does not exist in $suite"
	fi
	skip "apt-get download $pkg failed: $(grep -m1 -E '^(E|W):' "$aptdir/download.log" || tail -n1 "$aptdir/download.log")"
fi
deb=
for f in "$aptdir"/dl/*.deb; do
	[ -f "$f" ] && deb=$f
done
[ -n "$deb" ] || die "apt-get download $pkg produced no .deb"

# Only ./boot is needed (vmlinuz, config, System.map); skip the modules.
mkdir -p "$aptdir/x"
dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$aptdir/x" ./boot ||
	die "cannot extract ./boot from $deb"
vmlinuz_of "$aptdir/x/boot" >/dev/null || die "$deb has no /boot/vmlinuz-*"

rm -rf "$suitedir/$pkg.tmp"
mkdir -p "$suitedir/$pkg.tmp"
cp -p "$aptdir"/x/boot/vmlinuz-* "$suitedir/$pkg.tmp/"
cp -p "$aptdir"/x/boot/config-* "$suitedir/$pkg.tmp/" 2>/dev/null || true
{
	echo "package: $pkg"
	dpkg-deb -f "$deb" Version | sed 's/^/version: /'
	echo "deb: ${deb##*/}"
	sha256sum "$deb" | awk '{print "sha256: " $1}'
	echo "fetched: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$suitedir/$pkg.tmp/package.txt"
rm -rf "${suitedir:?}/$pkg"
mv "$suitedir/$pkg.tmp" "$suitedir/$pkg"
echo "$pkg" >"$current"
echo "$prog: cached $pkg in $suitedir/$pkg" >&2
vmlinuz_of "$suitedir/$pkg"
