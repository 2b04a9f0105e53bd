#!/bin/bash
# run-vm.sh [OPTIONS] SUITE SCRIPT [FILES...]
#
# Boot a Debian cloud kernel (SUITE = bullseye | bookworm | trixie, or a path
# to a vmlinuz/bzImage) under QEMU with a busybox initramfs, run SCRIPT inside
# the guest as /test.sh, stream the serial console to stdout and exit with the
# script's exit status.
#
# FILES are copied into the guest's /bin; for each ELF among them the shared
# libraries that ldd reports and the dynamic loader are copied too, at the
# same paths, so a dynamically linked program runs in the guest.
#
# Options:
#   --timeout SEC   kill the guest after SEC seconds (default 600; env
#                   OFFCPU_VM_TIMEOUT)
#   --log FILE      also write the console (CRs stripped) to FILE
#   --quiet         do not copy the console to stdout (only the summary)
#   --mem MB        guest memory (default 1024)
#   --smp N         guest vCPUs (default 2)
#   --append ARGS   extra kernel command-line arguments
#   --keep-initrd FILE  also save the generated initramfs to FILE
#
# Exit status: the guest script's status (0-255); 77 when qemu, busybox-static
# or cpio are missing or the kernel cannot be fetched; 124 when the guest timed
# out before reporting a status; 125 when the guest stopped without reporting
# one (kernel panic, init died, qemu failed); 2 on usage error; 1 on other
# harness errors.

set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
marker=OFFCPU_VM_STATUS

die() { echo "$prog: $*" >&2; exit 1; }
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
usage() {
	cat >&2 <<EOF
usage: $prog [--timeout SEC] [--log FILE] [--quiet] [--mem MB] [--smp N]
       [--append ARGS] [--keep-initrd FILE] SUITE SCRIPT [FILES...]
SUITE: bullseye | bookworm | trixie, or the path of a kernel image
EOF
	exit 2
}

timeout_s=${OFFCPU_VM_TIMEOUT:-600}
logfile=
quiet=0
mem=1024
smp=2
append_extra=
keep_initrd=
accel=${OFFCPU_VM_ACCEL:-tcg,thread=single}

while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || usage; timeout_s=$2; shift 2 ;;
	--timeout=*) timeout_s=${1#*=}; shift ;;
	--log) [ $# -ge 2 ] || usage; logfile=$2; shift 2 ;;
	--log=*) logfile=${1#*=}; shift ;;
	--quiet | -q) quiet=1; shift ;;
	--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	--smp) [ $# -ge 2 ] || usage; smp=$2; shift 2 ;;
	--append) [ $# -ge 2 ] || usage; append_extra=$2; shift 2 ;;
	--keep-initrd) [ $# -ge 2 ] || usage; keep_initrd=$2; shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "$prog: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage
suite=$1
script=$2
shift 2

case $timeout_s in '' | *[!0-9]*) die "--timeout wants whole seconds, not '$timeout_s'" ;; esac
case $mem in '' | *[!0-9]*) die "--mem wants megabytes, not '$mem'" ;; esac
case $smp in '' | *[!0-9]*) die "--smp wants a number, not '$smp'" ;; esac
[ -f "$script" ] || die "script $script not found"
for f in "$@"; do
	[ -f "$f" ] || die "file $f not found (only regular files can be copied)"
done

# --- prerequisites --------------------------------------------------------
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
command -v cpio >/dev/null 2>&1 || skip "cpio not found (apt-get install cpio)"
command -v gzip >/dev/null 2>&1 || skip "gzip not found"
command -v timeout >/dev/null 2>&1 || skip "timeout (coreutils) not found"
busybox=${OFFCPU_VM_BUSYBOX:-}
if [ -z "$busybox" ]; then
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] && { busybox=$b; break; }
	done
fi
if [ -z "$busybox" ] || [ ! -x "$busybox" ]; then
	skip "busybox not found (apt-get install busybox-static)"
