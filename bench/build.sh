#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build bench/decode_bench.c against the project's built static libraries.
#
#   bench/build.sh [OUTDIR]      (default /tmp/offcpu-bench-build)
#
# Needs a built tree (./configure && make: libcore.a, libtracefs_backend.a).
# The libraries and headers are copied to OUTDIR/snap first, so a rebuild
# of the tree while this runs cannot hand the linker a half-written
# archive. Prints the path of the binary on stdout.
set -eu

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(dirname "$BENCH_DIR")
BUILD_DIR=${OFFCPU_BUILDDIR:-$SRC_DIR}
OUT=${1:-/tmp/offcpu-bench-build}
CC=${CC:-cc}

die() { echo "build.sh: $*" >&2; exit 1; }

for f in libcore.a libsched.a libhost.a libtracefs_backend.a config.h; do
	[ -r "$BUILD_DIR/$f" ] || die "$BUILD_DIR/$f missing: build the tree first (./configure && make)"
done
pkg-config --exists libtracefs libtraceevent libelf ||
	die "pkg-config cannot find libtracefs/libtraceevent/libelf (apt-get install -y libtracefs-dev libtraceevent-dev libelf-dev pkg-config)"

# A sanitizer build would measure the sanitizer, not the decoder.
if nm "$BUILD_DIR/libcore.a" "$BUILD_DIR/libsched.a" "$BUILD_DIR/libtracefs_backend.a" 2>/dev/null |
	grep -qE '__(asan|ubsan|tsan)_'; then
	die "the libraries are built with sanitizers: reconfigure without them to benchmark"
fi

# the layers decode_bench uses, headers and libraries, copied as they are now
mkdir -p "$OUT/snap/include"
cp "$BUILD_DIR/libcore.a" "$BUILD_DIR/libsched.a" "$BUILD_DIR/libhost.a" \
	"$BUILD_DIR/libtracefs_backend.a" "$BUILD_DIR/config.h" "$OUT/snap/"
for d in src/core src/sched src/host tracefs tracefs/include; do
	cp "$SRC_DIR/$d"/*.h "$OUT/snap/include/"
done

# -O2 as the tree's default CFLAGS; the code measured is the libraries'.
# shellcheck disable=SC2046 # pkg-config output is meant to be split
"$CC" -O2 -g -Wall -Wextra -Wno-unused-parameter \
	-include "$OUT/snap/config.h" -I"$OUT/snap/include" \
	$(pkg-config --cflags libtracefs libtraceevent) \
	-o "$OUT/decode_bench" "$BENCH_DIR/decode_bench.c" \
	"$OUT/snap/libtracefs_backend.a" "$OUT/snap/libsched.a" "$OUT/snap/libhost.a" \
	"$OUT/snap/libcore.a" \
	$(pkg-config --libs libtracefs libtraceevent libelf) -lm
echo "$OUT/decode_bench"
