#!/usr/bin/env bash
# Runs the CTest suite once more with the C/C++ side built under AddressSanitizer and UBSan,
# against the release library cargo already built (TENON_LIB_DIR; builds it if missing).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmake
cd "$root"
libdir="${CARGO_TARGET_DIR:-$root/target}/release"
[ -f "$libdir/libtenon.so" ] || cargo build --release --lib
cmake -S examples_c -B build/asan -DCMAKE_BUILD_TYPE=Debug -DTENON_SANITIZE=ON \
  -DTENON_LIB_DIR="$libdir" >/dev/null
cmake --build build/asan -j 2
ctest --test-dir build/asan --output-on-failure