fi
# A dynamically linked busybox (package busybox) would need its libc too.
if ldd "$busybox" >/dev/null 2>&1; then
	skip "$busybox is dynamically linked; install busybox-static"
fi
if [ "$#" -gt 0 ]; then
	command -v ldd >/dev/null 2>&1 || skip "ldd not found (libc-bin)"
fi

# --- kernel ---------------------------------------------------------------
case $suite in
bullseye | bookworm | trixie)
	set +e
	kernel=$("$here/fetch-kernel.sh" "$suite")
	rc=$?
	set -e
	case $rc in
	0) ;;
	77) skip "cannot fetch the $suite kernel (see above)" ;;
	*) die "fetch-kernel.sh $suite failed (status $rc)" ;;
	esac
	kpkg=$(sed -n 's/^package: //p' "$(dirname "$kernel")/package.txt" 2>/dev/null || true)
	;;
*)
	[ -f "$suite" ] || die "SUITE must be bullseye, bookworm, trixie or a kernel image path, not '$suite'"
	kernel=$suite
	kpkg=$(basename "$kernel")
	suite=custom
	;;
esac
[ -f "$kernel" ] || die "kernel image $kernel missing"

# --- initramfs ------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-vm.XXXXXX")
qpid=
readerpid=
# shellcheck disable=SC2317 # called through trap
cleanup() {
	if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; fi
	if [ -n "$readerpid" ]; then kill "$readerpid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
interrupted=0
trap 'interrupted=1; if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; fi' INT TERM HUP

root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,lib,lib64}
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
# Applet symlinks, at the paths busybox itself reports. perl (Essential in
# Debian) makes them in one process; the shell loop forks once per applet.
if command -v perl >/dev/null 2>&1; then
	"$busybox" --list-full | OFFCPU_VM_ROOT=$root perl -nle '
		next if $_ eq "" || $_ eq "bin/busybox";
		symlink("/bin/busybox", "$ENV{OFFCPU_VM_ROOT}/$_") or die "symlink $_: $!\n";
	' || die "cannot create the busybox applet links"
else
	"$busybox" --list-full | while read -r applet; do
		case $applet in
		"" | bin/busybox) continue ;;
		esac
		ln -sf /bin/busybox "$root/$applet"
	done
fi
[ -e "$root/bin/sh" ] || ln -s busybox "$root/bin/sh"

is_elf() {
	[ "$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n')" = 7f454c46 ]
}

# copy_libs ELF: copy what ldd says ELF needs, at the same absolute paths.
copy_libs() {
	local out lib
	# A static binary makes ldd fail with "not a dynamic executable".
	out=$(ldd "$1" 2>/dev/null) || return 0
	printf '%s\n' "$out" |
		sed -n -e 's/^.*=> \(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p' \
			-e 's/^[[:space:]]*\(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p' |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	if printf '%s\n' "$out" | grep -q 'not found'; then
		echo "$prog: warning: $1 has missing libraries:" >&2
		printf '%s\n' "$out" | grep 'not found' >&2
	fi
}

for f in "$@"; do
	dst=$root/bin/$(basename "$f")
	rm -f "$dst"
	cp -pL "$f" "$dst"
	if is_elf "$f"; then
		copy_libs "$f"
	fi
done

cp "$script" "$root/test.sh"
chmod 755 "$root/test.sh"

printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
printf 'offcpu-vm\n' >"$root/etc/hostname"
: >"$root/etc/fstab"
cat >"$root/etc/offcpu-vm.env" <<EOF
OFFCPU_VM_SUITE='$suite'
OFFCPU_VM_KERNEL_PKG='$kpkg'
export OFFCPU_VM_SUITE OFFCPU_VM_KERNEL_PKG
EOF

cat >"$root/init" <<'EOF'
#!/bin/sh
# /init of the offcpu-ftrace test VM (generated by tests/vm/run-vm.sh)
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing ||
	echo "init: cannot mount tracefs on /sys/kernel/tracing"
