# bullseye_root CACHE: print the path of a Debian 11 rootfs (debootstrap
# --variant=minbase bullseye, made once and cached in CACHE), or on
# failure the reason, with status 1. Sourced by check-static.sh and
# tests/container/check-container.sh.
bullseye_root() {
	local cache=$1 root=$1/bullseye
	if [ ! -x "$root/bin/sh" ]; then
		command -v debootstrap > /dev/null ||
			{ echo "no debootstrap (apt-get install debootstrap)"; return 1; }
		mkdir -p "$cache"
		rm -rf "$root.new"
		echo "debootstrap --variant=minbase bullseye (once, cached in $cache)" >&2
		debootstrap --variant=minbase bullseye "$root.new" http://deb.debian.org/debian \
			> "$cache/debootstrap.log" 2>&1 ||
			{ tail -5 "$cache/debootstrap.log" >&2; rm -rf "$root.new"
			  echo "debootstrap failed (network?)"; return 1; }
		mv "$root.new" "$root"
	fi
	echo "$root"
}