hostname -F /etc/hostname
ip link set lo up 2>/dev/null
# Keep kernel messages off the console so they do not split output lines.
echo 1 >/proc/sys/kernel/printk
. /etc/offcpu-vm.env
cd /
echo
echo "OFFCPU_VM_BOOTED uptime=$(cut -d' ' -f1 /proc/uptime)s cpus=$(nproc) kernel=$(uname -r)"
/bin/sh /test.sh </dev/null
rc=$?
sync
echo
echo "OFFCPU_VM_STATUS=$rc"
poweroff -f
sleep 5
# poweroff should not return; if it did, make the kernel panic (and
# qemu, started with -no-reboot and panic=-1, exit).
exit "$rc"
EOF
chmod 755 "$root/init"

initrd=$tmp/initrd.gz
(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$initrd"
[ -z "$keep_initrd" ] || cp "$initrd" "$keep_initrd"

# --- boot -----------------------------------------------------------------
console=$tmp/console.log
mkfifo "$tmp/fifo"
# Drop CRs and the terminal escapes (ESC c, ESC [ ... X) of SeaBIOS.
clean_console() {
	sed -u -e 's/\r$//' -e 's/\r/\n/g' -e 's/\x1bc//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g'
}
sinks=("$console")
[ -z "$logfile" ] || { : >"$logfile" || die "cannot write $logfile"; sinks+=("$logfile"); }
if [ "$quiet" = 1 ]; then
	clean_console <"$tmp/fifo" | tee "${sinks[@]}" >/dev/null &
else
	clean_console <"$tmp/fifo" | tee "${sinks[@]}" &
fi
readerpid=$!

cmdline="console=ttyS0 quiet panic=-1 oops=panic"
[ -z "$append_extra" ] || cmdline="$cmdline $append_extra"

echo "$prog: booting $suite ($kpkg) under $(basename "$qemu") -accel $accel -smp $smp -m $mem, timeout ${timeout_s}s" >&2
start=$(date +%s.%N)
# --foreground keeps qemu in our process group, so ^C reaches it too.
timeout --foreground -k 10 "$timeout_s" \
	"$qemu" -accel "$accel" -smp "$smp" -m "$mem" \
	-nographic -nodefaults -no-reboot -serial stdio -monitor none -nic none \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	</dev/null >"$tmp/fifo" &
qpid=$!
set +e
wait "$qpid"
qrc=$?
# A trapped signal interrupts wait: kill the guest and wait for real.
while [ "$interrupted" = 1 ] && kill -0 "$qpid" 2>/dev/null; do
	wait "$qpid"
	qrc=$?
done
set -e
qpid=
wait "$readerpid" 2>/dev/null || true
readerpid=
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

if [ "$interrupted" = 1 ]; then
	echo "$prog: interrupted" >&2
	exit 130
fi

# The firmware's last line may lose its newline when the kernel takes over
# the UART, so the boot line is looked for anywhere in a line.
booted=$(sed -n 's/^.*OFFCPU_VM_BOOTED uptime=\([0-9.]*\)s.*/\1/p' "$console" | tail -n1)
status=$(sed -n "s/^$marker=\([0-9]\{1,3\}\)\$/\1/p" "$console" | tail -n1)

if [ -z "$status" ] && [ "$quiet" = 1 ]; then
	echo "$prog: last console lines:" >&2
	tail -n 30 "$console" >&2
fi
if [ -z "$status" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "$prog: FAIL: $suite guest timed out after ${timeout_s}s without reporting a status" >&2
		exit 124
	fi
	echo "$prog: FAIL: $suite guest stopped after ${elapsed}s without reporting a status (qemu status $qrc)" >&2
	exit 125
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "$prog: warning: guest reported its status but did not power off; killed after ${timeout_s}s" >&2
elif [ "$qrc" != 0 ]; then
	echo "$prog: warning: qemu exited with status $qrc" >&2
fi
echo "$prog: $suite ($kpkg): guest userspace up at ${booted:-?}s guest uptime; script status $status; ${elapsed}s wall" >&2
exit "$status"
